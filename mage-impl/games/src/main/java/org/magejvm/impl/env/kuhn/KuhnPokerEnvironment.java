package org.magejvm.impl.env.kuhn;

import java.util.List;
import java.util.Random;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.spi.Environment;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StepResult;

/**
 * One Kuhn Poker table (OpenSpiel {@code kuhn_poker} rules) for one meta-episode.
 *
 * <p>{@link #reset} creates a generator from the seed, draws the deal from it, and, when the agent sits
 * {@link Seat#SECOND} (player 1), lets the opponent (player 0) open. {@link #restart} goes back to that deal and
 * opening. The generator is not rewound on restart: a mixed opponent keeps drawing fresh choices in later attempts,
 * while the whole meta-episode stays reproducible from the seed. Deterministic opponents draw nothing.
 *
 * <p>{@link #step} reads the action ({@link KuhnActionParser}); an unreadable one is a no-op and the opponent does
 * not move. A valid action is applied and, if the hand goes on, the opponent replies in the same step. When the hand
 * ends the reward is 5 times the chips the agent won (+-5 or +-10) by default ({@link RewardMode#CHIPS}, the
 * reference's) or 5 times the sign of the chips ({@link RewardMode#WIN_LOSS}: +5 won, -5 lost, whatever the stake),
 * the score is the chips, and the step is won when the chips are positive; a draw cannot happen. The observation
 * shows the agent's seat, its card and the betting; the opponent's card is shown only after a showdown.
 *
 * <p>Not thread-safe.
 */
@Api(status = Api.Status.INTERNAL)
public final class KuhnPokerEnvironment implements Environment {

  /** Reward per chip won, as in the reference. */
  public static final double REWARD_PER_CHIP = 5.0;

  /** What the reward at the end of a hand measures. */
  public enum RewardMode {
    /** 5 per chip won or lost (+-5 or +-10), as in the reference. */
    CHIPS("chips"),
    /**
     * +5 for a won hand and -5 for a lost one, whatever the stake: the reward then measures what the success rate
     * counts, so that under the differential return a changed line after a lost attempt is never worse than a
     * repeated one.
     */
    WIN_LOSS("win-loss");

    private final String id;

    RewardMode(String id) {
      this.id = id;
    }

    /** @return the option value naming this mode */
    public String id() {
      return id;
    }

    /**
     * @param value an option value
     * @return the mode it names
     * @throws IllegalArgumentException naming the value and the known ones
     */
    public static RewardMode parse(String value) {
      for (RewardMode m : values()) {
        if (m.id.equals(value)) {
          return m;
        }
      }
      throw new IllegalArgumentException("Kuhn Poker option 'reward' must be 'chips' or 'win-loss', got '" + value
          + "'");
    }
  }

  private static final List<String> LEGAL = List.of(KuhnAction.PASS.text(), KuhnAction.BET.text());
  private static final KuhnActionParser PARSER = new KuhnActionParser();

  private final RewardMode rewardMode;
  private Random random;
  private KuhnDeal deal;
  private KuhnOpponent opponent;
  private int agentPlayer;
  private String openingHistory;
  private String history;
  private String observation;

  /** A table with the reference's reward ({@link RewardMode#CHIPS}) that still needs {@link #reset}. */
  public KuhnPokerEnvironment() {
    this(RewardMode.CHIPS);
  }

  /**
   * A table that still needs {@link #reset}.
   *
   * @param rewardMode what the reward at the end of a hand measures
   */
  public KuhnPokerEnvironment(RewardMode rewardMode) {
    this.rewardMode = java.util.Objects.requireNonNull(rewardMode, "rewardMode");
  }

  @Override
  public String id() {
    return KuhnPokerProvider.ID;
  }

  @Override
  public String reset(long seed, Opponent opponent, Seat seat) {
    if (seat == null) {
      throw new IllegalArgumentException("Kuhn Poker needs the agent's seat (first or second), got null");
    }
    if (opponent == null) {
      throw new IllegalArgumentException("Kuhn Poker is a two-player game and needs an opponent, got null");
    }
    if (!(opponent instanceof KuhnOpponent)) {
      throw new IllegalArgumentException("opponent '" + opponent.id() + "' (" + opponent.getClass().getName()
          + ") is not a Kuhn Poker opponent: " + KuhnPokerProvider.ID + " needs a " + KuhnOpponent.class.getName());
    }
    this.random = new Random(seed);
    this.deal = KuhnDeal.draw(random);
    this.opponent = (KuhnOpponent) opponent;
    this.agentPlayer = KuhnAnalysis.playerOf(seat);
    this.history = "";
    if (agentPlayer == 1) {
      history = history + this.opponent.act(deal.player0(), 0, history, random).symbol();
    }
    this.openingHistory = history;
    this.observation = render();
    return observation;
  }

