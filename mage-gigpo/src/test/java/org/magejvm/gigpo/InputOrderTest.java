package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.magejvm.api.AdvantageNormalizer;
import org.magejvm.api.Advantages;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.Grouping;
import org.magejvm.api.NormalizationMode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Seat;

/**
 * Shuffling the input permutes the output accordingly, bit for bit: the groups' sums are exactly rounded, so their
 * order cannot matter.
 */
class InputOrderTest {

  private static List<OptimizerConfig> configs() {
    List<OptimizerConfig> out = new ArrayList<>();
    for (NormalizationMode mode : NormalizationMode.values()) {
      for (Grouping grouping : Grouping.values()) {
        for (AnchorScope scope : AnchorScope.values()) {
          out.add(OptimizerConfig.builder()
              .optNormalization(mode).optGrouping(grouping).optAnchorScope(scope).optStepWeight(0.7).build());
        }
      }
    }
    return out;
  }

  /** A batch with non-representable fractions, so a naive running sum would depend on the order. */
  private static List<ScoredTurn> randomBatch(int size, long seed) {
    Random r = new Random(seed);
    String[] opponents = {"mcts", "random", "minimax"};
    List<ScoredTurn> turns = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String group = "g" + r.nextInt(6);
      String opponent = opponents[r.nextInt(opponents.length)];
      Seat seat = r.nextBoolean() ? Seat.FIRST : Seat.SECOND;
      int episode = r.nextInt(3);
      double g = r.nextGaussian() * 7.3 + 0.1;
      double s = r.nextGaussian() * 11.9 - 0.3;
      if (r.nextInt(5) == 0) {
        turns.add(GoldenBatch.reflect("r" + i, group, opponent, seat, episode, g, s, r.nextBoolean()));
      } else {
        turns.add(GoldenBatch.play("p" + i, group, opponent, seat, episode, r.nextInt(4), "S" + r.nextInt(5), g, s,
            true));
      }
    }
    return turns;
  }

  private static void assertPermutationEquivariant(AdvantageNormalizer n, List<ScoredTurn> turns, long seed) {
    Advantages base = n.compute(turns);
    List<Integer> perm = new ArrayList<>();
    for (int i = 0; i < turns.size(); i++) {
      perm.add(i);
    }
    Collections.shuffle(perm, new Random(seed));
    List<ScoredTurn> shuffled = new ArrayList<>();
    for (int k : perm) {
      shuffled.add(turns.get(k));
    }
    Advantages s = n.compute(shuffled);
    for (int k = 0; k < perm.size(); k++) {
      int i = perm.get(k);
      assertThat(s.values()[k]).as("%s turn %d", n, i).isEqualTo(base.values()[i]);
      assertThat(s.episodeTerm()[k]).isEqualTo(base.episodeTerm()[i]);
      assertThat(s.stepTerm()[k]).isEqualTo(base.stepTerm()[i]);
    }
    assertThat(s.stepGroupCount()).isEqualTo(base.stepGroupCount());
    assertThat(s.meanStepGroupSize()).isEqualTo(base.meanStepGroupSize());
  }

  @Test
  void goldenBatchShuffled() {
    for (OptimizerConfig c : configs()) {
      for (long seed = 1; seed <= 5; seed++) {
        assertPermutationEquivariant(new GigpoAdvantageNormalizer(c), GoldenBatch.turns(), seed);
        assertPermutationEquivariant(new GrpoAdvantageNormalizer(c), GoldenBatch.turns(), seed);
      }
    }
  }

  @Test
  void largeRandomBatchShuffled() {
    List<ScoredTurn> turns = randomBatch(3000, 42);
    for (OptimizerConfig c : configs()) {
      assertPermutationEquivariant(new GigpoAdvantageNormalizer(c), turns, 7);
      assertPermutationEquivariant(new GrpoAdvantageNormalizer(c), turns, 8);
    }
  }

  @Test
  void reversedInputGivesReversedOutput() {
    List<ScoredTurn> turns = GoldenBatch.turns();
    List<ScoredTurn> reversed = new ArrayList<>(turns);
    Collections.reverse(reversed);
    Advantages a = new GigpoAdvantageNormalizer(OptimizerConfig.defaults()).compute(turns);
    Advantages b = new GigpoAdvantageNormalizer(OptimizerConfig.defaults()).compute(reversed);
    for (int i = 0; i < turns.size(); i++) {
      assertThat(b.values()[turns.size() - 1 - i]).isEqualTo(a.values()[i]);
    }
    // A1 (index 0) ends up last and keeps its hand-computed advantage -12 - 3
    assertThat(b.values()[turns.size() - 1]).isEqualTo(-15.0);
  }
}
