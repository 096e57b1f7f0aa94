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
    }
  }
}
