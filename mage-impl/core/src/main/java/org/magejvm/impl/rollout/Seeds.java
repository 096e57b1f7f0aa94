package org.magejvm.impl.rollout;

import org.magejvm.api.util.SplitMix64;

/**
 * Derives every random seed of a rollout from its base seed, so one number reproduces a whole batch.
 *
 * <p>The scheme: {@code derive(base, stream, index) = mix64(mix64(base + GOLDEN * stream) + GOLDEN * (index + 1))},
 * where {@code mix64} is the SplitMix64 finaliser ({@link SplitMix64#mix}) and {@code GOLDEN = 0x9E3779B97F4A7C15}
 * ({@link SplitMix64#GOLDEN_GAMMA}), that is {@code SplitMix64.nth(SplitMix64.nth(base, stream), index + 1)}. Each
 * use has its own stream number ({@link #TASK}, {@link #OPPONENT}, ...), so adding a group never shifts the seeds of
 * the groups before it, and streams never share values by construction of the index.
 *
 * <ul>
 *   <li>task seed of group b: {@code derive(base, TASK, b) >>> 33}, a non-negative number below 2^31 (small enough
 *       to print and to round-trip through JSON), unless {@link RolloutConfig#taskSeeds} lists the seeds;
 *   <li>opponent of group b: the first draw of {@code new Random(derive(base, OPPONENT, b))} from the pool;
 *       with per-meta-episode sampling, worker w uses {@code derive(base, OPPONENT_PER_WORKER, w)}; with quotas
 *       ({@link OpponentSampling#QUOTA}) nothing is drawn ({@link OpponentQuota});
 *   <li>seats for mixed seating: one shuffle by {@code new Random(derive(base, SEAT, 0))};
 *   <li>policy call i of a run (0-based, counting every batched call): sampling seed
 *       {@code derive(root, SAMPLING, i)}, with root the sampling config's seed when it has one, else the base.
 *   <li>scripted policies created by tools ({@code mage play}, benchmarks): {@code derive(base, POLICY, 0)}.
 *   <li>the reflection shuffle before episode k ({@link ReflectionControl#SHUFFLED}): {@code derive(base,
 *       REFLECTION_SHUFFLE, k)}.
 * </ul>
 */
public final class Seeds {

  /** Stream of task seeds. */
  public static final long TASK = 1;
  /** Stream of per-group opponent draws. */
  public static final long OPPONENT = 2;
  /** Stream of the seat shuffle. */
  public static final long SEAT = 3;
  /** Stream of per-call sampling seeds. */
  public static final long SAMPLING = 4;
  /** Stream of per-meta-episode opponent draws (the mixed-opponent ablation). */
  public static final long OPPONENT_PER_WORKER = 5;
  /** Stream of scripted-policy seeds created by tools. */
  public static final long POLICY = 6;
  /** Stream of the reflection shuffle of the {@link ReflectionControl#SHUFFLED} control, one per reflection phase. */
  public static final long REFLECTION_SHUFFLE = 7;

  private Seeds() {}

  /**
   * Derives a seed.
   *
   * @param base the base seed
   * @param stream the stream (what the seed is for)
   * @param index the index inside the stream (group, worker or call)
   * @return the derived 64-bit seed
   */
  public static long derive(long base, long stream, long index) {
    return SplitMix64.nth(SplitMix64.nth(base, stream), index + 1);
  }

  /**
   * The task seed of an episode group.
   *
   * @param base the base seed
   * @param group the 0-based group index
   * @return a seed in {@code [0, 2^31)}
   */
  public static long taskSeed(long base, int group) {
    return derive(base, TASK, group) >>> 33;
  }
}
