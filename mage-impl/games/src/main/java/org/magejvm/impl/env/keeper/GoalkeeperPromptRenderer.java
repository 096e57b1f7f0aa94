package org.magejvm.impl.env.keeper;

import org.magejvm.api.Outcome;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.PromptStyle;

/**
 * The prompts of Goalkeeper. Every earlier attempt the context shows is one line with the dive and where the shot
 * went ({@code Try 1: dove 3, shot 5}), so a keeper that reads its history knows the striker's spot after one
 * penalty; with no earlier attempts shown, every attempt looks the same. When the context shows reflections but not
 * the history ({@code reflection_only}), an earlier attempt's line says only that it was not saved, and its lesson
 * follows it: whatever the keeper learnt from the shot must be in the lesson it wrote.
 */
final class GoalkeeperPromptRenderer implements PromptRenderer {

  private final int spots;

  GoalkeeperPromptRenderer(int spots) {
    this.spots = spots;
  }

  @Override
  public String renderPlay(PromptContext c) {
    StringBuilder sb = new StringBuilder();
    if (c.style() == PromptStyle.COMPACT) {
      sb.append(header()).append('\n');
      for (PastEpisode p : c.pastEpisodes()) {
        sb.append("Try ").append(p.index() + 1).append(": ").append(penalty(p)).append('\n');
        if (!p.reflection().isEmpty()) {
          sb.append("Lesson: ").append(p.reflection().strip()).append('\n');
        }
      }
      sb.append("Try ").append(c.episodeIndex() + 1).append(" now. Reply <action>N</action>.");
      return sb.toString();
    }
    sb.append("You are the goalkeeper in a penalty shoot-out.\n\n# Rules\n")
        .append("The goal has ").append(spots).append(" spots, numbered 1 to ").append(spots).append(". The striker"
            + " has a habit: every penalty in this series goes to the same spot. In each attempt you face one penalty"
            + " and dive to one spot. Diving to the spot the shot goes to saves it and wins; any other dive lets it"
            + " in, and you see where the shot went.\n\n")
        .append("# Goal\nSave the penalty, using what your earlier attempts showed you.\n\n");
    if (!c.pastEpisodes().isEmpty()) {
      sb.append("# Earlier attempts\n");
      for (PastEpisode p : c.pastEpisodes()) {
        sb.append("Attempt #").append(p.index() + 1).append(": ").append(penalty(p)).append(".\n");
        if (!p.reflection().isEmpty()) {
          sb.append("The lesson you wrote after it: ").append(p.reflection().strip()).append('\n');
        }
      }
      sb.append('\n');
    }
    sb.append("# Your answer\nThis is attempt #").append(c.episodeIndex() + 1).append(". Write the spot you dive to,"
        + " a number from 1 to ").append(spots).append(", inside <action> </action>, for example <action>")
        .append((spots + 1) / 2).append("</action>.");
    return sb.toString();
  }

  @Override
  public String renderReflect(PromptContext c) {
    String last = c.steps().isEmpty() ? "no dive" : penalty(c.steps().get(c.steps().size() - 1));
    if (c.style() == PromptStyle.COMPACT) {
      return header() + "\nTry " + (c.episodeIndex() + 1) + ": " + last
          + "\nWrite a short lesson for the next try inside <remark></remark>.";
    }
    return "You are the goalkeeper in a penalty shoot-out: the striker shoots every penalty of the series at the same"
        + " one of " + spots + " spots.\n\n# Task\nYou just faced penalty #" + (c.episodeIndex() + 1) + ": " + last
        + ". Write what it tells you about the striker and where to dive next inside <remark> </remark>, for"
        + " example <remark>the shot went to 5, so dive to 5 next</remark>";
  }

  private String header() {
    return "The striker shoots every penalty at the same spot, 1 to " + spots + ". Dive there to save it.";
  }

  /**
   * What an earlier attempt showed: {@code dove 3, shot 5} when the context shows its history, else only its outcome
   * ({@code not saved}, or {@code saved}), which is what a reflection-only prompt may tell.
   */
  private static String penalty(PastEpisode p) {
    if (p.steps().isEmpty()) {
      return p.outcome() == Outcome.WON ? "saved" : "not saved";
    }
    return penalty(p.steps().get(p.steps().size() - 1));
  }

  private static String penalty(HistoryStep s) {
    return s.valid() ? s.action() : "an invalid answer";
  }
}
