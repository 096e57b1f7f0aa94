package org.magejvm.impl.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.FinishReason;
import org.magejvm.api.Generation;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.PolicyRequestException;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.generate.GeneratedSequence;
import org.magejvm.impl.llm.generate.TokenGenerator;
import org.magejvm.impl.llm.text.HfTokenizer;
import org.magejvm.impl.llm.text.JinjaChatTemplate;
import org.magejvm.impl.llm.text.TinyTokenizer;

/** The policy's text pipeline around a scripted token generator, on the tiny tokenizer. */
class DjlLanguagePolicyTest {

  @TempDir static Path dir;
  static TinyTokenizer tiny;
  static HfTokenizer tok;

  @BeforeAll
  static void setUp() {
    tiny = TinyTokenizer.builder().optCorpus("You play the board game. Your move is <action>B2</action>.".repeat(5))
        .optMaxMerges(60).build();
    tiny.writeTo(dir);
    tok = HfTokenizer.load(dir);
  }

  @AfterAll
  static void tearDown() {
    tok.close();
  }

  /** Answers every prompt with a fixed token script and records what it was asked. */
  static final class ScriptedGenerator implements TokenGenerator {
    final List<List<int[]>> calls = new ArrayList<>();
    final List<Set<Integer>> stops = new ArrayList<>();
    final List<SamplingConfig> samplings = new ArrayList<>();
    final int[] script;
    final FinishReason reason;

    ScriptedGenerator(int[] script, FinishReason reason) {
      this.script = script;
      this.reason = reason;
    }

    @Override
    public List<GeneratedSequence> generate(List<int[]> prompts, SamplingConfig sampling, Set<Integer> stopIds) {
      calls.add(prompts);
      stops.add(stopIds);
      samplings.add(sampling);
      List<GeneratedSequence> out = new ArrayList<>();
      for (int p = 0; p < prompts.size(); p++) {
        float[] lp = new float[script.length];
        for (int i = 0; i < lp.length; i++) {
          lp[i] = -0.1f * (i + 1) - p;
        }
        out.add(new GeneratedSequence(script, lp, reason));
      }
      return out;
    }
  }

  private static DjlLanguagePolicy.Builder base(TokenGenerator g) {
    return DjlLanguagePolicy.builder().setTokenizer(tok).setChatTemplate(JinjaChatTemplate.qwen3())
        .setGenerator(g).addStopTokenId(tiny.addedTokenId("<|im_end|>"));
  }

  private static int[] concat(int[]... parts) {
    return Arrays.stream(parts).flatMapToInt(Arrays::stream).toArray();
  }

  @Test
  void rendersEncodesGeneratesOnceAndDecodes() {
    // the model "says": <think>\nhmm\n</think>\n\n<action>B2</action><|endoftext|>tail<|im_end|>, the last
    // token being the stop token that ended it
    int[] script = concat(tok.encode("<think>\nhmm\n</think>\n\n<action>B2</action>"),
        new int[] {tiny.addedTokenId("<|endoftext|>")}, tok.encode("tail"), new int[] {tiny.addedTokenId("<|im_end|>")});
    ScriptedGenerator g = new ScriptedGenerator(script, FinishReason.STOP);
    DjlLanguagePolicy policy = base(g).build();
    SamplingConfig sampling = SamplingConfig.training(64);
    List<PolicyRequest> reqs = List.of(PolicyRequest.of("Play Kuhn poker."), PolicyRequest.of("Second prompt"));

    List<Generation> gens = policy.generate(reqs, sampling);

    assertThat(g.calls).hasSize(1);
    assertThat(g.calls.get(0)).hasSize(2);
    assertThat(g.stops.get(0)).containsExactly(tiny.addedTokenId("<|im_end|>"));
    assertThat(g.samplings.get(0)).isSameAs(sampling);
    String rendered = "<|im_start|>user\nPlay Kuhn poker.<|im_end|>\n<|im_start|>assistant\n";
    assertThat(policy.renderPrompt("Play Kuhn poker.")).isEqualTo(rendered);
    assertThat(g.calls.get(0).get(0)).containsExactly(tok.encode(rendered));
    assertThat(gens).hasSize(2);
    Generation first = gens.get(0);
    assertThat(first.promptTokenIds()).containsExactly(tok.encode(rendered));
    // the ids keep the stop token (training learns when to stop); the text does not
    assertThat(first.responseTokenIds()).containsExactly(script);
    assertThat(first.responseTokenIds()[script.length - 1]).isEqualTo(tiny.addedTokenId("<|im_end|>"));
    // <|endoftext|> is special and skipped; <think> is not special and stays
    assertThat(first.text()).isEqualTo("<think>\nhmm\n</think>\n\n<action>B2</action>tail");
    assertThat(first.logProbs()).hasSize(script.length);
    assertThat(first.logProbs()[0]).isEqualTo(-0.1f);
    assertThat(gens.get(1).logProbs()[0]).isEqualTo(-1.1f);
    assertThat(first.finishReason()).isEqualTo(FinishReason.STOP);
  }

