package org.magejvm.impl.env.guess;

import java.util.List;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.env.NumberAnswer;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.small.HiddenNumberEnvironment;

/**
 * One meta-episode of Guess the Number: the task seed draws a hidden number from 1 to {@code max}; every attempt is
 * one guess. A right guess wins the attempt (reward {@link #WIN_REWARD}, score 1); a wrong one loses it (reward 0,
 * score 0) and the observation says whether the guess was too low or too high. {@link #restart()} starts the next
 * attempt with the same hidden number; the clues of the earlier attempts stay in {@link #state()} (the structured
 * form of what a prompt with the earlier attempts shows). A guess's action text, which is what a prompt's history of
 * earlier attempts lists, carries its clue: {@code 4 is too high}.
 */
@Api(status = Api.Status.INTERNAL)
public final class GuessNumberEnvironment
    extends HiddenNumberEnvironment<GuessNumberEnvironment.Clue, GuessNumberEnvironment.State> {

  private static final Terms TERMS = new Terms("max", "hidden", "attempt");

  /**
   * What a wrong guess revealed.
   *
   * @param guess the guessed number
   * @param sign -1 when the guess was too low, +1 when too high, 0 when right
   */
  public record Clue(int guess, int sign) implements HiddenNumberEnvironment.Feedback {
    /** @return whether the guess was right */
    @Override
    public boolean won() {
      return sign == 0;
    }

    /** @return the clue as the prompts write it ({@code 4 is too high}) */
    @Override
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

  /**
   * @param max the largest number, at least 2
   */
  public GuessNumberEnvironment(int max) {
    super(GuessNumberProvider.ID, TERMS, max);
  }

  /**
   * The hidden number a task seed draws.
   *
   * @param seed the task seed
   * @param max the largest number
   * @return a number from 1 to max
   */
  public static int hiddenNumber(long seed, int max) {
    return draw(seed, max);
  }

  @Override
  protected ParsedAction<Integer> parse(String response) {
    return parse(response, size());
  }

  @Override
  protected Clue judge(int guess, int hidden) {
    return new Clue(guess, Integer.compare(guess, hidden));
  }

  @Override
  protected String question() {
    return "A hidden whole number from 1 to " + size() + " (the same in every attempt). Your guess?";
  }

  @Override
  protected String answered(Clue clue) {
    return "You guessed " + clue.text() + ".";
  }

  @Override
  protected State snapshot(List<Clue> earlier) {
    return new State(size(), earlier);
  }

  @Override
  public PromptRenderer promptRenderer() {
    return new GuessNumberPromptRenderer(size());
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
}
