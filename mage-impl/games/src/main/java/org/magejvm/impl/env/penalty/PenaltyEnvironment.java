package org.magejvm.impl.env.penalty;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.NumberAnswer;
import org.magejvm.spi.Environment;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.small.HiddenNumberEnvironment;

/**
 * One meta-episode of Penalty Shoot-out: the agent, in goal, faces a {@link Striker} (the opponent, drawn by the
 * engine from the population for the whole group) whose first shot goes to a spot from 1 to {@code spots} drawn from
 * the task seed ({@link HiddenNumberEnvironment#draw}, so {@link HiddenNumberEnvironment#balancedTaskSeeds} makes
 * evaluation sets balanced over it) and whose later shots follow its habit. Every attempt is one penalty and one
 * answer, the spot the agent dives to, {@code <action>3</action>}.
 *
 * <p>Diving to the shot's spot saves it and wins the attempt (reward {@link #SAVE_REWARD}, score 1). Any other dive
 * loses it; it scores 0, or, with {@link Scoring#GRADED}, {@link Scoring#NEAR_MISS_SCORE} (reward 5) when it is one
 * spot beside the shot. Either way the attempt is over and the observation says where the shot went; the dive's action
 * text, which is what a prompt's history of earlier attempts lists, carries it too: {@code dove 3, shot 5}, {@code dove
 * 4, shot 5, near miss} or {@code dove 5, saved}. {@link #restart()} starts the next penalty with the same striker and
 * first spot, keeping the penalties already taken (the striker's next shot may depend on them). An unreadable or
 * out-of-range dive is invalid and changes nothing; the striker counts its penalties, not the attempts, so an attempt
 * that ends without a valid dive takes none.
 *
 * <p>Spots wrap around: one step right of the last spot is spot 1, for the strikers' steps and for near misses alike.
 * The anchor of a state is its observation and the striker's id. The seat is ignored. Not thread-safe.
 */
public final class PenaltyEnvironment implements Environment {

  /** The reward of a save; a near miss in graded mode earns half of it. */
  public static final double SAVE_REWARD = HiddenNumberEnvironment.WIN_REWARD;

  /**
   * One penalty already taken.
   *
   * @param dive the spot the keeper dove to
   * @param shot the spot the shot went to
   * @param score what the dive scored: 1 for a save, {@link Scoring#NEAR_MISS_SCORE} for a graded near miss, else 0
   */
  public record Penalty(int dive, int shot, double score) {

    /** @return whether the dive saved the shot */
    public boolean saved() {
      return dive == shot;
    }

    /** @return whether the dive missed but still scored (a near miss in graded mode) */
    public boolean nearMiss() {
      return !saved() && score > 0;
    }

    /**
     * @return the penalty as the prompts write it: {@code dove 5, saved}, {@code dove 4, shot 5, near miss} or {@code
     *     dove 3, shot 5}
     */
    public String text() {
      if (saved()) {
        return "dove " + dive + ", saved";
      }
      return "dove " + dive + ", shot " + shot + (nearMiss() ? ", near miss" : "");
    }
  }

  /**
   * What a keeper knows, for scripted keepers: never the striker.
   *
   * @param spots how many spots the goal has
   * @param scoring how dives score
   * @param penalties the penalties taken so far in this meta-episode, in order (the current one included once it is
   *     answered)
   */
  public record State(int spots, Scoring scoring, List<Penalty> penalties) {
    /**
     * Copies.
     *
     * @param spots spots
     * @param scoring scoring
     * @param penalties penalties
     */
    public State {
      Objects.requireNonNull(scoring, "scoring");
      penalties = List.copyOf(penalties);
    }
  }

  private final String id;
  private final int spots;
  private final Scoring scoring;
  private final List<String> legal;
  private final List<Penalty> penalties = new ArrayList<>();
  private Striker striker;
  private int first;
  private Penalty current;

  /**
   * An environment of {@code mage-penalty}.
   *
   * @param spots how many spots the goal has, at least 3
   * @param scoring how dives score
   * @throws IllegalArgumentException if spots is below 3
   */
  public PenaltyEnvironment(int spots, Scoring scoring) {
    this(PenaltyProvider.ID, spots, scoring);
  }

  /**
   * @param id the id of the provider that creates it ({@code mage-penalty}, {@code mage-penalty-graded} or
   *     {@code mage-penalty-steps})
   * @param spots how many spots the goal has, at least 3
   * @param scoring how dives score
   * @throws IllegalArgumentException if spots is below 3
   */
  public PenaltyEnvironment(String id, int spots, Scoring scoring) {
    this.id = Objects.requireNonNull(id, "id");
    if (spots < 3) {
      throw new IllegalArgumentException("spots must be >= 3, got " + spots);
    }
    this.spots = spots;
    this.scoring = Objects.requireNonNull(scoring, "scoring");
    List<String> l = new ArrayList<>();
    for (int i = 1; i <= spots; i++) {
      l.add(Integer.toString(i));
    }
    legal = List.copyOf(l);
  }

