package org.magejvm.examples.research;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.kuhn.KuhnAnalysis;
import org.magejvm.impl.env.kuhn.KuhnDeal;
import org.magejvm.impl.env.kuhn.KuhnLinePolicy;
import org.magejvm.impl.env.kuhn.KuhnOpponent;
import org.magejvm.impl.env.kuhn.KuhnOpponents;
import org.magejvm.impl.env.kuhn.KuhnPokerEnvironment;
import org.magejvm.impl.env.kuhn.KuhnPokerProvider;
import org.magejvm.impl.env.kuhn.KuhnStrategyPolicy;
import org.magejvm.impl.eval.Evaluation;
import org.magejvm.impl.eval.EvaluationConfig;
import org.magejvm.impl.eval.Evaluator;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * The engine's sanity experiment on Kuhn Poker, without a model: for each deterministic archetype and seat, the
 * success rates over three attempts of a player that switches its line after a lost attempt ({@code adaptive}), one
 * that repeats its first line ({@code fixed-line}) and the equilibrium player ({@code nash}), next to the ceiling
 * (the share of the sampled deals that some line wins, and the exact 6-deal fraction of spec 9.2).
 *
 * <p>Usage: {@code KuhnAdaptationExperiment [META_EPISODES [SEED]]}, defaults 1200 and 2026.
 */
public final class KuhnAdaptationExperiment {

  private KuhnAdaptationExperiment() {}

  /**
   * Runs the experiment and prints a markdown table.
   *
   * @param args meta-episodes per cell, seed
   */
  public static void main(String[] args) {
    int metaEpisodes = args.length > 0 ? Integer.parseInt(args[0]) : 1200;
    long seed = args.length > 1 ? Long.parseLong(args[1]) : 2026;
    EnvironmentRegistry registry = EnvironmentRegistry.empty().register(new KuhnPokerProvider());
    System.out.printf(Locale.ROOT, "Kuhn Poker, %d meta-episodes of 3 episodes per cell, seed %d, early stop on a"
        + " win%n%n", metaEpisodes, seed);
    System.out.println("| opponent | seat | ceiling (6 deals) | ceiling (sampled deals) | fixed-line sr[0] / sr[2]"
        + " | adaptive sr[0] / sr[1] / sr[2] | nash sr[0] / sr[2] |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (String id : List.of(KuhnOpponents.CONSERVATIVE, KuhnOpponents.AGGRESSIVE, KuhnOpponents.INTERMEDIATE,
        KuhnOpponents.CFR)) {
      KuhnOpponent opponent = KuhnOpponents.byId(id);
      for (Seat seat : Seat.values()) {
        Set<KuhnDeal> winnable = new HashSet<>(KuhnAnalysis.winnableDeals(opponent, seat));
        Evaluation fixed = evaluate(registry, id, seat, metaEpisodes, seed, KuhnLinePolicy.fixed(seed));
        Evaluation adaptive = evaluate(registry, id, seat, metaEpisodes, seed, KuhnLinePolicy.adaptive(seed));
        Evaluation nash = evaluate(registry, id, seat, metaEpisodes, seed, KuhnStrategyPolicy.nash(seed));
        int winnableSampled = 0;
        for (MetaEpisode m : adaptive.rollout().metaEpisodes()) {
          KuhnPokerEnvironment env = new KuhnPokerEnvironment();
          env.reset(m.seed(), opponent, seat);
          winnableSampled += winnable.contains(env.deal()) ? 1 : 0;
        }
        Map<String, Number> f = fixed.metrics().toMap();
        Map<String, Number> a = adaptive.metrics().toMap();
        Map<String, Number> n = nash.metrics().toMap();
        System.out.printf(Locale.ROOT, "| %s | %s | %d/6 = %.3f | %.3f | %.3f / %.3f | %.3f / %.3f / %.3f |"
                + " %.3f / %.3f |%n",
            id, seat.label(), winnable.size(), winnable.size() / 6.0,
            winnableSampled / (double) adaptive.rollout().metaEpisodes().size(),
            sr(f, 0), sr(f, 2), sr(a, 0), sr(a, 1), sr(a, 2), sr(n, 0), sr(n, 2));
      }
    }
  }

  private static double sr(Map<String, Number> m, int k) {
    return m.get("success_rate[" + k + "]").doubleValue();
  }

  private static Evaluation evaluate(EnvironmentRegistry registry, String opponent, Seat seat, int metaEpisodes,
      long seed, LanguagePolicy policy) {
    EvaluationConfig config = EvaluationConfig.builder()
        .setEnvironmentId(KuhnPokerProvider.ID)
        .optOpponent(opponent)
        .optSeat(seat)
        .optMetaEpisodes(metaEpisodes)
        .rollout(r -> r.optEpisodes(3).optSeed(seed))
        .build();
    return new Evaluator(registry).evaluate(config, policy);
  }
}
