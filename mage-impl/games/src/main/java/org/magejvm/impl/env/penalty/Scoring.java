package org.magejvm.impl.env.penalty;

import java.util.Locale;

/**
 * How Penalty Shoot-out scores a dive. A save always scores 1 (reward 10) and wins the attempt; the modes differ in
 * what a miss scores, and a miss never wins.
 */
public enum Scoring {
  /** A miss scores 0: the score says only whether the penalty was saved (the default). */
  BINARY,
  /**
   * A near miss, a dive one spot beside the shot (spots wrap around), scores {@link #NEAR_MISS_SCORE} (reward 5); a
   * farther miss scores 0. The meta-episode still goes on after a near miss, so partial credit in an attempt that is
   * not the last one counts for LaMer's cumulative objective and not for MAGE's final-attempt one ({@link
   * PenaltyObjectives}).
   */
  GRADED;

  /** What a near miss scores in {@link #GRADED} mode: half a save. */
  public static final double NEAR_MISS_SCORE = 0.5;

  /**
   * The score of a dive.
   *
   * @param dive the spot the keeper dove to
   * @param shot the spot the shot went to
   * @param spots how many spots the goal has
   * @return 1 for a save, {@link #NEAR_MISS_SCORE} for a near miss in {@link #GRADED} mode, else 0
   */
  public double score(int dive, int shot, int spots) {
    if (dive == shot) {
      return 1.0;
    }
    return this == GRADED && isNearMiss(dive, shot, spots) ? NEAR_MISS_SCORE : 0.0;
  }

  /**
   * @param dive the dive's spot
   * @param shot the shot's spot
   * @param spots how many spots
   * @return whether the dive is one spot beside the shot, counting around the ring of spots
   */
  public static boolean isNearMiss(int dive, int shot, int spots) {
    int d = Math.floorMod(dive - shot, spots);
    return dive != shot && (d == 1 || d == spots - 1);
  }

  /** @return the option value naming this mode: {@code binary} or {@code graded} */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * @param value an option value
   * @return the mode it names
   * @throws IllegalArgumentException naming the value and the known ones
   */
  public static Scoring parse(String value) {
    for (Scoring s : values()) {
      if (s.id().equals(value == null ? null : value.strip())) {
        return s;
      }
    }
    throw new IllegalArgumentException("option '" + PenaltyProvider.SCORING_OPTION + "' must be 'binary' or"
        + " 'graded', got '" + value + "'");
  }
}
