package org.magejvm.examples.bench;

import org.magejvm.impl.train.TrainerBuilder;
import ai.djl.engine.Engine;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.ContextMode;
import org.magejvm.examples.quickstart.PromptCorpus;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.listen.MetricsFileListener;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * A native-memory soak of the whole trainer: {@link MageTrainer} iterations on the tiny random Qwen3 (the model of
 * {@code mage train --tiny}), with everything a real run does: training rollouts, credit, GiGPO, old and reference
 * log-probabilities, minibatch updates, validation against the population and the held-out opponents, checkpoints and
 * the metrics file. Prints the resident set size (RSS) after the first iteration and, for every window of {@code
 * every} iterations, the RSS at its end with the window's min, mean and max, the Java heap, seconds per iteration and
 * the load; at the end the drift of the window means from the first full window to the last.
 *
 * <p>Arguments are {@code key=value} pairs, all optional: {@code iterations=200}, {@code every=20}, {@code
 * env=mage-kuhn-poker} (short prompts; Tic-Tac-Toe's are several times longer and its iterations far slower),
 * {@code tasks=1} and {@code group=4} (meta-episodes per iteration: tasks x group; the preset's 16 x 8 takes
 * minutes per iteration on 2 cores, since the untrained model's turns are all trained), {@code tokens=16} (response
 * limit), {@code kl=0.1} (0: no reference model), {@code lora=0}
 * (a LoRA rank instead of full fine-tuning), {@code validate=10} and {@code valmeta=4} (validation interval and
 * meta-episodes per set; 0: no validation), {@code checkpoint=50} (0: none), {@code lr=1e-3}, {@code seed=1}, {@code
 * skipzero=false} (the random model's advantages are all zero, so by default zero-advantage turns are trained too:
 * the update does its full work), {@code dir=} (the run directory; a new temporary one by default), {@code model=}
 * (a checkpoint directory to train instead of the tiny random model, for example the quick start's
 * {@code warm-start}), {@code prompts=preset} ({@code compact}: the quick start's compact prompts with the earlier
 * attempts' moves instead of reflections, so that a warm-started model's short valid answers keep iterations at a
 * few seconds).
 *
 * <p>Run with {@code ./mage bench trainer-soak [key=value...]} after {@code mvn -B -q package -DskipTests}; fix the
 * heap ({@code MAGE_JAVA_OPTS="-Xms256m -Xmx256m -XX:+AlwaysPreTouch"}) so that the RSS shows native memory.
 */
public final class TrainerSoakBench {
  private TrainerSoakBench() {}

  /**
   * Runs the soak.
   *
   * @param args {@code key=value} options (see the class comment)
   */
  public static void main(String[] args) {
    Map<String, String> opt = new LinkedHashMap<>();
    opt.put("iterations", "200");
    opt.put("every", "20");
    opt.put("env", "mage-kuhn-poker");
    opt.put("tasks", "1");
    opt.put("group", "4");
    opt.put("tokens", "16");
    opt.put("kl", "0.1");
    opt.put("lora", "0");
    opt.put("validate", "10");
    opt.put("valmeta", "4");
    opt.put("checkpoint", "50");
    opt.put("lr", "1e-3");
    opt.put("seed", "1");
    opt.put("skipzero", "false");
    opt.put("dir", "");
    opt.put("model", "");
    opt.put("prompts", "preset");
    BenchArgs.apply(opt, args);
    int iterations = Integer.parseInt(opt.get("iterations"));
    int every = Integer.parseInt(opt.get("every"));
    long seed = Long.parseLong(opt.get("seed"));
    int tokens = Integer.parseInt(opt.get("tokens"));
    int loraRank = Integer.parseInt(opt.get("lora"));
    int valMeta = Integer.parseInt(opt.get("valmeta"));
    if (iterations < 1 || every < 1) {
      throw new IllegalArgumentException("iterations and every must be >= 1");
    }
    Engine engine = Engine.getEngine("PyTorch");
    System.out.printf(Locale.ROOT,
        "TrainerSoakBench: %s %s, %d cores visible, libtorch threads %s, Java %s, max heap %.0f MiB, load %s%n",
        engine.getEngineName(), engine.getVersion(), Runtime.getRuntime().availableProcessors(),
        System.getProperty("ai.djl.pytorch.num_threads", "default"), System.getProperty("java.version"),
        Runtime.getRuntime().maxMemory() / 1048576.0, ProcStatus.loadAverage());
    System.out.println("options: " + opt);
    Path runDir = BenchArgs.workDir(opt, "mage-trainer-soak");
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    EnvironmentProvider provider = registry.require(opt.get("env"));
    Path modelDir;
    Qwen3Config config;
    if (opt.get("model").isEmpty()) {
      modelDir = runDir.resolve("tiny-model");
      config = TinyCheckpoint.write(modelDir, TinyCheckpoint.Spec.small(PromptCorpus.withReflection(provider, seed), seed));
    } else {
      modelDir = Path.of(opt.get("model"));
      config = Qwen3Config.fromFile(modelDir.resolve("config.json"));
    }
    boolean compact = switch (opt.get("prompts")) {
      case "preset" -> false;
      case "compact" -> true;
      default -> throw new IllegalArgumentException("prompts must be preset or compact, got " + opt.get("prompts"));
    };

    TrainingPreset preset = TrainingPreset.MAGE_REFERENCE;
    int checkpointEvery = Integer.parseInt(opt.get("checkpoint"));
    TrainingConfig.Builder cb = preset.config(provider).toBuilder()
        .set("rollout.tasks", Integer.parseInt(opt.get("tasks")))
        .set("rollout.group_size", Integer.parseInt(opt.get("group")))
        .set("sampling.max_new_tokens", tokens)
        .set("credit.max_response_tokens", tokens)
        .set("adamw.learning_rate", Double.parseDouble(opt.get("lr")))
        .set("loss.kl_coefficient", Double.parseDouble(opt.get("kl")))
        .set("update.skip_zero_advantage", Boolean.parseBoolean(opt.get("skipzero")))
        .set("validation.every", valMeta > 0 ? Integer.parseInt(opt.get("validate")) : 0)
        .set("validation.meta_episodes", Math.max(1, valMeta))
        .set("checkpoints.every", Math.max(0, checkpointEvery))
        .set("checkpoints.keep", 2)
        .set("seed", seed);
    if (compact) {
      cb.set("rollout.context_mode", ContextMode.HISTORY_ONLY).set("rollout.prompt_style", PromptStyle.COMPACT);
    }
    if (loraRank > 0) {
      cb.set("fine_tuning.mode", "lora").set("fine_tuning.lora_rank", loraRank)
          .set("fine_tuning.lora_alpha", 2.0 * loraRank);
    }
    TrainingConfig tc = cb.build();

    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(modelDir,
            Qwen3Checkpoint.Options.cpu().withSeed(seed).withThinking(!compact));
        MetricsFileListener metrics = new MetricsFileListener(runDir)) {
      TrainerBuilder b = MageTrainer.builder(tc, policy, registry).addListener(metrics);
      if (checkpointEvery > 0) {
        b.optCheckpointDirectory(runDir.resolve(TrainingCheckpoint.CHECKPOINTS_DIR), modelDir,
            new com.google.gson.JsonObject());
      }
      try (MageTrainer trainer = b.build()) {
        System.out.printf(Locale.ROOT, "%s on %s: %,d parameters, %s; %d x %d meta-episodes per iteration, %d"
                + " tokens; run directory %s%n", preset.id(), provider.id(), config.parameterCount(),
            loraRank > 0 ? "LoRA r=" + loraRank : "full fine-tuning", tc.rollout().tasks(), tc.rollout().groupSize(),
            tokens, runDir);
        System.out.printf(Locale.ROOT, "iteration %4d: RSS %7.1f MiB before training (Java heap committed %.1f MiB)%n",
            0, ProcStatus.rssMiB(), Runtime.getRuntime().totalMemory() / 1048576.0);
        soak(trainer, iterations, every);
      }
    }
  }

  private static void soak(MageTrainer trainer, int iterations, int every) {
    long t0 = System.nanoTime();
    double min = Double.MAX_VALUE;
    double max = 0;
    double windowMin = Double.MAX_VALUE;
    double windowMax = 0;
    double windowSum = 0;
    int windowIterations = 0;
    List<Double> windowMeans = new ArrayList<>();
    long trainedTurns = 0;
    for (int i = 1; i <= iterations; i++) {
      Map<String, Object> m = trainer.step();
      trainedTurns += ((Number) m.get("trained_turns")).longValue();
      double rss = ProcStatus.rssMiB();
      min = Math.min(min, rss);
      max = Math.max(max, rss);
      windowMin = Math.min(windowMin, rss);
      windowMax = Math.max(windowMax, rss);
      windowSum += rss;
      windowIterations++;
      if (i == 1) {
        System.out.printf(Locale.ROOT, "iteration %4d: RSS %7.1f MiB after the first iteration (%.1f s)%n", i, rss,
            (System.nanoTime() - t0) / 1e9);
      }
      if (i % every == 0 || i == iterations) {
        windowMeans.add(windowSum / windowIterations);
        System.out.printf(Locale.ROOT,
            "iteration %4d: RSS %7.1f MiB; over the last %d iterations min %.1f, mean %.1f, max %.1f MiB (Java heap"
                + " committed %.1f MiB), %.2f s/iteration so far, load %s%n",
            i, rss, windowIterations, windowMin, windowSum / windowIterations, windowMax,
            Runtime.getRuntime().totalMemory() / 1048576.0, (System.nanoTime() - t0) / 1e9 / i,
            ProcStatus.loadAverage());
        System.out.flush();
        windowMin = Double.MAX_VALUE;
        windowMax = 0;
        windowSum = 0;
        windowIterations = 0;
      }
    }
    String drift = windowMeans.size() >= 3
        ? String.format(Locale.ROOT, "; window means from the second to the last window: %.1f -> %.1f MiB (%+.1f)",
            windowMeans.get(1), windowMeans.get(windowMeans.size() - 1),
            windowMeans.get(windowMeans.size() - 1) - windowMeans.get(1))
        : "";
    System.out.printf(Locale.ROOT,
        "%d iterations in %.1f s: RSS after each iteration ranged over [%.1f, %.1f] MiB%s; %d trained turns, %d AdamW"
            + " steps; peak RSS %.1f MiB%n",
        iterations, (System.nanoTime() - t0) / 1e9, min, max, drift, trainedTurns, trainer.adamW().stepCount(),
        ProcStatus.peakRssMiB());
  }
}
