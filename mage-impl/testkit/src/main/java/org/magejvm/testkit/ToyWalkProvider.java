package org.magejvm.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.Seat;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.policy.ScriptedPolicy;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.GameText;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StandardPromptRenderer;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.Tags;

/**
 * A single-player test game: walk from cell 0 to the goal cell (1..3, from the seed) with {@code left}/{@code
 * right}. Every step costs -0.1; reaching the goal pays +10 and wins. {@code left} at cell 0 is invalid.
 */
public final class ToyWalkProvider extends BaseEnvironmentProvider<Environment> {

  /** The id. */
  public static final String ID = "toy-walk";
  /** The defaults: 3 turns, 2 episodes, 0.95/0.9, invalid 0.5, length 1.0, 8 tokens. */
  public static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(3).setEpisodes(2).setStepGamma(0.95).setTrajGamma(0.9)
      .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(8)
      .build();

  private static final GameText TEXT = new GameText("Toy Walk", "You walk.", "Move left or right.",
      "Reach the goal.", "Answer <action>left</action> or <action>right</action>.", "Walk to G.",
      "Reply <action>left|right</action>.", "", "line");

  /**
   * @param seed a task seed
   * @return the goal cell of that task
   */
  public static int goalFor(long seed) {
    return 1 + (int) Long.remainderUnsigned(seed, 3);
  }

  /** The provider, as {@link java.util.ServiceLoader} creates it. */
  public ToyWalkProvider() {
    super(settings(ID, "1")
        .setDefaults(DEFAULTS)
        .addScriptedPolicy("random", RandomPolicy::new)
        .addScriptedPolicy("right", seed -> new ScriptedPolicy("right", seed) {
          @Override
          protected String chooseAction(PolicyRequest request, Random random) {
            return "right";
          }
        }));
  }

  @Override
  protected Environment newEnvironment(Map<String, String> options) {
    return new Walk();
  }

  /** The environment. */
  static final class Walk implements Environment {
    private int goal;
    private int position;
    private boolean done;
    private boolean started;

    @Override
    public String id() {
      return ID;
    }

    @Override
    public String reset(long seed, Opponent opponent, Seat seat) {
      if (opponent != null) {
        throw new IllegalArgumentException("toy-walk has no opponent, got " + opponent.id());
      }
      goal = goalFor(seed);
      started = true;
      return restart();
    }

    @Override
    public String restart() {
      if (!started) {
        throw new IllegalStateException("restart before reset");
      }
      position = 0;
      done = false;
      return observation();
    }

    @Override
    public StepResult step(String response) {
      if (done) {
        throw new IllegalStateException("episode over");
      }
      AnchorKey anchor = anchor();
      String a = Tags.first(response, "action").map(String::strip).orElse("");
      if (!legalActions().contains(a)) {
        return StepResult.invalid(observation(), 0, anchor, a, "illegal");
      }
      position += a.equals("right") ? 1 : -1;
      if (position == goal) {
        done = true;
        return StepResult.valid(observation(), anchor, a).optReward(10).optScore(1).optOutcome(Outcome.WON).build();
      }
      return StepResult.valid(observation(), anchor, a).optReward(-0.1).build();
    }

    @Override
    public String observation() {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i <= 3; i++) {
        sb.append(i == position ? 'P' : i == goal ? 'G' : '_');
      }
      return sb.toString();
    }

    @Override
    public AnchorKey anchor() {
      return new AnchorKey(observation(), "");
    }

    @Override
    public List<String> legalActions() {
      List<String> out = new ArrayList<>();
      if (position > 0) {
        out.add("left");
      }
      out.add("right");
      return out;
    }

    @Override
    public Object state() {
      return position;
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
