package org.magejvm.examples.research;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.ContextMode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.api.PolicyOptimizerProvider;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Turn;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.impl.credit.CreditAssigner;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.credit.EpisodeScore;
import org.magejvm.impl.env.kuhn.KuhnAction;
import org.magejvm.impl.env.kuhn.KuhnObjectiveOptimum;
import org.magejvm.impl.env.kuhn.KuhnOptimumPolicy;
import org.magejvm.impl.env.kuhn.KuhnPokerProvider;
import org.magejvm.impl.env.kuhn.KuhnState;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.policy.ScriptedPolicy;

/**
 * Which way do MAGE's GiGPO advantages point near the optimum of its own objective? A scripted player plays {@link
 * KuhnObjectiveOptimum} with probability {@code 1 - eps} and a random action otherwise, in the quick start's training
 * rollouts (MAGE preset, 16 groups of 8, the earlier attempts in compact prompts, invalid-action penalty 25). Every
 * iteration's turns get GiGPO advantages (mean normalization, step weight 1) under each episode score; per prompt,
 * the action with the higher mean advantage is the one the policy gradient favours there. The experiment counts the
 * prompts (and the turns they hold) where that is the optimum's action, and lists the busy prompts where it is not.
 *
 * <p>Usage: {@code KuhnAdvantageExperiment [EPS [ITERATIONS [SEED]]]}, defaults 0.2, 400 and 1000.
 */
public final class KuhnAdvantageExperiment {

  /** Prompts with fewer samples of either action are left out of the counts. */
  static final int MIN_SAMPLES = 5;

  private KuhnAdvantageExperiment() {}

  /**
   * What one advantage variant favours.
   *
   * @param prompts prompts with both actions sampled at least {@link #MIN_SAMPLES} times
   * @param agreeing those where the favoured action is the optimum's
   * @param turnShare the share of those prompts' turns that sit in agreeing prompts
   * @param disagreeing per disagreeing prompt (its state line): the mean advantages of BET and PASS, the turn count
   *     and the optimum's action
   */
  public record Result(int prompts, int agreeing, double turnShare, Map<String, String> disagreeing) {}

  /** The optimum with probability {@code 1 - eps}, otherwise PASS or BET at random. */
  private static final class SoftOptimum extends ScriptedPolicy {
    private final KuhnObjectiveOptimum optimum = KuhnObjectiveOptimum.reference();
    private final double eps;
    private final Map<String, String> best;

    SoftOptimum(double eps, long seed, Map<String, String> best) {
      super("soft-optimum", seed);
      this.eps = eps;
      this.best = best;
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      KuhnState state = (KuhnState) request.state();
      String action = optimum.action(state.agentCard(), state.agentPlayer(),
          KuhnOptimumPolicy.earlierLines(request), state.history()).text();
      best.put(request.prompt(), action);
      if (random.nextDouble() < eps) {
        return random.nextBoolean() ? KuhnAction.BET.text() : KuhnAction.PASS.text();
      }
      return action;
    }
  }

