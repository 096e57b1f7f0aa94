package org.magejvm.impl.env.guess;

import org.magejvm.spi.small.HiddenNumberPromptRenderer;

/**
 * The prompts of Guess the Number. Every earlier attempt the context shows is one line with its guess and what the
 * guess revealed ({@code Try 1: 4 is too high}), so a player that reads its history has everything it needs to halve
 * the range; with no earlier attempts shown, every attempt looks the same.
 */
final class GuessNumberPromptRenderer extends HiddenNumberPromptRenderer {

  private final int max;

  GuessNumberPromptRenderer(int max) {
    this.max = max;
  }

  @Override
  protected String compactRules() {
    return "Guess the hidden number from 1 to " + max + "; it is the same in every try.";
  }

  @Override
  protected String role() {
    return "You are playing Guess the Number.";
  }

  @Override
  protected String rules() {
    return "A hidden whole number from 1 to " + max + " stays the same in every attempt. In each attempt you make one"
        + " guess. A right guess wins; a wrong one is answered \"too low\" or \"too high\".";
  }

  @Override
  protected String goal() {
    return "Find the number, using what your earlier attempts revealed.";
  }

  @Override
  protected String actionFormat() {
    return "Write one whole number from 1 to " + max + " inside <action> </action>, for example <action>"
        + (max + 1) / 2 + "</action>.";
  }

  @Override
  protected String verboseReflect(int attempt, String guess) {
    return "You are playing Guess the Number: a hidden whole number from 1 to " + max + " stays the same in every"
        + " attempt.\n\n# Task\nYou just finished attempt #" + attempt + ": " + guess + ". Write what it tells you"
        + " about the number and what to guess next inside <remark> </remark>, for example <remark>4 is too high, so"
        + " the number is below 4; guess 2 next</remark>";
  }

  /** @return {@code no guess}, also for an earlier attempt whose steps the context does not show */
  @Override
  protected String noAnswer() {
    return "no guess";
  }
}
