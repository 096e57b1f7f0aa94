package org.magejvm.examples.quickstart;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.magejvm.api.Advantages;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Seat;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.credit.CreditAssigner;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;

/**
 * The CPU quick start, with no download: it writes a tiny Qwen3-architecture checkpoint (random weights, a small
 * byte-level BPE tokenizer learned from the games' prompts, the Qwen3 chat template) in Hugging Face layout, loads
 * it back through {@link Qwen3Checkpoint} exactly as a downloaded model would be loaded, plays one MAGE batch of
 * Tic-Tac-Toe meta-episodes with it against the training population, assigns credit with the differential
 * meta-reward, computes GiGPO advantages with opponent-stationary groups, and prints the metrics next to those of
 * scripted players run through the same engine.
 *
 * <p>The random model answers with noise, so almost every action is invalid; that is expected until the policy is
 * trained. What the run shows is the whole pipeline working end to end on a CPU, and the numbers training starts
 * from. Pointing {@link Qwen3Checkpoint#loadPolicy} at a real Qwen3 directory is the only change needed to use a
 * real model.
 */
public final class QuickStart {

  /** The environment the quick start plays. */
  public static final String ENVIRONMENT = "mage-tictactoe";

  /**
   * What to run.
   *
   * @param workDir where the tiny checkpoint is written (its {@code tiny-qwen3} subdirectory)
   * @param tasks B, the number of task groups
   * @param groupSize G, meta-episodes per group
   * @param maxNewTokens the response-token limit of the tiny model
   * @param seed the base seed of everything
   */
  public record Settings(Path workDir, int tasks, int groupSize, int maxNewTokens, long seed) {

    /**
     * Validates.
     *
     * @param workDir work directory
     * @param tasks tasks
     * @param groupSize group size
     * @param maxNewTokens token limit
     * @param seed seed
     */
    public Settings {
      if (tasks < 1 || groupSize < 1 || maxNewTokens < 1) {
        throw new IllegalArgumentException("tasks, group size and max new tokens must be >= 1");
      }
    }
  }

  /**
   * What the quick start measured.
   *
   * @param checkpoint the tiny checkpoint directory
   * @param parameters the tiny model's parameter count
   * @param metrics the metrics of each policy, by name, the tiny model first
   * @param turns the number of turns of the tiny model's batch
   * @param stepGroups GiGPO step groups in that batch
   * @param meanStepGroupSize their mean size
   * @param meanAbsAdvantage the mean absolute GiGPO advantage
   * @param seconds wall-clock seconds of the tiny model's rollout
   */
  public record Report(
      Path checkpoint,
      long parameters,
      Map<String, EvaluationMetrics> metrics,
      int turns,
      int stepGroups,
      double meanStepGroupSize,
      double meanAbsAdvantage,
      double seconds) {}

  private final EnvironmentRegistry registry;
  private final PrintWriter out;

  /**
   * @param registry where {@value #ENVIRONMENT} is found
   * @param out where progress is printed
   */
  public QuickStart(EnvironmentRegistry registry, PrintWriter out) {
    this.registry = registry;
    this.out = out;
  }