  @Test
  void thinkingCanBeSwitchedOffAndLengthFinishPassesThrough() {
    ScriptedGenerator g = new ScriptedGenerator(tok.encode("B2"), FinishReason.LENGTH);
    DjlLanguagePolicy policy = base(g).optEnableThinking(false).build();
    Generation gen = policy.generate(List.of(PolicyRequest.of("Move?")), SamplingConfig.training(2)).get(0);
    String rendered = "<|im_start|>user\nMove?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
    assertThat(gen.promptTokenIds()).containsExactly(tok.encode(rendered));
    assertThat(gen.text()).isEqualTo("B2");
    assertThat(gen.finishReason()).isEqualTo(FinishReason.LENGTH);
  }

  @Test
  void longPromptsFailByDefaultNamingLengthAndLimit() {
    ScriptedGenerator g = new ScriptedGenerator(new int[0], FinishReason.STOP);
    DjlLanguagePolicy policy = base(g).optMaxPromptTokens(50).build();
    String longPrompt = "word ".repeat(100);
    int length = tok.encode(policy.renderPrompt(longPrompt)).length;
    PolicyRequest r = new PolicyRequest(longPrompt, Phase.PLAY, "g3-1", 2, 4, List.of(), null, List.of());
    assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("short"), r), SamplingConfig.training(8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prompt 1").hasMessageContaining("g3-1")
        .hasMessageContaining(length + " tokens").hasMessageContaining("maxPromptTokens=50");
    assertThat(g.calls).isEmpty();
  }

  @Test
  void aPromptWhoseLengthAloneIsTooLongIsRejectedWithoutTokenizing() {
    ScriptedGenerator g = new ScriptedGenerator(tok.encode("ok"), FinishReason.STOP);
    DjlLanguagePolicy policy = base(g).optModelContext(512).build();
    String huge = "The opponent raised again. ".repeat(40_000); // about 1 MB
    int perToken = tok.maxCharsPerToken();
    assertThat(perToken).isPositive();
    PolicyRequest r = new PolicyRequest(huge, Phase.PLAY, "g1/0", 0, 3, List.of(), null, List.of());
    long start = System.nanoTime();
    assertThatThrownBy(() -> policy.generate(List.of(r, PolicyRequest.of("short"), r), SamplingConfig.training(8)))
        .isInstanceOfSatisfying(PolicyRequestException.class, e -> {
          assertThat(e.rejected()).containsOnlyKeys(0, 2);
          assertThat(e.rejected().get(0)).contains("prompt 0 (worker 'g1/0', play, episode 0, turn 3) is at least")
              .contains("characters, at most " + perToken + " per token) after chat formatting, more than the"
                  + " model's context of 512 tokens");
        });
    assertThat((System.nanoTime() - start) / 1e9).as("seconds, tokenizing would take several").isLessThan(1.5);
    assertThat(g.calls).isEmpty();
    // a prompt just short enough to need tokenizing is still measured exactly
    String medium = "word ".repeat(100);
    int exact = tok.encode(policy.renderPrompt(medium)).length;
    DjlLanguagePolicy small = base(g).optMaxPromptTokens(50).build();
    assertThat(tok.minTokens(small.renderPrompt(medium))).isLessThanOrEqualTo(exact);
  }

  @Test
  void minTokensNeverExceedsTheTokenCount() {
    List<String> texts = List.of("", "a", "word ".repeat(300), "   \n\t  ".repeat(200), "Überlegung: 先手を取る 😀 "
        .repeat(100), "e\u0301\u0323".repeat(500), "\u1100\u1161\u11A8".repeat(500), "<|im_end|>".repeat(400),
        "<|im_start|>user\n" + "x".repeat(5000) + "<|im_end|>", "😀".repeat(3000), "<action>B2</action>".repeat(300));
    for (String t : texts) {
      assertThat(tok.minTokens(t)).as(t.length() > 40 ? t.substring(0, 40) : t)
          .isLessThanOrEqualTo(tok.encode(t).length);
    }
    assertThat(tok.minTokens("x".repeat(100_000))).isPositive();
  }

  @Test
  void everyTooLongPromptOfABatchIsNamedBeforeAnythingIsGenerated() {
    ScriptedGenerator g = new ScriptedGenerator(new int[0], FinishReason.STOP);
    DjlLanguagePolicy policy = base(g).optMaxPromptTokens(50).build();
    String longPrompt = "word ".repeat(100);
    List<PolicyRequest> batch = List.of(
        new PolicyRequest(longPrompt, Phase.PLAY, "g0/0", 0, 1, List.of(), null, List.of()),
        PolicyRequest.of("short"),
        new PolicyRequest(longPrompt, Phase.REFLECT, "g1/1", 1, 0, List.of(), null, List.of()));
    assertThatThrownBy(() -> policy.generate(batch, SamplingConfig.training(8)))
        .isInstanceOfSatisfying(PolicyRequestException.class, e -> {
          assertThat(e.rejected()).containsOnlyKeys(0, 2);
          assertThat(e.rejected().get(0)).contains("prompt 0 (worker 'g0/0', play, episode 0, turn 1)");
          assertThat(e.rejected().get(2)).contains("prompt 2 (worker 'g1/1', reflect, episode 1, turn 0)");
          assertThat(e.getMessage()).startsWith("2 requests rejected; the first: prompt 0");
        });
    assertThat(g.calls).isEmpty();
  }

