package org.magejvm.impl.llm.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/** Stop tokens from the template, tokenizer_config.json, config.json and generation_config.json. */
class StopTokensTest {

  @TempDir Path dir;
  TinyTokenizer tiny;

  @BeforeEach
  void writeTokenizer() {
    tiny = TinyTokenizer.builder().build();
    tiny.writeTo(dir);
  }

  private java.util.Set<Integer> resolve() {
    try (HfTokenizer tok = HfTokenizer.load(dir)) {
      TokenizerConfig cfg = TokenizerConfig.load(dir);
      return StopTokens.resolve(dir, tok, cfg, ChatTemplates.fromConfig(cfg));
    }
  }

  @Test
  void endOfTurnAndEosFromAllFilesInOrder() throws IOException {
    int imEnd = tiny.addedTokenId("<|im_end|>");
    int eot = tiny.addedTokenId("<|endoftext|>");
    assertThat(resolve()).containsExactly(imEnd);
    Files.writeString(dir.resolve("config.json"), "{\"eos_token_id\": " + imEnd + "}");
    Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": [" + imEnd + ", " + eot + "]}");
    assertThat(resolve()).containsExactly(imEnd, eot);
  }

  @Test
  void badIdsAndNamesAreReported() throws IOException {
    Files.writeString(dir.resolve("config.json"), "{\"eos_token_id\": 99999}");
    assertThatThrownBy(this::resolve).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("config.json").hasMessageContaining("99999");
    Files.writeString(dir.resolve("config.json"), "{\"eos_token_id\": \"two\"}");
    assertThatThrownBy(this::resolve).hasMessageContaining("'eos_token_id'");
    Files.delete(dir.resolve("config.json"));
    String cfg = Files.readString(dir.resolve("tokenizer_config.json")).replace("\"eos_token\": \"<|im_end|>\"",
        "\"eos_token\": \"</s>\"");
    Files.writeString(dir.resolve("tokenizer_config.json"), cfg);
    assertThatThrownBy(this::resolve).hasMessageContaining("eos_token '</s>'");
  }
}
