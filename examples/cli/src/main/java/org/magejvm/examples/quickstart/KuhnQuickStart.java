package org.magejvm.examples.quickstart;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.IntConsumer;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.eval.MethodPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.train.AdamW;
import org.magejvm.impl.train.AdamWConfig;
import org.magejvm.impl.train.MageTrainer;
import org.magejvm.impl.train.ModelSaver;
import org.magejvm.impl.train.PolicyUpdater;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * The Kuhn Poker quick start: a tiny Qwen3 model learns, with MAGE, to exploit opponents within a meta-episode.
 *
 * <ol>
 *   <li>Writes a tiny Qwen3-architecture checkpoint with a tokenizer learned from Kuhn prompts, in Hugging Face
 *       layout, and loads it through the loader a downloaded checkpoint uses.
 *   <li>Warm start: supervised steps on transcripts of scripted players that do <em>not</em> adapt (a fixed line
 *       per card and seat mixed with random legal actions), so the model writes valid actions but has not been
 *       shown how to use the earlier attempts in its context.
 *   <li>Evaluates the warm start, trains with the MAGE preset (differential return, opponent-stationary groups, 3
 *       episodes, history of earlier attempts in the prompt), and evaluates again on the same seeds, per opponent
 *       and against the held-out {@code cfr} opponent, next to the winnable-deal ceiling of each evaluation set.
 * </ol>
 */
public final class KuhnQuickStart {

  /** The environment. */
  public static final String ENVIRONMENT = "mage-kuhn-poker";
  /** The training population (the held-out opponent is {@code cfr}). */
  public static final List<String> POOL = List.of("conservative", "aggressive", "intermediate");
  /** The held-out opponent, played with the agent second as in the reference's validation. */
  public static final String HELD_OUT = "cfr";

  /**
   * What to run.
   *
   * @param workDir run directory (the tiny checkpoint and the warm start are cached there)
   * @param warmStartSteps supervised steps
   * @param iterations MAGE iterations
   * @param tasks task groups per iteration
   * @param groupSize meta-episodes per group
   * @param evalMetaEpisodes meta-episodes per evaluation set
   * @param learningRate the RL learning rate
   * @param seed base seed
   */
  public record Settings(
      Path workDir, int warmStartSteps, int iterations, int tasks, int groupSize, int evalMetaEpisodes,
      double learningRate, long seed) {}

  private final EnvironmentRegistry registry;
  private final PrintWriter out;

  /**
   * @param registry where the Kuhn environment is found
   * @param out where progress goes
   */
  public KuhnQuickStart(EnvironmentRegistry registry, PrintWriter out) {
    this.registry = registry;
    this.out = out;
  }

