package org.magejvm.impl.env.guess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptStyle;
import org.magejvm.testkit.HiddenNumberGameContract;

/** Guess the Number: rules, prompts, scripted players and the exact ceilings (the contract), and binary search. */
class GuessNumberTest extends HiddenNumberGameContract<GuessNumberEnvironment, GuessNumberEnvironment.State> {

  @Override
  protected String providerId() {
    return GuessNumberProvider.ID;
  }

  @Override
  protected GuessNumberEnvironment newEnvironment(int size) {
    return new GuessNumberEnvironment(size);
  }

  @Override
  protected int draw(long seed, int size) {
    return GuessNumberEnvironment.hiddenNumber(seed, size);
  }

  @Override
  protected ParsedAction<Integer> parse(String response, int size) {
    return GuessNumberEnvironment.parse(response, size);
  }

  @Override
  protected String sizeName() {
    return "max";
  }

  @Override
  protected List<String> scriptedPolicies() {
    return List.of("random", "middle", "sweep", "bisect");
  }

  @Override
  protected String middlePolicy() {
    return "middle";
  }

  @Override
  protected String adaptivePolicy() {
    return "bisect";
  }

  @Override
  protected String missed(int guess, int hidden) {
    return "You guessed " + guess + " is too high.";
  }

  @Override
  protected String historyLine(int guess, int hidden) {
    return guess > hidden ? guess + " is too high" : guess + " is too low";
  }

  @Override
  protected void checkEarlier(GuessNumberEnvironment.State state, int wrong, int hidden) {
    assertThat(state.clues()).containsExactly(new GuessNumberEnvironment.Clue(wrong, 1));
    assertThat(state.high()).isEqualTo(wrong - 1);
  }

  @Override
  protected void checkFresh(GuessNumberEnvironment.State state) {
    assertThat(state.clues()).isEmpty();
  }

  @Override
  protected Rates historyBlind(int max, int attempts) {
    AttemptCeiling c = GuessNumberCeilings.historyBlind(max, attempts);
    return new Rates(c.passAt(), c.perAttempt());
  }

  @Override
  protected Rates adaptive(int max, int attempts) {
    AttemptCeiling c = GuessNumberCeilings.adaptive(max, attempts);
    return new Rates(c.passAt(), c.perAttempt());
  }

  @Override
  protected double adaptiveFormula(int max, int attempts) {
    return Math.min(1.0, ((1 << attempts) - 1) / (double) max);
  }

  @Override
  protected List<MetaEpisode> rollout(String policy, long policySeed, ContextMode context, PromptStyle style,
      int tasks, long seed) {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(GuessNumberProvider.ID).optTasks(tasks)
        .optGroupSize(1).optContextMode(context).optPromptStyle(style)
        .optSampling(SamplingConfig.training(16)).optSeed(seed).build();
    try (LanguagePolicy p = REGISTRY.require(GuessNumberProvider.ID).scriptedPolicy(policy, policySeed)) {
      return new MetaEpisodeRunner(REGISTRY).run(config, p).metaEpisodes();
    }
  }

  @Override
  protected Map<String, Number> metrics(List<MetaEpisode> metaEpisodes) {
    return EvaluationMetrics.of(metaEpisodes, 3).toMap();
  }

  @Test
  void binarySearchFindsSevenNumbersInThreeGuesses() {
    AttemptCeiling adaptive = GuessNumberCeilings.adaptive(7, 3);
    assertRates(adaptive.passAt(), 1 / 7.0, 3 / 7.0, 1.0);
    assertRates(adaptive.perAttempt(), 1 / 7.0, 1 / 3.0, 1.0);
  }

  /** No deterministic player does better than binary search (stochastic ones mix deterministic ones). */
  @Test
  void bruteForceOverEveryDecisionTreeFindsNothingAboveTheAdaptiveCeiling() {
    for (int n = 2; n <= 9; n++) {
      for (int k = 1; k <= 3; k++) {
        // every decision tree, by exhaustive recursion over the numbers the clues leave
        assertThat((double) bestTree(1, n, n, k) / n).as("adaptive %d %d", n, k)
            .isCloseTo(GuessNumberCeilings.adaptive(n, k).passAt().get(k - 1), within(1e-12));
      }
    }
  }

  /** The most hidden numbers in low..high that k more guesses (any of 1..n each) can find. */
  private static int bestTree(int low, int high, int n, int k) {
    if (k == 0 || low > high) {
      return 0;
    }
    int best = 0;
    for (int g = 1; g <= n; g++) {
      int hit = g >= low && g <= high ? 1 : 0;
      int below = bestTree(low, Math.min(high, g - 1), n, k - 1);
      int above = bestTree(Math.max(low, g + 1), high, n, k - 1);
      best = Math.max(best, hit + below + above);
    }
    return best;
  }
}
