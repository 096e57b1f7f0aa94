package org.magejvm.impl.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.magejvm.api.ContextMode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.impl.rollout.ReflectionControl;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.testkit.ToyDuelProvider;
import org.magejvm.testkit.ToyWalkProvider;

class EvaluationSuiteTest {

  private final ToyDuelProvider duel = new ToyDuelProvider();
  private final EnvironmentRegistry registry =
      EnvironmentRegistry.empty().register(duel).register(new ToyWalkProvider());
  private final EvaluationSets sets = new EvaluationSets(List.of("greedy", "patient"), "coin", Seat.SECOND,
      Seating.of(Seat.FIRST));

  private EvaluationSuite suite(EvaluationSets s, String env, EvaluationSuite.TaskSeeds seeds) {
    RolloutConfig template = RolloutConfig.builder().setEnvironmentId(env).optTasks(6).build();
    return new EvaluationSuite(registry, s, template, SamplingConfig.evaluation(8), 5, seeds);
  }

  @Test
  void theSetsAreThePoolThenTheHeldOutOpponentOrOneSetWithoutOpponents() {
    assertThat(sets.names()).containsExactly("greedy", "patient", "coin");
    assertThat(sets.hasOpponents()).isTrue();
    assertThat(sets.seating("coin")).isEqualTo(Seating.of(Seat.SECOND));
    assertThat(sets.seating("greedy")).isEqualTo(Seating.of(Seat.FIRST));
    EvaluationSets none = new EvaluationSets(List.of(), "", Seat.FIRST, Seating.first());
    assertThat(none.names()).containsExactly(EvaluationSets.ALL);
    assertThat(none.hasOpponents()).isFalse();
  }

  @Test
  void severalHeldOutOpponentsAreASetEachFromTheirSeatAndNoOpponentIsNamedTwice() {
    EvaluationSets two = new EvaluationSets(List.of("greedy"), List.of("patient", "coin"), Seat.SECOND,
        Seating.of(Seat.FIRST));
    assertThat(two.names()).containsExactly("greedy", "patient", "coin");
    assertThat(two.seating("patient")).isEqualTo(Seating.of(Seat.SECOND));
    assertThat(two.seating("greedy")).isEqualTo(Seating.of(Seat.FIRST));
    assertThat(sets.heldOut()).containsExactly("coin");
    assertThatThrownBy(() -> new EvaluationSets(List.of("greedy", "coin"), List.of("coin"), Seat.SECOND,
        Seating.of(Seat.FIRST))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("coin");
  }

  @Test
  void eachSetPlaysItsOpponentFromItsSeatWithTheSameSeedsForEveryPolicy() {
    EvaluationSuite s = suite(sets, ToyDuelProvider.ID, EvaluationSuite.TaskSeeds.DERIVED);
    Map<String, RolloutResult> played = s.play(duel.scriptedPolicy("learner", 1), ContextMode.HISTORY_ONLY,
        ReflectionControl.OWN);
    assertThat(played).containsOnlyKeys("greedy", "patient", "coin");
    for (Map.Entry<String, RolloutResult> e : played.entrySet()) {
      Seat seat = e.getKey().equals("coin") ? Seat.SECOND : Seat.FIRST;
      assertThat(e.getValue().metaEpisodes()).hasSize(6)
          .allMatch(m -> m.opponentId().equals(e.getKey()) && m.seat() == seat);
    }
    // another policy meets the same tasks
    Map<String, RolloutResult> again = s.play(duel.scriptedPolicy("stubborn", 2), ContextMode.HISTORY_ONLY,
        ReflectionControl.OWN);
    assertThat(seeds(again.get("patient"))).isEqualTo(seeds(played.get("patient")));

    EvaluationSuite.Result r = s.evaluate(duel.scriptedPolicy("learner", 1), ContextMode.HISTORY_ONLY,
        ReflectionControl.OWN);
    assertThat(r.toMaps().keySet()).containsExactly("greedy", "patient", "coin");
    assertThat(r.metrics("coin").metaEpisodes()).isEqualTo(6);
    assertThat(r.toMaps().get("greedy")).isEqualTo(r.metrics("greedy").toMap());
    assertThat(s.scripted("learner").toMaps()).isEqualTo(r.toMaps());
    assertThatThrownBy(() -> r.metrics("nobody")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nobody");
  }

  @Test
  void chosenTaskSeedsReplaceTheDerivedOnes() {
    EvaluationSets none = new EvaluationSets(List.of(), "", Seat.FIRST, Seating.first());
    List<Long> chosen = List.of(101L, 102L, 103L, 104L);
    EvaluationSuite s = suite(none, ToyWalkProvider.ID, base -> Optional.of(chosen));
    RolloutResult r = s.play(registry.require(ToyWalkProvider.ID).scriptedPolicy("random", 1), ContextMode.NONE,
        ReflectionControl.OWN).get(EvaluationSets.ALL);
    assertThat(seeds(r)).containsExactlyElementsOf(chosen);
  }

  private static List<Long> seeds(RolloutResult r) {
    return r.metaEpisodes().stream().map(MetaEpisode::seed).toList();
  }
}
