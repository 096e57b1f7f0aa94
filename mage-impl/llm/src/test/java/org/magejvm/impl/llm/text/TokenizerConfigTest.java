package org.magejvm.impl.llm.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/** Reading {@code tokenizer_config.json} and choosing the chat template. */
class TokenizerConfigTest {

  @TempDir Path dir;

  private void write(String json) throws IOException {
    Files.writeString(dir.resolve("tokenizer_config.json"), json);
  }

  @Test
  void realQwen3ConfigIsRead() {
    TokenizerConfig cfg = Qwen3ChatTemplateTest.qwen3Config();
    assertThat(cfg.eosToken()).contains("<|im_end|>");
    assertThat(cfg.padToken()).contains("<|endoftext|>");
    assertThat(cfg.bosToken()).isEmpty();
    assertThat(cfg.chatTemplate().orElseThrow()).contains("enable_thinking");
    assertThat(cfg.specialTokenVariables()).containsOnlyKeys("eos_token", "pad_token");
  }

  @Test
  void aTrainingCheckpointPassedAsAModelDirectoryIsToldWhereItsModelIs() throws IOException {
    // mage train writes checkpoints/iter-N/{weights/, optimizer/, trainer-state.json}: the model is in weights/
    Path weights = Files.createDirectories(dir.resolve("weights"));
    Files.writeString(weights.resolve("tokenizer_config.json"), "{}");
    assertThatThrownBy(() -> TokenizerConfig.load(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("tokenizer_config.json not found")
        .hasMessageEndingWith(dir.toAbsolutePath() + " is a training checkpoint: its model is "
            + dir.toAbsolutePath().resolve("weights"));
    // an ordinary directory without the file gets no hint
    assertThatThrownBy(() -> TokenizerConfig.load(weights.resolve("none"))).isInstanceOf(CheckpointException.class)
        .message().doesNotContain("training checkpoint");
  }

  @Test
  void missingAndMalformedFilesAreNamed() throws IOException {
    assertThatThrownBy(() -> TokenizerConfig.load(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("tokenizer_config.json not found");
    write("{\"eos_token\": ");
    assertThatThrownBy(() -> TokenizerConfig.load(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("tokenizer_config.json is not valid JSON");
    write("[1, 2]");
    assertThatThrownBy(() -> TokenizerConfig.load(dir)).hasMessageContaining("JSON object");
    write("{\"eos_token\": 5}");
    assertThatThrownBy(() -> TokenizerConfig.load(dir)).hasMessageContaining("'eos_token'");
    write("{\"chat_template\": 5}");
    assertThatThrownBy(() -> TokenizerConfig.load(dir)).hasMessageContaining("'chat_template'");
    // a template entry that is not a string names the field and the entry, not Gson's "JsonObject"
    write("{\"chat_template\": [{\"name\": \"default\", \"template\": {\"text\": \"D\"}}]}");
    assertThatThrownBy(() -> TokenizerConfig.load(dir))
        .hasMessageContaining("string fields 'name' and 'template'; entry 0 is {\"name\":\"default\"");
    write("{\"chat_template\": [{\"name\": [1], \"template\": \"D\"}]}");
    assertThatThrownBy(() -> TokenizerConfig.load(dir)).hasMessageContaining("entry 0 is");
  }

  @Test
  void tokenObjectsAndTemplateListsAreUnderstood() throws IOException {
    write("{\"eos_token\": {\"content\": \"</s>\", \"special\": true}, \"chat_template\": ["
        + "{\"name\": \"tool_use\", \"template\": \"T\"}, {\"name\": \"default\", \"template\": \"D\"}]}");
    TokenizerConfig cfg = TokenizerConfig.load(dir);
    assertThat(cfg.eosToken()).contains("</s>");
    assertThat(cfg.chatTemplate()).contains("D");
    write("{\"chat_template\": [{\"name\": \"tool_use\", \"template\": \"T\"}]}");
    assertThatThrownBy(() -> TokenizerConfig.load(dir)).hasMessageContaining("none is named 'default'");
  }

  @Test
  void chatTemplateJinjaFileTakesPrecedence() throws IOException {
    write("{\"chat_template\": \"from config\"}");
    Files.writeString(dir.resolve("chat_template.jinja"), "{{ messages[0].content }} from file");
    ChatTemplate t = ChatTemplates.forCheckpoint(dir);
    assertThat(t.render(List.of(ChatMessage.user("hi")), false)).isEqualTo("hi from file");
  }

  @Test
  void withoutATemplateTheBuiltInQwen3RendererIsUsed() throws IOException {
    write("{\"eos_token\": \"<|im_end|>\"}");
    assertThat(ChatTemplates.forCheckpoint(dir)).isSameAs(Qwen3ChatTemplate.builtIn());
  }

  @Test
  void anUnsupportedTemplateIsReportedWithTheFile() throws IOException {
    write("{\"chat_template\": \"{% extends 'base' %}\"}");
    assertThatThrownBy(() -> ChatTemplates.forCheckpoint(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("tokenizer_config.json").hasMessageContaining("unsupported tag 'extends'");
  }
}