  /**
   * The first shot's spot a task seed draws.
   *
   * @param seed the task seed
   * @param spots how many spots
   * @return a spot from 1 to spots: {@code HiddenNumberEnvironment.draw(seed, spots)}
   */
  public static int firstSpot(long seed, int spots) {
    return HiddenNumberEnvironment.draw(seed, spots);
  }

  /**
   * Reads a dive from a response: a spot from 1 to {@code spots} inside {@code <action></action>}.
   *
   * @param response the response text
   * @param spots how many spots
   * @return the spot, or a failure saying what is wrong
   */
  public static ParsedAction<Integer> parse(String response, int spots) {
    return NumberAnswer.parse(response, spots, "a spot number", "spot");
  }

  @Override
  public String id() {
    return id;
  }

  /** @return how many spots the goal has */
  public int spots() {
    return spots;
  }

  /** @return how dives score */
  public Scoring scoring() {
    return scoring;
  }

  /**
   * @return the striker (for tests and analysis)
   * @throws IllegalStateException if {@link #reset} was never called
   */
  public Striker striker() {
    requireReset();
    return striker;
  }

  /**
   * @return the first shot's spot (for tests and analysis)
   * @throws IllegalStateException if {@link #reset} was never called
   */
  public int first() {
    requireReset();
    return first;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the opponent is null or not a {@link Striker}, naming it
   */
  @Override
  public String reset(long seed, Opponent opponent, Seat seat) {
    if (opponent == null) {
      throw new IllegalArgumentException(id + " needs a striker to face, got null (for example "
          + PenaltyStrikers.FIXED.id() + ")");
    }
    if (!(opponent instanceof Striker s)) {
      throw new IllegalArgumentException("opponent '" + opponent.id() + "' (" + opponent.getClass().getName()
          + ") is not a striker: " + id + " needs a " + Striker.class.getName());
    }
    striker = s;
    first = firstSpot(seed, spots);
    penalties.clear();
    current = null;
    return observation();
  }

  @Override
  public String restart() {
    requireReset();
    current = null;
    return observation();
  }

  @Override
  public StepResult step(String response) {
    requireReset();
    if (current != null) {
      throw new IllegalStateException("this penalty of " + id + " is over; call restart() or reset() before"
          + " stepping again");
    }
    AnchorKey anchor = anchor();
    ParsedAction<Integer> parsed = parse(response, spots);
    if (!parsed.ok()) {
      return StepResult.invalid(observation(), 0, anchor, parsed.text(), parsed.error());
    }
    int dive = parsed.action();
    int shot = striker.shoot(spots, first, penalties);
    current = new Penalty(dive, shot, scoring.score(dive, shot, spots));
    penalties.add(current);
    return StepResult.valid(observation(), anchor, current.text())
        .optReward(SAVE_REWARD * current.score())
        .optScore(current.score())
        .optOutcome(current.saved() ? Outcome.WON : Outcome.LOST)
        .build();
  }

  @Override
  public String observation() {
    requireReset();
    if (current == null) {
      return "A penalty: the striker shoots at one of the spots 1 to " + spots + ", following its habit. Your dive?";
    }
    if (current.saved()) {
      return "You dove to " + current.dive() + " and saved it.";
    }
    return "You dove to " + current.dive() + "; the shot went to " + current.shot()
        + (current.nearMiss() ? ", a near miss." : ".");
  }

  @Override
  public AnchorKey anchor() {
    requireReset();
    return new AnchorKey(observation(), striker.id());
  }

  /** @return "1" to "N" while the penalty waits for its dive, else none */
  @Override
  public List<String> legalActions() {
    return striker == null || current != null ? List.of() : legal;
  }

  /**
   * @return the spots, the scoring and the penalties taken so far
   * @throws IllegalStateException if {@link #reset} was never called
   */
  @Override
  public State state() {
    requireReset();
    return new State(spots, scoring, penalties);
  }

  @Override
  public boolean isDone() {
    return current != null;
  }

  @Override
  public PromptRenderer promptRenderer() {
    return new PenaltyPromptRenderer(spots, scoring);
  }

  private void requireReset() {
    if (striker == null) {
      throw new IllegalStateException(id + ": reset() was never called");
    }
  }

  /** @return the id, the spots, the scoring and, once reset, the striker and its first spot */
  @Override
  public String toString() {
    return id + "(spots " + spots + ", " + scoring.id()
        + (striker == null ? "" : ", striker " + striker.id() + ", first " + first) + ")";
  }
}
