package org.magejvm.impl.serve;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Follows the text of one generated row as its tokens arrive, on the generation thread: finds the stop strings and
 * hands out the parts of the text that are final, for streaming.
 *
 * <p><b>Text.</b> After each token the row's tokens so far (without a stop token, which carries no text) are decoded
 * as a whole, exactly as the answer of a request that is not streamed is, so the streamed parts put together equal
 * that answer whenever the tokenizer's decoding of a prefix is a prefix of the decoding of the whole (true of
 * byte-level BPE, Qwen's tokenizer, once a multi-byte character is complete). A text that ends in U+FFFD (a character
 * whose bytes have not all arrived) is not handed out until it is complete. Decoding the whole row after each token
 * costs time that grows with the square of the row's length; only streamed rows and rows with stop strings pay it.
 *
 * <p><b>Stop strings.</b> The earliest occurrence of any stop string ends the row: the text is cut before it (the stop
 * string is not part of the answer, as vLLM's default) and the tokens kept are those up to the one in which the
 * cut falls: that token may spell the first characters of the stop string, which its text then leaves out; the tokens
 * after it, which only spell the rest of the stop string, are dropped. With {@code include_stop_str_in_output} the text
 * is cut after the stop string instead, which it then ends with, and every token is kept (the row ends at the token
 * that completes the stop string), as vLLM does. While the row runs, the last (longest stop string - 1) characters are
 * held back, since they may be the start of a stop string.
 */
final class RowText {

  /** A part of the answer ready to be sent: text and the tokens {@code [fromToken, toToken)}. */
  record Part(String text, int fromToken, int toToken) {
    boolean isEmpty() {
      return text.isEmpty() && fromToken == toToken;
    }
  }

  private final Function<int[], String> decode;
  private final Set<Integer> stopTokenIds;
  private final List<String> stops;
  private final boolean includeStop;
  private final int hold;
  private int[] ids = new int[16];
  private float[] logProbs = new float[16];
  /** The length of the text after each token, -1 while the token ends inside a character. */
  private int[] ends = new int[16];
  private int count;
  private String text = "";
  /** The complete text's length at the last stop-string search. */
  private int searched;
  private int cut = -1;
  private String stopReason;
  /** The text handed out so far. */
  private String sent = "";
  /** The tokens handed out so far. */
  private int sentTokens;

  /**
   * @param decode decodes token ids (without a stop token) to the answer's text
   * @param stopTokenIds the tokens that end a row; such a token is kept as the last token and adds no text
   * @param stops the stop strings, none empty
   */
  RowText(Function<int[], String> decode, Set<Integer> stopTokenIds, List<String> stops) {
    this(decode, stopTokenIds, stops, false);
  }

  /**
   * @param decode decodes token ids (without a stop token) to the answer's text
   * @param stopTokenIds the tokens that end a row; such a token is kept as the last token and adds no text
   * @param stops the stop strings, none empty
   * @param includeStop whether the answer ends with the stop string that ended it ({@code
   *     include_stop_str_in_output}) rather than before it
   */
  RowText(Function<int[], String> decode, Set<Integer> stopTokenIds, List<String> stops, boolean includeStop) {
    this.decode = Objects.requireNonNull(decode, "decode");
    this.stopTokenIds = Set.copyOf(stopTokenIds);
    this.stops = List.copyOf(stops);
    this.includeStop = includeStop;
    int longest = 0;
    for (String s : stops) {
      if (s.isEmpty()) {
        throw new IllegalArgumentException("empty stop string");
      }
      longest = Math.max(longest, s.length());
    }
    this.hold = Math.max(0, longest - 1);
  }

  /**
   * Takes the row's next token.
   *
   * @param token the token
   * @param logProb its log-probability
   * @return whether the row goes on: false after a stop token or when a stop string has appeared
   */
  boolean add(int token, float logProb) {
    if (count == ids.length) {
      ids = Arrays.copyOf(ids, 2 * count);
      logProbs = Arrays.copyOf(logProbs, 2 * count);
      ends = Arrays.copyOf(ends, 2 * count);
    }
    ids[count] = token;
    logProbs[count] = logProb;
    ends[count] = -1;
    count++;
    if (stopTokenIds.contains(token)) {
      ends[count - 1] = text.length();
      return false;
    }
    text = decode.apply(Arrays.copyOf(ids, count));
    int complete = completeLength(text);
    if (complete == text.length()) {
      for (int i = count - 1; i >= 0 && ends[i] < 0; i--) {
        ends[i] = complete;
      }
    }
    if (stops.isEmpty()) {
      return true;
    }
    int from = Math.max(0, searched - hold);
    int best = -1;
    for (String s : stops) {
      int k = text.indexOf(s, from);
      if (k >= 0 && (best < 0 || k < best)) {
        best = k;
        stopReason = s;
      }
    }
    searched = complete;
    if (best >= 0) {
      cut = best;
      return false;
    }
    return true;
  }

  /**
   * What is ready to be sent since the last call: while the row runs, the complete text but the held-back tail and
   * the tokens whose text is wholly sent; at the end, the rest of the answer.
   *
   * @param end whether the row has ended
   * @return the part, possibly empty
   */
  Part next(boolean end) {
    String target = end ? answer() : text;
    int limit = end ? target.length() : completeLength(text) - hold;
    if (limit > 0 && limit < target.length() && Character.isHighSurrogate(target.charAt(limit - 1))) {
      limit--;
    }
    String delta = "";
    if (limit > sent.length() && target.startsWith(sent)) {
      delta = target.substring(sent.length(), limit);
      sent = target.substring(0, limit);
    }
    int upTo = sentTokens;
    if (end) {
      upTo = Math.max(upTo, kept());
    } else {
      while (upTo < count && ends[upTo] >= 0 && ends[upTo] <= sent.length()) {
        upTo++;
      }
    }
    Part p = new Part(delta, sentTokens, upTo);
    sentTokens = upTo;
    return p;
  }

  /**
   * @return the answer's text: the whole text, or the text before the stop string that ended the row (up to its end
   *     when the stop string is included)
   */
  String answer() {
    if (cut < 0) {
      return text;
    }
    return text.substring(0, includeStop ? cut + stopReason.length() : cut);
  }

  /** @return the stop string that ended the row, or null */
  String stopReason() {
    return cut >= 0 ? stopReason : null;
  }

  /**
   * @return the number of tokens the answer keeps: all, or those up to the one in which the stop string begins (all
   *     when the stop string is included: the last token completed it)
   */
  int kept() {
    if (cut < 0 || includeStop) {
      return count;
    }
    int k = 0;
    int start = 0;
    while (k < count) {
      int end = ends[k];
      if (start < cut || (end >= 0 && end <= cut)) {
        k++;
        if (end >= 0) {
          start = end;
        }
      } else {
        break;
      }
    }
    return k;
  }

  /** @return the number of tokens taken so far */
  int count() {
    return count;
  }

  /**
   * @param from the first token
   * @param to one past the last token
   * @return the ids of tokens {@code [from, to)}
   */
  int[] ids(int from, int to) {
    return Arrays.copyOfRange(ids, from, to);
  }

  /**
   * @param from the first token
   * @param to one past the last token
   * @return the log-probabilities of tokens {@code [from, to)}
   */
  float[] logProbs(int from, int to) {
    return Arrays.copyOfRange(logProbs, from, to);
  }

  /** The length of {@code s} without the U+FFFD characters at its end (a character still arriving). */
  private static int completeLength(String s) {
    int n = s.length();
    while (n > 0 && s.charAt(n - 1) == '\uFFFD') {
      n--;
    }
    return n;
  }
}
