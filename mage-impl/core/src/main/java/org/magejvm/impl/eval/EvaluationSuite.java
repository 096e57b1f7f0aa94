package org.magejvm.impl.eval;

import com.google.common.collect.ImmutableMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.ReflectionControl;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * Evaluates policies on a game's {@link EvaluationSets}: each pool opponent and the held-out opponent with their seats
 * (or the one set of a game without opponents), with the same tasks and sampling seeds for every policy, so that two
 * policies' rates differ by what they play only. Set {@code i} (in {@link EvaluationSets#names()} order) is the
 * template rollout with group size 1, the asked context and reflection control, the sampling seeded {@code
 * Seeds.derive(seed, }{@value #SAMPLING_STREAM}{@code , i)} and the rollout {@code Seeds.derive(seed, }{@value
 * #ROLLOUT_STREAM}{@code , i)} (its task seeds derived from that unless {@link TaskSeeds} gives them).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class EvaluationSuite {

  /** The seed stream of each set's sampling seed. */
  public static final long SAMPLING_STREAM = 11;
  /** The seed stream of each set's rollout seed. */
  public static final long ROLLOUT_STREAM = 12;

  /** The task seeds of a set, when the environment wants them chosen (for example balanced over a hidden value). */
  @FunctionalInterface
  public interface TaskSeeds {

    /** Task seeds derived by the rollout from its seed, as usual. */
    TaskSeeds DERIVED = base -> Optional.empty();

    /**
     * @param base the set's rollout seed
     * @return the set's task seeds, one per meta-episode, or empty for the ones the rollout derives from its seed
     */
    Optional<List<Long>> of(long base);
  }

  /**
   * The metrics of one evaluation.
   *
   * @param sets the sets evaluated
   * @param metrics the metrics per set, in the sets' order
   */
  public record Result(EvaluationSets sets, Map<String, EvaluationMetrics> metrics) {

    /**
     * Validates and copies.
     *
     * @param sets the sets
     * @param metrics metrics per set
     */
    public Result {
      Objects.requireNonNull(sets, "sets");
      metrics = ImmutableMap.copyOf(metrics);
    }

    /**
     * @param set a set name
     * @return its metrics
     * @throws IllegalArgumentException when there is no such set
     */
    public EvaluationMetrics metrics(String set) {
      EvaluationMetrics m = metrics.get(set);
      if (m == null) {
        throw new IllegalArgumentException("no evaluation set '" + set + "' among " + metrics.keySet());
      }
      return m;
    }

    /** @return the metrics per set under their stable keys ({@link EvaluationMetrics#toMap()}), in the sets' order */
    public Map<String, Map<String, Number>> toMaps() {
      Map<String, Map<String, Number>> out = new LinkedHashMap<>();
      metrics.forEach((set, m) -> out.put(set, m.toMap()));
      return out;
    }
  }

  private final EnvironmentRegistry registry;
  private final EvaluationSets sets;
  private final RolloutConfig template;
  private final SamplingConfig sampling;
  private final long seed;
  private final TaskSeeds taskSeeds;

  /**
   * @param registry where the template's environment is found
   * @param sets the sets
   * @param template the rollout of every set: its tasks are the meta-episodes per set; its group size, context,
   *     reflection control, sampling, seed and opponent are replaced per set
   * @param sampling the evaluation's sampling (its seed is replaced per set)
   * @param seed the base seed of every set
   * @param taskSeeds the sets' task seeds ({@link TaskSeeds#DERIVED} for the rollout's own)
   */
  public EvaluationSuite(EnvironmentRegistry registry, EvaluationSets sets, RolloutConfig template,
      SamplingConfig sampling, long seed, TaskSeeds taskSeeds) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.sets = Objects.requireNonNull(sets, "sets");
    this.template = Objects.requireNonNull(template, "template");
    this.sampling = Objects.requireNonNull(sampling, "sampling");
    this.seed = seed;
    this.taskSeeds = Objects.requireNonNull(taskSeeds, "taskSeeds");
  }

  /** @return the sets */
  public EvaluationSets sets() {
    return sets;
  }

  /**
   * Plays every set.
   *
   * @param policy the policy
   * @param context what the prompt shows of earlier attempts
   * @param control what later attempts are shown of the reflections (matters only in a reflecting context)
   * @return the rollout per set, in the sets' order
   */
  public Map<String, RolloutResult> play(LanguagePolicy policy, ContextMode context, ReflectionControl control) {
    Map<String, RolloutResult> result = new LinkedHashMap<>();
    List<String> names = sets.names();
    for (int i = 0; i < names.size(); i++) {
      String set = names.get(i);
      RolloutConfig.Builder b = template.toBuilder()
          .optGroupSize(1)
          .optContextMode(context)
          .optReflectionControl(control)
          .optSampling(sampling.withSeed(Seeds.derive(seed, SAMPLING_STREAM, i)))
          .optSeed(Seeds.derive(seed, ROLLOUT_STREAM, i));
      taskSeeds.of(Seeds.derive(seed, ROLLOUT_STREAM, i)).ifPresent(b::optTaskSeeds);
      if (sets.hasOpponents()) {
        b.optFixedOpponent(set).optSeating(sets.seating(set));
      }
      result.put(set, new MetaEpisodeRunner(registry).run(b.build(), policy));
    }
    return result;
  }

  /**
   * Plays every set ({@link #play}) and measures it.
   *
   * @param policy the policy
   * @param context what the prompt shows of earlier attempts
   * @param control what later attempts are shown of the reflections (matters only in a reflecting context)
   * @return the metrics per set
   * @throws IllegalArgumentException when no meta-episode of a set completed
   */
  public Result evaluate(LanguagePolicy policy, ContextMode context, ReflectionControl control) {
    Map<String, EvaluationMetrics> metrics = new LinkedHashMap<>();
    for (Map.Entry<String, RolloutResult> e : play(policy, context, control).entrySet()) {
      RolloutResult r = e.getValue();
      metrics.put(e.getKey(), EvaluationMetrics.of(r.metaEpisodes(), r.episodes()));
    }
    return new Result(sets, metrics);
  }

  /**
   * The rates of one of the environment's scripted players on every set, with the earlier attempts' moves and outcomes
   * in its prompts and seed 0: with a player that adapts as well as the game allows, the sets' ceilings.
   *
   * @param player the scripted player's name
   * @return its metrics per set
   */
  public Result scripted(String player) {
    try (LanguagePolicy scripted = registry.require(template.environmentId()).scriptedPolicy(player, 0)) {
      return evaluate(scripted, ContextMode.HISTORY_ONLY, ReflectionControl.OWN);
    }
  }
}
