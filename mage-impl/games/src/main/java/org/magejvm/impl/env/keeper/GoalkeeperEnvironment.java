package org.magejvm.impl.env.keeper;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.api.util.SplitMix64;
import org.magejvm.impl.env.NumberAnswer;
import org.magejvm.spi.Environment;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StepResult;

/**
 * One meta-episode of Goalkeeper: the task seed draws the striker's spot from 1 to {@code spots}, and the striker
 * shoots every penalty of the meta-episode there. Every attempt is one penalty and one answer, the spot the agent
 * dives to. Diving to the shot's spot saves it and wins the attempt (reward {@link #WIN_REWARD}, score 1); any other
 * spot lets it in (reward 0, score 0). Either way the observation says where the shot went. {@link #restart()} starts
 * the next penalty with the same striker. A dive's action text, which is what a prompt's history of earlier attempts
 * lists, carries where the shot went: {@code dove 3, shot 5}.
 */
public final class GoalkeeperEnvironment implements Environment {

  /** The reward of a save. */
  public static final double WIN_REWARD = 10.0;

  /**
   * One penalty already taken.
   *
   * @param dive the spot the agent dove to
   * @param shot the spot the shot went to
   */
  public record Penalty(int dive, int shot) {
    /** @return whether the dive saved the shot */
    public boolean saved() {
      return dive == shot;
    }

    /** @return the penalty as the prompts write it ({@code dove 3, shot 5} or {@code dove 5, saved}) */
    public String text() {
      return saved() ? "dove " + dive + ", saved" : "dove " + dive + ", shot " + shot;
    }
  }

  /**
   * The structured state for scripted players.
   *
   * @param spots how many spots the goal has
   * @param penalties the penalties already taken in this meta-episode, in order
   */
  public record State(int spots, List<Penalty> penalties) {
    /**
     * Copies.
     *
     * @param spots spots
     * @param penalties penalties
     */
    public State {
      penalties = List.copyOf(penalties);
    }

    /** @return where the last shot went, if a penalty was taken */
    public Optional<Integer> lastShot() {
      return penalties.isEmpty() ? Optional.empty() : Optional.of(penalties.get(penalties.size() - 1).shot());
    }
  }

  private final int spots;
  private final List<Penalty> penalties = new ArrayList<>();
  private final List<String> legal;
  private int striker;
  private Penalty current;
  private boolean done;
  private boolean reset;

  /**
   * @param spots how many spots the goal has, at least 2
   */
  public GoalkeeperEnvironment(int spots) {
    if (spots < 2) {
      throw new IllegalArgumentException("spots must be >= 2, got " + spots);
    }
    this.spots = spots;
    legal = NumberAnswer.range(spots);
  }

  @Override
  public String id() {
    return GoalkeeperProvider.ID;
  }

  /** @return the striker's spot (for tests and analysis) */
  public int striker() {
    requireReset();
    return striker;
  }

  /**
   * The striker's spot a task seed draws.
   *
   * @param seed the task seed
   * @param spots how many spots
   * @return a spot from 1 to spots
   */
  public static int strikerSpot(long seed, int spots) {
    return 1 + new Random(seed).nextInt(spots);
  }

  /**
   * Task seeds balanced over the striker's spot, for evaluation sets on which every spot is equally frequent (a
   * history-blind keeper then scores its exact ceiling on the set, not a number that depends on which spots the
   * draw favoured). The candidates are {@code SplitMix64.nth(base, i) >>> 33} for i = 1, 2, ... ({@link
   * SplitMix64#nth}: non-negative seeds below 2^31, as rollouts' own task seeds), taken in order; each is kept while
   * its spot still has room. The result lists the spots round
   * robin: the first kept seed of spot 1, of spot 2, ..., of spot {@code spots}, then the second of each, and so on.
   *
   * @param base the base seed of the candidates
   * @param spots how many spots
   * @param perSpot seeds per spot, at least 1
   * @return {@code spots * perSpot} task seeds
   * @throws IllegalArgumentException when a count is out of range
   */
  public static List<Long> balancedTaskSeeds(long base, int spots, int perSpot) {
    if (spots < 2 || perSpot < 1) {
      throw new IllegalArgumentException("a balanced set needs at least 2 spots and 1 seed per spot, got " + spots
          + " spots and " + perSpot);
    }
    List<List<Long>> bySpot = new ArrayList<>();
    for (int s = 0; s < spots; s++) {
      bySpot.add(new ArrayList<>());
    }
    int full = 0;
    for (int i = 0; full < spots; i++) {
      long seed = SplitMix64.nth(base, i + 1) >>> 33;
      List<Long> bucket = bySpot.get(strikerSpot(seed, spots) - 1);
      if (bucket.size() < perSpot) {
        bucket.add(seed);
        if (bucket.size() == perSpot) {
          full++;
        }
      }
    }
    List<Long> out = new ArrayList<>(spots * perSpot);
    for (int j = 0; j < perSpot; j++) {
      for (List<Long> bucket : bySpot) {
        out.add(bucket.get(j));
      }
    }
    return out;
  }

  @Override
  public String reset(long seed, Opponent opponent, Seat seat) {
    striker = strikerSpot(seed, spots);
    penalties.clear();
    current = null;
    done = false;
    reset = true;
    return observation();
  }

  @Override
  public String restart() {
    requireReset();
    if (current != null) {
      penalties.add(current);
    }
    current = null;
    done = false;
    return observation();
  }

  @Override
  public StepResult step(String response) {
    requireReset();
    if (done) {
      throw new IllegalStateException("this penalty of " + GoalkeeperProvider.ID + " is over; call restart() or"
          + " reset() before stepping again");
    }
    AnchorKey anchor = anchor();
    ParsedAction<Integer> parsed = parse(response, spots);
    if (!parsed.ok()) {
      return StepResult.invalid(observation(), 0, anchor, parsed.text(), parsed.error());
    }
    current = new Penalty(parsed.action(), striker);
    done = true;
    boolean saved = current.saved();
    // the action as the history shows it carries where the shot went
    return StepResult.valid(observation(), anchor, current.text())
        .optReward(saved ? WIN_REWARD : 0)
        .optScore(saved ? 1 : 0)
        .optOutcome(saved ? Outcome.WON : Outcome.LOST)
        .build();
  }

  @Override
  public String observation() {
    requireReset();
    if (current == null) {
      return "A penalty: the striker shoots at one of the spots 1 to " + spots + " (the same in every attempt)."
          + " Your dive?";
    }
    return current.saved() ? "You dove to " + current.dive() + " and saved it."
        : "You dove to " + current.dive() + "; the shot went to " + current.shot() + ".";
  }

  @Override
  public AnchorKey anchor() {
    return new AnchorKey(observation(), "");
  }

  @Override
  public List<String> legalActions() {
    return done || !reset ? List.of() : legal;
  }

  @Override
  public State state() {
    requireReset();
    return new State(spots, penalties);
  }

  @Override
  public boolean isDone() {
    return done;
  }

  @Override
  public PromptRenderer promptRenderer() {
    return new GoalkeeperPromptRenderer(spots);
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

  private void requireReset() {
    if (!reset) {
      throw new IllegalStateException(GoalkeeperProvider.ID + ": reset() was never called");
    }
  }

  @Override
  public String toString() {
    return GoalkeeperProvider.ID + "(spots " + spots + (reset ? ", striker " + striker : "") + ")";
  }
}
