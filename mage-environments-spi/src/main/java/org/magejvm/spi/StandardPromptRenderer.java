package org.magejvm.spi;

import java.util.List;
import java.util.Locale;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Outcome;

/**
 * The prompt structure shared by the built-in games, filled with a game's {@link GameText}.
 *
 * <p>A verbose play prompt has, in order: the role line; {@code # Rules}; {@code # Goal}; {@code # Observation} with
 * the initial state; one entry per earlier attempt (its reflection, and its moves when the context mode shows them);
 * the current attempt's moves (only the last steps carry their state, as the engine decided); and the instruction to
 * think and answer inside {@code <action></action>}. A reflect prompt replaces the context blocks with the finished
 * attempt, every state shown, and asks for a reflection inside {@code <remark></remark>}. Compact prompts carry the
 * same information in a few lines.
 *
 * <p>Subclasses may override {@link #formatStep(HistoryStep, PromptStyle)} to change how a history line reads.
 */
@Api(status = Api.Status.STABLE)
public class StandardPromptRenderer implements PromptRenderer {

  private final GameText text;

  /** @param text the game's sentences */
  public StandardPromptRenderer(GameText text) {
    this.text = text;
  }

  /** @return the game's sentences */
  public GameText gameText() {
    return text;
  }

  @Override
  public String renderPlay(PromptContext c) {
    return c.style() == PromptStyle.COMPACT ? compactPlay(c) : verbosePlay(c);
  }

  @Override
  public String renderReflect(PromptContext c) {
    return c.style() == PromptStyle.COMPACT ? compactReflect(c) : verboseReflect(c);
  }

  private String verbosePlay(PromptContext c) {
    StringBuilder sb = new StringBuilder();
    header(sb);
    sb.append("# Observation\n");
    sb.append("The ").append(text.stateNoun()).append(" at the start of every attempt:\n");
    sb.append(c.initialObservation().strip()).append("\n\n");
    if (!c.pastEpisodes().isEmpty()) {
      sb.append("# Earlier attempts\n");
      for (PastEpisode p : c.pastEpisodes()) {
        sb.append("Attempt #").append(p.index() + 1).append(" ended ").append(outcomePhrase(p.outcome()))
            .append('.');
        if (!p.steps().isEmpty()) {
          sb.append(" Your moves:\n");
          appendSteps(sb, p.steps(), PromptStyle.VERBOSE);
        } else {
          sb.append('\n');
        }
        if (!p.reflection().isEmpty()) {
          sb.append("The lesson you wrote after it:\n").append(p.reflection().strip()).append('\n');
        }
        sb.append('\n');
      }
    }
    if (c.episodeIndex() > 0) {
      sb.append("# Current attempt\n");
      sb.append("This is attempt #").append(c.episodeIndex() + 1).append(". ");
      if (c.steps().isEmpty()) {
        sb.append("The ").append(text.stateNoun()).append(" is back at its initial state.\n\n");
      } else {
        sb.append("Moves so far:\n");
        appendSteps(sb, c.steps(), PromptStyle.VERBOSE);
        sb.append('\n');
      }
    } else if (!c.steps().isEmpty()) {
      sb.append("# Moves so far\n");
      appendSteps(sb, c.steps(), PromptStyle.VERBOSE);
      sb.append('\n');
    }
    if (!text.historyNote().isEmpty() && !c.steps().isEmpty()) {
      sb.append(text.historyNote().strip()).append("\n\n");
    }
    sb.append("# Your answer\n");
    sb.append("Think step by step about the current ").append(text.stateNoun())
        .append(" and what you have learned, then give your action. ");
    sb.append(text.actionFormat().strip());
    return sb.toString();
  }

  private String verboseReflect(PromptContext c) {
    StringBuilder sb = new StringBuilder();
    header(sb);
    sb.append("# Task\n");
    sb.append("You just finished attempt #").append(c.episodeIndex() + 1).append(" and it ended ")
        .append(outcomePhrase(c.outcome()))
        .append(". ").append(text.replayNote().strip())
        .append(" Review the attempt, find the mistakes, and devise a short, concrete plan for the next attempt.\n\n");
    sb.append("# Past experience\n");
    sb.append("The ").append(text.stateNoun()).append(" at the start:\n");
    sb.append(c.initialObservation().strip()).append("\n\n");
    if (c.steps().isEmpty()) {
      sb.append("No move was made.\n");
    } else {
      sb.append("Your moves, each with the ").append(text.stateNoun()).append(" after it:\n");
      appendSteps(sb, c.steps(), PromptStyle.VERBOSE);
    }
    sb.append("The attempt ended ").append(outcomePhrase(c.outcome())).append(".\n\n");
    sb.append("# Your answer\n");
    sb.append("Reason about what went wrong, then write your reflection and plan inside <remark> </remark>,"
        + " for example <remark>").append(text.reflectionExample().strip()).append("</remark>");
    return sb.toString();
  }