  /**
   * Runs everything.
   *
   * @param s settings
   * @param onIteration called after each RL iteration with its index
   * @return before and after metrics per evaluation set, and the ceilings
   */
  public Map<String, Object> run(Settings s, IntConsumer onIteration) {
    EnvironmentProvider provider = registry.require(ENVIRONMENT);
    Path tiny = s.workDir().resolve("tiny-qwen3");
    if (!Files.exists(tiny.resolve("model.safetensors"))) {
      TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small(QuickStart.promptCorpus(provider, s.seed()),
          Seeds.derive(s.seed(), 7, 0)));
    }
    Path warm = s.workDir().resolve("warm-start");
    if (!Files.exists(warm.resolve("model.safetensors"))) {
      warmStart(provider, tiny, warm, s);
    }
    Map<String, Object> result = new LinkedHashMap<>();
    Map<String, Map<String, Number>> ceilings = evaluate(provider.scriptedPolicy("adaptive", 0), s);
    result.put("ceiling", ceilings);
    try (DjlLanguagePolicy policy = load(warm, s.seed())) {
      Map<String, Map<String, Number>> before = evaluate(policy, s);
      result.put("before", before);
      printTable("before training (warm start)", before, ceilings);
      train(provider, warm, policy, s, onIteration);
      Map<String, Map<String, Number>> after = evaluate(policy, s);
      result.put("after", after);
      printTable("after training", after, ceilings);
    }
    return result;
  }

  private static DjlLanguagePolicy load(Path dir, long seed) {
    return Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu().withThinking(false).withSeed(seed));
  }

  /** The training rollout: MAGE preset, history of earlier attempts in compact prompts. */
  static RolloutConfig.Builder rollout(EnvironmentProvider provider, Settings s) {
    return MethodPreset.MAGE.trainingRollout(provider)
        .optTasks(s.tasks())
        .optGroupSize(s.groupSize())
        .optContextMode(ContextMode.HISTORY_ONLY)
        .optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(16));
  }

  private void warmStart(EnvironmentProvider provider, Path tiny, Path warm, Settings s) {
    out.println("Warm start: supervised steps on non-adaptive scripted players' turns");
    RolloutConfig config = rollout(provider, s).optTasks(64).optGroupSize(4).optSeed(Seeds.derive(s.seed(), 9, 0))
        .build();
    List<Turn> turns = new ArrayList<>();
    try (LanguagePolicy mix = new MixedScripted(provider, Seeds.derive(s.seed(), 9, 1))) {
      for (MetaEpisode m : new MetaEpisodeRunner(registry).run(config, mix).metaEpisodes()) {
        m.episodes().forEach(e -> turns.addAll(e.turns()));
      }
    }
    try (DjlLanguagePolicy policy = load(tiny, s.seed())) {
      Qwen3Model model = MageTrainer.modelOf(policy);
      model.weights().requireGradients(true);
      List<PolicyUpdater.Row> rows = new ArrayList<>();
      int stop = policy.stopTokenIds().iterator().next();
      for (Turn t : turns) {
        int[] prompt = policy.tokenizer().encode(policy.renderPrompt(t.prompt()));
        int[] body = policy.tokenizer().encode(t.response());
        int[] response = java.util.Arrays.copyOf(body, body.length + 1);
        response[body.length] = stop;
        rows.add(new PolicyUpdater.Row(prompt, response, null, 1.0));
      }
      PolicyOptimizer opt = optimizer(0);
      try (AdamW adamw = new AdamW(model.weights().parameters(),
          AdamWConfig.builder().optLearningRate(3e-3).optWeightDecay(0).build())) {
        PolicyUpdater sft = new PolicyUpdater(model, null, opt, adamw,
            new PolicyUpdater.Settings(32, 32, 1, true, true));
        Random r = new Random(s.seed());
        for (int step = 0; step < s.warmStartSteps(); step++) {
          List<PolicyUpdater.Row> batch = new ArrayList<>();
          for (int i = 0; i < 32; i++) {
            batch.add(rows.get(r.nextInt(rows.size())));
          }
          PolicyUpdater.Report rep = sft.update(batch);
          if (step % 20 == 0) {
            out.printf(Locale.ROOT, "  step %d  pg_loss %.4f%n", step, rep.diagnostics().get("actor/pg_loss"));
          }
        }
      }
      model.weights().requireGradients(false);
      ModelSaver.save(model, tiny, warm);
    }
  }

  private static PolicyOptimizer optimizer(double lr) {
    OptimizerConfig c = OptimizerConfig.builder().optKlCoefficient(0).optLearningRate(lr).build();
    return ProviderRegistry.discover(PolicyOptimizerProvider.class).require("gigpo").create(c);
  }

  private void train(
      EnvironmentProvider provider, Path warm, DjlLanguagePolicy policy, Settings s, IntConsumer onIteration) {
    Qwen3Model model = MageTrainer.modelOf(policy);
    model.weights().requireGradients(true);
    try (AdamW adamw = new AdamW(model.weights().parameters(),
        AdamWConfig.builder().optLearningRate(s.learningRate()).build())) {
      MageTrainer trainer = MageTrainer.builder()
          .setRegistry(registry)
          .setPolicy(policy)
          .setRollout(rollout(provider, s).build())
          .setCredit(CreditConfig.forEnvironment(provider.defaults()).optMetaReturn(MetaReturn.DIFFERENTIAL).build())
          .setOptimizer(optimizer(s.learningRate()))
          .setAdamW(adamw)
          .optValidateEvery(0)
          .optSeed(s.seed())
          .build();
      for (int i = 0; i < s.iterations(); i++) {
        Map<String, Object> m = trainer.step();
        out.printf(Locale.ROOT, "  it %3d  sr0 %.3f sr2 %.3f invalid %.3f  |A| %.3f  trained %s  %.1fs%n", i,
            m.get("success_rate[0]"), m.get("success_rate[2]"), m.get("invalid_action_rate"),
            m.get("mean_abs_advantage"), m.get("trained_turns"), m.get("timing/iteration_s"));
        out.flush();
        onIteration.accept(i);
      }
    } finally {
      model.weights().requireGradients(false);
    }
  }

  /** Evaluation sets: each pool opponent with mixed seats, and the held-out opponent with the agent second. */
  Map<String, Map<String, Number>> evaluate(LanguagePolicy policy, Settings s) {
    EnvironmentProvider provider = registry.require(ENVIRONMENT);
    Map<String, Map<String, Number>> out = new LinkedHashMap<>();
    List<String> sets = new ArrayList<>(POOL);
    sets.add(HELD_OUT);
    for (int i = 0; i < sets.size(); i++) {
      String opp = sets.get(i);
      RolloutConfig c = rollout(provider, s)
          .optTasks(s.evalMetaEpisodes())
          .optGroupSize(1)
          .optFixedOpponent(opp)
          .optSeating(opp.equals(HELD_OUT) ? Seating.of(Seat.SECOND) : Seating.mixed(0.5))
          .optSampling(SamplingConfig.evaluation(16).withSeed(Seeds.derive(s.seed(), 11, i)))
          .optSeed(Seeds.derive(s.seed(), 12, i))
          .build();
      RolloutResult r = new MetaEpisodeRunner(registry).run(c, policy);
      out.put(opp, EvaluationMetrics.of(r.metaEpisodes(), r.episodes()).toMap());
    }
    return out;
  }

  private void printTable(String title, Map<String, Map<String, Number>> m, Map<String, Map<String, Number>> ceil) {
    out.println();
    out.println(title);
    out.printf(Locale.ROOT, "  %-13s %6s %6s %6s %8s %8s %8s%n", "opponent", "sr[0]", "sr[1]", "sr[2]", "ceiling",
        "score[2]", "invalid");
    for (Map.Entry<String, Map<String, Number>> e : m.entrySet()) {
      Map<String, Number> v = e.getValue();
      out.printf(Locale.ROOT, "  %-13s %6.3f %6.3f %6.3f %8.3f %8.3f %8.3f%n", e.getKey(),
          v.get("success_rate[0]").doubleValue(), v.get("success_rate[1]").doubleValue(),
          v.get("success_rate[2]").doubleValue(), ceil.get(e.getKey()).get("success_rate[2]").doubleValue(),
          v.get("score[2]").doubleValue(), v.get("invalid_action_rate").doubleValue());
    }
    out.flush();
  }

  /**
   * A non-adaptive scripted player for the warm start: per turn, the fixed line's action with probability 1/2,
   * otherwise a uniformly random legal action. It never reads the earlier attempts.
   */
  static final class MixedScripted implements LanguagePolicy {
    private final LanguagePolicy fixed;
    private final LanguagePolicy random;
    private final Random coin;

    MixedScripted(EnvironmentProvider provider, long seed) {
      fixed = provider.scriptedPolicy("fixed-line", seed);
      random = provider.scriptedPolicy("random", seed + 1);
      coin = new Random(seed + 2);
    }

    @Override
    public String name() {
      return "fixed-line+random";
    }

    @Override
    public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
      List<Generation> out = new ArrayList<>(requests.size());
      for (PolicyRequest r : requests) {
        LanguagePolicy p = coin.nextBoolean() ? fixed : random;
        out.add(p.generate(List.of(r), sampling).get(0));
      }
      return out;
    }

    @Override
    public void close() {
      fixed.close();
      random.close();
    }
  }

  /**
   * Runs the quick start from the command line (for experiments).
   *
   * @param args workDir warmSteps iterations tasks group evalN lr seed
   */
  public static void main(String[] args) {
    Settings s = new Settings(Path.of(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]),
        Integer.parseInt(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]),
        Double.parseDouble(args[6]), Long.parseLong(args[7]));
    PrintWriter out = new PrintWriter(System.out, true);
    new KuhnQuickStart(EnvironmentRegistry.discover(), out).run(s, i -> { });
  }
}
