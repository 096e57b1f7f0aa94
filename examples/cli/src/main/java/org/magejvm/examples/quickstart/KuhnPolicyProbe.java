package org.magejvm.examples.quickstart;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
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
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.generate.TokenScores;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.train.MageTrainer;

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
    Qwen3Model model = MageTrainer.modelOf(policy);
    int[] pass = policy.tokenizer().encode("<action>PASS</action>");
    int[] bet = policy.tokenizer().encode("<action>BET</action>");
    List<int[]> p = new ArrayList<>();
    List<int[]> r = new ArrayList<>();
    for (String prompt : prompts) {
      int[] ids = policy.tokenizer().encode(policy.renderPrompt(prompt));
      p.add(ids);
      r.add(pass);
      p.add(ids);
      r.add(bet);
    }
    double[] out = new double[prompts.size()];
    TeacherForcing tf = new TeacherForcing(model);
    int chunk = 64; // rows per forward pass
    GradMode noGrad = GradMode.disabled();
    try {
      for (int start = 0; start < p.size(); start += chunk) {
        int end = Math.min(p.size(), start + chunk);
        try (NDManager manager = model.newManager();
            TokenScores scores = tf.score(manager, p.subList(start, end), r.subList(start, end), 1.0, false)) {
          float[] flat = scores.logProbs().toType(DataType.FLOAT32, false).toFloatArray();
          int width = (int) scores.logProbs().getShape().get(1);
          for (int row = start; row < end; row += 2) {
            double lpPass = sum(flat, (row - start) * width, pass.length);
            double lpBet = sum(flat, (row + 1 - start) * width, bet.length);
            out[row / 2] = 1 / (1 + Math.exp(lpPass - lpBet));
          }
        }
      }
    } finally {
      noGrad.close();
    }
    return out;
  }

  private static double sum(float[] values, int from, int count) {
    double s = 0;
    for (int i = 0; i < count; i++) {
      s += values[from + i];
    }
    return s;
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
