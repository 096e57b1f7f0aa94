package org.magejvm.impl.env.penalty;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.magejvm.api.Opponent;

/**
 * A striker of Penalty Shoot-out: a deterministic rule, one of three habits with an offset, that says where each
 * penalty of a meta-episode goes. The first shot is the task's first spot (drawn from the task seed); every later one
 * follows from it, the attempt's index and the keeper's earlier dives. Spots wrap around: one step right of the last
 * spot is spot 1.
 *
 * <ul>
 *   <li>{@link Habit#STEP}: every shot is {@code offset} spots right of the one before ({@code step+2}: 1, 3, 5); the
 *       offset 0 is the {@code fixed} striker, Goalkeeper's, which shoots every penalty at the first spot.</li>
 *   <li>{@link Habit#ALTERNATE}: back and forth between the first spot and the spot {@code offset} right of it
 *       ({@code alternate+2}: 1, 3, 1).</li>
 *   <li>{@link Habit#COPY}: after the first shot, every shot goes {@code offset} spots right of where the keeper dove
 *       last ({@code copy}: where the keeper dove; {@code copy+1}: one spot right of it).</li>
 * </ul>
 *
 * <p>Stateless and immutable, so one instance serves every environment; its {@link #id()} names it in pools,
 * anchors and metrics.
 *
 * @param habit how the striker chooses its spots
 * @param offset the habit's offset in spots, negative to the left; not 0 for {@link Habit#ALTERNATE}
 */
public record Striker(Habit habit, int offset) implements Opponent {

  /** How a striker chooses its spots. */
  public enum Habit {
    /** The same step every penalty: {@code first + k * offset} for penalty k = 0, 1, 2, ... */
    STEP,
    /** Back and forth: {@code first} for even k, {@code first + offset} for odd k. */
    ALTERNATE,
    /** The keeper's previous dive plus {@code offset}, after a first shot at {@code first}. */
    COPY
  }

  /**
   * Checks.
   *
   * @param habit the habit
   * @param offset the offset
   * @throws IllegalArgumentException for {@link Habit#ALTERNATE} with offset 0 (the {@code fixed} striker is {@code
   *     STEP} 0)
   */
  public Striker {
    Objects.requireNonNull(habit, "habit");
    if (habit == Habit.ALTERNATE && offset == 0) {
      throw new IllegalArgumentException("an alternating striker needs a non-zero offset; the striker that keeps"
          + " its spot is new Striker(Habit.STEP, 0) ('fixed')");
    }
  }

  /**
   * Where this striker shoots the next penalty.
   *
   * @param spots how many spots the goal has
   * @param first the first shot's spot, from 1 to spots
   * @param earlier the penalties already taken in this meta-episode, in order (only their dives are read)
   * @return a spot from 1 to spots
   */
  public int shoot(int spots, int first, List<PenaltyEnvironment.Penalty> earlier) {
    int k = earlier.size();
    return switch (habit) {
      case STEP -> wrap(first + k * offset, spots);
      case ALTERNATE -> wrap(first + (k % 2) * offset, spots);
      case COPY -> k == 0 ? first : wrap(earlier.get(k - 1).dive() + offset, spots);
    };
  }

  /**
   * A spot on the ring of spots.
   *
   * @param spot any whole number
   * @param spots how many spots
   * @return the spot from 1 to spots that it lands on, counting around the ring
   */
  static int wrap(int spot, int spots) {
    return 1 + Math.floorMod(spot - 1, spots);
  }

  /**
   * @return {@code fixed}, {@code copy}, or the habit and the signed offset: {@code step+2}, {@code alternate-2},
   *     {@code copy+1}
   */
  @Override
  public String id() {
    if (habit == Habit.STEP && offset == 0) {
      return "fixed";
    }
    if (habit == Habit.COPY && offset == 0) {
      return "copy";
    }
    return habit.name().toLowerCase(Locale.ROOT) + (offset > 0 ? "+" : "") + offset;
  }

  /** @return what the striker does, in words */
  @Override
  public String description() {
    return switch (habit) {
      case STEP -> offset == 0 ? "shoots every penalty at its first spot"
          : "moves " + spotsWord(offset) + " " + side(offset) + " every penalty";
      case ALTERNATE -> "alternates between its first spot and the spot " + spotsWord(offset) + " " + side(offset)
          + " of it";
      case COPY -> offset == 0 ? "shoots where the keeper dove last"
          : "shoots " + spotsWord(offset) + " " + side(offset) + " of where the keeper dove last";
    };
  }

  private static String spotsWord(int offset) {
    int n = Math.abs(offset);
    return n + (n == 1 ? " spot" : " spots");
  }

  private static String side(int offset) {
    return offset > 0 ? "right" : "left";
  }
}
