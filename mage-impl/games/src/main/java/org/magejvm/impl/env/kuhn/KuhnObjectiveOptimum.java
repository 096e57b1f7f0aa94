package org.magejvm.impl.env.kuhn;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.magejvm.api.annotation.Api;

/**
 * The best meta-episode player for MAGE's training objective on Kuhn Poker against a pool of deterministic opponents,
 * computed exactly by backward induction.
 *
 * <p>A meta-episode replays one deal up to {@code attempts} times and stops at the first won hand. MAGE trains every
 * agent turn on its step return: the differential reward {@code r'_k = R_k - R_(k-1)} of its attempt, plus
 * {@code trajGamma} times the return of the next attempt's first turn, all discounted by {@code stepGamma} per agent
 * turn left in the attempt (the differential return of {@code org.magejvm.impl.credit.CreditAssigner}). This class
 * finds, for every decision the agent
 * can face, the action that maximizes the expected return of that turn, given what the agent knows then: its seat,
 * its card, the betting so far and the lines it played in the earlier, lost attempts of the meta-episode. The
 * unknowns are the opponent (drawn from the pool with its weight) and the opponent's card (either remaining card,
 * equally likely); a deterministic opponent on a frozen deal answers every line the same way each attempt, so each
 * lost attempt rules out the (opponent, card) pairs that would have ended it otherwise.
 *
 * <p>The result is the target the quick start's training aims at, so it tells what MAGE can show at best: with the
 * reference's constants (3 attempts, {@code stepGamma} 0.95, {@code trajGamma} 0.6) against the reference pool the
 * optimum wins 7 of 12 deals in its first attempt and never wins a lost deal later (success_rate[0] = [1] = [2]);
 * it adapts in chips only, folding in later attempts where its first line lost a called bet ({@link #expected}).
 *
 * <p>Instances are thread-safe; decisions are computed on first use and cached.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class KuhnObjectiveOptimum {

  private static final double TIE = 1e-9;
  private static final int ALL_STRATEGIES = 0b1111;

  private final List<KuhnOpponent> opponents;
  private final double[] weights;
  private final int attempts;
  private final double stepGamma;
  private final double trajGamma;
  private final boolean preferBet;
  private final Map<Key, Choice> memo = new ConcurrentHashMap<>();

  /** One unknown: which pool opponent the agent faces and which card it holds. */
  private record Hypothesis(int opponent, KuhnCard card) {}

  /** A cached decision: the value of the attempt's first turn and the hand strategy that achieves it. */
  private record Choice(double value, int strategy) {}

  /**
   * The state of the backward induction: seat, card, attempt, remaining hypotheses, the previous payoff, and the hand
   * strategies still open (bit s set: strategy s agrees with the agent's own moves so far in this attempt).
   */
  private record Key(int player, KuhnCard card, int attempt, long hypotheses, int previousPayoff, int allowed) {}

  /**
   * The expected outcome of the optimum against one opponent, every deal and both seats equally likely.
   *
   * @param successRate for each attempt k, the probability that the meta-episode is won by attempt k
   * @param score for each attempt k, the expected best chips among the attempts played up to k (the quick start's
   *     {@code score[k]})
   */
  public record Outcome(double[] successRate, double[] score) {

    /**
     * Copies the arrays.
     *
     * @param successRate success rates per attempt
     * @param score scores per attempt
     */
    public Outcome {
      successRate = successRate.clone();
      score = score.clone();
    }

    /** @return a copy of the success rates per attempt */
    @Override
    public double[] successRate() {
      return successRate.clone();
    }

    /** @return a copy of the scores per attempt */
    @Override
    public double[] score() {
      return score.clone();
    }
  }

  private KuhnObjectiveOptimum(List<KuhnOpponent> opponents, double[] weights, int attempts, double stepGamma,
      double trajGamma, boolean preferBet) {
    this.opponents = opponents;
    this.weights = weights;
    this.attempts = attempts;
    this.stepGamma = stepGamma;
    this.trajGamma = trajGamma;
    this.preferBet = preferBet;
  }

  /**
   * Prepares the optimum for a pool.
   *
   * @param pool the pool's opponents and their sampling weights (positive); every opponent must be deterministic
   * @param attempts attempts per meta-episode, at least 1
   * @param stepGamma the discount per agent turn within an attempt, in (0, 1]
   * @param trajGamma the discount from one attempt to the next, in [0, 1]
   * @param preferBet which action to take where two are exactly as good: BET when true, PASS when false
   * @return the optimum
   * @throws IllegalArgumentException naming the opponent and information state when an opponent mixes its actions,
   *     or naming the parameter that is out of range
   */
  public static KuhnObjectiveOptimum of(Map<KuhnOpponent, Double> pool, int attempts, double stepGamma,
      double trajGamma, boolean preferBet) {
    Objects.requireNonNull(pool, "pool");
    if (pool.isEmpty() || pool.size() > 31) {
      throw new IllegalArgumentException("the pool needs 1 to 31 opponents, got " + pool.size());
    }
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
    }
    if (!(stepGamma > 0 && stepGamma <= 1)) {
      throw new IllegalArgumentException("stepGamma must lie in (0, 1], got " + stepGamma);
    }
    if (!(trajGamma >= 0 && trajGamma <= 1)) {
      throw new IllegalArgumentException("trajGamma must lie in [0, 1], got " + trajGamma);
    }
    List<KuhnOpponent> list = new ArrayList<>();
    double[] w = new double[pool.size()];
    for (Map.Entry<KuhnOpponent, Double> e : pool.entrySet()) {
      KuhnOpponent o = Objects.requireNonNull(e.getKey(), "opponent");
      requireDeterministic(o);
      double weight = Objects.requireNonNull(e.getValue(), "weight");
      if (!(weight > 0 && Double.isFinite(weight))) {
        throw new IllegalArgumentException("opponent '" + o.id() + "' has weight " + weight + "; it must be positive");
      }
      w[list.size()] = weight;
      list.add(o);
    }
    return new KuhnObjectiveOptimum(List.copyOf(list), w, attempts, stepGamma, trajGamma, preferBet);
  }

  /**
   * The optimum for the reference's training: the pool {conservative 0.3, aggressive 0.3, intermediate 0.4}, 3
   * attempts, {@code stepGamma} 0.95, {@code trajGamma} 0.6, ties to PASS.
   *
   * @return the optimum
   */
  public static KuhnObjectiveOptimum reference() {
    return reference(0.6);
  }

  /**
   * The optimum for the reference's training with another discount between attempts: the pool {conservative 0.3,
   * aggressive 0.3, intermediate 0.4}, 3 attempts, {@code stepGamma} 0.95, ties to PASS.
   *
   * @param trajGamma the discount from one attempt to the next, in [0, 1] (the reference's is 0.6; 1 is the paper's
   *     final-attempt objective)
   * @return the optimum
   * @throws IllegalArgumentException when {@code trajGamma} is out of range
   */
  public static KuhnObjectiveOptimum reference(double trajGamma) {
    Map<KuhnOpponent, Double> pool = new LinkedHashMap<>();
    pool.put(KuhnOpponents.conservative(), 0.3);
    pool.put(KuhnOpponents.aggressive(), 0.3);
    pool.put(KuhnOpponents.intermediate(), 0.4);
    return of(pool, 3, 0.95, trajGamma, false);
  }

  private static void requireDeterministic(KuhnOpponent o) {
    for (KuhnCard c : KuhnCard.values()) {
      for (String h : KuhnRules.DECISION_HISTORIES) {
        double p = o.betProbability(c, h);
        if (p != 0 && p != 1) {
          throw new IllegalArgumentException("opponent '" + o.id() + "' bets with probability " + p + " at '"
              + c.letter() + h + "'; the optimum needs opponents that never mix their actions");
        }
      }
    }
  }

  /**
   * The optimum's action at a decision.
   *
   * @param card the agent's card
   * @param player the agent's player index, 0 or 1
   * @param earlierLines the agent's own actions in each earlier attempt of the meta-episode, in order (all lost,
   *     since a won meta-episode stops)
   * @param history the betting so far in this attempt, a decision point where the agent acts
   * @return PASS or BET
   * @throws IllegalArgumentException if the history is not the agent's decision point or an earlier line is not a
   *     finished hand's line for this seat
   */
  public KuhnAction action(KuhnCard card, int player, List<List<KuhnAction>> earlierLines, String history) {
    Objects.requireNonNull(card, "card");
    if (KuhnRules.playerToAct(KuhnRules.requireDecision(history)) != player) {
      throw new IllegalArgumentException("player " + player + " does not act at history '" + history + "'");
    }
    List<Hypothesis> all = hypotheses(card);
    long mask = 0;
    for (int i = 0; i < all.size(); i++) {
      if (reproduces(all.get(i), player, history)) {
        mask |= 1L << i;
      }
    }
    int previous = 0;
    int attempt = Math.min(earlierLines.size(), attempts - 1);
    for (List<KuhnAction> line : earlierLines) {
      long kept = 0;
      for (int i = 0; i < all.size(); i++) {
        if ((mask & (1L << i)) != 0) {
          Integer payoff = lostPayoff(all.get(i), player, card, line);
          if (payoff != null) {
            kept |= 1L << i;
            previous = payoff;
          }
        }
      }
      mask = kept;
    }
    if (mask == 0) {
      // The lines cannot come from the pool (an outside opponent, or an invalid earlier answer): fall back to what
      // the current betting alone allows, so the player still acts sensibly.
      previous = 0;
      for (int i = 0; i < all.size(); i++) {
        if (reproduces(all.get(i), player, history)) {
          mask |= 1L << i;
        }
      }
    }
    int allowed = 0;
    for (int strategy = 0; strategy < 4; strategy++) {
      if (agrees(strategy, player, history)) {
        allowed |= 1 << strategy;
      }
    }
    int strategy = mask == 0 ? (preferBet ? 3 : 0)
        : solve(new Key(player, card, attempt, mask, previous, allowed)).strategy();
    return move(strategy, history);
  }

  /**
   * The optimum's exact expected outcome against one deterministic opponent (in the pool or not), every deal and
   * both seats equally likely, by playing every meta-episode with {@link #action}.
   *
   * @param opponent the opponent
   * @return success rates and scores per attempt
   * @throws IllegalArgumentException if the opponent mixes its actions
   */
  public Outcome expected(KuhnOpponent opponent) {
    requireDeterministic(opponent);
    double[] sr = new double[attempts];
    double[] score = new double[attempts];
    double share = 1.0 / (2 * KuhnDeal.ALL.size());
    for (KuhnDeal deal : KuhnDeal.ALL) {
      for (int player = 0; player <= 1; player++) {
        Outcome one = play(opponent, deal, player);
        for (int k = 0; k < attempts; k++) {
          sr[k] += share * one.successRate[k];
          score[k] += share * one.score[k];
        }
      }
    }
    return new Outcome(sr, score);
  }

  /**
   * Plays one meta-episode with {@link #action}: one deal, one seat, a deterministic opponent.
   *
   * @param opponent the opponent; it must never mix its actions
   * @param deal the deal, frozen for every attempt
   * @param player the agent's player index
   * @return per attempt: 1 if the meta-episode is won by then, else 0; and the best chips of the attempts played
   *     up to then
   */
  Outcome play(KuhnOpponent opponent, KuhnDeal deal, int player) {
    double[] sr = new double[attempts];
    double[] score = new double[attempts];
    KuhnCard mine = player == 0 ? deal.player0() : deal.player1();
    List<List<KuhnAction>> lines = new ArrayList<>();
    int best = Integer.MIN_VALUE;
    boolean won = false;
    for (int k = 0; k < attempts; k++) {
      if (!won) {
        List<KuhnAction> own = new ArrayList<>();
        KuhnCard theirs = player == 0 ? deal.player1() : deal.player0();
        String h = hand(player, hist -> {
          KuhnAction a = action(mine, player, lines, hist);
          own.add(a);
          return a == KuhnAction.BET;
        }, hist -> opponent.betProbability(theirs, hist) >= 1);
        int payoff = KuhnRules.payoff(deal, h, player);
        best = Math.max(best, payoff);
        won = payoff > 0;
        lines.add(List.copyOf(own));
      }
      sr[k] = won ? 1 : 0;
      score[k] = best;
    }
    return new Outcome(sr, score);
  }

  /**
   * The pool average of {@link #expected}: each pool opponent counts once, whatever its sampling weight (as the quick
   * start averages its evaluation sets).
   *
   * @return success rates and scores per attempt
   */
  public Outcome expectedOverPool() {
    double[] sr = new double[attempts];
    double[] score = new double[attempts];
    for (KuhnOpponent o : opponents) {
      Outcome e = expected(o);
      for (int k = 0; k < attempts; k++) {
        sr[k] += e.successRate[k] / opponents.size();
        score[k] += e.score[k] / opponents.size();
      }
    }
    return new Outcome(sr, score);
  }

  private List<Hypothesis> hypotheses(KuhnCard card) {
    List<Hypothesis> list = new ArrayList<>();
    for (int o = 0; o < opponents.size(); o++) {
      for (KuhnCard c : KuhnCard.values()) {
        if (c != card) {
          list.add(new Hypothesis(o, c));
        }
      }
    }
    return list;
  }

  private Choice solve(Key key) {
    Choice cached = memo.get(key);
    if (cached != null) {
      return cached;
    }
    List<Hypothesis> all = hypotheses(key.card());
    double total = 0;
    for (int i = 0; i < all.size(); i++) {
      if ((key.hypotheses() & (1L << i)) != 0) {
        total += weights[all.get(i).opponent()];
      }
    }
    Choice best = null;
    int[] order = preferBet ? new int[] {3, 2, 1, 0} : new int[] {0, 1, 2, 3};
    for (int strategy : order) {
      if ((key.allowed() & (1 << strategy)) == 0) {
        continue;
      }
      // Group the hypotheses by the hand they produce and its payoff; each group is what the agent knows after it.
      Map<String, Long> groups = new LinkedHashMap<>();
      for (int i = 0; i < all.size(); i++) {
        if ((key.hypotheses() & (1L << i)) != 0) {
          String hand = play(all.get(i), key.player(), strategy);
          int payoff = KuhnRules.payoff(deal(all.get(i), key.player(), key.card()), hand, key.player());
          groups.merge(hand + ' ' + payoff, 1L << i, (a, b) -> a | b);
        }
      }
      double value = 0;
      for (Map.Entry<String, Long> g : groups.entrySet()) {
        String hand = g.getKey().substring(0, g.getKey().indexOf(' '));
        int payoff = Integer.parseInt(g.getKey().substring(hand.length() + 1));
        double weight = 0;
        for (int i = 0; i < all.size(); i++) {
          if ((g.getValue() & (1L << i)) != 0) {
            weight += weights[all.get(i).opponent()];
          }
        }
        double next = 0;
        if (payoff <= 0 && key.attempt() + 1 < attempts) {
          next = solve(new Key(key.player(), key.card(), key.attempt() + 1, g.getValue(), payoff, ALL_STRATEGIES))
              .value();
        }
        int agentTurns = (hand.length() + (key.player() == 0 ? 1 : 0)) / 2;
        value += weight / total * Math.pow(stepGamma, agentTurns - 1)
            * (payoff - key.previousPayoff() + trajGamma * next);
      }
      if (best == null || value > best.value() + TIE) {
        best = new Choice(value, strategy);
      }
    }
    memo.put(key, best);
    return best;
  }

  /** The hand strategy's move: bit 0 = BET when no bet is open, bit 1 = BET (call) facing a bet. */
  private static KuhnAction move(int strategy, String history) {
    int bit = KuhnRules.facingBet(history) ? 2 : 1;
    return (strategy & bit) != 0 ? KuhnAction.BET : KuhnAction.PASS;
  }

  private static KuhnDeal deal(Hypothesis h, int player, KuhnCard card) {
    return player == 0 ? new KuhnDeal(card, h.card()) : new KuhnDeal(h.card(), card);
  }

  private boolean opponentBets(Hypothesis h, String history) {
    return opponents.get(h.opponent()).betProbability(h.card(), history) >= 1;
  }

  /** The finished hand of a hand strategy against a hypothesis. */
  private String play(Hypothesis h, int player, int strategy) {
    return hand(player, hist -> move(strategy, hist) == KuhnAction.BET, hist -> opponentBets(h, hist));
  }

  /** Plays a hand to its end: each side's predicate says whether it bets at a history where it acts. */
  private static String hand(int player, Predicate<String> agentBets, Predicate<String> opponentBets) {
    String hist = "";
    while (!KuhnRules.isTerminal(hist)) {
      boolean bet = KuhnRules.playerToAct(hist) == player ? agentBets.test(hist) : opponentBets.test(hist);
      hist += bet ? 'b' : 'p';
    }
    return hist;
  }

  /** Whether one side's moves in a betting history are the ones its predicate makes (the other side's are ignored). */
  private static boolean followed(String history, int player, boolean agentSide, Predicate<String> bets) {
    for (int i = 0; i < history.length(); i++) {
      String before = history.substring(0, i);
      if ((KuhnRules.playerToAct(before) == player) == agentSide && bets.test(before) != (history.charAt(i) == 'b')) {
        return false;
      }
    }
    return true;
  }

  /** Whether the hand strategy makes the agent's own moves of the current betting. */
  private static boolean agrees(int strategy, int player, String history) {
    return followed(history, player, true, before -> move(strategy, before) == KuhnAction.BET);
  }

  /** Whether the hypothesis's opponent made the opponent moves of the current betting. */
  private boolean reproduces(Hypothesis h, int player, String history) {
    return followed(history, player, false, before -> opponentBets(h, before));
  }

  /** The agent's payoff when the line, played against the hypothesis, is a whole lost hand; null otherwise. */
  private Integer lostPayoff(Hypothesis h, int player, KuhnCard card, List<KuhnAction> line) {
    int[] used = {0};
    boolean[] tooShort = {false};
    String hist = hand(player, before -> {
      if (used[0] == line.size()) {
        tooShort[0] = true;
        return false;
      }
      return line.get(used[0]++) == KuhnAction.BET;
    }, before -> opponentBets(h, before));
    if (tooShort[0] || used[0] != line.size()) {
      return null;
    }
    int payoff = KuhnRules.payoff(deal(h, player, card), hist, player);
    return payoff < 0 ? payoff : null;
  }
}
