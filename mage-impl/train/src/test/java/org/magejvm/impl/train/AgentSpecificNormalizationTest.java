package org.magejvm.impl.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Advantages;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Grouping;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.ScoredTurn;
import org.magejvm.gigpo.GigpoAdvantageNormalizer;
import org.magejvm.impl.credit.CreditAssigner;
import org.magejvm.impl.env.penalty.GradedPenaltyProvider;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The paper's agent-specific advantage normalization (episode and step groups split by opponent and seat, {@link
 * Grouping#OPPONENT_STATIONARY}) against its ablation ({@link Grouping#MIXED}) on a population game: the rollout engine
 * draws one opponent and one seat per task group, so every group already faces a single striker from a single seat and
 * the two give the same advantages, digit for digit; the normalization can matter only where a group mixes opponents
 * (GigpoGoldenTest's {@code mixedGroupingPoolsOpponentsAndSeats}). This is why the claims comparison
 * ({@code mage experiment claims}) does not report it on and off.
 */
class AgentSpecificNormalizationTest {

  @Test
  void onPenaltyShootoutEveryGroupFacesOneStrikerSoTheNormalizationChangesNoAdvantage() {
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    EnvironmentProvider provider = registry.require(GradedPenaltyProvider.ID);
    TrainingConfig config = TrainingPreset.MAGE.config(provider);
    RolloutConfig rollout = TrainingPreset.MAGE.trainingRollout(provider).optTasks(16)
        .optContextMode(ContextMode.HISTORY_ONLY).optSeed(5).build();
    List<ScoredTurn> turns = new ArrayList<>();
    Set<String> strikers = new HashSet<>();
    Set<String> seatsPerGroup = new HashSet<>();
    try (LanguagePolicy random = provider.scriptedPolicy("random", 3)) {
      CreditAssigner credit = new CreditAssigner(config.credit());
      for (MetaEpisode m : new MetaEpisodeRunner(registry).run(rollout, random).metaEpisodes()) {
        turns.addAll(credit.assign(m));
        strikers.add(m.opponentId());
        seatsPerGroup.add(m.groupId() + "/" + m.opponentId() + "/" + m.seat());
      }
    }
    assertThat(strikers).as("the batch meets several strikers").hasSizeGreaterThan(1);
    assertThat(seatsPerGroup).as("one striker and one seat per group").hasSize(16);
    OptimizerConfig on = OptimizerConfig.builder().optGrouping(Grouping.OPPONENT_STATIONARY).build();
    OptimizerConfig off = OptimizerConfig.builder().optGrouping(Grouping.MIXED).build();
    Advantages a = new GigpoAdvantageNormalizer(on).compute(turns);
    Advantages b = new GigpoAdvantageNormalizer(off).compute(turns);
    assertThat(b.episodeTerm()).containsExactly(a.episodeTerm());
    assertThat(b.stepTerm()).containsExactly(a.stepTerm());
    assertThat(java.util.Arrays.stream(a.episodeTerm()).anyMatch(x -> x != 0)).as("some advantage is not 0").isTrue();
  }
}
