package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Seat;
import org.magejvm.impl.eval.Evaluation;
import org.magejvm.impl.eval.EvaluationConfig;
import org.magejvm.impl.eval.Evaluator;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The sanity experiment of the engine: against each deterministic archetype, a scripted player that switches its
 * line after a lost attempt ({@code adaptive}) does at least as well by the third attempt as one that repeats its
 * first line ({@code fixed-line}), strictly better wherever the fixed line is below the ceiling, and no player ever
 * wins a meta-episode whose deal is not winnable (spec 9.2's ceilings hold deal by deal).
 */
class KuhnAdaptationSanityTest {

  private static final int META_EPISODES = 300;
  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.empty().register(new KuhnPokerProvider());

  @ParameterizedTest(name = "{0} as {1}")
  @CsvSource({
    "conservative, FIRST, true",
    "conservative, SECOND, true",
    "aggressive, FIRST, false",
    "aggressive, SECOND, true",
    "intermediate, FIRST, true",
    "intermediate, SECOND, false",
    "cfr, FIRST, true",
    "cfr, SECOND, false"
  })
  void adaptiveBeatsFixedLineAndEveryoneStaysUnderTheCeiling(String opponentId, Seat seat, boolean strictlyAbove) {
    KuhnOpponent opponent = KuhnOpponents.byId(opponentId);
    Set<KuhnDeal> winnable = new HashSet<>(KuhnAnalysis.winnableDeals(opponent, seat));

    Evaluation adaptive = evaluate(opponentId, seat, KuhnLinePolicy.adaptive(1));
    Evaluation fixed = evaluate(opponentId, seat, KuhnLinePolicy.fixed(1));
    Evaluation nash = evaluate(opponentId, seat, KuhnStrategyPolicy.nash(1));

    // the adaptive player tries every distinct line within three attempts: it wins exactly the winnable deals
    for (MetaEpisode m : adaptive.rollout().metaEpisodes()) {
      assertThat(m.won()).as("seed %d deal %s", m.seed(), dealOf(m, opponent, seat))
          .isEqualTo(winnable.contains(dealOf(m, opponent, seat)));
    }
    // nobody wins an unwinnable deal
    for (Evaluation e : List.of(fixed, nash)) {
      for (MetaEpisode m : e.rollout().metaEpisodes()) {
        if (m.won()) {
          assertThat(winnable).contains(dealOf(m, opponent, seat));
        }
      }
    }
    double adaptive2 = adaptive.metrics().toMap().get("success_rate[2]").doubleValue();
    double fixed2 = fixed.metrics().toMap().get("success_rate[2]").doubleValue();
    double fixed0 = fixed.metrics().toMap().get("success_rate[0]").doubleValue();
    assertThat(fixed2).as("a fixed line cannot improve across attempts").isEqualTo(fixed0);
    if (strictlyAbove) {
      assertThat(adaptive2).isGreaterThan(fixed2 + 0.05);
    } else {
      // the fixed line already wins every winnable deal: both sit on the ceiling
      assertThat(adaptive2).isEqualTo(fixed2);
    }
  }

  private static Evaluation evaluate(String opponent, Seat seat, LanguagePolicy policy) {
    EvaluationConfig config = EvaluationConfig.builder()
        .setEnvironmentId(KuhnPokerProvider.ID)
        .optOpponent(opponent)
        .optSeat(seat)
        .optMetaEpisodes(META_EPISODES)
        .rollout(r -> r.optEpisodes(3).optSeed(2026))
        .build();
    return new Evaluator(REGISTRY).evaluate(config, policy);
  }

  private static KuhnDeal dealOf(MetaEpisode m, KuhnOpponent opponent, Seat seat) {
    KuhnPokerEnvironment env = new KuhnPokerEnvironment();
    env.reset(m.seed(), opponent, seat);
    return env.deal();
  }
}