  /**
   * Runs the quick start.
   *
   * @param s the settings
   * @return what was measured
   */
  public Report run(Settings s) {
    EnvironmentProvider provider = registry.require(ENVIRONMENT);
    Path dir = s.workDir().resolve("tiny-qwen3");
    out.println("1. Writing a tiny Qwen3 checkpoint (random weights, BPE tokenizer learned from game prompts) to "
        + dir);
    Qwen3Config config = TinyCheckpoint.write(dir, TinyCheckpoint.Spec.small(promptCorpus(provider, s.seed()),
        Seeds.derive(s.seed(), 7, 0)));
    out.printf(Locale.ROOT, "   vocabulary %d tokens, %d layers, width %d: %,d parameters%n", config.vocabSize(),
        config.numHiddenLayers(), config.hiddenSize(), config.parameterCount());

    RolloutConfig rollout = RolloutConfig.builder()
        .setEnvironmentId(ENVIRONMENT)
        .optTasks(s.tasks())
        .optGroupSize(s.groupSize())
        .optEpisodes(3)
        .optContextMode(ContextMode.REFLECTION_ONLY)
        .optPromptStyle(PromptStyle.COMPACT)
        .optSeating(Seating.mixed(0.5))
        .optSampling(SamplingConfig.training(s.maxNewTokens()).withSeed(s.seed()))
        .optSeed(s.seed())
        .build();

    Map<String, EvaluationMetrics> metrics = new LinkedHashMap<>();
    out.println("2. Loading it through the checkpoint loader and playing " + s.tasks() + " x " + s.groupSize()
        + " MAGE meta-episodes (3 episodes each, reflections between) against the training population");
    RolloutResult batch;
    long start = System.nanoTime();
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu()
        .withThinking(false).withSeed(s.seed()))) {
      batch = new MetaEpisodeRunner(registry).run(rollout, policy);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    metrics.put("tiny-qwen3", EvaluationMetrics.of(batch.metaEpisodes(), batch.episodes()));
    out.printf(Locale.ROOT, "   %d policy calls in %.1f s%n", batch.policyCalls(), seconds);

    out.println("3. Credit assignment (differential meta-reward) and GiGPO advantages (opponent-stationary groups)");
    CreditConfig credit = CreditConfig.forEnvironment(provider.defaults()).optMetaReturn(MetaReturn.DIFFERENTIAL)
        .build();
    List<ScoredTurn> scored = new CreditAssigner(credit).assign(batch.metaEpisodes());
    PolicyOptimizer gigpo = ProviderRegistry.discover(PolicyOptimizerProvider.class).require("gigpo")
        .create(OptimizerConfig.defaults());
    Advantages advantages = gigpo.advantageNormalizer().compute(scored);
    double abs = 0;
    for (double a : advantages.values()) {
      abs += Math.abs(a);
    }
    double meanAbs = advantages.size() == 0 ? 0 : abs / advantages.size();
    out.printf(Locale.ROOT, "   %d turns, %d step groups (mean size %.2f), mean |advantage| %.3f%n",
        advantages.size(), advantages.stepGroupCount(), advantages.meanStepGroupSize(), meanAbs);
    if (meanAbs == 0) {
      out.println("   (every turn scored the same, all invalid, so the groups give no learning signal yet)");
    }

    out.println("4. The same batch shape with scripted players, for reference");
    for (String name : List.of("random", "minimax")) {
      try (LanguagePolicy scripted = provider.scriptedPolicy(name, Seeds.derive(s.seed(), Seeds.POLICY, 0))) {
        RolloutResult r = new MetaEpisodeRunner(registry).run(rollout, scripted);
        metrics.put(name, EvaluationMetrics.of(r.metaEpisodes(), r.episodes()));
      }
    }
    printTable(metrics);
    out.println();
    out.println("The random tiny model writes noise, so its actions are invalid until it is trained. Try it:");
    out.println("  ./mage generate --model " + dir + " --chat --prompt \"Your move?\" --max-new-tokens 16");
    return new Report(dir, config.parameterCount(), metrics, advantages.size(), advantages.stepGroupCount(),
        advantages.meanStepGroupSize(), meanAbs, seconds);
  }

  private void printTable(Map<String, EvaluationMetrics> metrics) {
    out.printf(Locale.ROOT, "%n%-12s %18s %18s %18s %14s%n", "policy", "success_rate[0..2]", "draw_rate[0..2]",
        "score[0..2]", "invalid rate");
    for (Map.Entry<String, EvaluationMetrics> e : metrics.entrySet()) {
      Map<String, Number> m = e.getValue().toMap();
      out.printf(Locale.ROOT, "%-12s %18s %18s %18s %14.3f%n", e.getKey(), triple(m, "success_rate"),
          triple(m, "draw_rate"), triple(m, "score"), m.get("invalid_action_rate").doubleValue());
    }
  }

  private static String triple(Map<String, Number> m, String key) {
    List<String> parts = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      parts.add(String.format(Locale.ROOT, "%.2f", m.get(key + "[" + k + "]").doubleValue()));
    }
    return String.join(" ", parts);
  }

  /**
   * Text the tiny tokenizer learns its merges from: the game's compact and verbose opening prompts for a few seeds
   * and seats, and well-formed answers.
   *
   * @param provider the environment
   * @param seed the seed of the games rendered
   * @return the corpus
   */
  public static String promptCorpus(EnvironmentProvider provider, long seed) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      try (Environment env = provider.create(Map.of())) {
        String obs = env.reset(Seeds.derive(seed, 8, i), provider.opponents().training().get(0).opponent(),
            i % 2 == 0 ? Seat.FIRST : Seat.SECOND);
        for (PromptStyle style : PromptStyle.values()) {
          PromptContext c = new PromptContext(style, obs, 0, List.of(), List.of(), null);
          sb.append(env.promptRenderer().renderPlay(c)).append('\n');
        }
        for (String a : env.legalActions()) {
          sb.append("<action>").append(a).append("</action>\n");
        }
      }
    }
    sb.append("<remark>The opponent blocked my row; next time I take the center first.</remark>\n");
    return sb.toString();
  }

  /**
   * Runs the quick start with its defaults: 4 groups of 4 meta-episodes, 24 new tokens, seed 0, work directory
   * {@code mage-quickstart}.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
    new QuickStart(EnvironmentRegistry.discover(), out).run(new Settings(Path.of("mage-quickstart"), 4, 4, 24, 0));
    out.flush();
  }
}
