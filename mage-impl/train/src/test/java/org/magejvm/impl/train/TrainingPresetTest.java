package org.magejvm.impl.train;

import org.magejvm.api.ConfigException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.magejvm.api.ContextMode;
import org.magejvm.api.Grouping;
import org.magejvm.api.MetaReturn;
import org.magejvm.impl.eval.EvaluationConfig;
import org.magejvm.impl.rollout.OpponentSampling;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.testkit.ToyDuelProvider;
import org.magejvm.testkit.ToyWalkProvider;
import org.junit.jupiter.api.Test;

class TrainingPresetTest {

  // one preset type: each training preset is also a method with its rollout, credit, optimizer and evaluation

  private final ToyDuelProvider duel = new ToyDuelProvider();

  @Test
  void mageTrainsMetaEpisodesWithDifferentialReturnsInStationaryGroups() {
    RolloutConfig r = TrainingPreset.MAGE.trainingRollout(duel).build();
    assertThat(r.environmentId()).isEqualTo("toy-duel");
    assertThat(r.tasks()).isEqualTo(16);
    assertThat(r.groupSize()).isEqualTo(8);
    assertThat(r.episodes()).hasValue(3);
    assertThat(r.contextMode()).isEqualTo(ContextMode.REFLECTION_ONLY);
    assertThat(r.seating()).isEqualTo(Seating.mixed(0.5));
    assertThat(r.opponentSampling()).isEqualTo(OpponentSampling.PER_GROUP);
    assertThat(r.sampling().orElseThrow().temperature()).isEqualTo(1.0);
    assertThat(TrainingPreset.MAGE.credit(duel.defaults()).metaReturn()).isEqualTo(MetaReturn.DIFFERENTIAL);
    assertThat(TrainingPreset.MAGE.optimizerId()).hasValue("gigpo");
    assertThat(TrainingPreset.MAGE.optimizerConfig().grouping()).isEqualTo(Grouping.OPPONENT_STATIONARY);
    assertThat(TrainingPreset.LAMER.credit(duel.defaults()).metaReturn()).isEqualTo(MetaReturn.CUMULATIVE);
  }

  @Test
  void singleEpisodeBaselinesTrainOnOneEpisodeAndAreEvaluatedOnBlankAttempts() {
    RolloutConfig r = TrainingPreset.GIGPO.trainingRollout(duel).build();
    assertThat(r.episodes()).hasValue(1);
    assertThat(r.groupSize()).isEqualTo(24);
    assertThat(r.contextMode()).isEqualTo(ContextMode.NONE);
    assertThat(TrainingPreset.GIGPO.credit(duel.defaults()).metaReturn()).isEqualTo(MetaReturn.SINGLE_EPISODE);
    assertThat(TrainingPreset.GRPO.optimizerId()).hasValue("grpo");
    EvaluationConfig e = TrainingPreset.GIGPO.evaluation(duel).build();
    assertThat(e.rollout().episodes()).hasValue(3);
    assertThat(e.rollout().contextMode()).isEqualTo(ContextMode.NONE);
    assertThat(e.metaEpisodes()).isEqualTo(128);
    assertThat(TrainingPreset.REACT.evaluation(duel).build().rollout().contextMode()).isEqualTo(ContextMode.NONE);
    assertThat(TrainingPreset.REFLEXION.evaluation(duel).build().rollout().contextMode())
        .isEqualTo(ContextMode.REFLECTION_ONLY);
  }

  @Test
  void promptingMethodsDoNotTrain() {
    assertThat(TrainingPreset.REACT.trains()).isFalse();
    assertThat(TrainingPreset.REFLEXION.optimizerId()).isEmpty();
    assertThat(TrainingPreset.REFLEXION.metaReturn()).isEmpty();
    // the reference assigns opponents by fixed quotas, mage draws them; the rest of the rollout is the same
    assertThat(TrainingPreset.MAGE_REFERENCE.trainingRollout(duel).build().opponentSampling())
        .isEqualTo(OpponentSampling.QUOTA);
    assertThat(TrainingPreset.MAGE_REFERENCE.trainingRollout(duel).optOpponentSampling(OpponentSampling.PER_GROUP)
        .build()).isEqualTo(TrainingPreset.MAGE.trainingRollout(duel).build());
    assertThatThrownBy(() -> TrainingPreset.REFLEXION.trainingRollout(duel))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("preset 'reflexion' does not train");
  }

  @Test
  void singlePlayerTrainingSitsFirstAndParsingNamesThePresets() {
    assertThat(TrainingPreset.MAGE.trainingRollout(new ToyWalkProvider()).build().seating())
        .isEqualTo(Seating.first());
    assertThat(TrainingPreset.parse(" LaMer ")).isEqualTo(TrainingPreset.LAMER);
    assertThat(TrainingPreset.parse("MAGE_reference")).isEqualTo(TrainingPreset.MAGE_REFERENCE);
    assertThatThrownBy(() -> TrainingPreset.parse("ppo")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown preset 'ppo'")
        .hasMessageContaining("mage, mage-reference, lamer, gigpo, grpo, react, reflexion");
  }
}
