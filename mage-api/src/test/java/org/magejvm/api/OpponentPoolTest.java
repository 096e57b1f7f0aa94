package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OpponentPoolTest {

  /** A test opponent. */
  record Named(String id) implements Opponent {}

  /** A second opponent class, to check that duplicate messages name both classes. */
  static final class Other implements Opponent {
    private final String id;

    Other(String id) {
      this.id = id;
    }

    @Override
    public String id() {
      return id;
    }
  }

  /** A generator whose nextDouble returns a fixed value. */
  private static final class FixedRandom extends Random {
    private static final long serialVersionUID = 1L;
    private final double value;

    FixedRandom(double value) {
      this.value = value;
    }

    @Override
    public double nextDouble() {
      return value;
    }
  }

  private static final Named A = new Named("a");
  private static final Named B = new Named("b");
  private static final Named C = new Named("c");
  private static final Named HELD = new Named("held");

  private static OpponentPool pool() {
    return OpponentPool.builder().addOpponent(A, 1).addOpponent(B, 2).addOpponent(C, 7).addHeldOut(HELD).build();
  }

  @Test
  void weightedSamplingFollowsTheWeights() {
    OpponentPool p = pool();
    Random r = new Random(42);
    Map<String, Integer> counts = new HashMap<>();
    int n = 20_000;
    for (int i = 0; i < n; i++) {
      counts.merge(p.sample(r).id(), 1, Integer::sum);
    }
    assertThat(counts).containsOnlyKeys("a", "b", "c");
    assertThat(counts.get("a") / (double) n).isCloseTo(0.1, within(0.015));
    assertThat(counts.get("b") / (double) n).isCloseTo(0.2, within(0.015));
    assertThat(counts.get("c") / (double) n).isCloseTo(0.7, within(0.015));
  }

  @Test
  void samplingIsReproducibleWithASeed() {
    OpponentPool p = pool();
    Random r1 = new Random(7);
    Random r2 = new Random(7);
    for (int i = 0; i < 200; i++) {
      assertThat(p.sample(r1)).isSameAs(p.sample(r2));
    }
  }

  @Test
  void samplingBoundaries() {
    OpponentPool p = pool(); // total weight 10: a covers [0, 1), b [1, 3), c [3, 10)
    assertThat(p.sample(new FixedRandom(0.0))).isSameAs(A);
    assertThat(p.sample(new FixedRandom(0.0999))).isSameAs(A);
    assertThat(p.sample(new FixedRandom(0.1))).isSameAs(B);
    assertThat(p.sample(new FixedRandom(0.2999))).isSameAs(B);
    assertThat(p.sample(new FixedRandom(0.3))).isSameAs(C);
    assertThat(p.sample(new FixedRandom(Math.nextDown(1.0)))).isSameAs(C);
  }

  @Test
  void heldOutIsNeverSampled() {
    OpponentPool p = OpponentPool.builder().addOpponent(A, 1e-9).addHeldOut(HELD).addHeldOut(B).build();
    Random r = new Random(1);
    for (int i = 0; i < 2000; i++) {
      assertThat(p.sample(r)).isSameAs(A);
    }
    assertThat(p.heldOut()).containsExactly(HELD, B);
    assertThat(p.training()).extracting(OpponentPool.Entry::opponent).containsExactly(A);
  }

  @Test
  void emptyPoolCannotSample() {
    OpponentPool empty = OpponentPool.builder().addHeldOut(HELD).build();
    assertThat(empty.isEmpty()).isTrue();
    assertThatThrownBy(() -> empty.sample(new Random(0))).isInstanceOf(IllegalStateException.class)
        .hasMessage("the opponent pool has no training opponents to sample from");
    assertThat(OpponentPool.builder().build().ids()).isEmpty();
    assertThat(pool().isEmpty()).isFalse();
  }

  @Test
  void duplicateIdsAreRejectedNamingBothClasses() {
    assertThatThrownBy(() -> OpponentPool.builder().addOpponent(A, 1).addOpponent(new Other("a"), 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("opponent id 'a' appears twice in the pool (" + Named.class.getName() + " and "
            + Other.class.getName() + ")");
    // a held-out opponent may not reuse a training id either
    assertThatThrownBy(() -> OpponentPool.builder().addOpponent(new Other("x"), 1).addHeldOut(new Named("x"))
        .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'x'").hasMessageContaining(Other.class.getName())
        .hasMessageContaining(Named.class.getName());
    assertThatThrownBy(() -> OpponentPool.builder().addHeldOut(HELD).addHeldOut(new Named("held")).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'held' appears twice");
  }

  @Test
  void findAndRequire() {
    OpponentPool p = pool();
    assertThat(p.find("b")).contains(B);
    assertThat(p.find("held")).contains(HELD);
    assertThat(p.find("nobody")).isEqualTo(Optional.empty());
    assertThat(p.require("c")).isSameAs(C);
    assertThat(p.require("held")).isSameAs(HELD);
    assertThatThrownBy(() -> p.require("mcts-9")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown opponent 'mcts-9'; known opponents: [a, b, c, held]");
    assertThat(p.ids()).containsExactly("a", "b", "c", "held");
  }

  @Test
  void weightsMustBePositiveAndFinite() {
    for (double w : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> OpponentPool.builder().addOpponent(A, w))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("weight of opponent 'a' must be positive and finite, got " + w);
    }
    assertThatThrownBy(() -> OpponentPool.builder().addOpponent(null, 1)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> OpponentPool.builder().addHeldOut(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void toBuilderAddsACustomOpponentWithoutChangingTheOriginal() {
    OpponentPool base = pool();
    Other custom = new Other("house-bot");
    OpponentPool extended = base.toBuilder().addOpponent(custom, 10).build();
    assertThat(extended.ids()).containsExactly("a", "b", "c", "house-bot", "held");
    assertThat(extended.require("house-bot")).isSameAs(custom);
    assertThat(extended.heldOut()).containsExactly(HELD);
    assertThat(base.ids()).containsExactly("a", "b", "c", "held");
    assertThat(base.find("house-bot")).isEmpty();
    // the new opponent takes half of the total weight of 20
    assertThat(extended.sample(new FixedRandom(0.49))).isSameAs(C);
    assertThat(extended.sample(new FixedRandom(0.5))).isSameAs(custom);
    // toBuilder keeps the ids unique
    assertThatThrownBy(() -> base.toBuilder().addHeldOut(new Other("a")).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a' appears twice");
  }

  @Test
  void listsAreUnmodifiable() {
    OpponentPool p = pool();
    assertThatThrownBy(() -> p.training().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> p.heldOut().clear()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> p.ids().clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void toStringListsWeightsAndHeldOut() {
    assertThat(pool().toString()).isEqualTo("OpponentPool[training=a:1.0, b:2.0, c:7.0; heldOut=held]");
  }
}
