package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.magejvm.api.Episode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Seat;
import org.magejvm.impl.eval.Evaluation;
import org.magejvm.impl.eval.EvaluationConfig;
import org.magejvm.impl.eval.Evaluator;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The optimum of MAGE's training objective on Kuhn Poker. The expected figures were also computed by an independent
 * brute force (a Python script enumerating the hand strategies per attempt, not part of the build) and agree to the
 * last digit; the engine test below checks the Java player meta-episode by meta-episode against the real environment.
 */
class KuhnObjectiveOptimumTest {

  private static final double EPS = 1e-12;
  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.empty().register(new KuhnPokerProvider());

  @Test
  void theReferenceOptimumWinsEveryWinnableDealInItsFirstAttemptAndAdaptsInChipsOnly() {
    KuhnObjectiveOptimum optimum = KuhnObjectiveOptimum.reference();
    KuhnObjectiveOptimum.Outcome pool = optimum.expectedOverPool();
    assertThat(pool.successRate()).containsExactly(new double[] {7 / 12.0, 7 / 12.0, 7 / 12.0}, within(EPS));
    assertThat(pool.score()).containsExactly(new double[] {1 / 9.0, 7 / 18.0, 7 / 18.0}, within(EPS));

    Map<String, double[]> scores = Map.of("conservative", new double[] {1 / 12.0, 1 / 3.0, 1 / 3.0},
        "aggressive", new double[] {1 / 6.0, 1 / 2.0, 1 / 2.0},
        "intermediate", new double[] {1 / 12.0, 1 / 3.0, 1 / 3.0});
    for (String id : List.of("conservative", "aggressive", "intermediate")) {
      KuhnOpponent o = KuhnOpponents.byId(id);
      double winnable = (KuhnAnalysis.winnableDeals(o, Seat.FIRST).size()
          + KuhnAnalysis.winnableDeals(o, Seat.SECOND).size()) / 12.0;
      KuhnObjectiveOptimum.Outcome e = optimum.expected(o);
      assertThat(e.successRate()).as(id).containsExactly(new double[] {winnable, winnable, winnable}, within(EPS));
      assertThat(e.score()).as(id).containsExactly(scores.get(id), within(EPS));
    }
  }

  @Test
  void theTieRuleDoesNotChangeTheReferenceOutcome() {
    KuhnObjectiveOptimum.Outcome pass = KuhnObjectiveOptimum.reference().expectedOverPool();
    KuhnObjectiveOptimum.Outcome bet = KuhnObjectiveOptimum.of(referencePool(), 3, 0.95, 0.6, true).expectedOverPool();
    assertThat(bet.successRate()).containsExactly(pass.successRate(), within(EPS));
    assertThat(bet.score()).containsExactly(pass.score(), within(EPS));
  }

