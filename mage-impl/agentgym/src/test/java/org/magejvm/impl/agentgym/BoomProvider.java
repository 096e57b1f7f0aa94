package org.magejvm.impl.agentgym;

import java.util.List;
import java.util.Map;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.GameText;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StandardPromptRenderer;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.policy.RandomPolicy;

/** A test game: count to three with {@code inc}; the action {@code boom} makes the environment throw. */
final class BoomProvider extends BaseEnvironmentProvider<BoomProvider.Counter> {

  static final String ID = "boom-counter";

  BoomProvider() {
    super(settings(ID, "1")
        .setDefaults(EnvironmentDefaults.builder().setMaxTurns(5).setEpisodes(2).setStepGamma(1).setTrajGamma(1)
            .setInvalidPenalty(0).setLengthPenalty(0).setMaxResponseTokens(16).build())
        .addOption("start", "the starting count (default 0)")
        .addScriptedPolicy("random", RandomPolicy::new));
  }

  @Override
  protected Counter newEnvironment(Map<String, String> options) {
    return new Counter(Integer.parseInt(options.getOrDefault("start", "0")));
  }

  static final class Counter implements Environment {
    private static final PromptRenderer RENDERER = new StandardPromptRenderer(new GameText("Counter", "You count.",
        "Say inc.", "Reach three.", "Answer <action>inc</action>.", "Count.", "<action>inc</action>", "", "count"));
    private final int start;
    private int count = -1;

    Counter(int start) {
      this.start = start;
    }

    @Override
    public String id() {
      return ID;
    }

    @Override
    public String reset(long seed, Opponent opponent, Seat seat) {
      count = start;
      return observation();
    }

    @Override
    public String restart() {
      return reset(0, null, Seat.FIRST);
    }

    @Override
    public StepResult step(String response) {
      if (response.contains("boom")) {
        throw new IllegalStateException("boom: the counter exploded");
      }
      AnchorKey before = anchor();
      if (!response.contains("<action>inc</action>")) {
        return StepResult.invalid(observation(), 0, before, "", "say inc");
      }
      // read, wait, write: two unserialised steps would lose an increment, which the locking test would see
      int read = count;
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      count = read + 1;
      StepResult.Builder b = StepResult.valid(observation(), before, "inc");
      return count >= 3 ? b.optReward(1).optScore(1).optOutcome(Outcome.WON).build() : b.build();
    }

    @Override
    public String observation() {
      return "count " + count;
    }

    @Override
    public AnchorKey anchor() {
      return new AnchorKey(observation(), "");
    }

    @Override
    public List<String> legalActions() {
      return isDone() ? List.of() : List.of("inc");
    }

    @Override
    public Object state() {
      return count;
    }

    @Override
    public boolean isDone() {
      return count >= 3;
    }

    @Override
    public PromptRenderer promptRenderer() {
      return RENDERER;
    }
  }
}
