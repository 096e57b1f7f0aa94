package org.magejvm.impl.env.keeper;

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

/** Goalkeeper: rules, prompts, scripted keepers and the exact ceilings. */
class GoalkeeperTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();

  @Test
  void theStrikerKeepsItsSpotAndEveryPenaltyShowsWhereTheShotWent() {
    GoalkeeperEnvironment env = new GoalkeeperEnvironment(7);
    env.reset(42, null, null);
    int spot = env.striker();
    assertThat(spot).isEqualTo(GoalkeeperEnvironment.strikerSpot(42, 7)).isBetween(1, 7);
    int wrong = spot == 7 ? 6 : spot + 1;
    StepResult r = env.step("<action>" + wrong + "</action>");
    assertThat(r.actionValid()).isTrue();
    assertThat(r.won()).isFalse();
    assertThat(env.isDone()).isTrue();
    assertThat(env.observation()).isEqualTo("You dove to " + wrong + "; the shot went to " + spot + ".");
    env.restart();
    assertThat(env.striker()).isEqualTo(spot);
    assertThat(env.state().penalties()).containsExactly(new GoalkeeperEnvironment.Penalty(wrong, spot));
    assertThat(env.state().lastShot()).contains(spot);
    StepResult saved = env.step("I dive <action>" + spot + "</action>");
    assertThat(saved.reward()).isEqualTo(GoalkeeperEnvironment.WIN_REWARD);
    assertThat(saved.won()).isTrue();
    assertThat(saved.score()).isEqualTo(1.0);
    assertThat(new GoalkeeperEnvironment.Penalty(spot, spot).text()).isEqualTo("dove " + spot + ", saved");
    assertThatThrownBy(() -> env.step("<action>1</action>")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("restart()");
    // a new task forgets the penalties
    env.reset(43, null, null);
    assertThat(env.state().penalties()).isEmpty();
    assertThat(env.state().lastShot()).isEmpty();
  }

  @Test
  void unreadableAndOutOfRangeDivesAreInvalidAndNameTheProblem() {
    GoalkeeperEnvironment env = new GoalkeeperEnvironment(7);
    assertThatThrownBy(env::observation).hasMessageContaining("reset() was never called");
    env.reset(1, null, null);
    assertThat(env.step("<action>8</action>").actionValid()).isFalse();
    assertThat(GoalkeeperEnvironment.parse("<action>8</action>", 7).error()).contains("from 1 to 7, got 8");
    assertThat(GoalkeeperEnvironment.parse("<action>left</action>", 7).error()).contains("'left'");
    assertThat(GoalkeeperEnvironment.parse("4", 7).error()).contains("no <action>");
    assertThat(GoalkeeperEnvironment.parse("", 7).error()).contains("empty");
    assertThat(env.isDone()).isFalse();
    assertThatThrownBy(() -> new GoalkeeperEnvironment(1)).hasMessageContaining("spots must be >= 2");
    EnvironmentProvider p = REGISTRY.require(GoalkeeperProvider.ID);
    assertThatThrownBy(() -> p.create(Map.of("spots", "65"))).hasMessageContaining("'spots'")
        .hasMessageContaining("65");
    assertThatThrownBy(() -> p.create(Map.of("spots", "x"))).hasMessageContaining("'x'");
    assertThat(p.create(Map.of("spots", "3")).legalActions()).isEmpty();
    assertThat(p.scriptedPolicies()).containsExactly("random", "stay", "sweep", "follow", "random-plan");
    assertThat(p.twoPlayer()).isFalse();
  }

  @Test
  void theCeilingsAreTheFormulasForEveryGoalAndAttemptCount() {
    AttemptCeiling blind = GoalkeeperCeilings.historyBlind(7, 3);
    AttemptCeiling adaptive = GoalkeeperCeilings.adaptive(7, 3);
    assertRates(blind.passAt(), 1 / 7.0, 2 / 7.0, 3 / 7.0);
    assertRates(blind.perAttempt(), 1 / 7.0, 1 / 6.0, 1 / 5.0);
    assertRates(adaptive.passAt(), 1 / 7.0, 1.0, 1.0);
    assertThat(adaptive.perAttempt().get(0)).isCloseTo(1 / 7.0, within(1e-12));
    assertThat(adaptive.perAttempt().get(1)).isEqualTo(1.0);
    // nobody is left for the third attempt
    assertThat(adaptive.perAttempt().get(2)).isNaN();
    assertThat(adaptive.passAt().get(2) - blind.passAt().get(2)).isGreaterThan(0.5);
    for (int n = 2; n <= 20; n++) {
      for (int k = 1; k <= 4; k++) {
        assertThat(GoalkeeperCeilings.historyBlind(n, k).passAt().get(k - 1)).as("blind %d %d", n, k)
            .isCloseTo(Math.min(1.0, (double) k / n), within(1e-12));
        assertThat(GoalkeeperCeilings.adaptive(n, k).passAt().get(k - 1)).as("adaptive %d %d", n, k)
            .isCloseTo(k == 1 ? 1.0 / n : 1.0, within(1e-12));
      }
    }
  }

  /** No deterministic keeper does better than the ceilings (stochastic ones mix deterministic ones). */
  @Test
  void bruteForceOverEveryKeeperFindsNothingAboveTheCeilings() {
    for (int n = 2; n <= 6; n++) {
      for (int k = 1; k <= 3; k++) {
        // history-blind: every sequence of k dives
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
            .isCloseTo(GoalkeeperCeilings.historyBlind(n, k).passAt().get(k - 1), within(1e-12));
        // adaptive: every keeper whose dive is a function of what it has seen; every shot goes to the striker's
        // spot, so before attempt i > 0 it has seen that spot (and its own earlier dives, themselves functions of
        // it): a keeper is a first dive and, for each later attempt, a table from the spot seen to a dive
        if (n <= 4) {
          assertThat((double) bestKeeper(n, k) / n).as("adaptive %d %d", n, k)
              .isCloseTo(GoalkeeperCeilings.adaptive(n, k).passAt().get(k - 1), within(1e-12));
        }
      }
    }
  }

  /** The most striker spots any keeper (first dive, then a table per later attempt) saves within k attempts. */
  private static int bestKeeper(int n, int k) {
    int tables = (int) Math.pow(n, n);
    int combos = (int) Math.pow(tables, k - 1);
    int best = 0;
    for (int first = 1; first <= n; first++) {
      for (int code = 0; code < combos; code++) {
        int saved = 0;
        for (int striker = 1; striker <= n; striker++) {
          boolean save = first == striker;
          int c = code;
          for (int i = 1; i < k && !save; i++) {
            int table = c % tables;
            c /= tables;
            int dive = 1 + (table / (int) Math.pow(n, striker - 1)) % n;
            save = dive == striker;
          }
          saved += save ? 1 : 0;
        }
        best = Math.max(best, saved);
      }
    }
    return best;
  }

  @Test
  void theScriptedKeepersReachTheirCeilingsInRealRollouts() {
    Map<String, Number> follow = play("follow", ContextMode.HISTORY_ONLY);
    Map<String, Number> sweep = play("sweep", ContextMode.NONE);
    Map<String, Number> stay = play("stay", ContextMode.NONE);
    assertThat(follow.get("success_rate[1]").doubleValue()).isEqualTo(1.0);
    assertThat(follow.get("per_attempt_success[1]").doubleValue()).isEqualTo(1.0);
    // 700 meta-episodes: the rates are within sampling error of 3/7 and 1/7
    assertThat(sweep.get("success_rate[2]").doubleValue()).isCloseTo(3 / 7.0, within(0.06));
    assertThat(stay.get("success_rate[2]").doubleValue()).isCloseTo(1 / 7.0, within(0.05));
    assertThat(stay.get("per_attempt_success[1]").doubleValue()).isZero();
    assertThat(follow.get("invalid_action_rate").doubleValue()).isZero();
  }

  @Test
  void thePromptsShowEveryEarlierDiveAndWhereTheShotWent() {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(GoalkeeperProvider.ID).optTasks(1)
        .optGroupSize(1).optContextMode(ContextMode.HISTORY_ONLY).optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(16)).optSeed(5).build();
    try (LanguagePolicy stay = REGISTRY.require(GoalkeeperProvider.ID).scriptedPolicy("stay", 1)) {
      RolloutResult r = new MetaEpisodeRunner(REGISTRY).run(config, stay);
      var turns = r.metaEpisodes().get(0).turns();
      int spot = GoalkeeperEnvironment.strikerSpot(r.metaEpisodes().get(0).seed(), 7);
      // this seed's spot is not the middle one, so all three attempts are played
      assertThat(spot).isNotEqualTo(4);
      assertThat(turns).hasSize(3);
      assertThat(turns.get(2).prompt()).contains("Try 1: dove 4, shot " + spot)
          .contains("Try 2: dove 4, shot " + spot).contains("Try 3 now. Reply <action>N</action>.");
      assertThat(turns.get(0).prompt()).doesNotContain("Try 1:");
    }
    // without the history every attempt's prompt is the first one's (the runner shows no attempt index either)
    RolloutConfig none = RolloutConfig.builder().setEnvironmentId(GoalkeeperProvider.ID).optTasks(1)
        .optGroupSize(1).optContextMode(ContextMode.NONE).optPromptStyle(PromptStyle.VERBOSE)
        .optSampling(SamplingConfig.training(16)).optSeed(5).build();
    try (LanguagePolicy stay = REGISTRY.require(GoalkeeperProvider.ID).scriptedPolicy("stay", 1)) {
      var turns = new MetaEpisodeRunner(REGISTRY).run(none, stay).metaEpisodes().get(0).turns();
      assertThat(turns).hasSize(3);
      assertThat(turns.get(2).prompt()).isEqualTo(turns.get(0).prompt()).doesNotContain("# Earlier attempts")
          .contains("This is attempt #1");
    }
  }

  private static Map<String, Number> play(String policy, ContextMode context) {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(GoalkeeperProvider.ID).optTasks(700)
        .optGroupSize(1).optContextMode(context).optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(16)).optSeed(11).build();
    try (LanguagePolicy p = REGISTRY.require(GoalkeeperProvider.ID).scriptedPolicy(policy, 3)) {
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
