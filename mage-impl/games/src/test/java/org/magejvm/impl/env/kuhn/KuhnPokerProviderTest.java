package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.StepResult;

class KuhnPokerProviderTest {

  private final KuhnPokerProvider provider = new KuhnPokerProvider();

  @Test
  void isDiscoveredThroughServiceLoader() {
    EnvironmentProvider found = EnvironmentRegistry.discover().require("mage-kuhn-poker");
    assertThat(found).isInstanceOf(KuhnPokerProvider.class);
    assertThat(found.version()).isEqualTo("0.1.0");
    assertThat(found.description()).isNotBlank();
    assertThat(found.twoPlayer()).isTrue();
  }

  @Test
  void referenceDefaultsAndEvaluationSetting() {
    assertThat(provider.defaults()).isEqualTo(EnvironmentDefaults.builder()
        .setMaxTurns(6).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
        .setInvalidPenalty(2.0).setLengthPenalty(2.0).setMaxResponseTokens(8192)
        .build());
    assertThat(provider.evaluationOpponent()).isEqualTo("cfr");
    assertThat(provider.evaluationSeat()).isEqualTo(Seat.SECOND);
    assertThat(provider.options()).containsOnlyKeys("reward");
  }

  @Test
  void trainingPoolAndHeldOutOpponents() {
    OpponentPool pool = provider.opponents();
    assertThat(pool.training()).extracting(e -> e.opponent().id())
        .containsExactly("conservative", "aggressive", "intermediate");
    assertThat(pool.training()).extracting(OpponentPool.Entry::weight).containsExactly(0.3, 0.3, 0.4);
    assertThat(pool.heldOut()).extracting(Opponent::id).containsExactly("cfr", "cfr-mixed");
    assertThat(pool.require(provider.evaluationOpponent())).isSameAs(KuhnOpponents.cfr());
    Map<String, Integer> counts = new HashMap<>();
    Random r = new Random(7);
    for (int i = 0; i < 10_000; i++) {
      counts.merge(pool.sample(r).id(), 1, Integer::sum);
    }
    assertThat(counts).doesNotContainKeys("cfr", "cfr-mixed");
    assertThat(counts.get("intermediate") / 10_000.0).isCloseTo(0.4, within(0.03));
  }

  @Test
  void acceptsOnlyTheRewardOption() {
    assertThat(provider.create(Map.of())).isInstanceOf(KuhnPokerEnvironment.class);
    assertThat(provider.create(null)).isInstanceOf(KuhnPokerEnvironment.class);
    assertThat(provider.options()).containsOnlyKeys("reward");
    assertThat(provider.create(Map.of("reward", "chips"))).isInstanceOf(KuhnPokerEnvironment.class);
    assertThat(provider.create(Map.of("reward", "win-loss"))).isInstanceOf(KuhnPokerEnvironment.class);
    assertThatThrownBy(() -> provider.create(Map.of("cards", "5")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cards").hasMessageContaining("reward");
    assertThatThrownBy(() -> provider.create(Map.of("reward", "money")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'reward'").hasMessageContaining("'money'")
        .hasMessageContaining("win-loss");
  }

  @Test
  void scriptedPolicies() {
    assertThat(provider.scriptedPolicies()).containsExactly("random", "nash", "adaptive", "fixed-line", "objective-optimum");
    assertThat(provider.scriptedPolicy("random", 1).name()).isEqualTo("random");
    assertThat(provider.scriptedPolicy("nash", 1).name()).isEqualTo("nash");
    assertThatThrownBy(() -> provider.scriptedPolicy("cfr", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'cfr'")
        .hasMessageContaining("random").hasMessageContaining("nash");
  }

  /** Plays hands with a scripted policy through the real prompt/parse path and returns the mean chips. */
  private static double meanChips(LanguagePolicy policy, KuhnOpponent opp, Seat seat, int hands) {
    KuhnPokerEnvironment env = new KuhnPokerProvider().create(Map.of());
    double chips = 0;
    for (int h = 0; h < hands; h++) {
      env.reset(h, opp, seat);
      StepResult r = null;
      int turn = 0;
      while (!env.isDone()) {
        PolicyRequest req = new PolicyRequest("prompt", Phase.PLAY, "w", 0, turn++, env.legalActions(),
            env.state(), List.of());
        Generation g = policy.generate(List.of(req), SamplingConfig.evaluation(16)).get(0);
        r = env.step(g.text());
        assertThat(r.actionValid()).isTrue();
      }
      chips += r.score();
    }
    return chips / hands;
  }

  @Test
  void nashPolicyPlaysItsStrategyThroughTheEnvironment() {
    // over many hands the mean matches the exact value of the equilibrium against the archetype
    KuhnStrategyTable nash = KuhnStrategyTable.nash(0);
    for (Seat seat : Seat.values()) {
      double exact = KuhnAnalysis.expectedValue(nash, KuhnOpponents.aggressive(), seat);
      double mean = meanChips(provider.scriptedPolicy("nash", 11), KuhnOpponents.aggressive(), seat, 6000);
      assertThat(mean).as(seat.label()).isCloseTo(exact, within(0.06));
    }
    // pure choices: the King always calls a bet, the Jack never does
    KuhnStrategyPolicy p = KuhnStrategyPolicy.nash(3);
    for (int i = 0; i < 20; i++) {
      assertThat(choose(p, new KuhnState(KuhnCard.KING, 1, "b", false, null, 0))).isEqualTo("<action>BET</action>");
      assertThat(choose(p, new KuhnState(KuhnCard.JACK, 0, "pb", false, null, 0)))
          .isEqualTo("<action>PASS</action>");
    }
    assertThatThrownBy(() -> choose(p, "not a state")).hasMessageContaining("KuhnState");
    assertThatThrownBy(() -> choose(p, new KuhnState(KuhnCard.KING, 1, "bb", true, KuhnCard.QUEEN, 2)))
        .hasMessageContaining("ended");
  }

  @Test
  void randomPolicyPlaysValidActions() {
    double mean = meanChips(provider.scriptedPolicy("random", 5), KuhnOpponents.conservative(), Seat.FIRST, 500);
    assertThat(mean).isBetween(-2.0, 2.0);
  }

  private static String choose(LanguagePolicy p, Object state) {
    PolicyRequest req = new PolicyRequest("prompt", Phase.PLAY, "w", 0, 0, List.of("PASS", "BET"), state, List.of());
    return p.generate(List.of(req), SamplingConfig.evaluation(16)).get(0).text();
  }
}