  @Test
  void theModelsContextLimitsPromptsWhenItIsSmaller() {
    ScriptedGenerator g = new ScriptedGenerator(tok.encode("ok"), FinishReason.STOP);
    DjlLanguagePolicy policy = base(g).optModelContext(40).build();
    assertThat(policy.maxPromptTokens()).isEqualTo(DjlLanguagePolicy.DEFAULT_MAX_PROMPT_TOKENS);
    assertThat(policy.promptLimit()).isEqualTo(40);
    assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("word ".repeat(100))),
        SamplingConfig.training(8))).isInstanceOf(PolicyRequestException.class)
        .hasMessageContaining("more than the model's context of 40 tokens (max_position_embeddings)");
    assertThat(policy.generate(List.of(PolicyRequest.of("short")), SamplingConfig.training(8))).hasSize(1);
  }

  @Test
  void cutPromptsAreCounted() {
    ScriptedGenerator g = new ScriptedGenerator(tok.encode("ok"), FinishReason.STOP);
    DjlLanguagePolicy policy = base(g).optMaxPromptTokens(50)
        .optPromptOverflow(DjlLanguagePolicy.PromptOverflow.KEEP_LAST).build();
    String longPrompt = "word ".repeat(100);
    policy.generate(List.of(PolicyRequest.of(longPrompt), PolicyRequest.of("short"), PolicyRequest.of(longPrompt)),
        SamplingConfig.training(8));
    assertThat(policy.truncatedPrompts()).isEqualTo(2);
  }

  @Test
  void longPromptsKeepTheirLastTokensWhenConfigured() {
    ScriptedGenerator g = new ScriptedGenerator(tok.encode("ok"), FinishReason.STOP);
    DjlLanguagePolicy policy = base(g).optMaxPromptTokens(50)
        .optPromptOverflow(DjlLanguagePolicy.PromptOverflow.KEEP_LAST).build();
    String longPrompt = "word ".repeat(100) + "END";
    int[] full = tok.encode(policy.renderPrompt(longPrompt));
    Generation gen = policy.generate(List.of(PolicyRequest.of(longPrompt)), SamplingConfig.training(8)).get(0);
    assertThat(gen.promptTokenIds()).hasSize(50)
        .containsExactly(Arrays.copyOfRange(full, full.length - 50, full.length));
    assertThat(g.calls.get(0).get(0)).hasSize(50);
  }

  @Test
  void emptyBatchesSkipTheGenerator() {
    ScriptedGenerator g = new ScriptedGenerator(new int[0], FinishReason.STOP);
    assertThat(base(g).build().generate(List.of(), SamplingConfig.training(8))).isEmpty();
    assertThat(g.calls).isEmpty();
  }

  @Test
  void aGeneratorReturningTheWrongCountIsReported() {
    TokenGenerator broken = (prompts, sampling, stops) -> List.of();
    DjlLanguagePolicy policy = base(broken).build();
    assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(4)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("0 sequences for 1 prompts");
  }

  @Test
  void builderValidates() {
    ScriptedGenerator g = new ScriptedGenerator(new int[0], FinishReason.STOP);
    assertThatThrownBy(() -> DjlLanguagePolicy.builder().setTokenizer(tok)
        .setChatTemplate(JinjaChatTemplate.qwen3()).addStopTokenId(1).build())
        .hasMessageContaining("setGenerator");
    assertThatThrownBy(() -> DjlLanguagePolicy.builder().setTokenizer(tok)
        .setChatTemplate(JinjaChatTemplate.qwen3()).setGenerator(g).build())
        .hasMessageContaining("stop token");
    assertThatThrownBy(() -> base(g).addStopTokenId(tok.vocabSize()).build())
        .hasMessageContaining("stop token id " + tok.vocabSize());
    assertThatThrownBy(() -> base(g).optMaxPromptTokens(0).build()).hasMessageContaining("maxPromptTokens");
    assertThatThrownBy(() -> base(g).addTemplateVariable("enable_thinking", false).build())
        .hasMessageContaining("optEnableThinking");
  }

  @Test
  void checkpointBuilderLoadsTokenizerTemplateAndStopsAndClosesThem() {
    ScriptedGenerator g = new ScriptedGenerator(
        concat(tok.encode("hi"), new int[] {tiny.addedTokenId("<|im_end|>")}), FinishReason.STOP);
    DjlLanguagePolicy policy = DjlLanguagePolicy.builderForCheckpoint(dir).setGenerator(g).optName("tiny").build();
    assertThat(policy.name()).isEqualTo("tiny");
    assertThat(policy.stopTokenIds()).containsExactly(tiny.addedTokenId("<|im_end|>"));
    assertThat(policy.tokenizer().vocabSize()).isEqualTo(tiny.vocabSize());
    assertThat(policy.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(4)).get(0).text())
        .isEqualTo("hi");
    policy.close();
    policy.close();
    assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("x")), SamplingConfig.training(4)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
  }
}
