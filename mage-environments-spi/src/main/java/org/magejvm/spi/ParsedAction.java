package org.magejvm.spi;

import java.util.Optional;
import org.magejvm.api.annotation.Api;

/**
 * The result of parsing a response: the action if one could be read, and how it reads in histories.
 *
 * @param action the parsed action, or null when none could be read
 * @param text the action as it should appear in histories (what was read, possibly empty)
 * @param error why nothing could be read, or the empty string
 * @param <A> the game's action type
 */
@Api(status = Api.Status.STABLE)
public record ParsedAction<A>(A action, String text, String error) {

  /**
   * Normalises nulls.
   *
   * @param action action
   * @param text text
   * @param error error
   */
  public ParsedAction {
    text = text == null ? "" : text;
    error = error == null ? "" : error;
  }

  /**
   * @param action the action
   * @param text its history text
   * @param <A> the action type
   * @return a successful parse
   */
  public static <A> ParsedAction<A> of(A action, String text) {
    return new ParsedAction<>(action, text, "");
  }

  /**
   * @param text what was read, possibly empty
   * @param error why it is not an action
   * @param <A> the action type
   * @return a failed parse
   */
  public static <A> ParsedAction<A> failure(String text, String error) {
    return new ParsedAction<>(null, text, error);
  }

  /** @return whether an action was read */
  public boolean ok() {
    return action != null;
  }

  /** @return the action, if read */
  public Optional<A> asOptional() {
    return Optional.ofNullable(action);
  }
}
