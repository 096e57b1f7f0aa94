package org.magejvm.impl.env.penalty;

import org.magejvm.impl.env.KeeperPromptRenderer;

/**
 * The prompts of Penalty Shoot-out, in the keeper games' layout ({@link KeeperPromptRenderer}). Every earlier attempt
 * the context shows is one line with the dive and where the shot went ({@code Try 1: dove 3, shot 5}), from
 * which a keeper that reads its history can tell the striker's habit; with no earlier attempts shown, every attempt
 * looks the same. The rules name the three habit families but never the striker's. When the context shows
 * reflections but not the history ({@code reflection_only}), an earlier attempt's line says only that it was not
 * saved, and its lesson follows it.
 */
final class PenaltyPromptRenderer extends KeeperPromptRenderer {

  private final Scoring scoring;

  PenaltyPromptRenderer(int spots, Scoring scoring) {
    super(spots);
    this.scoring = scoring;
  }

  @Override
  protected String compactRules() {
    return "A striker shoots one penalty per try at a spot 1 to " + spots + " (after " + spots + " comes 1) by a"
        + " habit: same spot, same step, back and forth, or by your last dive. Dive to the shot to save it."
        + (scoring == Scoring.GRADED ? " One spot off scores half." : "");
  }

  @Override
  protected String role() {
    return "You are the goalkeeper in a penalty shoot-out against a striker with a habit.";
  }

  @Override
  protected String rules() {
    return "The goal has " + spots + " spots in a ring, numbered 1 to " + spots + ": one step right of " + spots
        + " is 1. In each attempt the striker takes one penalty and you dive to one spot. Its first shot can go"
        + " anywhere; after that it follows one habit for the whole series: it keeps shooting the same spot, moves by"
        + " the same step every time, goes back and forth between two spots, or aims by where you dove last time."
        + " Diving to the spot the shot goes to saves it and wins; any other dive lets it in, and you see where the"
        + " shot went."
        + (scoring == Scoring.GRADED ? " A dive one spot beside the shot is a near miss: it scores half a save but"
            + " does not win, and the series goes on." : "");
  }

  @Override
  protected String goal() {
    return "Save a penalty: work out the striker's habit from your earlier attempts and dive where it shoots next.";
  }

  @Override
  protected String verboseReflect(int attempt, String last) {
    return "You are the goalkeeper in a penalty shoot-out against a striker with a habit: it keeps one spot, moves by"
        + " the same step, goes back and forth, or aims by your last dive, on a ring of " + spots + " spots.\n\n"
        + "# Task\nYou just faced penalty #" + attempt + ": " + last + ". Write what it tells you about the striker's"
        + " habit and where to dive next inside <remark> </remark>, for example <remark>the shot moved two to the"
        + " right, so dive two further right next</remark>";
  }
}
