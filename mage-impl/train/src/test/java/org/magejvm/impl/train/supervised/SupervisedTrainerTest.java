package org.magejvm.impl.train.supervised;

import org.magejvm.impl.train.update.AdamWConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.Generation;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.text.ChatMessage;

/** Supervised warm start of a tiny random Qwen3 checkpoint, through the policy's own tokenizer and template. */
class SupervisedTrainerTest {

  @TempDir static Path checkpoint;

  static final List<Transcript> TRANSCRIPTS = List.of(
      Transcript.of(ChatMessage.user("What is the capital of France?"), ChatMessage.assistant("Paris.")),
      Transcript.of(ChatMessage.user("What colour is the sky?"), ChatMessage.assistant("Blue.")),
      Transcript.of(ChatMessage.user("How many legs does a cat have?"), ChatMessage.assistant("Four.")),
      Transcript.of(ChatMessage.system("Answer in one word."), ChatMessage.user("Name a fruit."),
          ChatMessage.assistant("Apple."), ChatMessage.user("Name a metal."), ChatMessage.assistant("Iron.")));

  static final AdamWConfig SFT = AdamWConfig.builder().optLearningRate(3e-3).optWeightDecay(0).optWarmupSteps(5)
      .build();

  @BeforeAll
  static void writeCheckpoint() {
    StringBuilder corpus = new StringBuilder();
    for (Transcript t : TRANSCRIPTS) {
      for (ChatMessage m : t.messages()) {
        corpus.append("<|im_start|>").append(m.role()).append('\n').append(m.content()).append("<|im_end|>\n");
      }
    }
    TinyCheckpoint.write(checkpoint, TinyCheckpoint.Spec.small(corpus.toString().repeat(3), 7));
  }

  private static DjlLanguagePolicy policy() {
    return Qwen3Checkpoint.loadPolicy(checkpoint, Qwen3Checkpoint.Options.cpu());
  }

  private static String greedyAnswer(DjlLanguagePolicy policy, String question) {
    List<Generation> out = policy.generate(List.of(PolicyRequest.of(question)),
        SamplingConfig.builder().optTemperature(0).optMaxNewTokens(12).build());
    return out.get(0).text();
  }

