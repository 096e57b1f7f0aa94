package org.magejvm.impl.rollout;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Seat;

/**
 * Which seat the agent takes in each episode group of a rollout. Seats are assigned per group, so the meta-episodes
 * of one group always share a seat (and therefore the same cards or board); the reference shuffled seats across all
 * workers, which mixed first and second movers inside a group.
 *
 * <p>With {@link Mode#MIXED}, {@code round(tasks * secondRatio)} groups sit second; which ones is decided by a seeded
 * shuffle (see {@link Seeds}). Single-player environments ignore the seating and record {@link Seat#FIRST}.
 *
 * @param mode first, second or mixed
 * @param secondRatio for mixed seating, the fraction of groups in which the agent sits second; 0 or 1 otherwise
 */
@Api(status = Api.Status.STABLE)
public record Seating(Mode mode, double secondRatio) {

  /** The three kinds of seating. */
  public enum Mode {
    /** The agent always moves first. */
    FIRST,
    /** The agent always moves second. */
    SECOND,
    /** A fixed share of the groups sit second, the rest first. */
    MIXED
  }

  /**
   * Validates.
   *
   * @param mode the mode
   * @param secondRatio the second-seat ratio
   */
  public Seating {
    Objects.requireNonNull(mode, "mode");
    if (!(secondRatio >= 0 && secondRatio <= 1)) {
      throw new IllegalArgumentException("secondRatio must lie in [0, 1], got " + secondRatio);
    }
    if (mode == Mode.FIRST && secondRatio != 0 || mode == Mode.SECOND && secondRatio != 1) {
      throw new IllegalArgumentException("secondRatio " + secondRatio + " does not fit seating " + mode
          + "; use Seating.first(), Seating.second() or Seating.mixed(ratio)");
    }
  }

  /** @return the agent always sits first */
  public static Seating first() {
    return new Seating(Mode.FIRST, 0);
  }

  /** @return the agent always sits second */
  public static Seating second() {
    return new Seating(Mode.SECOND, 1);
  }

  /**
   * @param secondRatio the fraction of groups in which the agent sits second (the reference trains with 0.5)
   * @return mixed seating
   */
  public static Seating mixed(double secondRatio) {
    return new Seating(Mode.MIXED, secondRatio);
  }

  /**
   * @param seat a seat
   * @return seating that always uses it
   */
  public static Seating of(Seat seat) {
    return seat == Seat.SECOND ? second() : first();
  }

  /**
   * Parses {@code first}, {@code second}, {@code mixed} (ratio 0.5) or {@code mixed:RATIO}.
   *
   * @param text the text
   * @return the seating
   * @throws IllegalArgumentException naming the accepted forms
   */
  public static Seating parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("first")) {
      return first();
    }
    if (t.equals("second")) {
      return second();
    }
    if (t.equals("mixed")) {
      return mixed(0.5);
    }
    if (t.startsWith("mixed:")) {
      try {
        return mixed(Double.parseDouble(t.substring("mixed:".length())));
      } catch (NumberFormatException e) {
        // fall through to the error below
      }
    }
    throw new IllegalArgumentException(
        "unknown seating '" + text + "': expected first, second, mixed or mixed:RATIO (for example mixed:0.5)");
  }

  /**
   * Assigns a seat to each of {@code tasks} groups.
   *
   * @param tasks the number of groups
   * @param random the generator of the shuffle (used only by mixed seating)
   * @return the seat of each group
   */
  Seat[] assign(int tasks, Random random) {
    Seat[] seats = new Seat[tasks];
    Arrays.fill(seats, mode == Mode.SECOND ? Seat.SECOND : Seat.FIRST);
    if (mode == Mode.MIXED) {
      int second = (int) Math.round(tasks * secondRatio);
      int[] order = new int[tasks];
      for (int i = 0; i < tasks; i++) {
        order[i] = i;
      }
      for (int i = tasks - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
      }
      for (int i = 0; i < second; i++) {
        seats[order[i]] = Seat.SECOND;
      }
    }
    return seats;
  }

  @Override
  public String toString() {
    return mode == Mode.MIXED ? "mixed:" + secondRatio : mode.name().toLowerCase(Locale.ROOT);
  }
}
