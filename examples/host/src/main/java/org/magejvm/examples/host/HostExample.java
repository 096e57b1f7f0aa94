package org.magejvm.examples.host;

import java.nio.file.Path;
import java.util.List;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.impl.eval.EvaluationConfig;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.eval.Evaluator;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.supervised.SupervisedResult;
import org.magejvm.impl.train.supervised.SupervisedTrainer;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.train.supervised.Transcript;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * A host application that trains a model on its own game ({@link HiddenDoorProvider}) through the library's
 * {@code @Api} types only, in the steps of docs/embedding.md: scripted answers, a tiny model whose tokenizer is learnt
 * from them, a warm start of an exact number of steps, training with the {@code mage} preset into a run directory,
 * {@link MageTrainer#save}, and an evaluation of the reloaded model with and without its earlier attempts in the
 * prompt. Usage: {@code HostExample [WORK_DIR]}.
 */
public final class HostExample {

  private HostExample() {}

  /**
   * How much to do.
   *
   * @param warmStartSteps optimizer steps of the warm start (exactly these)
   * @param iterations training iterations
   * @param tasks task groups (of 4 meta-episodes) per training iteration
   * @param evalMetaEpisodes meta-episodes of each evaluation
   */
  public record Budget(int warmStartSteps, int iterations, int tasks, int evalMetaEpisodes) {}

  /**
   * What a run produced.
   *
   * @param warmStart the warm start's steps and losses
   * @param runDir the run directory ({@code config.json}, {@code metrics.jsonl}, {@code checkpoints/})
   * @param trained the trained model's directory
   * @param withHistory the evaluation with the earlier attempts in the prompt
   * @param withoutHistory the evaluation without them
   */
  public record Result(SupervisedResult warmStart, Path runDir, Path trained, EvaluationMetrics withHistory,
      EvaluationMetrics withoutHistory) {}

  /**
   * Runs the example with a budget that learns the game (about 20 s on two CPU cores).
   *
   * @param args the work directory, {@code host-work} by default
   */
  public static void main(String[] args) {
    Result r = run(Path.of(args.length > 0 ? args[0] : "host-work"), new Budget(300, 20, 8, 200));
    System.out.printf("found within 3 tries: %.2f with the earlier tries shown, %.2f without%n",
        r.withHistory().overall().successRate().get(2), r.withoutHistory().overall().successRate().get(2));
  }

  /**
   * Runs every step into a work directory.
   *
   * @param work the work directory (it must not hold an earlier run's models)
   * @param budget how much to do
   * @return what it produced
   */
  public static Result run(Path work, Budget budget) {
    EnvironmentRegistry envs = EnvironmentRegistry.discover();   // the built-in games and hidden-door (a plugin)
    EnvironmentProvider doors = envs.require(HiddenDoorProvider.ID);
    // 1. what to imitate: the scripted search player's turns, each prompt as training shows it
    RolloutConfig scripted = RolloutConfig.builder().setEnvironmentId(HiddenDoorProvider.ID).optTasks(64)
        .optGroupSize(1).optContextMode(ContextMode.HISTORY_ONLY).build();
    List<Transcript> answers = Transcript.ofPlayTurns(envs, 256, round -> scripted.toBuilder().optSeed(round).build(),
        round -> doors.scriptedPolicy(HiddenDoorProvider.SEARCH, round));
    // 2. a tiny random Qwen3 whose tokenizer is learnt from the game's own text
    StringBuilder corpus = new StringBuilder();
    answers.forEach(t -> t.messages().forEach(m -> corpus.append(m.content()).append('\n')));
    Path tiny = work.resolve("tiny-model");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small(corpus.toString(), 1));
    Qwen3Checkpoint.Options cpu = Qwen3Checkpoint.Options.cpu().withThinking(false);
    TrainingConfig config = TrainingPreset.MAGE.config(doors).toBuilder()
        .set("rollout.context_mode", "history_only")   // the warm start taught answers, not reflections
        .set("rollout.tasks", budget.tasks()).set("rollout.group_size", 4).set("checks.anchor_turns", 64)
        .set("validation.every", 0).set("iterations", budget.iterations()).build();
    Path trained = work.resolve("trained");
    SupervisedResult warmStart;
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(tiny, cpu)) {
      // 3. warm start: a random model's answers are all invalid, and reinforcement learning cannot start from there
      try (SupervisedTrainer sft = SupervisedTrainer.builderFor(policy).optEnableThinking(false)
          .optMaxSteps(budget.warmStartSteps()).optBatchSize(16)
          .optOptimizerConfig(AdamWConfig.builder().optLearningRate(3e-3).optWeightDecay(0).build()).build()) {
        warmStart = sft.train(answers);
      }
      // 4. train with the mage preset, writing work/run; 5. save the trained model
      try (MageTrainer trainer = MageTrainer.builder(config, policy, envs).optRunDirectory(work.resolve("run"))
          .build()) {
        trainer.fit();
        trainer.save(trained);
      }
    }
    // 6. reload it and evaluate, with and without the earlier attempts in the prompt
    try (DjlLanguagePolicy model = Qwen3Checkpoint.loadPolicy(trained, cpu)) {
      return new Result(warmStart, work.resolve("run"), trained, evaluate(envs, model, ContextMode.HISTORY_ONLY,
          budget), evaluate(envs, model, ContextMode.NONE, budget));
    }
  }

  private static EvaluationMetrics evaluate(EnvironmentRegistry envs, LanguagePolicy model, ContextMode context,
      Budget budget) {
    EvaluationConfig eval = EvaluationConfig.builder().setEnvironmentId(HiddenDoorProvider.ID)
        .optMetaEpisodes(budget.evalMetaEpisodes()).rollout(r -> r.optContextMode(context)).build();
    return new Evaluator(envs).evaluate(eval, model).metrics();
  }
}
