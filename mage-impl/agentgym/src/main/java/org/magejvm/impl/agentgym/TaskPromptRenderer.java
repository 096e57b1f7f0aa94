package org.magejvm.impl.agentgym;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.magejvm.api.Outcome;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;

/**
 * The play and reflect prompts of the single-agent text tasks (WebShop, ALFWorld), with the structure and
 * information of the MAGE/LaMer reference prompts ({@code agent_system/environments/{webshop,alfworld}/prompt.py}),
 * written in this project's own words:
 *
 * <ul>
 *   <li>play: the role line; the task (WebShop: the instruction; ALFWorld: the whole initial observation); one
 *       paragraph per earlier attempt (its moves when the context mode shows them, and the reflection written after
 *       it); the current attempt ("attempt #k, from the initial state" or its recent moves); the admissible actions
 *       of the current situation; and the request to reason step by step and answer one admissible action inside
 *       {@code <action> </action>};
 *   <li>reflect: the role line and task, the finished attempt's moves and observations, how it ended, and the
 *       request to find the mistakes and write a short improved plan inside {@code <remark> </remark>}.
 * </ul>
 *
 * <p>One renderer belongs to one environment instance: it reads that instance's task and current admissible actions
 * when it renders, which the engine does right before each step.
 */
public final class TaskPromptRenderer implements PromptRenderer {

  /**
   * The task-specific sentences.
   *
   * @param role the opening line, for example "You are an expert agent shopping in the WebShop e-commerce site."
   * @param taskIsObservation whether the task block is the whole initial observation (ALFWorld) rather than "Your
   *     task is to: TASK." (WebShop)
   * @param oneActionPerLine whether admissible actions are listed one per line (WebShop) or comma-separated
   *     (ALFWorld)
   * @param advice the task-specific line of advice on choosing the action
   */
  public record Text(String role, boolean taskIsObservation, boolean oneActionPerLine, String advice) {
    /**
     * Validates.
     *
     * @param role role line
     * @param taskIsObservation whether the task block is the initial observation
     * @param oneActionPerLine how actions are listed
     * @param advice advice line
     */
    public Text {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(advice, "advice");
    }
  }

  private final Text text;
  private final Supplier<String> task;
  private final Supplier<List<String>> actions;

  /**
   * @param text the task-specific sentences
   * @param task the task description (read at render time)
   * @param actions the admissible actions of the current situation (read at render time)
   */
  public TaskPromptRenderer(Text text, Supplier<String> task, Supplier<List<String>> actions) {
    this.text = Objects.requireNonNull(text, "text");
    this.task = Objects.requireNonNull(task, "task");
    this.actions = Objects.requireNonNull(actions, "actions");
  }

  @Override
  public String renderPlay(PromptContext c) {
    StringBuilder sb = new StringBuilder();
    header(sb, c);
    for (PastEpisode p : c.pastEpisodes()) {
      sb.append("\n\nAttempt #").append(p.index() + 1).append(' ').append(ended(p.outcome())).append('.');
      if (!p.steps().isEmpty()) {
        sb.append(" What you did and saw in it:\n");
        steps(sb, p.steps());
      }
      if (!p.reflection().isEmpty()) {
        sb.append(p.steps().isEmpty() ? " " : "\n").append("Your reflection on it:\n").append(p.reflection().strip());
      }
    }
    if (c.episodeIndex() == 0) {
      if (!c.steps().isEmpty()) {
        sb.append("\n\nYour most recent actions and what you observed after each:\n");
        steps(sb, c.steps());
      }
    } else if (c.steps().isEmpty()) {
      sb.append("\n\nThis is attempt #").append(c.episodeIndex() + 1).append(", starting again from the initial"
          + " state.");
    } else {
      sb.append("\n\nThis is attempt #").append(c.episodeIndex() + 1).append("; your most recent actions in it and"
          + " what you observed after each:\n");
      steps(sb, c.steps());
    }
    sb.append("\n\nThe admissible actions in the current situation:\n");
    List<String> shown = actions.get();
    if (text.oneActionPerLine()) {
      sb.append("[\n");
      for (String a : shown) {
        sb.append('\'').append(a).append("',\n");
      }
      sb.append("]");
    } else {
      sb.append('[');
      for (int i = 0; i < shown.size(); i++) {
        sb.append(i == 0 ? "" : ",\n ").append('\'').append(shown.get(i)).append('\'');
      }
      sb.append(']');
    }
    sb.append("\n\nIt is your turn to act. ");
    if (c.style() == org.magejvm.spi.PromptStyle.VERBOSE) {
      sb.append("First reason step by step about the current situation. ").append(text.advice().strip())
          .append(' ');
    }
    sb.append("Then choose one admissible action for this step and write it inside <action> </action> tags.");
    return sb.toString();
  }

  @Override
  public String renderReflect(PromptContext c) {
    StringBuilder sb = new StringBuilder();
    header(sb, c);
    sb.append("\n\nBelow is one of your past attempts at this task. Review it, find the mistakes or wasted steps,"
        + " and work out a short, better plan that starts again from the same initial state.");
    sb.append("\n\nThe actions you took and what you observed after each:\n");
    if (c.steps().isEmpty()) {
      sb.append("(no action was taken)");
    } else {
      steps(sb, c.steps());
    }
    sb.append("\nThe attempt ").append(ended(c.outcome())).append('.');
    sb.append("\n\nNow reflect on it.");
    if (c.style() == org.magejvm.spi.PromptStyle.VERBOSE) {
      sb.append("\n- First reason step by step about the strategy you followed and the path you took; say where it"
          + " went wrong or could have been better.");
      sb.append("\n- Then write a short new plan that fixes those mistakes, naming the actions you should take.");
      sb.append("\n- Finally");
    } else {
      sb.append(" Finally");
    }
    sb.append(" put your reflection and improved plan inside <remark> </remark> tags; it will guide your next"
        + " attempt.");
    return sb.toString();
  }

  private void header(StringBuilder sb, PromptContext c) {
    sb.append(text.role().strip()).append('\n');
    if (text.taskIsObservation()) {
      sb.append(c.initialObservation().strip());
    } else {
      sb.append("Your task is to: ").append(task.get().strip()).append('.');
    }
  }

  private static String ended(Outcome o) {
    if (o == null) {
      return "is over";
    }
    switch (o) {
      case WON:
        return "completed the task successfully";
      case TRUNCATED:
        return "ran out of steps; the task was NOT completed";
      default:
        return "ended; the task was NOT completed";
    }
  }

  private static void steps(StringBuilder sb, List<HistoryStep> steps) {
    for (int i = 0; i < steps.size(); i++) {
      HistoryStep s = steps.get(i);
      sb.append(i == 0 ? "" : "\n").append("Action ").append(s.number()).append(": '").append(s.action())
          .append('\'');
      if (!s.valid()) {
        sb.append(" (not a valid action: nothing happened)");
      }
      if (s.observation() != null) {
        sb.append("\nObservation ").append(s.number()).append(": ").append(s.observation().strip());
      }
    }
  }
}
