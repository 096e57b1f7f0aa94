package org.magejvm.spi;

/**
 * The per-environment settings of the reference configuration; a training or evaluation config starts from these.
 *
 * @param maxTurns the most play turns per episode before truncation
 * @param episodes episodes per meta-episode
 * @param stepGamma the discount between turns of an episode
 * @param trajGamma the discount between episodes
 * @param invalidPenalty subtracted from the episode score of a turn whose action was invalid
 * @param lengthPenalty the coefficient of the overlong-response penalty on the episode score
 * @param maxResponseTokens the response-token limit the length penalty is measured against
 */
public record EnvironmentDefaults(
    int maxTurns,
    int episodes,
    double stepGamma,
    double trajGamma,
    double invalidPenalty,
    double lengthPenalty,
    int maxResponseTokens) {

  /**
   * Validates.
   *
   * @param maxTurns turn limit
   * @param episodes episodes per meta-episode
   * @param stepGamma step discount
   * @param trajGamma episode discount
   * @param invalidPenalty invalid-action penalty
   * @param lengthPenalty length-penalty coefficient
   * @param maxResponseTokens response-token limit
   */
  public EnvironmentDefaults {
    if (maxTurns < 1 || episodes < 1 || maxResponseTokens < 1) {
      throw new IllegalArgumentException("maxTurns, episodes and maxResponseTokens must be >= 1, got " + maxTurns
          + ", " + episodes + " and " + maxResponseTokens);
    }
    if (!(stepGamma >= 0 && stepGamma <= 1) || !(trajGamma >= 0 && trajGamma <= 1)) {
      throw new IllegalArgumentException("discounts must lie in [0, 1], got " + stepGamma + ", " + trajGamma);
    }
    if (!(invalidPenalty >= 0) || !(lengthPenalty >= 0)
        || Double.isInfinite(invalidPenalty) || Double.isInfinite(lengthPenalty)) {
      throw new IllegalArgumentException(
          "penalties must be finite and >= 0, got " + invalidPenalty + " and " + lengthPenalty);
    }
  }
}
