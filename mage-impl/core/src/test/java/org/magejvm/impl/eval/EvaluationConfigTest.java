package org.magejvm.impl.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.magejvm.api.ContextMode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.spi.PromptStyle;
import org.magejvm.testkit.ToyDuelProvider;
import org.magejvm.testkit.ToyWalkProvider;

class EvaluationConfigTest {

  private final ToyDuelProvider duel = new ToyDuelProvider();

  @Test
  void wrapsTheRolloutSettingsAndFillsTheProvidersDefaults() {
    EvaluationConfig e = EvaluationConfig.builder().setEnvironmentId(ToyDuelProvider.ID)
        .rollout(r -> r.optPromptStyle(PromptStyle.COMPACT).optHistoryLength(2).optSeed(5))
        .build();
    assertThat(e.environmentId()).isEqualTo(ToyDuelProvider.ID);
    assertThat(e.metaEpisodes()).isEqualTo(EvaluationConfig.DEFAULT_META_EPISODES).isEqualTo(128);
    assertThat(e.rollout().groupSize()).isEqualTo(1);
    assertThat(e.rollout().episodes()).isEmpty();
    assertThat(e.opponent()).isEmpty();

    RolloutConfig r = e.toRolloutConfig(duel);
    assertThat(r.tasks()).isEqualTo(128);
    assertThat(r.groupSize()).isEqualTo(1);
    assertThat(r.groupPrefix()).isEqualTo(EvaluationConfig.GROUP_PREFIX);
    assertThat(r.promptStyle()).isEqualTo(PromptStyle.COMPACT);
    assertThat(r.historyLength()).isEqualTo(2);
    assertThat(r.seed()).isEqualTo(5);
    assertThat(r.episodes()).hasValue(duel.defaults().episodes());
    assertThat(r.maxTurns()).hasValue(duel.defaults().maxTurns());
    assertThat(r.sampling()).hasValue(SamplingConfig.evaluation(duel.defaults().maxResponseTokens()));
    assertThat(r.fixedOpponent()).hasValue(duel.evaluationOpponent());
    assertThat(r.seating()).isEqualTo(Seating.of(duel.evaluationSeat()));
  }

  @Test
  void opponentSeatAndRolloutSettingsOverrideTheProvider() {
    EvaluationConfig e = EvaluationConfig.builder().setEnvironmentId(ToyDuelProvider.ID).optMetaEpisodes(7)
        .optOpponent("coin").optSeat(Seat.SECOND)
        .rollout(r -> r.optEpisodes(2).optMaxTurns(3).optContextMode(ContextMode.NONE)
            .optSampling(SamplingConfig.training(9)))
        .build();
    RolloutConfig r = e.toRolloutConfig(duel);
    assertThat(r.tasks()).isEqualTo(7);
    assertThat(r.fixedOpponent()).hasValue("coin");
    assertThat(r.seating()).isEqualTo(Seating.second());
    assertThat(r.episodes()).hasValue(2);
    assertThat(r.maxTurns()).hasValue(3);
    assertThat(r.contextMode()).isEqualTo(ContextMode.NONE);
    assertThat(r.sampling()).hasValue(SamplingConfig.training(9));
    assertThat(e.toBuilder().build()).isEqualTo(e);
    assertThat(e.toBuilder().optMetaEpisodes(8).build().rollout())
        .isEqualTo(e.rollout().toBuilder().optTasks(8).build());
  }

  @Test
  void settingsThatBelongToTheEvaluationAreRejectedOnTheRollout() {
    assertThatThrownBy(() -> EvaluationConfig.builder().setEnvironmentId("x").rollout(r -> r.optGroupSize(8))
        .build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("an evaluation plays independent meta-episodes (group size 1), but the rollout has group size 8");
    assertThatThrownBy(() -> EvaluationConfig.builder().setEnvironmentId("x")
        .rollout(r -> r.optFixedOpponent("coin")).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("optOpponent").hasMessageContaining("'coin'");
    assertThatThrownBy(() -> EvaluationConfig.builder().setEnvironmentId("x")
        .rollout(r -> r.optSeating(Seating.mixed(0.5))).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("optSeat");
    assertThatThrownBy(() -> EvaluationConfig.builder().build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("environmentId must be set (setEnvironmentId)");
    assertThatThrownBy(() -> EvaluationConfig.builder().setEnvironmentId(ToyDuelProvider.ID).build()
        .toRolloutConfig(new ToyWalkProvider())).hasMessage("the evaluation is for environment 'toy-duel', not"
            + " 'toy-walk'");
  }
}
