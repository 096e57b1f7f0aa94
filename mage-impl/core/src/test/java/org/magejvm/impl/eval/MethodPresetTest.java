package org.magejvm.impl.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.magejvm.api.ContextMode;
import org.magejvm.api.Grouping;
import org.magejvm.api.MetaReturn;
import org.magejvm.impl.rollout.OpponentSampling;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.testkit.ToyDuelProvider;
import org.magejvm.testkit.ToyWalkProvider;
import org.junit.jupiter.api.Test;

class MethodPresetTest {

  private final ToyDuelProvider duel = new ToyDuelProvider();

  @Test
  void mageTrainsMetaEpisodesWithDifferentialReturnsInStationaryGroups() {
    RolloutConfig r = MethodPreset.MAGE.trainingRollout(duel).build();
    assertThat(r.environmentId()).isEqualTo("toy-duel");
    assertThat(r.tasks()).isEqualTo(16);
    assertThat(r.groupSize()).isEqualTo(8);
    assertThat(r.episodes()).hasValue(3);
    assertThat(r.contextMode()).isEqualTo(ContextMode.REFLECTION_ONLY);
    assertThat(r.seating()).isEqualTo(Seating.mixed(0.5));
    assertThat(r.opponentSampling()).isEqualTo(OpponentSampling.PER_GROUP);
    assertThat(r.sampling().orElseThrow().temperature()).isEqualTo(1.0);
    assertThat(MethodPreset.MAGE.credit(duel.defaults()).metaReturn()).isEqualTo(MetaReturn.DIFFERENTIAL);
    assertThat(MethodPreset.MAGE.optimizerId()).hasValue("gigpo");
    assertThat(MethodPreset.MAGE.optimizerConfig().grouping()).isEqualTo(Grouping.OPPONENT_STATIONARY);
    assertThat(MethodPreset.LAMER.credit(duel.defaults()).metaReturn()).isEqualTo(MetaReturn.CUMULATIVE);
  }

  @Test
  void singleEpisodeBaselinesTrainOnOneEpisodeAndAreEvaluatedOnBlankAttempts() {
    RolloutConfig r = MethodPreset.GIGPO.trainingRollout(duel).build();
    assertThat(r.episodes()).hasValue(1);
    assertThat(r.groupSize()).isEqualTo(24);
    assertThat(r.contextMode()).isEqualTo(ContextMode.NONE);
    assertThat(MethodPreset.GIGPO.credit(duel.defaults()).metaReturn()).isEqualTo(MetaReturn.SINGLE_EPISODE);
    assertThat(MethodPreset.GRPO.optimizerId()).hasValue("grpo");
    EvaluationConfig e = MethodPreset.GIGPO.evaluation(duel).build();
    assertThat(e.rollout().episodes()).hasValue(3);
    assertThat(e.rollout().contextMode()).isEqualTo(ContextMode.NONE);
    assertThat(e.metaEpisodes()).isEqualTo(128);
    assertThat(MethodPreset.REACT.evaluation(duel).build().rollout().contextMode()).isEqualTo(ContextMode.NONE);
    assertThat(MethodPreset.REFLEXION.evaluation(duel).build().rollout().contextMode())
        .isEqualTo(ContextMode.REFLECTION_ONLY);
  }

  @Test
  void promptingMethodsDoNotTrain() {
    assertThat(MethodPreset.REACT.trains()).isFalse();
    assertThat(MethodPreset.REFLEXION.optimizerId()).isEmpty();
    assertThatThrownBy(() -> MethodPreset.REFLEXION.trainingRollout(duel))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("'reflexion' does not train");
  }

  @Test
  void singlePlayerTrainingSitsFirstAndParsingNamesThePresets() {
    assertThat(MethodPreset.MAGE.trainingRollout(new ToyWalkProvider()).build().seating())
        .isEqualTo(Seating.first());
    assertThat(MethodPreset.parse(" LaMer ")).isEqualTo(MethodPreset.LAMER);
    assertThatThrownBy(() -> MethodPreset.parse("ppo"))
        .hasMessageContaining("unknown method preset 'ppo'")
        .hasMessageContaining("react, reflexion, grpo, gigpo, lamer, mage");
  }
}