  /**
   * Runs the experiment.
   *
   * @param eps the share of random actions
   * @param iterations rollouts of 16 groups of 8 meta-episodes
   * @param seed the first rollout's seed (iteration i uses seed + i)
   * @param anchors the step-group anchors
   * @return per episode score, what it favours
   */
  public static Map<EpisodeScore, Result> run(double eps, int iterations, long seed, AnchorScope anchors) {
    EnvironmentRegistry registry = EnvironmentRegistry.empty().register(new KuhnPokerProvider());
    EnvironmentProvider provider = registry.require(KuhnPokerProvider.ID);
    PolicyOptimizer optimizer = ProviderRegistry.discover(PolicyOptimizerProvider.class).require("gigpo")
        .create(OptimizerConfig.builder().optAnchorScope(anchors).build());
    Map<String, String> best = new ConcurrentHashMap<>();
    Map<EpisodeScore, Map<String, double[]>> sums = new LinkedHashMap<>();
    Map<EpisodeScore, CreditAssigner> credits = new LinkedHashMap<>();
    for (EpisodeScore score : EpisodeScore.values()) {
      sums.put(score, new LinkedHashMap<>());
      credits.put(score, new CreditAssigner(CreditConfig.forEnvironment(provider.defaults())
          .optMetaReturn(TrainingPreset.MAGE.metaReturn().orElseThrow()).optInvalidPenalty(25)
          .optEpisodeScore(score).build()));
    }
    for (int it = 0; it < iterations; it++) {
      RolloutConfig config = TrainingPreset.MAGE.trainingRollout(provider).optTasks(16)
          .optContextMode(ContextMode.HISTORY_ONLY).optPromptStyle(PromptStyle.COMPACT).optSeed(seed + it).build();
      RolloutResult batch = new MetaEpisodeRunner(registry).run(config, new SoftOptimum(eps, seed + it, best));
      List<MetaEpisode> metaEpisodes = batch.metaEpisodes();
      for (EpisodeScore score : EpisodeScore.values()) {
        List<ScoredTurn> scored = credits.get(score).assign(metaEpisodes);
        double[] a = optimizer.advantageNormalizer().compute(scored).values();
        for (int i = 0; i < a.length; i++) {
          Turn t = scored.get(i).turn();
          double[] s = sums.get(score).computeIfAbsent(t.prompt(), k -> new double[4]);
          int j = KuhnAction.BET.text().equals(t.action()) ? 0 : 2;
          s[j] += a[i];
          s[j + 1]++;
        }
      }
    }
    Map<EpisodeScore, Result> results = new LinkedHashMap<>();
    for (Map.Entry<EpisodeScore, Map<String, double[]>> e : sums.entrySet()) {
      int prompts = 0;
      int agreeing = 0;
      double turns = 0;
      double agreeingTurns = 0;
      Map<String, String> disagreeing = new LinkedHashMap<>();
      for (Map.Entry<String, double[]> p : e.getValue().entrySet()) {
        double[] s = p.getValue();
        if (s[1] < MIN_SAMPLES || s[3] < MIN_SAMPLES) {
          continue;
        }
        double bet = s[0] / s[1];
        double pass = s[2] / s[3];
        String favoured = bet > pass ? KuhnAction.BET.text() : KuhnAction.PASS.text();
        String optimal = best.get(p.getKey());
        prompts++;
        turns += s[1] + s[3];
        if (favoured.equals(optimal)) {
          agreeing++;
          agreeingTurns += s[1] + s[3];
        } else {
          disagreeing.put(stateLine(p.getKey()), String.format(Locale.ROOT,
              "A(BET) %.2f, A(PASS) %.2f, %d turns, optimum %s", bet, pass, (int) (s[1] + s[3]), optimal));
        }
      }
      results.put(e.getKey(), new Result(prompts, agreeing, turns == 0 ? 0 : agreeingTurns / turns, disagreeing));
    }
    return results;
  }

  /** The prompt from its state line on, on one line, without the answer instruction. */
  static String stateLine(String prompt) {
    int at = prompt.indexOf("You are player");
    String rest = at < 0 ? prompt : prompt.substring(at);
    int answer = rest.lastIndexOf("\nAnswer ");
    return (answer < 0 ? rest : rest.substring(0, answer)).replace("\n", " | ");
  }

  /**
   * Runs the experiment and prints, per anchor scope and episode score, what the advantages favour.
   *
   * @param args eps, iterations, seed
   */
  public static void main(String[] args) {
    double eps = args.length > 0 ? Double.parseDouble(args[0]) : 0.2;
    int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 400;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1000;
    System.out.printf(Locale.ROOT, "Kuhn Poker, the objective's optimum with %.2f random actions, %d rollouts of 16"
        + " x 8 meta-episodes (seeds %d..%d); GiGPO mean normalization, step weight 1%n", eps, iterations, seed,
        seed + iterations - 1);
    for (AnchorScope anchors : List.of(AnchorScope.PROMPT, AnchorScope.GLOBAL)) {
      for (Map.Entry<EpisodeScore, Result> e : run(eps, iterations, seed, anchors).entrySet()) {
        Result r = e.getValue();
        System.out.printf(Locale.ROOT, "anchors %s, episode score %s: favours the optimum's action in %d of %d"
            + " prompts (%.1f%% of their turns)%n", anchors, e.getKey(), r.agreeing(), r.prompts(),
            100 * r.turnShare());
        r.disagreeing().forEach((state, detail) -> System.out.println("    " + state + ": " + detail));
      }
    }
  }
}