  private void header(StringBuilder sb) {
    sb.append(text.role().strip()).append("\n\n");
    sb.append("# Rules\n").append(text.rules().strip()).append("\n\n");
    sb.append("# Goal\n").append(text.goal().strip()).append("\n\n");
  }

  private String compactPlay(PromptContext c) {
    StringBuilder sb = new StringBuilder();
    sb.append(text.compactRules().strip()).append('\n');
    sb.append("Start:\n").append(c.initialObservation().strip()).append('\n');
    for (PastEpisode p : c.pastEpisodes()) {
      sb.append("Try ").append(p.index() + 1).append(' ').append(outcomeWord(p.outcome()));
      if (!p.steps().isEmpty()) {
        sb.append(": ");
        for (int i = 0; i < p.steps().size(); i++) {
          sb.append(i == 0 ? "" : ", ").append(formatAction(p.steps().get(i)));
        }
      }
      sb.append('\n');
      if (!p.reflection().isEmpty()) {
        sb.append("Lesson: ").append(p.reflection().strip()).append('\n');
      }
    }
    if (c.episodeIndex() > 0) {
      sb.append("Try ").append(c.episodeIndex() + 1).append(" now.\n");
    }
    if (!c.steps().isEmpty()) {
      sb.append("Moves:\n");
      appendSteps(sb, c.steps(), PromptStyle.COMPACT);
    }
    sb.append(text.compactActionFormat().strip());
    return sb.toString();
  }

  private String compactReflect(PromptContext c) {
    StringBuilder sb = new StringBuilder();
    sb.append(text.compactRules().strip()).append('\n');
    sb.append("Start:\n").append(c.initialObservation().strip()).append('\n');
    sb.append("Try ").append(c.episodeIndex() + 1).append(' ').append(outcomeWord(c.outcome())).append(":\n");
    appendSteps(sb, c.steps(), PromptStyle.COMPACT);
    sb.append("Write a short lesson for the next try inside <remark></remark>.");
    return sb.toString();
  }

  private void appendSteps(StringBuilder sb, List<HistoryStep> steps, PromptStyle style) {
    for (HistoryStep s : steps) {
      sb.append(formatStep(s, style)).append('\n');
    }
  }

  /**
   * Formats one history line: {@code Step 3 - Action: (1, 2)} and, when the observation is shown, the state on the
   * following lines. An invalid action reads {@code (1, 2), but it is invalid}.
   *
   * @param step the step
   * @param style verbose or compact
   * @return the text, without a trailing newline
   */
  protected String formatStep(HistoryStep step, PromptStyle style) {
    StringBuilder sb = new StringBuilder();
    if (style == PromptStyle.COMPACT) {
      sb.append(step.number()).append(". ").append(formatAction(step));
      if (step.observation() != null) {
        sb.append('\n').append(step.observation().strip());
      }
      return sb.toString();
    }
    sb.append("Step ").append(step.number()).append(" - Action: ").append(formatAction(step));
    if (step.observation() != null) {
      sb.append("\nObservation:\n").append(step.observation().strip());
    }
    return sb.toString();
  }

  /**
   * @param step a step
   * @return its action text, marked when invalid
   */
  protected String formatAction(HistoryStep step) {
    String a = step.action().isEmpty() ? "(no action found)" : step.action();
    return step.valid() ? a : a + ", but it is invalid";
  }

  /**
   * @param outcome an outcome
   * @return the words used after "ended", for example "in a loss"
   */
  protected String outcomePhrase(Outcome outcome) {
    if (outcome == null) {
      return "without success";
    }
    switch (outcome) {
      case WON:
        return "in a win";
      case DRAW:
        return "in a draw";
      case TRUNCATED:
        return "unfinished when the move limit was reached";
      case LOST:
      default:
        return "without success";
    }
  }

  private static String outcomeWord(Outcome outcome) {
    return outcome == null ? "failed" : outcome.name().toLowerCase(Locale.ROOT);
  }
}
