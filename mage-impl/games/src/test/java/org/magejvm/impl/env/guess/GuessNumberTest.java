package org.magejvm.impl.env.guess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;

/** Guess the Number: rules, prompts, scripted players and the exact ceilings. */
class GuessNumberTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();

  @Test
  void aHiddenNumberStaysAcrossAttemptsAndEachWrongGuessLeavesAClue() {
    GuessNumberEnvironment env = new GuessNumberEnvironment(7);
    env.reset(42, null, null);
    int hidden = env.hidden();
    assertThat(hidden).isEqualTo(GuessNumberEnvironment.hiddenNumber(42, 7)).isBetween(1, 7);
    int wrong = hidden == 7 ? 6 : hidden + 1;
    StepResult r = env.step("<action>" + wrong + "</action>");
    assertThat(r.actionValid()).isTrue();
    assertThat(env.isDone()).isTrue();
    assertThat(env.observation()).isEqualTo("You guessed " + wrong + " is too high.");
    env.restart();
    assertThat(env.hidden()).isEqualTo(hidden);
    assertThat(env.state().clues()).containsExactly(new GuessNumberEnvironment.Clue(wrong, 1));
    assertThat(env.state().high()).isEqualTo(wrong - 1);
    StepResult right = env.step("I think <action>" + hidden + "</action>");
    assertThat(right.reward()).isEqualTo(GuessNumberEnvironment.WIN_REWARD);
    assertThat(right.won()).isTrue();
    // a new task forgets the clues
    env.reset(43, null, null);
    assertThat(env.state().clues()).isEmpty();
  }

  @Test
  void unreadableAndOutOfRangeGuessesAreInvalidAndNameTheProblem() {
    GuessNumberEnvironment env = new GuessNumberEnvironment(7);
    env.reset(1, null, null);
    assertThat(env.step("<action>8</action>").actionValid()).isFalse();
    assertThat(GuessNumberEnvironment.parse("<action>8</action>", 7).error()).contains("from 1 to 7, got 8");
    assertThat(GuessNumberEnvironment.parse("<action>four</action>", 7).error()).contains("'four'");
    assertThat(GuessNumberEnvironment.parse("4", 7).error()).contains("no <action>");
    assertThat(env.isDone()).isFalse();
    assertThatThrownBy(() -> new GuessNumberEnvironment(1)).hasMessageContaining("max must be >= 2");
    EnvironmentProvider p = REGISTRY.require(GuessNumberProvider.ID);
    assertThatThrownBy(() -> p.create(Map.of("max", "65"))).hasMessageContaining("'max'").hasMessageContaining("65");
    assertThatThrownBy(() -> p.create(Map.of("max", "x"))).hasMessageContaining("'x'");
    assertThat(p.scriptedPolicies()).containsExactly("random", "middle", "sweep", "bisect");
    assertThat(p.twoPlayer()).isFalse();
  }

  @Test
  void theCeilingsAreTheFormulasForEveryRangeAndAttemptCount() {
    AttemptCeiling blind = GuessNumberCeilings.historyBlind(7, 3);
    AttemptCeiling adaptive = GuessNumberCeilings.adaptive(7, 3);
    assertRates(blind.passAt(), 1 / 7.0, 2 / 7.0, 3 / 7.0);
    assertRates(blind.perAttempt(), 1 / 7.0, 1 / 6.0, 1 / 5.0);
    assertRates(adaptive.passAt(), 1 / 7.0, 3 / 7.0, 1.0);
    assertRates(adaptive.perAttempt(), 1 / 7.0, 1 / 3.0, 1.0);
    assertThat(adaptive.passAt().get(2) - blind.passAt().get(2)).isGreaterThan(0.5);
    for (int n = 2; n <= 20; n++) {
      for (int k = 1; k <= 4; k++) {
        assertThat(GuessNumberCeilings.historyBlind(n, k).passAt().get(k - 1)).as("blind %d %d", n, k)
            .isCloseTo(Math.min(1.0, (double) k / n), within(1e-12));
        assertThat(GuessNumberCeilings.adaptive(n, k).passAt().get(k - 1)).as("adaptive %d %d", n, k)
            .isCloseTo(Math.min(1.0, ((1 << k) - 1) / (double) n), within(1e-12));
      }
    }
  }

  /** No deterministic player does better than the ceilings (stochastic ones mix deterministic ones). */
  @Test
  void bruteForceOverEveryPlayerFindsNothingAboveTheCeilings() {
    for (int n = 2; n <= 9; n++) {
      for (int k = 1; k <= 3; k++) {
        // history-blind: every sequence of k guesses, each 1..n
        int best = 0;
        int sequences = (int) Math.pow(n, k);
        for (int code = 0; code < sequences; code++) {
          java.util.Set<Integer> covered = new java.util.HashSet<>();
          int c = code;
          for (int i = 0; i < k; i++) {
            covered.add(1 + c % n);
            c /= n;
          }
          best = Math.max(best, covered.size());
        }
        assertThat((double) best / n).as("blind %d %d", n, k)
            .isCloseTo(GuessNumberCeilings.historyBlind(n, k).passAt().get(k - 1), within(1e-12));
        // adaptive: every decision tree, by exhaustive recursion over the numbers the clues leave
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

  @Test
  void theScriptedPlayersReachTheirCeilingsInRealRollouts() {
    Map<String, Number> bisect = play("bisect", ContextMode.HISTORY_ONLY);
    Map<String, Number> sweep = play("sweep", ContextMode.NONE);
    Map<String, Number> middle = play("middle", ContextMode.NONE);
    assertThat(bisect.get("success_rate[2]").doubleValue()).isEqualTo(1.0);
    assertThat(bisect.get("per_attempt_success[2]").doubleValue()).isEqualTo(1.0);
    // 700 meta-episodes: the rates are within sampling error of 3/7 and 1/7
    assertThat(sweep.get("success_rate[2]").doubleValue()).isCloseTo(3 / 7.0, within(0.06));
    assertThat(middle.get("success_rate[2]").doubleValue()).isCloseTo(1 / 7.0, within(0.05));
    assertThat(middle.get("per_attempt_success[1]").doubleValue()).isZero();
    assertThat(bisect.get("invalid_action_rate").doubleValue()).isZero();
  }

  @Test
  void thePromptsShowEveryEarlierGuessWithItsClue() {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(GuessNumberProvider.ID).optTasks(1)
        .optGroupSize(1).optContextMode(ContextMode.HISTORY_ONLY).optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(16)).optSeed(5).build();
    try (LanguagePolicy middle = REGISTRY.require(GuessNumberProvider.ID).scriptedPolicy("middle", 1)) {
      RolloutResult r = new MetaEpisodeRunner(REGISTRY).run(config, middle);
      var turns = r.metaEpisodes().get(0).turns();
      int hidden = GuessNumberEnvironment.hiddenNumber(r.metaEpisodes().get(0).seed(), 7);
      // this seed's number is not the middle one, so all three attempts are played
      assertThat(hidden).isNotEqualTo(4);
      assertThat(turns).hasSize(3);
      String clue = 4 > hidden ? "4 is too high" : "4 is too low";
      assertThat(turns.get(2).prompt()).contains("Try 1: " + clue).contains("Try 2: " + clue)
          .contains("Try 3 now. Reply <action>N</action>.");
      assertThat(turns.get(0).prompt()).doesNotContain("Try 1:");
    }
  }

  private static Map<String, Number> play(String policy, ContextMode context) {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(GuessNumberProvider.ID).optTasks(700)
        .optGroupSize(1).optContextMode(context).optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(16)).optSeed(11).build();
    try (LanguagePolicy p = REGISTRY.require(GuessNumberProvider.ID).scriptedPolicy(policy, 3)) {
      RolloutResult r = new MetaEpisodeRunner(REGISTRY).run(config, p);
      return EvaluationMetrics.of(r.metaEpisodes(), 3).toMap();
    }
  }

  private static void assertRates(List<Double> actual, double... expected) {
    assertThat(actual).hasSize(expected.length);
    for (int i = 0; i < expected.length; i++) {
      assertThat(actual.get(i)).as("k=" + i).isCloseTo(expected[i], within(1e-12));
    }
  }
}
