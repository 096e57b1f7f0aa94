package org.magejvm.impl.env.keeper;

import java.util.List;
import java.util.Optional;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.util.SplitMix64;
import org.magejvm.impl.env.NumberAnswer;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.small.HiddenNumberEnvironment;

/**
 * One meta-episode of Goalkeeper: the task seed draws the striker's spot from 1 to {@code spots}, and the striker
 * shoots every penalty of the meta-episode there. Every attempt is one penalty and one answer, the spot the agent
 * dives to. Diving to the shot's spot saves it and wins the attempt (reward {@link #WIN_REWARD}, score 1); any other
 * spot lets it in (reward 0, score 0). Either way the observation says where the shot went. {@link #restart()} starts
 * the next penalty with the same striker. A dive's action text, which is what a prompt's history of earlier attempts
 * lists, carries where the shot went: {@code dove 3, shot 5}.
 */
@Api(status = Api.Status.INTERNAL)
public final class GoalkeeperEnvironment
    extends HiddenNumberEnvironment<GoalkeeperEnvironment.Penalty, GoalkeeperEnvironment.State> {

  private static final Terms TERMS = new Terms("spots", "striker", "penalty");

  /**
   * One penalty already taken.
   *
   * @param dive the spot the agent dove to
   * @param shot the spot the shot went to
   */
  public record Penalty(int dive, int shot) implements HiddenNumberEnvironment.Feedback {
    /** @return whether the dive saved the shot */
    public boolean saved() {
      return dive == shot;
    }

    /** @return whether the dive saved the shot, which wins the attempt */
    @Override
    public boolean won() {
      return saved();
    }

    /** @return the penalty as the prompts write it ({@code dove 3, shot 5} or {@code dove 5, saved}) */
    @Override
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

  /**
   * @param spots how many spots the goal has, at least 2
   */
  public GoalkeeperEnvironment(int spots) {
    super(GoalkeeperProvider.ID, TERMS, spots);
  }

  /** @return the striker's spot (for tests and analysis) */
  public int striker() {
    return hidden();
  }

  /**
   * The striker's spot a task seed draws.
   *
   * @param seed the task seed
   * @param spots how many spots
   * @return a spot from 1 to spots
   */
  public static int strikerSpot(long seed, int spots) {
    return draw(seed, spots);
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
    return HiddenNumberEnvironment.balancedTaskSeeds(base, spots, perSpot);
  }

  @Override
  protected ParsedAction<Integer> parse(String response) {
    return parse(response, size());
  }

  @Override
  protected Penalty judge(int dive, int striker) {
    return new Penalty(dive, striker);
  }

  @Override
  protected String question() {
    return "A penalty: the striker shoots at one of the spots 1 to " + size() + " (the same in every attempt)."
        + " Your dive?";
  }

  @Override
  protected String answered(Penalty p) {
    return p.saved() ? "You dove to " + p.dive() + " and saved it."
        : "You dove to " + p.dive() + "; the shot went to " + p.shot() + ".";
  }

  @Override
  protected State snapshot(List<Penalty> earlier) {
    return new State(size(), earlier);
  }

  @Override
  public PromptRenderer promptRenderer() {
    return new GoalkeeperPromptRenderer(size());
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
}
