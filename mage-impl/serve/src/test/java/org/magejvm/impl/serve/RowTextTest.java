package org.magejvm.impl.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** {@link RowText} with one byte per token (token id = byte value, 999 the stop token), decoded as UTF-8. */
class RowTextTest {

  static final int EOS = 999;
  static final Function<int[], String> UTF8 = ids -> {
    byte[] b = new byte[ids.length];
    for (int i = 0; i < ids.length; i++) {
      b[i] = (byte) ids[i];
    }
    return new String(b, StandardCharsets.UTF_8);
  };

  static int[] bytes(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    int[] ids = new int[b.length];
    for (int i = 0; i < b.length; i++) {
      ids[i] = b[i] & 0xff;
    }
    return ids;
  }

  /** Feeds the tokens, streaming after each; returns the streamed text, and checks the tokens streamed. */
  static String run(RowText t, int[] tokens) {
    StringBuilder streamed = new StringBuilder();
    int tokensSent = 0;
    for (int id : tokens) {
      boolean goOn = t.add(id, -1f);
      if (!goOn) {
        break;
      }
      RowText.Part p = t.next(false);
      assertThat(p.fromToken()).isEqualTo(tokensSent);
      tokensSent = p.toToken();
      assertThat(p.text()).doesNotContain("\uFFFD");
      streamed.append(p.text());
    }
    RowText.Part last = t.next(true);
    assertThat(last.fromToken()).isEqualTo(tokensSent);
    assertThat(last.toToken()).isEqualTo(t.kept());
    streamed.append(last.text());
    return streamed.toString();
  }

  @Test
  void withoutStopStringsTheStreamedPartsMakeTheWholeTextAndCharactersArriveWhole() {
    int[] tokens = bytes("héllo 😀 wörld");
    RowText t = new RowText(UTF8, Set.of(EOS), List.of());
    assertThat(run(t, tokens)).isEqualTo("héllo 😀 wörld");
    assertThat(t.answer()).isEqualTo("héllo 😀 wörld");
    assertThat(t.kept()).isEqualTo(tokens.length);
    assertThat(t.stopReason()).isNull();
  }

  @Test
  void aStopTokenEndsTheRowAndIsKeptWithoutText() {
    int[] tokens = {'a', 'b', EOS};
    RowText t = new RowText(UTF8, Set.of(EOS), List.of("zz"));
    assertThat(run(t, tokens)).isEqualTo("ab");
    assertThat(t.kept()).isEqualTo(3);
    assertThat(t.ids(0, 3)).containsExactly('a', 'b', EOS);
    assertThat(t.stopReason()).isNull();
  }

  @Test
  void theEarliestStopStringCutsTheTextAndTheTokensAfterTheCutToken() {
    RowText t = new RowText(UTF8, Set.of(EOS), List.of("END", "lo"));
    // "hello END": "lo" begins at 3, before "END"; the row ends once "lo" is complete (token 5)
    assertThat(run(t, bytes("hello END more"))).isEqualTo("hel");
    assertThat(t.answer()).isEqualTo("hel");
    assertThat(t.stopReason()).isEqualTo("lo");
    assertThat(t.count()).isEqualTo(5);
    assertThat(t.kept()).isEqualTo(3);
  }

  @Test
  void aStopStringInsideOneTokenKeepsThatToken() {
    // tokens: "ab", "cXYd" (decoded as one piece each): the cut falls inside the second token
    Function<int[], String> pieces = ids -> {
      StringBuilder b = new StringBuilder();
      for (int id : ids) {
        b.append(id == 1 ? "ab" : id == 2 ? "cXYd" : "?");
      }
      return b.toString();
    };
    RowText t = new RowText(pieces, Set.of(EOS), List.of("XY"));
    assertThat(t.add(1, -0.5f)).isTrue();
    assertThat(t.add(2, -0.25f)).isFalse();
    assertThat(t.answer()).isEqualTo("abc");
    assertThat(t.kept()).isEqualTo(2);
    assertThat(t.logProbs(0, 2)).containsExactly(-0.5f, -0.25f);
  }

  @Test
  void anIncludedStopStringEndsTheAnswerAndEveryTokenIsKept() {
    RowText t = new RowText(UTF8, Set.of(EOS), List.of("END", "lo"), true);
    assertThat(run(t, bytes("hello END more"))).isEqualTo("hello");
    assertThat(t.answer()).isEqualTo("hello");
    assertThat(t.stopReason()).isEqualTo("lo");
    assertThat(t.kept()).isEqualTo(5).isEqualTo(t.count());
    // inside one token: the text stops after the stop string, the token that spells it and more is kept
    Function<int[], String> pieces = ids -> {
      StringBuilder b = new StringBuilder();
      for (int id : ids) {
        b.append(id == 1 ? "ab" : id == 2 ? "cXYd" : "?");
      }
      return b.toString();
    };
    RowText inside = new RowText(pieces, Set.of(EOS), List.of("XY"), true);
    assertThat(inside.add(1, 0)).isTrue();
    assertThat(inside.add(2, 0)).isFalse();
    assertThat(inside.answer()).isEqualTo("abcXY");
    assertThat(inside.kept()).isEqualTo(2);
    // no stop string met: the same answer either way
    RowText none = new RowText(UTF8, Set.of(EOS), List.of("zz"), true);
    assertThat(run(none, bytes("abc"))).isEqualTo("abc");
    assertThat(none.stopReason()).isNull();
  }

  @Test
  void theStartOfAPossibleStopStringIsHeldBackUntilItIsNotOne() {
    RowText t = new RowText(UTF8, Set.of(EOS), List.of("abc"));
    assertThat(t.add('x', 0)).isTrue();
    assertThat(t.next(false).text()).isEmpty();   // "x" might begin... no, but the last 2 chars are always held
    assertThat(t.add('a', 0)).isTrue();
    assertThat(t.add('b', 0)).isTrue();
    assertThat(t.next(false).text()).isEqualTo("x");
    assertThat(t.add('d', 0)).isTrue();
    assertThat(t.next(false).text()).isEqualTo("a");
    assertThat(t.next(true).text()).isEqualTo("bd");
    assertThat(t.answer()).isEqualTo("xabd");
  }

  @Test
  void aStopStringAtTheVeryStartLeavesNoText() {
    RowText t = new RowText(UTF8, Set.of(EOS), List.of("a"));
    assertThat(run(t, bytes("abc"))).isEmpty();
    assertThat(t.kept()).isZero();
    assertThat(t.stopReason()).isEqualTo("a");
  }
}
