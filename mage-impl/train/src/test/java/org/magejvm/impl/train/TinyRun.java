package org.magejvm.impl.train;

import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.impl.train.update.PolicyUpdater;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.checkpoint.CheckpointManager;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.checkpoint.CheckpointWeights;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.magejvm.api.ContextMode;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.finetune.FineTuning;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * A complete, tiny training run for tests: a random Qwen3 of about 20k parameters on {@link VowelProvider}, 2 x 2
 * meta-episodes of 2 turns per iteration with 6-token responses, GiGPO with a KL term against a frozen reference,
 * a large learning rate (so every iteration visibly changes the weights), validation every 2 iterations. With a LoRA
 * rank, only an adapter on every projection trains, with the base model (adapter off) as the KL reference.
 */
final class TinyRun implements AutoCloseable {

  static final long SEED = 5;

  final DjlLanguagePolicy policy;
  /** The frozen reference of full fine-tuning; null with LoRA. */
  final Qwen3Model reference;
  /** With LoRA: the adapter and the setup; null otherwise. */
  final LoraAdapter adapter;
  final FineTuning fineTuning;
  final AdamW adamw;
  final CheckpointManager checkpoints;
  final MageTrainer trainer;

  /** Writes the tiny model (deterministic) unless the directory already holds one. */
  static Path writeModel(Path dir) {
    if (!Files.isRegularFile(dir.resolve("model.safetensors"))) {
      TinyCheckpoint.write(dir, spec(11));
    }
    return dir;
  }

  static TinyCheckpoint.Spec spec(int layersWidthSeed) {
    String corpus = "task 0 turn 1 Write text. Use vowels. aeiou aeiou the quick brown fox <|im_end|>";
    return new TinyCheckpoint.Spec(32, 1, 2, 1, 16, 48, 48, corpus, layersWidthSeed);
  }

  /**
   * @param runDir the run directory (checkpoints under {@code checkpoints/})
   * @param modelDir the tiny model
   * @param checkpointEvery checkpoint interval (0: at the end only); negative: no checkpoint manager
   * @param listeners listeners, in order
   */
  TinyRun(Path runDir, Path modelDir, int checkpointEvery, List<TrainingListener> listeners) {
    this(runDir, modelDir, checkpointEvery, 0, listeners);
  }

  /**
   * @param runDir the run directory (checkpoints under {@code checkpoints/})
   * @param modelDir the tiny model
   * @param checkpointEvery checkpoint interval (0: at the end only); negative: no checkpoint manager
   * @param loraRank 0 for full fine-tuning, else the rank of a LoRA adapter (alpha 2 x rank) to train instead
   * @param listeners listeners, in order
   */
  TinyRun(Path runDir, Path modelDir, int checkpointEvery, int loraRank, List<TrainingListener> listeners) {
    this(runDir, modelDir, checkpointEvery, loraRank, listeners, (b, p) -> { });
  }

