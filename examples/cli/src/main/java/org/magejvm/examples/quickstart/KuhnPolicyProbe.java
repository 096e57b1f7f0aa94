package org.magejvm.examples.quickstart;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.magejvm.api.Episode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Turn;
import org.magejvm.impl.llm.DjlLanguagePolicy;

/**
 * What a model plays in Kuhn Poker, read from its probabilities instead of from sampled games: for each prompt, the
 * two answers {@code <action>PASS</action>} and {@code <action>BET</action>} are scored by teacher forcing and the
 * probability of BET is their normalized share. Over the twelve information states of a first attempt (seat, card,
 * betting so far) this shows whether the model reads its card at all; over later attempts' prompts, compared with the
 * same state's first-attempt prompt, whether it reads the earlier attempts in its context.
 */
public final class KuhnPolicyProbe {

  private static final Pattern STATE = Pattern.compile(
      "You are player (\\d)\\. Your card: (\\w+)\\. Betting so far: ([^.]*)\\.");
  private static final Pattern KEY = Pattern.compile("p(\\d) (\\w)\\w*: (.*)");

  /**
   * The probe's result.
   *
   * @param firstAttempt P(BET) per information state in a first attempt, keyed like {@code "p0 King: nothing yet"}
   * @param spread the largest minus the smallest of those probabilities: near 0 for a model that ignores its state
   * @param historyShift the mean absolute change of P(BET) between a later attempt's prompt and the same state's
   *     first-attempt prompt: near 0 for a model that ignores its earlier attempts
   * @param repeatProbability the mean probability of repeating the previous attempt's action at the same point of the
   *     betting, over the later attempts' prompts (NaN when there are none)
   * @param laterPrompts the number of later-attempt prompts the last two averages are over
   */
  public record Result(Map<String, Double> firstAttempt, double spread, double historyShift, double repeatProbability,
      int laterPrompts) {

    /**
     * Copies.
     *
     * @param firstAttempt P(BET) per state
     * @param spread the spread
     * @param historyShift the mean shift
     * @param repeatProbability the mean repeat probability
     * @param laterPrompts how many later prompts
     */
    public Result {
      firstAttempt = java.util.Collections.unmodifiableMap(new TreeMap<>(firstAttempt));
    }
  }

  private KuhnPolicyProbe() {}

  /**
   * Probes a policy on the prompts of some meta-episodes (their own answers are not used).
   *
   * @param policy the model
   * @param metaEpisodes Kuhn Poker meta-episodes whose turns give the prompts
   * @return the probabilities
   * @throws IllegalArgumentException when no turn holds a Kuhn Poker state
   */
  public static Result probe(DjlLanguagePolicy policy, List<MetaEpisode> metaEpisodes) {
    Map<String, String> firstPrompt = new TreeMap<>();
    List<String[]> later = new ArrayList<>(); // state key, prompt, previous attempt's action
    for (MetaEpisode m : metaEpisodes) {
      for (int k = 0; k < m.episodes().size(); k++) {
        Episode e = m.episodes().get(k);
        for (int t = 0; t < e.turns().size(); t++) {
          Turn turn = e.turns().get(t);
          String key = stateKey(turn.anchor().state());
          if (key == null) {
            continue;
          }
          if (k == 0) {
            firstPrompt.putIfAbsent(key, turn.prompt());
          } else {
            String previous = actionAt(m.episodes().get(k - 1), t);
            later.add(new String[] {key, turn.prompt(), previous});
          }
        }
      }
    }
    if (firstPrompt.isEmpty()) {
      throw new IllegalArgumentException("no Kuhn Poker state in " + metaEpisodes.size() + " meta-episodes");
    }
    List<String> prompts = new ArrayList<>(firstPrompt.values());
    for (String[] l : later) {
      prompts.add(l[1]);
    }
    double[] bet = betProbabilities(policy, prompts);
    Map<String, Double> first = new TreeMap<>();
    int i = 0;
    double min = 1;
    double max = 0;
    for (String key : firstPrompt.keySet()) {
      first.put(key, bet[i]);
      min = Math.min(min, bet[i]);
      max = Math.max(max, bet[i]);
      i++;
    }
    double shift = 0;
    int shifted = 0;
    double repeat = 0;
    int repeats = 0;
    for (String[] l : later) {
      double p = bet[i++];
      Double base = first.get(l[0]);
      if (base != null) {
        shift += Math.abs(p - base);
        shifted++;
      }
      if (l[2] != null) {
        repeat += l[2].equals("BET") ? p : 1 - p;
        repeats++;
      }
    }
    return new Result(first, max - min, shifted == 0 ? Double.NaN : shift / shifted,
        repeats == 0 ? Double.NaN : repeat / repeats, later.size());
  }

  /**
   * @param policy the model
   * @param prompts user prompts
   * @return per prompt, P(BET) / (P(BET) + P(PASS)) of the two full answers
   */
  static double[] betProbabilities(DjlLanguagePolicy policy, List<String> prompts) {
    List<String> p = new ArrayList<>(2 * prompts.size());
    List<String> r = new ArrayList<>(2 * prompts.size());
    for (String prompt : prompts) {
      p.add(prompt);
      r.add("<action>PASS</action>");
      p.add(prompt);
      r.add("<action>BET</action>");
    }
    double[] lp = AnswerScores.logProbs(policy, p, r);
    double[] out = new double[prompts.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = 1 / (1 + Math.exp(lp[2 * i] - lp[2 * i + 1]));
    }
    return out;
  }

  /** The action the attempt took at its turn {@code index}, or null. */
  private static String actionAt(Episode e, int index) {
    return index < e.turns().size() && e.turns().get(index).valid() ? e.turns().get(index).action() : null;
  }

  /**
   * @param key a state key of {@link #stateKey}
   * @return a short label for charts: seat, card initial and the betting ({@code "P1 Q vs bet"})
   */
  static String shortLabel(String key) {
    Matcher m = KEY.matcher(key);
    if (!m.matches()) {
      return key;
    }
    String betting = switch (m.group(3)) {
      case "nothing yet" -> "opens";
      case "player 0 checks, player 1 bets" -> "check, bet";
      case "player 0 bets" -> "vs bet";
      case "player 0 checks" -> "vs check";
      default -> m.group(3);
    };
    return "P" + m.group(1) + " " + m.group(2) + " " + betting;
  }

  /**
   * @param observation a Kuhn Poker observation
   * @return a short key of its information state ({@code "p1 Queen: player 0 bets"}), or null when it is none
   */
  static String stateKey(String observation) {
    Matcher m = STATE.matcher(observation);
    return m.find() ? "p" + m.group(1) + " " + m.group(2) + ": " + m.group(3) : null;
  }
}
