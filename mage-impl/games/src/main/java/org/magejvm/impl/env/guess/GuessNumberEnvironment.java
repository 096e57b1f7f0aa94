package org.magejvm.impl.env.guess;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.NumberAnswer;
import org.magejvm.spi.Environment;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StepResult;

/**
 * One meta-episode of Guess the Number: the task seed draws a hidden number from 1 to {@code max}; every attempt is
 * one guess. A right guess wins the attempt (reward {@link #WIN_REWARD}, score 1); a wrong one loses it (reward 0,
 * score 0) and the observation says whether the guess was too low or too high. {@link #restart()} starts the next
 * attempt with the same hidden number; the clues of the earlier attempts stay in {@link #state()} (the structured
 * form of what a prompt with the earlier attempts shows). A guess's action text, which is what a prompt's history of
 * earlier attempts lists, carries its clue: {@code 4 is too high}.
 */
public final class GuessNumberEnvironment implements Environment {

  /** The reward of a right guess. */
  public static final double WIN_REWARD = 10.0;

  /**
   * What a wrong guess revealed.
   *
   * @param guess the guessed number
   * @param sign -1 when the guess was too low, +1 when too high, 0 when right
   */
  public record Clue(int guess, int sign) {
    /** @return the clue as the prompts write it ({@code 4 is too high}) */
    public String text() {
      return guess + (sign < 0 ? " is too low" : sign > 0 ? " is too high" : " is right");
    }
  }

  /**
   * The structured state for scripted players.
   *
   * @param max the largest number the hidden one can be
   * @param clues the clues of the attempts already finished in this meta-episode, in order
   */
  public record State(int max, List<Clue> clues) {
    /**
     * Copies.
     *
     * @param max range
     * @param clues clues
     */
    public State {
      clues = List.copyOf(clues);
    }

    /** @return the smallest number the clues allow */
    public int low() {
      int low = 1;
      for (Clue c : clues) {
        if (c.sign() < 0) {
          low = Math.max(low, c.guess() + 1);
        }
      }
      return low;
    }

    /** @return the largest number the clues allow */
    public int high() {
      int high = max;
      for (Clue c : clues) {
        if (c.sign() > 0) {
          high = Math.min(high, c.guess() - 1);
        }
      }
      return high;
    }
  }

  private final int max;
  private final List<Clue> clues = new ArrayList<>();
  private final List<String> legal;
  private int hidden;
  private Clue current;
  private boolean done;
  private boolean reset;

  /**
   * @param max the largest number, at least 2
   */
  public GuessNumberEnvironment(int max) {
    if (max < 2) {
      throw new IllegalArgumentException("max must be >= 2, got " + max);
    }
    this.max = max;
    legal = NumberAnswer.range(max);
  }

  @Override
  public String id() {
    return GuessNumberProvider.ID;
  }

  /** @return the hidden number (for tests and analysis) */
  public int hidden() {
    requireReset();
    return hidden;
  }

  /**
   * The hidden number a task seed draws.
   *
   * @param seed the task seed
   * @param max the largest number
   * @return a number from 1 to max
   */
  public static int hiddenNumber(long seed, int max) {
    return 1 + new Random(seed).nextInt(max);
  }

  @Override
  public String reset(long seed, Opponent opponent, Seat seat) {
    hidden = hiddenNumber(seed, max);
    clues.clear();
    current = null;
    done = false;
    reset = true;
    return observation();
  }

  @Override
  public String restart() {
    requireReset();
    if (current != null) {
      clues.add(current);
    }
    current = null;
    done = false;
    return observation();
  }

  @Override
  public StepResult step(String response) {
    requireReset();
    if (done) {
      throw new IllegalStateException("this attempt of " + GuessNumberProvider.ID + " is over; call restart() or"
          + " reset() before stepping again");
    }
    AnchorKey anchor = anchor();
    ParsedAction<Integer> parsed = parse(response, max);
    if (!parsed.ok()) {
      return StepResult.invalid(observation(), 0, anchor, parsed.text(), parsed.error());
    }
    int guess = parsed.action();
    current = new Clue(guess, Integer.compare(guess, hidden));
    done = true;
    boolean won = guess == hidden;
    // the action as the history shows it carries its clue: earlier attempts are listed by their actions alone
    return StepResult.valid(observation(), anchor, current.text())
        .optReward(won ? WIN_REWARD : 0)
        .optScore(won ? 1 : 0)
        .optOutcome(won ? Outcome.WON : Outcome.LOST)
        .build();
  }

  @Override
  public String observation() {
    requireReset();
    if (current == null) {
      return "A hidden whole number from 1 to " + max + " (the same in every attempt). Your guess?";
    }
    return "You guessed " + current.text() + ".";
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
    return new State(max, clues);
  }

  @Override
  public boolean isDone() {
    return done;
  }

  @Override
  public PromptRenderer promptRenderer() {
    return new GuessNumberPromptRenderer(max);
  }

  /**
   * Reads a guess from a response: a whole number from 1 to {@code max} inside {@code <action></action>}.
   *
   * @param response the response text
   * @param max the largest number
   * @return the guess, or a failure saying what is wrong
   */
  public static ParsedAction<Integer> parse(String response, int max) {
    return NumberAnswer.parse(response, max, "a whole number", "guess");
  }

  private void requireReset() {
    if (!reset) {
      throw new IllegalStateException(GuessNumberProvider.ID + ": reset() was never called");
    }
  }

  @Override
  public String toString() {
    return GuessNumberProvider.ID + "(max " + max + (reset ? ", hidden " + hidden : "") + ")";
  }
}