  /**
   * @param runDir the run directory (checkpoints under {@code checkpoints/})
   * @param modelDir the tiny model
   * @param checkpointEvery checkpoint interval (0: at the end only); negative: no checkpoint manager
   * @param loraRank 0 for full fine-tuning, else the rank of a LoRA adapter (alpha 2 x rank) to train instead
   * @param listeners listeners, in order
   * @param customize last changes to the trainer's builder (a rollout policy, a policy sync, update settings), given
   *     the trained policy
   */
  TinyRun(Path runDir, Path modelDir, int checkpointEvery, int loraRank, List<TrainingListener> listeners,
      java.util.function.BiConsumer<TrainerBuilder, DjlLanguagePolicy> customize) {
    EnvironmentRegistry registry = EnvironmentRegistry.empty().register(new VowelProvider());
    policy = Qwen3Checkpoint.loadPolicy(modelDir, Qwen3Checkpoint.Options.cpu().withThinking(false));
    Qwen3Model model = MageTrainer.modelOf(policy);
    OptimizerConfig oc = OptimizerConfig.builder().optKlCoefficient(0.1).build();
    AdamWConfig adamWConfig = AdamWConfig.builder().optLearningRate(1e-2).build();
    PolicyOptimizer optimizer = ProviderRegistry.discover(PolicyOptimizerProvider.class).require("gigpo")
        .create(oc);
    CheckpointWeights weights;
    if (loraRank > 0) {
      reference = null;
      adapter = LoraAdapter.create(model, LoraConfig.builder().setRank(loraRank).optAlpha(2.0 * loraRank)
          .optAllLinear().build(), SEED);
      fineTuning = FineTuning.lora(model, adapter);
      adamw = new AdamW(fineTuning.trainableParameters(), adamWConfig);
      weights = CheckpointWeights.of(fineTuning, modelDir);
    } else {
      model.weights().requireGradients(true);
      reference = Qwen3Checkpoint.loadModel(modelDir, ai.djl.Device.cpu(), DataType.FLOAT32);
      adapter = null;
      fineTuning = null;
      adamw = new AdamW(model.weights().parameters(), adamWConfig);
      weights = CheckpointWeights.full(model, modelDir);
    }
    RolloutConfig rollout = RolloutConfig.builder()
        .setEnvironmentId(VowelProvider.ID)
        .optTasks(2)
        .optGroupSize(2)
        .optEpisodes(1)
        .optContextMode(ContextMode.NONE)
        .optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(6))
        .build();
    RolloutConfig validation = rollout.toBuilder().optTasks(2).optGroupSize(1).optGroupPrefix("val")
        .optSampling(SamplingConfig.evaluation(6)).build();
    checkpoints = checkpointEvery < 0 ? null : CheckpointManager.builder()
        .setDirectory(runDir.resolve(TrainingCheckpoint.CHECKPOINTS_DIR))
        .setWeights(weights)
        .optEvery(checkpointEvery)
        .optKeepLast(2)
        .optBestMetric("val/success_rate[0]")
        .build();
    TrainerBuilder b = MageTrainer.builder()
        .setRegistry(registry)
        .setPolicy(policy)
        .setRollout(rollout)
        .setCredit(CreditConfig.forEnvironment(VowelProvider.DEFAULTS).optMetaReturn(MetaReturn.SINGLE_EPISODE)
            .build())
        .setOptimizer(optimizer)
        .setAdamW(adamw)
        .optReference(reference)
        .optFineTuning(fineTuning)
        .optUpdateSettings(new PolicyUpdater.Settings(4, 4, 1, true, true))
        .addValidation(new Validation("", validation))
        .optValidateEvery(2)
        .optSeed(SEED)
        .optCheckpoints(checkpoints);
    listeners.forEach(b::addListener);
    customize.accept(b, policy);
    trainer = b.build();
  }

  /**
   * A {@code customize} step that turns the anchor check on: two fixed anchor turns and a limit loose enough that
   * updates are seldom undone, so each update scores the anchors after its tries and the next one starts from them.
   *
   * @param b the trainer's builder
   * @param policy the trained policy (unused)
   */
  static void withAnchors(TrainerBuilder b, DjlLanguagePolicy policy) {
    b.optAnchorTurns(List.of(
            new PolicyUpdater.Row(new int[] {5, 6, 7, 8}, new int[] {9, 10, 11}, null, 0),
            new PolicyUpdater.Row(new int[] {12, 13, 14}, new int[] {15, 16}, null, 0)))
        .optUpdateSettings(new PolicyUpdater.Settings(4, 4, 1, true, true, 0, 10));
  }

  @Override
  public void close() {
    adamw.close();
    if (reference != null) {
      reference.close();
    }
    if (fineTuning != null) {
      fineTuning.close();
      MageTrainer.modelOf(policy).setAdapter(null);
      adapter.close();
    }
    policy.close();
  }
}