  @Override
  public String restart() {
    requireReset();
    history = openingHistory;
    observation = render();
    return observation;
  }

  @Override
  public StepResult step(String response) {
    requireReset();
    if (isDone()) {
      throw new IllegalStateException("the Kuhn Poker hand is over (history '" + history
          + "'); call restart() or reset() before stepping again");
    }
    String before = observation;
    AnchorKey anchor = new AnchorKey(before, opponent.id());
    ParsedAction<KuhnAction> parsed = PARSER.parse(response);
    if (!parsed.ok()) {
      return StepResult.invalid(before, 0, anchor, parsed.text(), parsed.error());
    }
    KuhnAction action = parsed.action();
    history = history + action.symbol();
    if (!KuhnRules.isTerminal(history)) {
      int other = 1 - agentPlayer;
      history = history + opponent.act(deal.card(other), other, history, random).symbol();
    }
    observation = render();
    if (!KuhnRules.isTerminal(history)) {
      return StepResult.valid(observation, anchor, action.text()).build();
    }
    int chips = KuhnRules.payoff(deal, history, agentPlayer);
    return StepResult.valid(observation, anchor, action.text())
        .optReward(REWARD_PER_CHIP * (rewardMode == RewardMode.CHIPS ? chips : Integer.signum(chips)))
        .optScore(chips)
        .optOutcome(chips > 0 ? Outcome.WON : Outcome.LOST)
        .build();
  }

  @Override
  public String observation() {
    requireReset();
    return observation;
  }

  @Override
  public AnchorKey anchor() {
    requireReset();
    return new AnchorKey(observation, opponent.id());
  }

  @Override
  public List<String> legalActions() {
    return deal == null || isDone() ? List.of() : LEGAL;
  }

  @Override
  public KuhnState state() {
    requireReset();
    boolean done = isDone();
    KuhnCard shown = done && KuhnRules.isShowdown(history) ? deal.card(1 - agentPlayer) : null;
    return new KuhnState(deal.card(agentPlayer), agentPlayer, history, done, shown,
        done ? KuhnRules.payoff(deal, history, agentPlayer) : 0);
  }

  @Override
  public boolean isDone() {
    return history != null && KuhnRules.isTerminal(history);
  }

  @Override
  public PromptRenderer promptRenderer() {
    return KuhnPrompts.RENDERER;
  }

  /**
   * The deal of the current task, for analysis and tests; it is hidden information for the agent and must never be
   * put into a prompt.
   *
   * @return the deal
   * @throws IllegalStateException if the table was never reset
   */
  public KuhnDeal deal() {
    requireReset();
    return deal;
  }

  private void requireReset() {
    if (deal == null) {
      throw new IllegalStateException("the Kuhn Poker environment was never reset; call reset(seed, opponent, seat)"
          + " first");
    }
  }

  private String render() {
    KuhnCard mine = deal.card(agentPlayer);
    StringBuilder sb = new StringBuilder(120);
    sb.append("You are player ").append(agentPlayer).append(". Your card: ").append(mine.displayName())
        .append(". Betting so far: ").append(KuhnRules.describe(history)).append('.');
    if (KuhnRules.isTerminal(history)) {
      int chips = KuhnRules.payoff(deal, history, agentPlayer);
      sb.append(" Result: ");
      if (KuhnRules.isShowdown(history)) {
        sb.append("showdown, the opponent had the ").append(deal.card(1 - agentPlayer).displayName());
      } else {
        int folder = (history.length() - 1) % 2; // the player of the last symbol folded
        sb.append(folder == agentPlayer ? "you folded" : "the opponent folded");
      }
      sb.append("; you ").append(chips > 0 ? "win " : "lose ").append(Math.abs(chips))
          .append(Math.abs(chips) == 1 ? " chip." : " chips.");
    }
    return sb.toString();
  }
}
