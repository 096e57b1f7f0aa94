package org.magejvm.impl.env.keeper;

import org.magejvm.impl.env.KeeperPromptRenderer;

/**
 * The prompts of Goalkeeper. Every earlier attempt the context shows is one line with the dive and where the shot
 * went ({@code Try 1: dove 3, shot 5}), so a keeper that reads its history knows the striker's spot after one
 * penalty; with no earlier attempts shown, every attempt looks the same. When the context shows reflections but not
 * the history ({@code reflection_only}), an earlier attempt's line says only that it was not saved, and its lesson
 * follows it: whatever the keeper learnt from the shot must be in the lesson it wrote.
 */
final class GoalkeeperPromptRenderer extends KeeperPromptRenderer {

  GoalkeeperPromptRenderer(int spots) {
    super(spots);
  }

  @Override
  protected String compactRules() {
    return "The striker shoots every penalty at the same spot, 1 to " + spots + ". Dive there to save it.";
  }

  @Override
  protected String role() {
    return "You are the goalkeeper in a penalty shoot-out.";
  }

  @Override
  protected String rules() {
    return "The goal has " + spots + " spots, numbered 1 to " + spots + ". The striker has a habit: every penalty in"
        + " this series goes to the same spot. In each attempt you face one penalty and dive to one spot. Diving to"
        + " the spot the shot goes to saves it and wins; any other dive lets it in, and you see where the shot went.";
  }

  @Override
  protected String goal() {
    return "Save the penalty, using what your earlier attempts showed you.";
  }

  @Override
  protected String verboseReflect(int attempt, String last) {
    return "You are the goalkeeper in a penalty shoot-out: the striker shoots every penalty of the series at the same"
        + " one of " + spots + " spots.\n\n# Task\nYou just faced penalty #" + attempt + ": " + last
        + ". Write what it tells you about the striker and where to dive next inside <remark> </remark>, for"
        + " example <remark>the shot went to 5, so dive to 5 next</remark>";
  }
}
