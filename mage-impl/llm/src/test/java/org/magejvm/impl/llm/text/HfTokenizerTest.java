package org.magejvm.impl.llm.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/** Loading errors and the decode contract of {@link HfTokenizer}. */
class HfTokenizerTest {

  @TempDir Path dir;

  @Test
  void missingFileIsNamed() {
    assertThatThrownBy(() -> HfTokenizer.load(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("tokenizer.json not found").hasMessageContaining(dir.toString());
  }

  @Test
  void anOverlargeTokenIdIsNamedInTokenizerJson() throws IOException {
    Path f = dir.resolve("tokenizer.json");
    Files.writeString(f, "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 2147483647}}}");
    assertThatThrownBy(() -> HfTokenizer.load(f)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(f.toString()).hasMessageContaining("token 'b' in 'model.vocab' has id 2147483647")
        .hasMessageNotContaining("-2147483648");
    Files.writeString(f, "{\"added_tokens\": [{\"id\": 2147483647, \"content\": \"<x>\"}], "
        + "\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}}}");
    assertThatThrownBy(() -> HfTokenizer.load(f)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("token '<x>' in 'added_tokens' has id 2147483647");
  }

  @Test
  void malformedJsonIsNamed() throws IOException {
    Path f = dir.resolve("tokenizer.json");
    Files.writeString(f, "{\"version\": \"1.0\", \"model\": {\"vocab\": {\"a\": 0,}");
    assertThatThrownBy(() -> HfTokenizer.load(f)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(f.toString()).hasMessageContaining("not a valid tokenizer.json");
  }

  @Test
  void jsonWithoutAModelIsRejected() throws IOException {
    Files.writeString(dir.resolve("tokenizer.json"), "{\"version\": \"1.0\", \"added_tokens\": []}");
    assertThatThrownBy(() -> HfTokenizer.load(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("no 'model'");
  }

  @Test
  void aModelTheLibraryRejectsIsNamed() throws IOException {
    Files.writeString(dir.resolve("tokenizer.json"),
        "{\"version\": \"1.0\", \"model\": {\"type\": \"NoSuchModel\", \"vocab\": {\"a\": 0}}}");
    assertThatThrownBy(() -> HfTokenizer.load(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("rejected by the tokenizers library");
  }

  @Test
  void decodeRejectsIdsOutsideTheVocabulary() {
    TinyTokenizer.builder().build().writeTo(dir);
    try (HfTokenizer tok = HfTokenizer.load(dir.resolve("tokenizer.json"))) {
      if (System.getenv("RUST_FLAVOR") == null) {
        // the CPU build inside the DJL jar is chosen even on CUDA machines
        assertThat(System.getProperty("RUST_FLAVOR")).isNotNull();
      }
      assertThat(tok.vocabSize()).isEqualTo(261);
      assertThat(tok.addedTokenId("<unknown>")).isEmpty();
      assertThatThrownBy(() -> tok.requireAddedTokenId("<unknown>")).hasMessageContaining("<unknown>");
      assertThatThrownBy(() -> tok.decode(new int[] {1, 261}, false))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token id 261 at position 1");
      assertThatThrownBy(() -> tok.decode(new int[] {-1}, false)).hasMessageContaining("token id -1");
      // a generated id past the tokenizer (a padded embedding row) decodes to nothing, as Hugging Face's does
      assertThat(tok.decodeGenerated(new int[] {104, 261, 105, 100_000}, false))
          .isEqualTo(tok.decode(new int[] {104, 105}, false)).isNotEmpty();
      assertThat(tok.decodeGenerated(new int[] {261}, true)).isEmpty();
      assertThatThrownBy(() -> tok.decodeGenerated(new int[] {-1}, false)).hasMessageContaining("token id -1");
    }
  }

  @Test
  void theCharactersPerTokenBoundComesFromTheVocabularyAddedTokensAndNormalizer() {
    TinyTokenizer.builder().build().writeTo(dir);
    try (HfTokenizer tok = HfTokenizer.load(dir.resolve("tokenizer.json"))) {
      // byte-level vocabulary entries (1 to 2 UTF-8 bytes each, no merges), no normalizer; the longest added token
      // is <|endoftext|>, 13 bytes
      assertThat(tok.maxCharsPerToken()).isEqualTo(13);
      assertThat(tok.minTokens("x".repeat(1300))).isEqualTo(100);
      assertThat(tok.minTokens("x".repeat(1300))).isLessThanOrEqualTo(tok.encode("x".repeat(1300)).length);
    }
  }

  @Test
  void aNormalizerThatMayShortenTheTextGivesNoBound() {
    assertThat(HfTokenizer.normalizerShrink(null)).isEqualTo(1);
    assertThat(HfTokenizer.normalizerShrink(com.google.gson.JsonNull.INSTANCE)).isEqualTo(1);
    assertThat(HfTokenizer.normalizerShrink(json("{\"type\": \"NFC\"}"))).isEqualTo(4);
    assertThat(HfTokenizer.normalizerShrink(json("{\"type\": \"Sequence\", \"normalizers\": [{\"type\":"
        + " \"NFKC\"}, {\"type\": \"Lowercase\"}]}"))).isEqualTo(4);
    assertThat(HfTokenizer.normalizerShrink(json("{\"type\": \"Sequence\", \"normalizers\": [{\"type\":"
        + " \"NFC\"}, {\"type\": \"Replace\"}]}"))).isZero();
    assertThat(HfTokenizer.normalizerShrink(json("{\"type\": \"Strip\"}"))).isZero();
  }

  @Test
  void fusedUnknownsOrAModelOtherThanBpeGiveNoBound() throws IOException {
    Files.writeString(dir.resolve("tokenizer.json"), "{\"version\": \"1.0\", \"model\": {\"type\": \"BPE\","
        + " \"unk_token\": \"?\", \"fuse_unk\": true, \"vocab\": {\"?\": 0, \"a\": 1}, \"merges\": []}}");
    try (HfTokenizer tok = HfTokenizer.load(dir)) {
      assertThat(tok.maxCharsPerToken()).isZero();
      assertThat(tok.minTokens("b".repeat(10_000))).isZero();
      assertThat(tok.encode("b".repeat(10_000))).hasSize(1); // one fused unknown covers it all
    }
    Files.writeString(dir.resolve("tokenizer.json"), "{\"version\": \"1.0\", \"model\": {\"type\": \"BPE\","
        + " \"unk_token\": \"?\", \"vocab\": {\"?\": 0, \"a\": 1}, \"merges\": []}}");
    try (HfTokenizer tok = HfTokenizer.load(dir)) {
      assertThat(tok.maxCharsPerToken()).isEqualTo(4);
      assertThat(tok.minTokens("b".repeat(10_000))).isLessThanOrEqualTo(tok.encode("b".repeat(10_000)).length);
    }
  }

  private static com.google.gson.JsonElement json(String s) {
    return com.google.gson.JsonParser.parseString(s);
  }
}
