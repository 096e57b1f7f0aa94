package org.magejvm.impl.llm.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tiny byte-level BPE tokenizer, loaded by DJL's Hugging Face tokenizer. */
class TinyTokenizerTest {

  static final String CORPUS = String.join("\n",
      "You are playing Tic-Tac-Toe. The board is shown below. Choose your next move.",
      "Your move should be placed inside <action></action> tags, for example <action>B2</action>.",
      "Reflect on the previous episode and write your reflection inside <remark></remark> tags.",
      "The opponent played the center. You played the corner. The game ended in a draw.",
      "You are playing Kuhn poker. You hold the king. The opponent checks. Do you bet or check?")
      .repeat(3);

  @TempDir static Path dir;
  static TinyTokenizer tiny;
  static HfTokenizer tok;

  @BeforeAll
  static void build() {
    tiny = TinyTokenizer.builder().optCorpus(CORPUS).optMaxMerges(300).build();
    tiny.writeTo(dir);
    tok = HfTokenizer.load(dir);
  }

  @AfterAll
  static void close() {
    tok.close();
  }

  @Test
  void vocabularyLayoutMatchesTheDocumentedOne() {
    assertThat(tiny.mergeCount()).isBetween(100, 300);
    assertThat(tok.vocabSize()).isEqualTo(tiny.vocabSize());
    // byte symbols first, in GPT-2 order: "!" is id 0, as in Qwen3
    assertThat(tok.encode("!")).containsExactly(0);
    int first = tiny.vocabSize() - TinyTokenizer.ADDED_TOKENS.size();
    for (int i = 0; i < TinyTokenizer.ADDED_TOKENS.size(); i++) {
      String t = TinyTokenizer.ADDED_TOKENS.get(i);
      assertThat(tok.requireAddedTokenId(t)).isEqualTo(first + i).isEqualTo(tiny.addedTokenId(t));
      assertThat(tok.encode(t)).containsExactly(first + i);
    }
    assertThat(tok.isSpecial(tiny.addedTokenId("<|im_end|>"))).isTrue();
    assertThat(tok.isSpecial(tiny.addedTokenId("<think>"))).isFalse();
  }

  @Test
  void roundTripsArbitraryText() {
    List<String> texts = List.of(
        "", "a", " leading and trailing  ", "tabs\tand\nnewlines\r\n\n",
        "Unicode: héllo wörld — 你好，世界 😀👍🏽 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﬁ e\u0301 (decomposed)",
        "code: for (int i = 0; i < n; i++) { sum += a[i]; } // done",
        "<action>B2</action> numbers 1234567890 and 3.14159",
        "\u0000\u0001 control chars \u007f and zero-width\u200b joiner");
    for (String s : texts) {
      int[] ids = tok.encode(s);
      assertThat(tok.decode(ids, false)).as("round trip of %s", s).isEqualTo(s);
      for (int id : ids) {
        assertThat(id).isBetween(0, tok.vocabSize() - 1);
      }
    }
  }

  @Test
  void learnedMergesShortenFrequentWords() {
    String text = "You played the opponent.";
    int[] ids = tok.encode(text);
    assertThat(ids.length).isLessThan(text.length() / 2);
    TinyTokenizer bytesOnly = TinyTokenizer.builder().build();
    assertThat(bytesOnly.mergeCount()).isZero();
    assertThat(bytesOnly.vocabSize()).isEqualTo(256 + 5);
  }

  @Test
  void specialTokensInTextAreMatchedAndSkippableWhenDecoding() {
    String chat = "<|im_start|>user\nPlay.<|im_end|>\n<|im_start|>assistant\n<think>\nhmm\n</think>\n\nok<|im_end|>";
    int[] ids = tok.encode(chat);
    assertThat(ids).contains(tiny.addedTokenId("<|im_start|>"), tiny.addedTokenId("<|im_end|>"),
        tiny.addedTokenId("<think>"), tiny.addedTokenId("</think>"));
    assertThat(tok.decode(ids, false)).isEqualTo(chat);
    // special tokens dropped, <think> kept (it is not special, as in Qwen3)
    assertThat(tok.decode(ids, true)).isEqualTo("user\nPlay.\nassistant\n<think>\nhmm\n</think>\n\nok");
  }

  @Test
  void longTextsAreNotTruncated() {
    String longText = "The quick brown fox jumps over the lazy dog; ünïcödé 12345. ".repeat(200);
    int[] ids = tok.encode(longText);
    assertThat(ids.length).isGreaterThan(4000);
    assertThat(tok.decode(ids, false)).isEqualTo(longText);
    List<int[]> batch = tok.encodeBatch(List.of(longText, "x"));
    assertThat(batch.get(0)).containsExactly(ids);
    // no padding: the short text keeps its own length
    assertThat(batch.get(1)).containsExactly(tok.encode("x"));
  }

  @Test
  void buildingIsDeterministic() {
    TinyTokenizer again = TinyTokenizer.builder().optCorpus(CORPUS).optMaxMerges(300).build();
    assertThat(again.tokenizerJson()).isEqualTo(tiny.tokenizerJson());
    assertThat(again.tokenizerConfigJson()).isEqualTo(tiny.tokenizerConfigJson());
  }

  @Test
  void configCarriesTheQwen3Template() {
    TokenizerConfig cfg = TokenizerConfig.load(dir);
    assertThat(cfg.chatTemplate()).contains(JinjaChatTemplate.qwen3Source());
    assertThat(cfg.eosToken()).contains("<|im_end|>");
    assertThat(cfg.padToken()).contains("<|endoftext|>");
    assertThat(cfg.bosToken()).isEmpty();
    assertThat(Files.exists(dir.resolve("tokenizer.json"))).isTrue();
  }

  @Test
  void invalidSettingsAreRejected() {
    assertThatThrownBy(() -> TinyTokenizer.builder().optMaxMerges(-1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxMerges");
    assertThatThrownBy(() -> tiny.addedTokenId("<s>")).hasMessageContaining("<s>");
  }
}
