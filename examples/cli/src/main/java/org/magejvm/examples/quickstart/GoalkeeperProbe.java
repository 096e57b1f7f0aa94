package org.magejvm.examples.quickstart;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.impl.env.keeper.GoalkeeperEnvironment;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * What a Goalkeeper model has learnt to do with its memory, per spot, read from its probabilities rather than from
 * sampled play. For every spot s and every first dive d other than s, the model's first attempt is made to dive to d
 * (so it misses and sees the shot go to s); in a reflecting context the model then writes its own reflection at
 * temperature 1 ({@value #SAMPLES_PER_PAIR} samples per pair); the probe then reads, by teacher forcing, the
 * probability at temperature 1 that the model's second attempt answers {@code <action>s</action>}. The follow rate of
 * spot s is that probability averaged over the first dives and reflections: 1 for a keeper that carries the shot
 * into its next dive, 1/7 on average for one that does not. It is a lower bound of the probability of diving to s
 * (another spelling of the same answer is not counted), and it uses the real prompts of the rollout engine.
 */
public final class GoalkeeperProbe {

  /** Reflections sampled per (spot, first dive) pair in a reflecting context. */
  public static final int SAMPLES_PER_PAIR = 4;

  private static final Pattern NUMBER = Pattern.compile("\\d+");

  /**
   * The probe's result.
   *
   * @param followRate per spot s = 1..N (index s - 1), the mean probability that the second attempt dives to s
   *     after the first saw the shot go to s
   * @param namesSpotRate per spot, the share of the probe's reflections whose {@linkplain #namedSpot named spot} is
   *     s (NaN without reflections)
   * @param prompts the second-attempt prompts the rates are averaged over
   */
  public record Result(double[] followRate, double[] namesSpotRate, int prompts) {

    /**
     * Copies.
     *
     * @param followRate follow rate per spot
     * @param namesSpotRate naming rate per spot
     * @param prompts prompts
     */
    public Result {
      followRate = followRate.clone();
      namesSpotRate = namesSpotRate.clone();
    }

    /** @return a copy of the follow rates, per spot */
    @Override
    public double[] followRate() {
      return followRate.clone();
    }

    /** @return a copy of the naming rates, per spot */
    @Override
    public double[] namesSpotRate() {
      return namesSpotRate.clone();
    }

    /**
     * @param metrics where to add {@code follow_rate[s]} for s = 1..N (and, with reflections, {@code
     *     probe_reflection_names_spot[s]})
     */
    public void addTo(Map<String, Number> metrics) {
      for (int s = 1; s <= followRate.length; s++) {
        metrics.put("follow_rate[" + s + "]", followRate[s - 1]);
      }
      for (int s = 1; s <= namesSpotRate.length; s++) {
        if (!Double.isNaN(namesSpotRate[s - 1])) {
          metrics.put("probe_reflection_names_spot[" + s + "]", namesSpotRate[s - 1]);
        }
      }
    }
  }

  private GoalkeeperProbe() {}

  /**
   * The spot a reflection names: the last whole number in it from 1 to {@code spots} (a lesson such as {@code dive
   * 5}, or {@code the shot went to 3, so dive 3}), or 0 when it names none.
   *
   * @param reflection the reflection text
   * @param spots how many spots
   * @return the spot, or 0
   */
  public static int namedSpot(String reflection, int spots) {
    int named = 0;
    Matcher m = NUMBER.matcher(reflection);
    while (m.find()) {
      String digits = m.group();
      if (digits.length() <= 2) {
        int v = Integer.parseInt(digits);
        if (v >= 1 && v <= spots) {
          named = v;
        }
      }
    }
    return named;
  }

  /**
   * The share of a rollout's reflections that name the striker's spot of their meta-episode; invalid reflections
   * (no {@code <remark>}) count as naming none.
   *
   * @param metaEpisodes Goalkeeper meta-episodes
   * @param spots how many spots
   * @return the share, NaN when there is no reflection
   */
  public static double reflectionNamesSpotRate(List<MetaEpisode> metaEpisodes, int spots) {
    int[][] counts = namingCounts(metaEpisodes, spots);
    int reflections = Arrays.stream(counts[0]).sum();
    return reflections == 0 ? Double.NaN : (double) Arrays.stream(counts[1]).sum() / reflections;
  }

  /**
   * @return per striker's spot s (index s - 1): the reflections written against it ({@code [0]}) and those of them
   *     that are valid and name it ({@code [1]})
   */
  private static int[][] namingCounts(List<MetaEpisode> metaEpisodes, int spots) {
    int[][] counts = new int[2][spots];
    for (MetaEpisode m : metaEpisodes) {
      int striker = GoalkeeperEnvironment.strikerSpot(m.seed(), spots);
      for (Turn t : m.turns()) {
        if (t.isReflection()) {
          counts[0][striker - 1]++;
          if (t.valid() && namedSpot(t.action(), spots) == striker) {
            counts[1][striker - 1]++;
          }
        }
      }
    }
    return counts;
  }


  /**
   * Probes a model in a context mode (the recipe's prompts and environment options).
   *
   * @param registry where Goalkeeper is found
   * @param recipe the recipe whose prompts the model trained on
   * @param policy the model
   * @param context the context mode to probe in: the one it trained in ({@link ContextMode#NONE} is refused: the
   *     second attempt then sees nothing of the first)
   * @param spots how many spots
   * @param seed the seed of the probe's tasks and sampling
   * @return the rates per spot
   * @throws IllegalArgumentException for {@link ContextMode#NONE}
   */
  public static Result probe(EnvironmentRegistry registry, GameRecipe recipe, DjlLanguagePolicy policy,
      ContextMode context, int spots, long seed) {
    if (context == ContextMode.NONE) {
      throw new IllegalArgumentException("the probe needs a context that shows the first attempt or a reflection on"
          + " it, not none");
    }
    int copies = context.reflects() ? SAMPLES_PER_PAIR : 1;
    int perSpot = (spots - 1) * copies;
    List<Long> seeds = GoalkeeperEnvironment.balancedTaskSeeds(seed, spots, perSpot);
    int n = seeds.size();
    int[] spot = new int[n];
    int[] firstDive = new int[n];
    for (int i = 0; i < n; i++) {
      spot[i] = i % spots + 1; // balancedTaskSeeds lists the spots round robin
      int j = (i / spots) % (spots - 1);
      firstDive[i] = j + 1 < spot[i] ? j + 1 : j + 2; // the j-th spot other than spot[i]
    }
    RolloutConfig config = recipe.rollout(TrainingPreset.MAGE, n)
        .optTaskSeeds(seeds)
        .optGroupSize(1)
        .optEpisodes(2)
        .optContextMode(context)
        .optGroupPrefix("p")
        .optSeed(seed)
        .optSampling(SamplingConfig.training(GameRecipe.MAX_NEW_TOKENS).withSeed(seed))
        .build();
    String[] secondPrompt = new String[n];
    RolloutResult result;
    try (Forced forced = new Forced(policy, firstDive, secondPrompt)) {
      result = new MetaEpisodeRunner(registry).run(config, forced);
    }
    for (MetaEpisode m : result.metaEpisodes()) {
      int i = Integer.parseInt(m.groupId().substring(1));
      if (GoalkeeperEnvironment.strikerSpot(m.seed(), spots) != spot[i]) {
        throw new IllegalStateException("probe task " + i + " has the striker at "
            + GoalkeeperEnvironment.strikerSpot(m.seed(), spots) + ", not " + spot[i]);
      }
    }
    List<String> prompts = new ArrayList<>();
    List<String> answers = new ArrayList<>();
    List<Integer> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (secondPrompt[i] != null) {
        prompts.add(secondPrompt[i]);
        answers.add("<action>" + spot[i] + "</action>");
        rows.add(i);
      }
    }
    double[] lp = AnswerScores.logProbs(policy, prompts, answers);
    double[] follow = new double[spots];
    int[] count = new int[spots];
    for (int r = 0; r < lp.length; r++) {
      int s = spot[rows.get(r)];
      follow[s - 1] += Math.exp(lp[r]);
      count[s - 1]++;
    }
    double[] names = new double[spots];
    Arrays.fill(names, Double.NaN);
    if (context.reflects()) {
      int[][] counts = namingCounts(result.metaEpisodes(), spots);
      for (int s = 0; s < spots; s++) {
        names[s] = counts[0][s] == 0 ? Double.NaN : (double) counts[1][s] / counts[0][s];
      }
    }
    for (int s = 0; s < spots; s++) {
      follow[s] = count[s] == 0 ? Double.NaN : follow[s] / count[s];
    }
    return new Result(follow, names, prompts.size());
  }

  /**
   * The probe's player: the forced first dive, the model's own reflections, and for the second attempt only its
   * prompt (recorded; the answer given is a placeholder the probe never scores).
   */
  private static final class Forced implements LanguagePolicy {
    private final LanguagePolicy model;
    private final int[] firstDive;
    private final String[] secondPrompt;

    Forced(LanguagePolicy model, int[] firstDive, String[] secondPrompt) {
      this.model = model;
      this.firstDive = firstDive;
      this.secondPrompt = secondPrompt;
    }

    @Override
    public String name() {
      return "goalkeeper-probe(" + model.name() + ")";
    }

    @Override
    public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
      Generation[] out = new Generation[requests.size()];
      List<PolicyRequest> reflect = new ArrayList<>();
      List<Integer> where = new ArrayList<>();
      for (int r = 0; r < requests.size(); r++) {
        PolicyRequest q = requests.get(r);
        int i = Integer.parseInt(q.workerKey().substring(1, q.workerKey().indexOf('/')));
        if (q.phase() == Phase.REFLECT) {
          reflect.add(q);
          where.add(r);
        } else if (q.episodeIndex() == 0) {
          out[r] = Generation.ofText("<action>" + firstDive[i] + "</action>");
        } else {
          secondPrompt[i] = q.prompt();
          out[r] = Generation.ofText("<action>1</action>");
        }
      }
      if (!reflect.isEmpty()) {
        List<Generation> g = model.generate(reflect, sampling);
        for (int j = 0; j < g.size(); j++) {
          out[where.get(j)] = g.get(j);
        }
      }
      return Arrays.asList(out);
    }

    @Override
    public void close() {
      // the model belongs to the caller
    }
  }
}
