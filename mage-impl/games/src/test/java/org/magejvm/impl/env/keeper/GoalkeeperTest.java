package org.magejvm.impl.env.keeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptStyle;
import org.magejvm.testkit.HiddenNumberGameContract;

/** Goalkeeper: rules, prompts, scripted keepers and the exact ceilings (the contract), and the adaptive keeper. */
class GoalkeeperTest extends HiddenNumberGameContract<GoalkeeperEnvironment, GoalkeeperEnvironment.State> {

  @Override
  protected String providerId() {
    return GoalkeeperProvider.ID;
  }

  @Override
  protected GoalkeeperEnvironment newEnvironment(int size) {
    return new GoalkeeperEnvironment(size);
  }

  @Override
  protected int draw(long seed, int size) {
    return GoalkeeperEnvironment.strikerSpot(seed, size);
  }

  @Override
  protected ParsedAction<Integer> parse(String response, int size) {
    return GoalkeeperEnvironment.parse(response, size);
  }

  @Override
  protected String sizeName() {
    return "spots";
  }

  @Override
  protected List<String> scriptedPolicies() {
    return List.of("random", "stay", "sweep", "follow", "random-plan");
  }

  @Override
  protected String middlePolicy() {
    return "stay";
  }

  @Override
  protected String adaptivePolicy() {
    return "follow";
  }

  @Override
  protected String missed(int dive, int spot) {
    return "You dove to " + dive + "; the shot went to " + spot + ".";
  }

  @Override
  protected String historyLine(int dive, int spot) {
    return "dove " + dive + ", shot " + spot;
  }

  @Override
  protected void checkEarlier(GoalkeeperEnvironment.State state, int wrong, int spot) {
    assertThat(state.penalties()).containsExactly(new GoalkeeperEnvironment.Penalty(wrong, spot));
    assertThat(state.lastShot()).contains(spot);
    assertThat(new GoalkeeperEnvironment.Penalty(spot, spot).text()).isEqualTo("dove " + spot + ", saved");
  }

  @Override
  protected void checkFresh(GoalkeeperEnvironment.State state) {
    assertThat(state.penalties()).isEmpty();
    assertThat(state.lastShot()).isEmpty();
  }

  @Override
  protected Rates historyBlind(int spots, int attempts) {
    AttemptCeiling c = GoalkeeperCeilings.historyBlind(spots, attempts);
    return new Rates(c.passAt(), c.perAttempt());
  }

  @Override
  protected Rates adaptive(int spots, int attempts) {
    AttemptCeiling c = GoalkeeperCeilings.adaptive(spots, attempts);
    return new Rates(c.passAt(), c.perAttempt());
  }

  @Override
  protected double adaptiveFormula(int spots, int attempts) {
    return attempts == 1 ? 1.0 / spots : 1.0;
  }

  @Override
  protected List<MetaEpisode> rollout(String policy, long policySeed, ContextMode context, PromptStyle style,
      int tasks, long seed) {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(GoalkeeperProvider.ID).optTasks(tasks)
        .optGroupSize(1).optContextMode(context).optPromptStyle(style)
        .optSampling(SamplingConfig.training(16)).optSeed(seed).build();
    try (LanguagePolicy p = REGISTRY.require(GoalkeeperProvider.ID).scriptedPolicy(policy, policySeed)) {
      return new MetaEpisodeRunner(REGISTRY).run(config, p).metaEpisodes();
    }
  }

  @Override
  protected Map<String, Number> metrics(List<MetaEpisode> metaEpisodes) {
    return EvaluationMetrics.of(metaEpisodes, 3).toMap();
  }

  @Test
  void theAdaptiveKeeperSavesEveryPenaltyFromTheSecondOn() {
    AttemptCeiling adaptive = GoalkeeperCeilings.adaptive(7, 3);
    assertRates(adaptive.passAt(), 1 / 7.0, 1.0, 1.0);
    assertThat(adaptive.perAttempt().get(0)).isCloseTo(1 / 7.0, within(1e-12));
    assertThat(adaptive.perAttempt().get(1)).isEqualTo(1.0);
    // nobody is left for the third attempt
    assertThat(adaptive.perAttempt().get(2)).isNaN();
  }

  /**
   * No deterministic keeper does better than the adaptive ceiling (stochastic ones mix deterministic ones): every
   * keeper whose dive is a function of what it has seen. Every shot goes to the striker's spot, so before attempt i &gt;
   * 0 it has seen that spot (and its own earlier dives, themselves functions of it): a keeper is a first dive and, for
   * each later attempt, a table from the spot seen to a dive.
   */
  @Test
  void bruteForceOverEveryKeeperFindsNothingAboveTheAdaptiveCeiling() {
    for (int n = 2; n <= 4; n++) {
      for (int k = 1; k <= 3; k++) {
        assertThat((double) bestKeeper(n, k) / n).as("adaptive %d %d", n, k)
            .isCloseTo(GoalkeeperCeilings.adaptive(n, k).passAt().get(k - 1), within(1e-12));
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
  void withoutTheHistoryEveryAttemptsPromptIsTheFirstOnes() {
    // the runner shows no attempt index either
    List<Turn> turns = rollout("stay", 1, ContextMode.NONE, PromptStyle.VERBOSE, 1, 5).get(0).turns();
    assertThat(turns).hasSize(3);
    assertThat(turns.get(2).prompt()).isEqualTo(turns.get(0).prompt()).doesNotContain("# Earlier attempts")
        .contains("This is attempt #1");
  }
}
