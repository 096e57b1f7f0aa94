package org.magejvm.impl.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The warnings where training cannot move: when they come, what they say, and when they stay silent. */
class StallWatchTest {

  @Test
  void undoneUpdatesWarnAfterThreeInARowAndThenEveryTen() {
    StallWatch w = new StallWatch();
    List<Integer> warned = new ArrayList<>();
    for (int it = 0; it < 30; it++) {
      List<String> out = w.observe(it, true, 64, 0.1, 0, 0);
      if (!out.isEmpty()) {
        warned.add(it);
        assertThat(out).hasSize(1);
        assertThat(out.get(0)).contains("iteration " + it).contains("undid the update")
            .contains("lower adamw.learning_rate").contains("warm-start");
      }
    }
    assertThat(warned).containsExactly(2, 12, 22);
    // a kept update ends the streak
    StallWatch broken = new StallWatch();
    assertThat(broken.observe(0, true, 64, 0, 0, 0)).isEmpty();
    assertThat(broken.observe(1, true, 64, 0, 0, 0)).isEmpty();
    assertThat(broken.observe(2, false, 64, 0, 0, 0)).isEmpty();
    assertThat(broken.observe(3, true, 64, 0, 0, 0)).isEmpty();
    assertThat(broken.observe(4, true, 64, 0, 0, 0)).isEmpty();
    assertThat(broken.observe(5, true, 64, 0, 0, 0)).hasSize(1);
  }

  @Test
  void allInvalidAnswersOrReflectionsWarnWithWhatToDo() {
    StallWatch w = new StallWatch();
    assertThat(w.observe(0, false, 40, 1.0, 20, 1.0)).isEmpty();
    assertThat(w.observe(1, false, 40, 1.0, 20, 1.0)).isEmpty();
    List<String> out = w.observe(2, false, 40, 1.0, 20, 1.0);
    assertThat(out).hasSize(2);
    assertThat(out.get(0)).contains("every answer of the last 3 iterations was invalid").contains("mage sft")
        .contains("max_new_tokens");
    assertThat(out.get(1)).contains("every reflection of the last 3 iterations was invalid").contains("<remark>")
        .contains("history_only");
    // almost all invalid is not all: no warning; no reflection turns at all is not an invalid reflection
    StallWatch some = new StallWatch();
    for (int it = 0; it < 5; it++) {
      assertThat(some.observe(it, false, 40, 0.99, 0, 0)).isEmpty();
    }
  }
}
