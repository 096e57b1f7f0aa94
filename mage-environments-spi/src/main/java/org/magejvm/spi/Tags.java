package org.magejvm.spi;

import java.util.Optional;
import org.magejvm.api.annotation.Api;

/**
 * Extracts the text between XML-like tags such as {@code <action>...</action>} with plain index scans (no regular
 * expressions, so any input length is linear). Tag names are matched exactly, case-sensitively.
 */
@Api(status = Api.Status.STABLE)
public final class Tags {

  private Tags() {}

  /**
   * The text between the first opening tag and the first closing tag after it.
   *
   * @param text the text to search
   * @param tag the tag name without brackets, for example {@code action}
   * @return the enclosed text, if both tags are present in order
   */
  public static Optional<String> first(String text, String tag) {
    String open = "<" + tag + ">";
    String close = "</" + tag + ">";
    int start = text.indexOf(open);
    if (start < 0) {
      return Optional.empty();
    }
    int end = text.indexOf(close, start + open.length());
    return end < 0 ? Optional.empty() : Optional.of(text.substring(start + open.length(), end));
  }

  /**
   * The text between the last opening tag and the first closing tag after it.
   *
   * @param text the text to search
   * @param tag the tag name
   * @return the enclosed text, if both tags are present in order
   */
  public static Optional<String> last(String text, String tag) {
    String open = "<" + tag + ">";
    String close = "</" + tag + ">";
    int start = text.lastIndexOf(open);
    if (start < 0) {
      return Optional.empty();
    }
    int end = text.indexOf(close, start + open.length());
    return end < 0 ? Optional.empty() : Optional.of(text.substring(start + open.length(), end));
  }

  /**
   * The text between the first opening tag and the last closing tag (Sokoban's rule, which lets one action block
   * hold several moves even if the model repeats the closing tag).
   *
   * @param text the text to search
   * @param tag the tag name
   * @return the enclosed text, if both tags are present in order
   */
  public static Optional<String> outermost(String text, String tag) {
    String open = "<" + tag + ">";
    String close = "</" + tag + ">";
    int start = text.indexOf(open);
    if (start < 0) {
      return Optional.empty();
    }
    int end = text.lastIndexOf(close);
    return end < start + open.length() ? Optional.empty() : Optional.of(text.substring(start + open.length(), end));
  }

  /**
   * Shortens text for error messages and histories.
   *
   * @param text the text
   * @param max the most characters kept
   * @return the text, cut with an ellipsis when longer than {@code max}
   */
  public static String abbreviate(String text, int max) {
    return text.length() <= max ? text : text.substring(0, Math.max(0, max - 3)) + "...";
  }
}
