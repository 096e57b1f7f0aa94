package org.magejvm.testkit;

import java.util.Random;
import org.magejvm.api.Opponent;

/** An opponent of {@link ToyDuel}: after each wrong guess it may strike, ending the episode as a loss. */
public final class DuelOpponent implements Opponent {

  private final String id;
  private final double strikeProbability;

  /**
   * @param id the id
   * @param strikeProbability the chance of striking after a wrong guess
   */
  public DuelOpponent(String id, double strikeProbability) {
    this.id = id;
    this.strikeProbability = strikeProbability;
  }

  @Override
  public String id() {
    return id;
  }

  boolean strikes(Random random) {
    return strikeProbability >= 1 || strikeProbability > 0 && random.nextDouble() < strikeProbability;
  }

  /** @return always strikes */
  public static DuelOpponent greedy() {
    return new DuelOpponent("greedy", 1.0);
  }

  /** @return never strikes */
  public static DuelOpponent patient() {
    return new DuelOpponent("patient", 0.0);
  }

  /** @return strikes half the time, from the environment's seeded generator */
  public static DuelOpponent coin() {
    return new DuelOpponent("coin", 0.5);
  }
}
