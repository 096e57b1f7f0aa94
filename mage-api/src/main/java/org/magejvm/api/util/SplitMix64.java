package org.magejvm.api.util;

import org.magejvm.api.annotation.Api;

/**
 * The arithmetic of Steele, Lea and Flood's SplitMix64 generator (the one behind {@link java.util.SplittableRandom}),
 * used to derive seeds: nearby inputs give unrelated outputs, and one base seed reproduces every random choice that
 * is derived from it.
 *
 * <p>A SplitMix64 generator seeded {@code s} is in state {@code s + n * GOLDEN_GAMMA} after {@code n} steps
 * ({@link #advance}) and returns the {@linkplain #mix mixed} state as its {@code n}-th value ({@link #nth}); so
 * {@code nth(s, n)} is the {@code n}-th {@code nextLong()} of {@code new SplittableRandom(s)}, without making one.
 * The values are part of the library's reproducibility: seeds, sampled tokens and initial weights in golden tests
 * depend on them, so they never change.
 */
@Api(status = Api.Status.INTERNAL)
public final class SplitMix64 {

  /** The step between consecutive states: 2<sup>64</sup> divided by the golden ratio, made odd. */
  public static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private SplitMix64() {}

  /**
   * SplitMix64's finaliser (Stafford's variant 13): a bijection on 64-bit values that spreads every input bit over
   * the output, so that nearby seeds give unrelated streams.
   *
   * @param z the input
   * @return the mixed value
   */
  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /**
   * The state of a generator seeded {@code seed} after {@code steps} steps: {@code seed + steps * GOLDEN_GAMMA}
   * (mod 2<sup>64</sup>). Distinct step counts below 2<sup>64</sup> give distinct states.
   *
   * @param seed the seed
   * @param steps the number of steps
   * @return the state
   */
  public static long advance(long seed, long steps) {
    return seed + GOLDEN_GAMMA * steps;
  }

  /**
   * The {@code n}-th value of a generator seeded {@code seed}: {@code mix(advance(seed, n))}, equal to the
   * {@code n}-th {@code nextLong()} of {@code new SplittableRandom(seed)} for {@code n >= 1}.
   *
   * @param seed the seed
   * @param n which value, counted from 1
   * @return the value
   */
  public static long nth(long seed, long n) {
    return mix(advance(seed, n));
  }

  /**
   * A seed for one named use of a base seed: {@code mix(seed ^ mix(key))}, for example one stream per parameter
   * keyed by its name's hash code.
   *
   * @param seed the base seed
   * @param key what the seed is for
   * @return the derived seed
   */
  public static long keyed(long seed, long key) {
    return mix(seed ^ mix(key));
  }
}
