package org.magejvm.examples.host;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.magejvm.api.PolicyRequest;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.Tags;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.policy.ScriptedPolicy;
import org.magejvm.spi.small.HiddenNumberEnvironment;

/**
 * The host's own game, {@code hidden-door}: a prize is behind one of five doors, the same door in every attempt of a
 * meta-episode; each attempt is one pick, and a wrong pick is told whether the prize is further left or right. A
 * player that reads its earlier attempts always finds the prize within three; one that does not, at best with
 * probability 3/5. Registered through {@code META-INF/services/org.magejvm.spi.EnvironmentProvider}.
 *
 * <p>Scripted players: {@code random} (a uniform door each attempt) and {@code search} (the middle of the doors the
 * clues so far leave), whose answers warm-start the model.
 */
public final class HiddenDoorProvider extends BaseEnvironmentProvider<Environment> {

  /** The game's id. */
  public static final String ID = "hidden-door";
  /** The scripted player that searches with the clues. */
  public static final String SEARCH = "search";

  /** Creates the provider (ServiceLoader needs a public no-argument constructor). */
  public HiddenDoorProvider() {
    super(settings(ID, "1.0.0")
        .optDescription("a prize behind one of five doors; a wrong pick is told left or right (example host game)")
        .setDefaults(EnvironmentDefaults.builder().setMaxTurns(1).setEpisodes(3).setStepGamma(0.95)
            .setTrajGamma(0.6).setInvalidPenalty(2.0).setLengthPenalty(1.0).setMaxResponseTokens(16).build())
        .addScriptedPolicy("random", RandomPolicy::new)
        .addScriptedPolicy(SEARCH, Search::new));
  }

  @Override
  protected Environment newEnvironment(Map<String, String> options) {
    return new Game();
  }

  /** What a scripted player reads: the doors the clues so far leave, {@code low} to {@code high}. */
  record Clues(int low, int high) {}

  /** One pick and the prize's door; its text, which earlier attempts list, carries the clue: {@code 3 (go right)}. */
  record Pick(int door, int prize) implements HiddenNumberEnvironment.Feedback {
    @Override
    public boolean won() {
      return door == prize;
    }

    @Override
    public String text() {
      return door + (won() ? " (found)" : door < prize ? " (go right)" : " (go left)");
    }
  }

  /**
   * One meta-episode: the task seed hides the prize behind one of five doors, and {@link HiddenNumberEnvironment}
   * keeps it there for every attempt; the game says how a pick is read and judged and what the player sees.
   */
  static final class Game extends HiddenNumberEnvironment<Pick, Clues> {
    Game() {
      super(ID, new Terms("doors", "prize", "attempt"), 5);
    }

    @Override
    protected ParsedAction<Integer> parse(String response) {
      String text = Tags.first(response == null ? "" : response, "action").orElse("").strip();
      return text.matches("[1-5]") ? ParsedAction.of(Integer.parseInt(text), text)
          : ParsedAction.failure(text, "expected <action>N</action>, N from 1 to 5");
    }

    @Override
    protected Pick judge(int door, int prize) {
      return new Pick(door, prize);
    }

    @Override
    protected String question() {
      return "Doors 1 to 5.";
    }

    @Override
    protected String answered(Pick pick) {
      return "Door " + pick.door() + (pick.won() ? ": the prize." : ": empty.");
    }

    @Override
    protected Clues snapshot(List<Pick> earlier) {
      int low = 1;
      int high = 5;
      for (Pick p : earlier) {
        low = p.door() < p.prize() ? Math.max(low, p.door() + 1) : low;
        high = p.door() > p.prize() ? Math.min(high, p.door() - 1) : high;
      }
      return new Clues(low, high);
    }

    @Override
    public PromptRenderer promptRenderer() {
      return PROMPTS;
    }
  }

  /** One short prompt form: the earlier attempts the context shows, then the question. */
  private static final PromptRenderer PROMPTS = new PromptRenderer() {
    @Override
    public String renderPlay(PromptContext c) {
      StringBuilder sb = new StringBuilder("A prize is behind one of doors 1 to 5, the same door every try.\n");
      for (PastEpisode p : c.pastEpisodes()) {
        String pick = p.steps().isEmpty() ? "?" : p.steps().get(0).valid() ? p.steps().get(0).action() : "invalid";
        sb.append("Try ").append(p.index() + 1).append(": ").append(pick).append('\n');
        if (!p.reflection().isEmpty()) {
          sb.append("Lesson: ").append(p.reflection().strip()).append('\n');
        }
      }
      return sb.append("Pick a door: <action>N</action>").toString();
    }

    @Override
    public String renderReflect(PromptContext c) {
      return "Try " + (c.episodeIndex() + 1) + " missed the prize. Write a lesson inside <remark></remark>.";
    }
  };

  /** Picks the middle of the doors the clues leave. */
  private static final class Search extends ScriptedPolicy {
    Search(long seed) {
      super(SEARCH, seed);
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      Clues c = (Clues) request.state();
      return Integer.toString((c.low() + c.high()) / 2);
    }
  }
}
