package org.magejvm.examples.testenv;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Episode;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Outcome;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.policy.ScriptedPolicy;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.GameText;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StandardPromptRenderer;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.Tags;

/**
 * A two-player test game for the command line: guess the hidden number 1..3 (from the seed). A right guess wins
 * (+10); after a wrong guess the "greedy" opponent wins (-10) and the "patient" one waits. {@code pass} draws.
 * Option {@code explode_seed}: the environment with that task seed throws on its first step.
 */
public final class GuessProvider extends BaseEnvironmentProvider<Environment> {

  /** The id. */
  public static final String ID = "cli-guess";

  private static final GameText TEXT = new GameText("Guess", "You guess.", "Guess 1, 2 or 3.", "Guess right.",
      "Answer <action>N</action>.", "Guess 1-3.", "Reply <action>N</action>.", "", "table");

  /**
   * @param seed a task seed
   * @return the hidden number
   */
  public static int secretFor(long seed) {
    return 1 + (int) Long.remainderUnsigned(seed * 0x9E3779B97F4A7C15L >>> 7, 3);
  }

  /** The provider, as {@link java.util.ServiceLoader} creates it. */
  public GuessProvider() {
    super(settings(ID, "1")
        .setDefaults(EnvironmentDefaults.builder()
            .setMaxTurns(3).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
            .setInvalidPenalty(0.5).setLengthPenalty(2.0).setMaxResponseTokens(64)
            .build())
        .optOpponents(OpponentPool.builder().addOpponent(new Named("greedy"), 1).addOpponent(new Named("patient"), 1)
            .build())
        .optEvaluationOpponent("greedy")
        .addOption("explode_seed", "the task seed whose environment throws on its first step")
        .addScriptedPolicy("random", RandomPolicy::new)
        .addScriptedPolicy("learner", seed -> new ScriptedPolicy("learner", seed) {
          @Override
          protected String chooseAction(PolicyRequest request, Random random) {
            Set<String> wrong = new HashSet<>();
            for (Episode e : request.pastEpisodes()) {
              for (Turn t : e.turns()) {
                if (!t.won()) {
                  wrong.add(t.action());
                }
              }
            }
            for (String a : request.legalActions()) {
              if (!wrong.contains(a)) {
                return a;
              }
            }
            return "pass";
          }
        }));
  }

  @Override
  protected Environment newEnvironment(Map<String, String> options) {
    return new Guess(options.containsKey("explode_seed") ? Long.parseLong(options.get("explode_seed")) : -1);
  }

  /** An opponent known by its id. */
  record Named(String id) implements Opponent {}

  /** The environment. */
  static final class Guess implements Environment {
    private final long explodeSeed;
    private long seed;
    private String opponent;
    private int secret;
    private final List<String> tried = new ArrayList<>();
    private boolean done;

    Guess(long explodeSeed) {
      this.explodeSeed = explodeSeed;
    }

    @Override
    public String id() {
      return ID;
    }

    @Override
    public String reset(long seed, Opponent opponent, Seat seat) {
      this.seed = seed;
      this.opponent = opponent.id();
      this.secret = secretFor(seed);
      return restart();
    }

    @Override
    public String restart() {
      tried.clear();
      done = false;
      return observation();
    }

    @Override
    public StepResult step(String response) {
      if (seed == explodeSeed) {
        throw new IllegalStateException("kaboom");
      }
      AnchorKey anchor = anchor();
      String a = Tags.first(response, "action").map(String::strip).orElse("");
      if (!legalActions().contains(a)) {
        return StepResult.invalid(observation(), 0, anchor, a, "illegal");
      }
      if (a.equals("pass")) {
        done = true;
        return StepResult.valid(observation(), anchor, a).optOutcome(Outcome.DRAW).build();
      }
      if (Integer.parseInt(a) == secret) {
        done = true;
        return StepResult.valid("found", anchor, a).optReward(10).optScore(1).optOutcome(Outcome.WON).build();
      }
      tried.add(a);
      if (opponent.equals("greedy")) {
        done = true;
        return StepResult.valid(observation(), anchor, a).optReward(-10).optScore(-1).optOutcome(Outcome.LOST)
            .build();
      }
      return StepResult.valid(observation(), anchor, a).build();
    }

    @Override
    public String observation() {
      return "tried " + tried;
    }

    @Override
    public AnchorKey anchor() {
      return new AnchorKey(observation(), opponent);
    }

    @Override
    public List<String> legalActions() {
      List<String> out = new ArrayList<>();
      for (String a : List.of("1", "2", "3")) {
        if (!tried.contains(a)) {
          out.add(a);
        }
      }
      out.add("pass");
      return out;
    }

    @Override
    public Object state() {
      return List.copyOf(tried);
    }

    @Override
    public boolean isDone() {
      return done;
    }

    @Override
    public PromptRenderer promptRenderer() {
      return new StandardPromptRenderer(TEXT);
    }
  }
}
