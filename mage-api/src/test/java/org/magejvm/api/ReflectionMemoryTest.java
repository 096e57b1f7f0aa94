package org.magejvm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReflectionMemoryTest {

  @Test
  void emptyMemory() {
    ReflectionMemory m = ReflectionMemory.empty();
    assertThat(m.isEmpty()).isTrue();
    assertThat(m.size()).isZero();
    assertThat(m.asList()).isEmpty();
    assertThat(ReflectionMemory.of(List.of())).isEqualTo(m);
    assertThatThrownBy(() -> m.get(0)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void appendReturnsANewMemoryAndLeavesTheOldOne() {
    ReflectionMemory a = ReflectionMemory.empty();
    ReflectionMemory b = a.append("first");
    ReflectionMemory c = b.append("second");
    assertThat(a.size()).isZero();
    assertThat(b.asList()).containsExactly("first");
    assertThat(c.asList()).containsExactly("first", "second");
    assertThat(c.get(1)).isEqualTo("second");
    assertThatThrownBy(() -> c.get(2)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void listIsUnmodifiable() {
    ReflectionMemory m = ReflectionMemory.of(List.of("x"));
    assertThatThrownBy(() -> m.asList().add("y")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> m.asList().set(0, "y")).isInstanceOf(UnsupportedOperationException.class);
    assertThat(m.asList()).containsExactly("x");
  }

  @Test
  void ofCopiesItsInput() {
    List<String> src = new ArrayList<>(List.of("a", "b"));
    ReflectionMemory m = ReflectionMemory.of(src);
    src.set(0, "changed");
    src.add("c");
    assertThat(m.asList()).containsExactly("a", "b");
  }

  @Test
  void nullIsStoredAsEmpty() {
    ReflectionMemory m = ReflectionMemory.empty().append(null);
    assertThat(m.size()).isEqualTo(1);
    assertThat(m.get(0)).isEmpty();
    assertThat(ReflectionMemory.of(Arrays.asList("a", null)).asList()).containsExactly("a", "");
  }

  @Test
  void longReflectionsAreCutTo2000Chars() {
    assertThat(ReflectionMemory.MAX_CHARS).isEqualTo(2000);
    String exact = "x".repeat(2000);
    String longer = "y".repeat(1999) + "z" + "tail that is dropped";
    ReflectionMemory m = ReflectionMemory.empty().append(exact).append(longer);
    assertThat(m.get(0)).isEqualTo(exact);
    assertThat(m.get(1)).hasSize(2000).endsWith("yz").doesNotContain("tail");
    assertThat(ReflectionMemory.of(List.of("q".repeat(5000))).get(0)).hasSize(2000);
  }

  @Test
  void equalityFollowsContent() {
    ReflectionMemory a = ReflectionMemory.of(List.of("a", "b"));
    ReflectionMemory b = ReflectionMemory.empty().append("a").append("b");
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(ReflectionMemory.of(List.of("b", "a"))).isNotEqualTo(List.of("a", "b"));
    assertThat(a.toString()).isEqualTo("ReflectionMemory[a, b]");
  }

  @Test
  void theCutNeverSplitsASurrogatePair() {
    String text = "a".repeat(ReflectionMemory.MAX_CHARS - 1) + "\uD83D\uDE00" + "tail";
    String kept = ReflectionMemory.empty().append(text).get(0);
    assertThat(kept).hasSize(ReflectionMemory.MAX_CHARS - 1).isEqualTo("a".repeat(ReflectionMemory.MAX_CHARS - 1));
  }
}