  @Test
  void examplesAreTokenizedAsThePolicyPromptsAndAnswers() {
    try (DjlLanguagePolicy policy = policy();
        SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).build()) {
      int stop = policy.tokenizer().requireAddedTokenId("<|im_end|>");
      assertThat(trainer.stopTokenId()).isEqualTo(stop);
      List<SupervisedExample> examples = trainer.tokenize(TRANSCRIPTS);
      assertThat(examples).hasSize(5);
      SupervisedExample first = examples.get(0);
      assertThat(first.promptIds())
          .isEqualTo(policy.tokenizer().encode(policy.renderPrompt("What is the capital of France?")));
      int[] response = first.responseIds();
      assertThat(response[response.length - 1]).isEqualTo(stop);
      assertThat(Arrays.copyOf(response, response.length - 1)).isEqualTo(policy.tokenizer().encode("Paris."));

      // a later turn sees the whole conversation before it, rendered by the template
      SupervisedExample iron = examples.get(4);
      assertThat(iron.transcript()).isEqualTo(3);
      assertThat(iron.message()).isEqualTo(4);
      String prompt = policy.chatTemplate().render(TRANSCRIPTS.get(3).messages().subList(0, 4), true,
          java.util.Map.of("enable_thinking", true));
      assertThat(policy.tokenizer().decode(iron.promptIds(), false)).isEqualTo(prompt)
          .startsWith("<|im_start|>system\nAnswer in one word.<|im_end|>")
          .endsWith("Name a metal.<|im_end|>\n<|im_start|>assistant\n");

      assertThatThrownBy(() -> trainer.tokenize(List.of(Transcript.of(ChatMessage.assistant("Hi.")))))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("transcript 0");
    }
  }

  @Test
  void shortSupervisedTrainingTeachesTheAnswers() {
    try (DjlLanguagePolicy policy = policy()) {
      assertThat(greedyAnswer(policy, "What is the capital of France?")).isNotEqualTo("Paris.");
      List<SupervisedStep> heard = new ArrayList<>();
      long start = System.nanoTime();
      SupervisedResult result;
      try (SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).optOptimizerConfig(SFT)
          .optBatchSize(3).optEpochs(25).optSeed(11).addListener(heard::add).build()) {
        result = trainer.train(TRANSCRIPTS);
        assertThat(trainer.optimizer().stepCount()).isEqualTo(50);
      }
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(result.examples()).isEqualTo(5);
      assertThat(result.droppedExamples()).isZero();
      assertThat(result.steps()).hasSize(50).isEqualTo(heard);
      assertThat(heard.get(0).epoch()).isEqualTo(1);
      assertThat(heard.get(49).epoch()).isEqualTo(25);
      assertThat(heard.get(0).examples() + heard.get(1).examples()).isEqualTo(5);
      double first = result.firstLoss();
      double last = (result.steps().get(48).loss() + result.lastLoss()) / 2; // both batches of the last epoch
      System.out.printf("SFT on the tiny checkpoint: 50 steps in %d ms; loss %.4f -> %.4f (x%.0f lower)%n",
          millis, first, last, first / last);
      assertThat(first).isGreaterThan(4.0); // about log(vocabulary) for random weights
      assertThat(last).isLessThan(first / 20);

      assertThat(greedyAnswer(policy, "What is the capital of France?")).isEqualTo("Paris.");
      assertThat(greedyAnswer(policy, "How many legs does a cat have?")).isEqualTo("Four.");
    }
  }

  @Test
  void theSameSeedRepeatsTheRunExactly() {
    List<List<Double>> runs = new ArrayList<>();
    for (long seed : new long[] {5, 5, 6}) {
      try (DjlLanguagePolicy policy = policy();
          SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).optOptimizerConfig(SFT).optBatchSize(2)
              .optEpochs(2).optSeed(seed).build()) {
        List<Double> losses = new ArrayList<>();
        trainer.train(TRANSCRIPTS).steps().forEach(s -> losses.add(s.loss()));
        runs.add(losses);
      }
    }
    assertThat(runs.get(0)).hasSize(6).isEqualTo(runs.get(1));
    assertThat(runs.get(2)).isNotEqualTo(runs.get(0));
  }

  @Test
  void aStepLimitCutsTrainingShortAndKeepsTheSameBatches() {
    List<SupervisedStep> limited;
    List<SupervisedStep> full;
    try (DjlLanguagePolicy policy = policy();
        SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).optOptimizerConfig(SFT).optBatchSize(2)
            .optEpochs(Integer.MAX_VALUE).optMaxSteps(4).optSeed(3).build()) {
      limited = trainer.train(TRANSCRIPTS).steps();
    }
    try (DjlLanguagePolicy policy = policy();
        SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).optOptimizerConfig(SFT).optBatchSize(2)
            .optEpochs(2).optSeed(3).build()) {
      full = trainer.train(TRANSCRIPTS).steps();
    }
    // 5 examples in batches of 2: three steps per epoch, so the fourth step is the first of epoch 2
    assertThat(limited).extracting(SupervisedStep::epoch).containsExactly(1, 1, 1, 2);
    assertThat(limited).extracting(SupervisedStep::loss)
        .isEqualTo(full.subList(0, 4).stream().map(SupervisedStep::loss).toList());
    try (DjlLanguagePolicy policy = policy()) {
      assertThatThrownBy(() -> SupervisedTrainer.builderFor(policy).optMaxSteps(-1).build())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("maxSteps");
    }
  }

  @Test
  void aStepCountAloneGivesExactlyThatManyStepsAndAShortEpochCountIsRefused() {
    // 5 examples in batches of 2: three steps per epoch; 7 steps need three passes
    try (DjlLanguagePolicy policy = policy();
        SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).optOptimizerConfig(SFT).optBatchSize(2)
            .optMaxSteps(7).optSeed(3).build()) {
      assertThat(trainer.train(TRANSCRIPTS).steps()).extracting(SupervisedStep::epoch)
          .containsExactly(1, 1, 1, 2, 2, 2, 3);
    }
    // epochs that hold enough steps: still exactly the step count
    try (DjlLanguagePolicy policy = policy();
        SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).optOptimizerConfig(SFT).optBatchSize(2)
            .optEpochs(3).optMaxSteps(8).optSeed(3).build()) {
      assertThat(trainer.train(TRANSCRIPTS).steps()).hasSize(8);
    }
    // one epoch cannot hold 100 steps: refused before any step, naming both counts
    try (DjlLanguagePolicy policy = policy();
        SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).optOptimizerConfig(SFT).optBatchSize(2)
            .optEpochs(1).optMaxSteps(100).optSeed(3).build()) {
      assertThatThrownBy(() -> trainer.train(TRANSCRIPTS)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("optMaxSteps(100)").hasMessageContaining("optEpochs(1)")
          .hasMessageContaining("hold only 3 steps");
    }
  }

  @Test
  void longExamplesAreLeftOutAndCounted() {
    try (DjlLanguagePolicy policy = policy();
        SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).optMaxSequenceLength(12).build()) {
      List<SupervisedExample> examples = trainer.tokenize(TRANSCRIPTS);
      int shortest = examples.stream().mapToInt(SupervisedExample::length).min().orElseThrow();
      assertThat(shortest).isGreaterThan(12);
      assertThatThrownBy(() -> trainer.train(TRANSCRIPTS)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("maxSequenceLength=12");
    }
    try (DjlLanguagePolicy policy = policy();
        SupervisedTrainer probe = SupervisedTrainer.builderFor(policy).build()) {
      int[] lengths = probe.tokenize(TRANSCRIPTS).stream().mapToInt(SupervisedExample::length).sorted().toArray();
      try (SupervisedTrainer trainer = SupervisedTrainer.builderFor(policy).optMaxSequenceLength(lengths[2])
          .optOptimizerConfig(SFT).build()) {
        SupervisedResult r = trainer.train(TRANSCRIPTS);
        long fitting = Arrays.stream(lengths).filter(l -> l <= lengths[2]).count();
        assertThat(r.examples()).isEqualTo(fitting);
        assertThat(r.droppedExamples()).isEqualTo(5 - fitting);
      }
    }
  }

  @Test
  void builderRequiresItsParts() {
    assertThatThrownBy(() -> SupervisedTrainer.builder().build()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("setModel");
    try (DjlLanguagePolicy policy = policy()) {
      assertThatThrownBy(() -> SupervisedTrainer.builderFor(policy).optBatchSize(0).build())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("batchSize");
      assertThatThrownBy(() -> SupervisedTrainer.builderFor(policy).optStopTokenId(1 << 20).build())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("stop token");
    }
  }
}
