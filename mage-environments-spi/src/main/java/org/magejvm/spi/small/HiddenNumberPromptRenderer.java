package org.magejvm.spi.small;

import org.magejvm.api.annotation.Api;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.PromptStyle;

/**
 * The prompts of a small guessing game ({@link HiddenNumberEnvironment}), filled with the game's sentences. Every
 * earlier attempt the context shows is one line with what it revealed ({@link #earlierAttempt(PastEpisode)}: the
 * action of its last step, which carries the feedback), followed by its lesson when it has one; with no earlier
 * attempts shown, every attempt looks the same.
 *
 * <p>A compact play prompt is {@link #compactRules()}, one {@code Try i: ...} line per earlier attempt (and {@code
 * Lesson: ...}), and {@code Try k now. Reply <action>N</action>.}. A verbose one is {@link #role()}, {@code # Rules}
 * ({@link #rules()}), {@code # Goal} ({@link #goal()}), {@code # Earlier attempts} when there are any ({@code Attempt
 * #i: ....} and {@code The lesson you wrote after it: ...}), and {@code # Your answer} ({@code This is attempt #k. }
 * and {@link #actionFormat()}). A compact reflect prompt is {@link #compactRules()}, {@code Try k: ...} with what the
 * finished attempt revealed, and a request for a short lesson; the verbose one is the game's ({@link
 * #verboseReflect(int, String)}).
 */
@Api(status = Api.Status.EXPERIMENTAL)
public abstract class HiddenNumberPromptRenderer implements PromptRenderer {

  /** For subclasses. */
  protected HiddenNumberPromptRenderer() {}

  @Override
  public final String renderPlay(PromptContext c) {
    StringBuilder sb = new StringBuilder();
    if (c.style() == PromptStyle.COMPACT) {
      sb.append(compactRules()).append('\n');
      for (PastEpisode p : c.pastEpisodes()) {
        sb.append("Try ").append(p.index() + 1).append(": ").append(earlierAttempt(p)).append('\n');
        if (!p.reflection().isEmpty()) {
          sb.append("Lesson: ").append(p.reflection().strip()).append('\n');
        }
      }
      sb.append("Try ").append(c.episodeIndex() + 1).append(" now. Reply <action>N</action>.");
      return sb.toString();
    }
    sb.append(role()).append("\n\n# Rules\n").append(rules()).append("\n\n# Goal\n").append(goal()).append("\n\n");
    if (!c.pastEpisodes().isEmpty()) {
      sb.append("# Earlier attempts\n");
      for (PastEpisode p : c.pastEpisodes()) {
        sb.append("Attempt #").append(p.index() + 1).append(": ").append(earlierAttempt(p)).append(".\n");
        if (!p.reflection().isEmpty()) {
          sb.append("The lesson you wrote after it: ").append(p.reflection().strip()).append('\n');
        }
      }
      sb.append('\n');
    }
    sb.append("# Your answer\nThis is attempt #").append(c.episodeIndex() + 1).append(". ").append(actionFormat());
    return sb.toString();
  }

  @Override
  public final String renderReflect(PromptContext c) {
    String last = c.steps().isEmpty() ? noAnswer() : step(c.steps().get(c.steps().size() - 1));
    if (c.style() == PromptStyle.COMPACT) {
      return compactRules() + "\nTry " + (c.episodeIndex() + 1) + ": " + last
          + "\nWrite a short lesson for the next try inside <remark></remark>.";
    }
    return verboseReflect(c.episodeIndex() + 1, last);
  }

  /** @return the rules in one line, the first line of compact prompts (no line break) */
  protected abstract String compactRules();

  /** @return the first line of verbose play prompts ({@code You are playing Guess the Number.}) */
  protected abstract String role();

  /** @return the rules of verbose play prompts, without the heading */
  protected abstract String rules();

  /** @return the goal of verbose play prompts, without the heading */
  protected abstract String goal();

  /** @return how to answer, after {@code This is attempt #k. } in verbose play prompts */
  protected abstract String actionFormat();

  /**
   * The verbose reflect prompt.
   *
   * @param attempt the number of the attempt just finished, from 1
   * @param last what it revealed ({@link #step(HistoryStep)} of its last step, or {@link #noAnswer()})
   * @return the prompt
   */
  protected abstract String verboseReflect(int attempt, String last);

  /** @return what an attempt with no step to show revealed ({@code no guess}) */
  protected abstract String noAnswer();

  /**
   * What an earlier attempt revealed: its last step, or {@link #noAnswer()} when the context shows no steps.
   *
   * @param p the earlier attempt
   * @return the text after {@code Try i: }
   */
  protected String earlierAttempt(PastEpisode p) {
    return p.steps().isEmpty() ? noAnswer() : step(p.steps().get(p.steps().size() - 1));
  }

  /**
   * @param s a step
   * @return its action (which carries the feedback), or {@code an invalid answer}
   */
  protected String step(HistoryStep s) {
    return s.valid() ? s.action() : "an invalid answer";
  }
}
