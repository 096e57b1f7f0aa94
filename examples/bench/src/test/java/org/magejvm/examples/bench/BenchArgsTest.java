package org.magejvm.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The list options of the benchmarks: values in order, and an error naming the option and the item otherwise. */
class BenchArgsTest {

  @Test
  void listsOfIntegersAndOfPairs() {
    Map<String, String> opt = Map.of("batches", " 1, 8,64", "nocache", "1:256, 8:32", "none", "");
    assertThat(BenchArgs.intList(opt, "batches", 1)).containsExactly(1, 8, 64);
    assertThat(BenchArgs.pairList(opt, "nocache", 1)).containsExactly(new int[] {1, 256}, new int[] {8, 32});
    assertThat(BenchArgs.intList(opt, "none", 1)).isEmpty();
    assertThat(BenchArgs.pairList(opt, "none", 1)).isEmpty();
  }

  @Test
  void aBadItemIsNamedWithItsOption() {
    assertThatThrownBy(() -> BenchArgs.intList(Map.of("batches", "1,x,8"), "batches", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("batches=1,x,8: x is not an integer");
    assertThatThrownBy(() -> BenchArgs.intList(Map.of("batches", "1,0"), "batches", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("batches=1,0: 0 is below 1");
    assertThatThrownBy(() -> BenchArgs.pairList(Map.of("nocache10m", "1:256,8"), "nocache10m", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("nocache10m=1:256,8: 8 is not two integers joined by a colon");
    assertThatThrownBy(() -> BenchArgs.pairList(Map.of("nocache10m", "8:y"), "nocache10m", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("nocache10m=8:y: y is not an integer");
    assertThatThrownBy(() -> BenchArgs.pairList(Map.of("nocache10m", "8:1:2"), "nocache10m", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8:1:2 is not two integers");
  }
}
