package org.magejvm.impl.llm.text;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small deterministic byte-level BPE trainer: split the corpus into words with Qwen's pre-tokenisation pattern,
 * then repeatedly merge the most frequent adjacent symbol pair (ties broken by the pair's text, so the result
 * never depends on hash order).
 */
final class BpeTrainer {

  /** Qwen2/Qwen3's pre-tokenisation regex (the Split step of their tokenizer.json). */
  static final String PRE_TOKENIZER_REGEX =
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*"
          + "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  private static final Pattern PRE_TOKENIZER =
      Pattern.compile(PRE_TOKENIZER_REGEX, Pattern.UNICODE_CHARACTER_CLASS);

  private BpeTrainer() {}

  /** A learned merge: two symbols and their concatenation. */
  record Merge(String left, String right) {
    String result() {
      return left + right;
    }
  }

  /** Splits text into pre-tokenised pieces, as the tokenizer's Split step does. */
  static List<String> pieces(String text) {
    List<String> out = new ArrayList<>();
    Matcher m = PRE_TOKENIZER.matcher(text);
    int last = 0;
    while (m.find()) {
      if (m.start() > last) {
        out.add(text.substring(last, m.start()));
      }
      if (m.end() > m.start()) {
        out.add(m.group());
      }
      last = m.end();
    }
    if (last < text.length()) {
      out.add(text.substring(last));
    }
    return out;
  }

  /**
   * Learns merges.
   *
   * @param corpus the training text
   * @param maxMerges the most merges to learn
   * @param minFrequency stop when the best pair occurs fewer times than this
   * @param protectedTokens texts (the special tokens) cut out of the corpus before training
   * @return the merges, in priority order
   */
  static List<Merge> train(String corpus, int maxMerges, int minFrequency, List<String> protectedTokens) {
    Map<String, Integer> wordCounts = new LinkedHashMap<>();
    for (String chunk : splitOn(corpus, protectedTokens)) {
      for (String piece : pieces(chunk)) {
        wordCounts.merge(piece, 1, Integer::sum);
      }
    }
    List<List<String>> words = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    wordCounts.forEach((w, c) -> {
      words.add(new ArrayList<>(ByteLevel.symbols(w)));
      counts.add(c);
    });
    List<Merge> merges = new ArrayList<>();
    while (merges.size() < maxMerges) {
      Map<Merge, Long> pairCounts = new HashMap<>();
      for (int w = 0; w < words.size(); w++) {
        List<String> syms = words.get(w);
        for (int i = 0; i + 1 < syms.size(); i++) {
          pairCounts.merge(new Merge(syms.get(i), syms.get(i + 1)), (long) counts.get(w), Long::sum);
        }
      }
      Merge best = null;
      long bestCount = 0;
      for (Map.Entry<Merge, Long> e : pairCounts.entrySet()) {
        long c = e.getValue();
        if (c > bestCount || (c == bestCount && best != null && before(e.getKey(), best))) {
          best = e.getKey();
          bestCount = c;
        }
      }
      if (best == null || bestCount < minFrequency) {
        break;
      }
      merges.add(best);
      for (List<String> syms : words) {
        apply(syms, best);
      }
    }
    return merges;
  }

  private static boolean before(Merge a, Merge b) {
    int c = a.left().compareTo(b.left());
    return c != 0 ? c < 0 : a.right().compareTo(b.right()) < 0;
  }

  private static void apply(List<String> syms, Merge m) {
    for (int i = 0; i + 1 < syms.size(); i++) {
      if (syms.get(i).equals(m.left()) && syms.get(i + 1).equals(m.right())) {
        syms.set(i, m.result());
        syms.remove(i + 1);
      }
    }
  }

  private static List<String> splitOn(String text, List<String> tokens) {
    List<String> parts = new ArrayList<>();
    parts.add(text);
    for (String t : tokens) {
      List<String> next = new ArrayList<>();
      for (String p : parts) {
        int start = 0;
        int idx;
        while ((idx = p.indexOf(t, start)) >= 0) {
          next.add(p.substring(start, idx));
          start = idx + t.length();
        }
        next.add(p.substring(start));
      }
      parts = next;
    }
    return parts;
  }
}
