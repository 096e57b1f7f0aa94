package org.magejvm.impl.env.guess;

import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.PromptStyle;

/**
 * The prompts of Guess the Number. Every earlier attempt the context shows is one line with its guess and what the
 * guess revealed ({@code Try 1: 4 is too high}), so a player that reads its history has everything it needs to halve
 * the range; with no earlier attempts shown, every attempt looks the same.
 */
final class GuessNumberPromptRenderer implements PromptRenderer {

  private final int max;

  GuessNumberPromptRenderer(int max) {
    this.max = max;
  }

  @Override
  public String renderPlay(PromptContext c) {
    StringBuilder sb = new StringBuilder();
    if (c.style() == PromptStyle.COMPACT) {
      sb.append("Guess the hidden number from 1 to ").append(max).append("; it is the same in every try.\n");
      for (PastEpisode p : c.pastEpisodes()) {
        sb.append("Try ").append(p.index() + 1).append(": ").append(clue(p)).append('\n');
        if (!p.reflection().isEmpty()) {
          sb.append("Lesson: ").append(p.reflection().strip()).append('\n');
        }
      }
      sb.append("Try ").append(c.episodeIndex() + 1).append(" now. Reply <action>N</action>.");
      return sb.toString();
    }
    sb.append("You are playing Guess the Number.\n\n# Rules\n")
        .append("A hidden whole number from 1 to ").append(max).append(" stays the same in every attempt. In each"
            + " attempt you make one guess. A right guess wins; a wrong one is answered \"too low\" or"
            + " \"too high\".\n\n")
        .append("# Goal\nFind the number, using what your earlier attempts revealed.\n\n");
    if (!c.pastEpisodes().isEmpty()) {
      sb.append("# Earlier attempts\n");
      for (PastEpisode p : c.pastEpisodes()) {
        sb.append("Attempt #").append(p.index() + 1).append(": ").append(clue(p)).append(".\n");
        if (!p.reflection().isEmpty()) {
          sb.append("The lesson you wrote after it: ").append(p.reflection().strip()).append('\n');
        }
      }
      sb.append('\n');
    }
    sb.append("# Your answer\nThis is attempt #").append(c.episodeIndex() + 1).append(". Write one whole number from"
        + " 1 to ").append(max).append(" inside <action> </action>, for example <action>").append((max + 1) / 2)
        .append("</action>.");
    return sb.toString();
  }

  @Override
  public String renderReflect(PromptContext c) {
    String guess = c.steps().isEmpty() ? "no guess" : clue(c.steps().get(c.steps().size() - 1));
    if (c.style() == PromptStyle.COMPACT) {
      return "Guess the hidden number from 1 to " + max + "; it is the same in every try.\nTry " + (c.episodeIndex()
          + 1) + ": " + guess + "\nWrite a short lesson for the next try inside <remark></remark>.";
    }
    return "You are playing Guess the Number: a hidden whole number from 1 to " + max + " stays the same in every"
        + " attempt.\n\n# Task\nYou just finished attempt #" + (c.episodeIndex() + 1) + ": " + guess + ". Write what"
        + " it tells you about the number and what to guess next inside <remark> </remark>, for example"
        + " <remark>4 is too high, so the number is below 4; guess 2 next</remark>";
  }

  /** What an earlier attempt revealed: {@code 4 is too high}, or why it revealed nothing. */
  private static String clue(PastEpisode p) {
    return p.steps().isEmpty() ? "no guess" : clue(p.steps().get(p.steps().size() - 1));
  }

  private static String clue(HistoryStep s) {
    return s.valid() ? s.action() : "an invalid answer";
  }
}
