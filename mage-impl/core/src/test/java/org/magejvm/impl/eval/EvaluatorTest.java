package org.magejvm.impl.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.magejvm.api.ContextMode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Seat;
import org.magejvm.impl.rollout.RolloutException;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.testkit.ToyDuel;
import org.magejvm.testkit.ToyDuelProvider;
import org.magejvm.testkit.ToyWalkProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.junit.jupiter.api.Test;

class EvaluatorTest {

  private final ToyDuelProvider duel = new ToyDuelProvider();
  private final Evaluator evaluator =
      new Evaluator(EnvironmentRegistry.empty().register(duel).register(new ToyWalkProvider()));

  private static EvaluationConfig.Builder config() {
    return EvaluationConfig.builder().setEnvironmentId(ToyDuelProvider.ID).optMetaEpisodes(30)
        .rollout(r -> r.optSeed(11));
  }

  private static double fraction(List<MetaEpisode> ms, java.util.function.IntPredicate secret) {
    return ms.stream().filter(m -> secret.test(ToyDuel.secretFor(m.seed()))).count() / (double) ms.size();
  }

  @Test
  void measuresAReflectingLearnerAgainstTheEvaluationOpponent() {
    Evaluation e = evaluator.evaluate(config().build(), duel.scriptedPolicy("learner", 1));
    List<MetaEpisode> ms = e.rollout().metaEpisodes();
    assertThat(ms).hasSize(30).allMatch(m -> m.opponentId().equals("greedy") && m.seat() == Seat.FIRST);
    assertThat(ms.stream().map(MetaEpisode::seed).distinct().count()).isGreaterThan(20);
    OutcomeRates r = e.metrics().overall();
    for (int k = 0; k < 3; k++) {
      final int kk = k;
      assertThat(r.successRate().get(k)).isCloseTo(fraction(ms, s -> s <= kk + 1), within(1e-12));
      assertThat(r.independentSuccessRate().get(k)).isCloseTo(fraction(ms, s -> s == kk + 1), within(1e-12));
    }
    assertThat(r.successRate().get(2)).isEqualTo(1.0);
    assertThat(r.successRate().get(0)).isBetween(0.05, 0.95);
    assertThat(e.metrics().byOpponent()).containsOnlyKeys("greedy");
    assertThat(e.rolloutConfig().groupSize()).isEqualTo(1);
    assertThat(e.rolloutConfig().tasks()).isEqualTo(30);
    assertThat(e.rolloutConfig().fixedOpponent()).hasValue("greedy");
    assertThat(e.rolloutConfig().seating()).isEqualTo(Seating.first());
    assertThat(e.rolloutConfig().sampling().orElseThrow().temperature()).isEqualTo(0.7);
  }

  @Test
  void blankContextAttemptsDoNotImprove() {
    Evaluation e = evaluator.evaluate(config().rollout(r -> r.optContextMode(ContextMode.NONE)).build(),
        duel.scriptedPolicy("learner", 1));
    double firstTry = fraction(e.rollout().metaEpisodes(), s -> s == 1);
    assertThat(e.metrics().overall().successRate()).allSatisfy(v -> assertThat(v).isCloseTo(firstTry, within(1e-12)));
    assertThat(e.metrics().reflectionTurns()).isZero();
  }

  @Test
  void honoursSeatAndOpponent() {
    Evaluation e = evaluator.evaluate(config().optSeat(Seat.SECOND).optOpponent("coin").build(),
        duel.scriptedPolicy("learner", 1));
    List<MetaEpisode> ms = e.rollout().metaEpisodes();
    assertThat(ms).allMatch(m -> m.seat() == Seat.SECOND && m.opponentId().equals("coin"));
    // the opening rules out the smallest wrong number, so only a hidden 3 needs a second guess
    assertThat(e.metrics().overall().successRate().get(0)).isGreaterThanOrEqualTo(fraction(ms, s -> s != 3));
  }

  @Test
  void reportsBadSettingsAndTotalFailure() {
    assertThatThrownBy(() -> evaluator.evaluate(EvaluationConfig.builder().setEnvironmentId(ToyWalkProvider.ID)
        .optOpponent("greedy").build(), duel.scriptedPolicy("learner", 1)))
        .hasMessageContaining("single-player");
    assertThatThrownBy(() -> evaluator.evaluate(config().optOpponent("nobody").build(),
        duel.scriptedPolicy("learner", 1)))
        .hasMessageContaining("unknown opponent 'nobody'").hasMessageContaining("coin");
    assertThatThrownBy(() -> evaluator.evaluate(config().rollout(r -> r.optEnvironmentOptions(
        java.util.Map.of("explode_at", "renderer"))).build(), duel.scriptedPolicy("learner", 1)))
        .isInstanceOf(RolloutException.class).hasMessageContaining("no meta-episode completed")
        .hasMessageContaining("no renderer today");
  }
}