  @Test
  void withoutTheDiscountBetweenAttemptsTheOptimumLosesFirstAttemptsOnPurpose() {
    // trajGamma 1 is the paper's undiscounted final-episode objective: a lost first attempt then costs nothing, and
    // checking the Jack as player 0 first is strictly better than bluffing it (it keeps the bluff for later).
    KuhnObjectiveOptimum.Outcome e = KuhnObjectiveOptimum.of(referencePool(), 3, 0.95, 1.0, false).expectedOverPool();
    assertThat(e.successRate()).containsExactly(new double[] {7 / 18.0, 4 / 9.0, 7 / 12.0}, within(EPS));
    assertThat(e.score()).containsExactly(new double[] {-7 / 36.0, 1 / 36.0, 7 / 18.0}, within(EPS));
    KuhnObjectiveOptimum.Outcome viaReference = KuhnObjectiveOptimum.reference(1.0).expectedOverPool();
    assertThat(viaReference.successRate()).containsExactly(e.successRate(), within(EPS));
    assertThat(viaReference.score()).containsExactly(e.score(), within(EPS));
    assertThatThrownBy(() -> KuhnObjectiveOptimum.reference(1.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trajGamma");
  }

  @Test
  void decisionsOfTheReferenceOptimum() {
    KuhnObjectiveOptimum optimum = KuhnObjectiveOptimum.reference();
    KuhnAction b = KuhnAction.BET;
    KuhnAction p = KuhnAction.PASS;
    // player 0 bluffs the Jack first; after the bluff was called it checks and folds
    assertThat(optimum.action(KuhnCard.JACK, 0, List.of(), "")).isEqualTo(b);
    assertThat(optimum.action(KuhnCard.JACK, 0, List.of(List.of(b)), "")).isEqualTo(p);
    assertThat(optimum.action(KuhnCard.JACK, 0, List.of(List.of(b)), "pb")).isEqualTo(p);
    // player 0 checks and calls the Queen first; after the call lost it folds
    assertThat(optimum.action(KuhnCard.QUEEN, 0, List.of(), "")).isEqualTo(p);
    assertThat(optimum.action(KuhnCard.QUEEN, 0, List.of(), "pb")).isEqualTo(b);
    assertThat(optimum.action(KuhnCard.QUEEN, 0, List.of(List.of(p, b)), "pb")).isEqualTo(p);
    // the King calls
    assertThat(optimum.action(KuhnCard.KING, 1, List.of(), "b")).isEqualTo(b);
  }

  @ParameterizedTest(name = "{0} as {1}")
  @CsvSource({"conservative, FIRST", "conservative, SECOND", "aggressive, FIRST", "aggressive, SECOND",
      "intermediate, FIRST", "intermediate, SECOND", "cfr, FIRST", "cfr, SECOND"})
  void theScriptedPlayerPlaysTheOptimumThroughTheEnvironment(String opponentId, Seat seat) {
    KuhnObjectiveOptimum optimum = KuhnObjectiveOptimum.reference();
    KuhnOpponent opponent = KuhnOpponents.byId(opponentId);
    EvaluationConfig config = EvaluationConfig.builder()
        .setEnvironmentId(KuhnPokerProvider.ID)
        .optOpponent(opponentId)
        .optSeat(seat)
        .optMetaEpisodes(60)
        .rollout(r -> r.optEpisodes(3).optSeed(7))
        .build();
    Evaluation evaluation = new Evaluator(REGISTRY).evaluate(config,
        REGISTRY.require(KuhnPokerProvider.ID).scriptedPolicy(KuhnPokerProvider.OPTIMUM_POLICY, 0));
    int player = seat == Seat.FIRST ? 0 : 1;
    for (MetaEpisode m : evaluation.rollout().metaEpisodes()) {
      KuhnPokerEnvironment env = new KuhnPokerEnvironment();
      env.reset(m.seed(), opponent, seat);
      KuhnObjectiveOptimum.Outcome expected = optimum.play(opponent, env.deal(), player);
      List<Episode> episodes = m.episodes();
      int played = episodes.size();
      assertThat(m.won()).as("deal %s", env.deal()).isEqualTo(expected.successRate()[2] == 1);
      int firstWin = 0;
      while (firstWin < 3 && expected.successRate()[firstWin] == 0) {
        firstWin++;
      }
      assertThat(played).as("attempts played on deal %s", env.deal()).isEqualTo(Math.min(firstWin + 1, 3));
    }
  }

  @Test
  void mixedOpponentsAndBadSettingsAreRefusedByName() {
    Map<KuhnOpponent, Double> mixed = new LinkedHashMap<>(referencePool());
    mixed.put(KuhnOpponents.cfrMixed(), 1.0);
    assertThatThrownBy(() -> KuhnObjectiveOptimum.of(mixed, 3, 0.95, 0.6, false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'cfr-mixed'");
    assertThatThrownBy(() -> KuhnObjectiveOptimum.of(referencePool(), 0, 0.95, 0.6, false))
        .hasMessageContaining("attempts");
    assertThatThrownBy(() -> KuhnObjectiveOptimum.of(referencePool(), 3, 0, 0.6, false))
        .hasMessageContaining("stepGamma");
    assertThatThrownBy(() -> KuhnObjectiveOptimum.of(referencePool(), 3, 0.95, 1.5, false))
        .hasMessageContaining("trajGamma");
    Map<KuhnOpponent, Double> zero = Map.of(KuhnOpponents.conservative(), 0.0);
    assertThatThrownBy(() -> KuhnObjectiveOptimum.of(zero, 3, 0.95, 0.6, false))
        .hasMessageContaining("'conservative'").hasMessageContaining("weight");
    assertThatThrownBy(() -> KuhnObjectiveOptimum.reference().action(KuhnCard.JACK, 1, List.of(), ""))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("player 1");
  }

  private static Map<KuhnOpponent, Double> referencePool() {
    Map<KuhnOpponent, Double> pool = new LinkedHashMap<>();
    pool.put(KuhnOpponents.conservative(), 0.3);
    pool.put(KuhnOpponents.aggressive(), 0.3);
    pool.put(KuhnOpponents.intermediate(), 0.4);
    return pool;
  }
}
