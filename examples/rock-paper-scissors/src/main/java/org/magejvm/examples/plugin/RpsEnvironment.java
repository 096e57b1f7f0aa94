package org.magejvm.examples.plugin;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.spi.ActionParser;
import org.magejvm.spi.Environment;
import org.magejvm.spi.GameText;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StandardPromptRenderer;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.Tags;

/**
 * Rock-Paper-Scissors as a match of {@value #ROUNDS} rounds: the whole game in one {@link Environment} class.
 *
 * <p>One step is one round. The agent writes its move as {@code <action>paper</action>}; the opponent picks its
 * move from the rounds played <em>before</em> this one (it never sees the agent's current move) and both moves are
 * revealed together. After the last round the player with more round wins takes the match: the reward is
 * {@code +10} for a win, {@code 0} for a draw and {@code -10} for a loss, and the score {@code +1}, {@code 0} or
 * {@code -1}. Earlier steps have reward and score 0.
 *
 * <p>The points an environment author has to get right, in the order this class handles them:
 *
 * <ol>
 *   <li><b>reset</b> draws every random choice from the task seed (here: a {@link Random} handed to the stateless
 *       opponent), so a seed, an opponent and the agent's moves reproduce a match exactly;
 *   <li><b>restart</b> returns to exactly the state after reset for the next episode of the meta-episode. The
 *       generator is not rewound: an opponent that draws random moves keeps drawing fresh ones, while the whole
 *       meta-episode stays reproducible from the seed;
 *   <li><b>step</b> treats unreadable text as a no-op: reward 0, validity false, no round is played and the
 *       opponent does not move (so it draws no random number either);
 *   <li>the <b>anchor</b> of a step is the observation before the action plus the opponent's id, so GiGPO compares
 *       turns that faced the same scoreboard against the same opponent;
 *   <li>the <b>state object</b> ({@link State}) is an immutable snapshot a scripted policy can read;
 *   <li><b>prompts</b> come from a {@link StandardPromptRenderer} filled with this game's {@link GameText}.
 * </ol>
 *
 * <p>The seat is ignored: both players move at the same time. Not thread-safe; the rollout engine creates one
 * environment per meta-episode.
 */
public final class RpsEnvironment implements Environment {

  /** Rounds per match (one episode). */
  public static final int ROUNDS = 3;
  /** Reward for winning the match; a loss gets the negative, a draw 0. */
  public static final double MATCH_REWARD = 10.0;

  /** The three moves. Each beats the one before it in the cycle rock, paper, scissors, rock. */
  public enum Move {
    /** Crushes scissors. */
    ROCK,
    /** Covers rock. */
    PAPER,
    /** Cuts paper. */
    SCISSORS;

    private static final Move[] ALL = values();

    /** @return the lower-case word used in actions and observations, for example {@code paper} */
    public String text() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** @return the move that beats this one (the next one in the cycle rock, paper, scissors) */
    public Move beatenBy() {
      return ALL[(ordinal() + 1) % ALL.length];
    }

    /**
     * @param other another move
     * @return whether this move wins against {@code other}
     */
    public boolean beats(Move other) {
      return other.beatenBy() == this;
    }

    /**
     * Reads a move written as a word, ignoring case and surrounding white space.
     *
     * @param word the text, for example {@code " Rock"}
     * @return the move, or empty when the text is not exactly one of the three words
     */
    public static Optional<Move> fromText(String word) {
      String w = word.strip().toLowerCase(Locale.ROOT);
      for (Move m : ALL) {
        if (m.text().equals(w)) {
          return Optional.of(m);
        }
      }
      return Optional.empty();
    }

    /**
     * @param random a generator
     * @return one of the three moves, uniformly
     */
    public static Move random(Random random) {
      return ALL[random.nextInt(ALL.length)];
    }
  }

  /**
   * One played round.
   *
   * @param agent the agent's move
   * @param opponent the opponent's move
   */
  public record Round(Move agent, Move opponent) {

    /**
     * Validates.
     *
     * @param agent the agent's move
     * @param opponent the opponent's move
     */
    public Round {
      Objects.requireNonNull(agent, "agent");
      Objects.requireNonNull(opponent, "opponent");
    }

    /** @return {@code +1} when the agent won the round, {@code 0} for a tie, {@code -1} when it lost */
    public int result() {
      return agent == opponent ? 0 : agent.beats(opponent) ? 1 : -1;
    }
  }

  /**
   * The state of a match, for scripted policies and opponents: the rounds played so far, oldest first.
   *
   * @param rounds the rounds of a full match
   * @param played the rounds played so far
   */
  public record State(int rounds, List<Round> played) {

    /**
     * Validates and copies.
     *
     * @param rounds the rounds of a full match
     * @param played the rounds played so far
     */
    public State {
      played = ImmutableList.copyOf(played);
      if (rounds < 1 || played.size() > rounds) {
        throw new IllegalArgumentException(
            "a match of " + rounds + " rounds cannot have " + played.size() + " rounds played");
      }
    }

    /** @return the 1-based number of the round to play next ({@code rounds + 1} once the match is over) */
    public int nextRound() {
      return played.size() + 1;
    }

    /** @return the rounds the agent won */
    public int agentWins() {
      return (int) played.stream().filter(r -> r.result() > 0).count();
    }

    /** @return the rounds the opponent won */
    public int opponentWins() {
      return (int) played.stream().filter(r -> r.result() < 0).count();
    }

    /** @return whether every round has been played */
    public boolean over() {
      return played.size() == rounds;
    }

    /** @return the last round played, if any */
    public Optional<Round> lastRound() {
      return played.isEmpty() ? Optional.empty() : Optional.of(played.get(played.size() - 1));
    }
  }

  /** The sentences of this game's prompts, in our own words; the structure comes from the renderer. */
  public static final GameText GAME_TEXT = new GameText(
      "Rock-Paper-Scissors",
      "You are playing a short match of Rock-Paper-Scissors against one opponent whose habits you can learn.",
      String.join("\n",
          "- In every round both players pick rock, paper or scissors at the same moment; neither sees the"
              + " other's pick before choosing.",
          "- Rock crushes scissors, scissors cut paper and paper covers rock. Two equal picks tie the round.",
          "- A match has " + ROUNDS + " rounds. Whoever wins more rounds wins the match; with equal round wins"
              + " the match is a draw.",
          "- The observation shows the round to play, the score, and both picks of every earlier round."),
      "Win the match. Every attempt is a fresh match against the same opponent, and this opponent may follow a"
          + " habit. Use the rounds you have seen, in this attempt and in earlier ones, to predict its next pick"
          + " and choose the move that beats it.",
      "Write one move, rock, paper or scissors, inside <action> </action>, for example <action>paper</action>.",
      "Rock-paper-scissors, " + ROUNDS + " rounds; most round wins takes the match. Rock beats scissors,"
          + " scissors beat paper, paper beats rock. The opponent may have a habit.",
      "Reply <action>rock</action>, <action>paper</action> or <action>scissors</action>.",
      "Only your own moves are listed; the scoreboard after each one shows the opponent's pick.",
      "scoreboard");

  private static final PromptRenderer RENDERER = new StandardPromptRenderer(GAME_TEXT);
  private static final ActionParser<Move> PARSER = RpsEnvironment::parseAction;
  private static final List<String> LEGAL =
      List.of(Move.ROCK.text(), Move.PAPER.text(), Move.SCISSORS.text());
  private static final int MAX_ECHO = 40;

  private final List<Round> played = new ArrayList<>();
  private Random random;
  private RpsOpponent opponent;
  private String observation;

  /** A match that still needs {@link #reset}; {@link RpsProvider#create} makes these. */
  public RpsEnvironment() {}

  @Override
  public String id() {
    return RpsProvider.ID;
  }

  @Override
  public String reset(long seed, Opponent opponent, Seat seat) {
    if (opponent == null) {
      throw new IllegalArgumentException(RpsProvider.ID + " is a two-player game and needs an opponent, got null");
    }
    if (!(opponent instanceof RpsOpponent)) {
      throw new IllegalArgumentException("opponent '" + opponent.id() + "' (" + opponent.getClass().getName()
          + ") is not a Rock-Paper-Scissors opponent: " + RpsProvider.ID + " needs a "
          + RpsOpponent.class.getName());
    }
    this.opponent = (RpsOpponent) opponent;
    this.random = new Random(seed);
    played.clear();
    observation = render();
    return observation;
  }

  @Override
  public String restart() {
    requireReset();
    played.clear();
    observation = render();
    return observation;
  }

  @Override
  public StepResult step(String response) {
    requireReset();
    if (isDone()) {
      throw new IllegalStateException("the " + RpsProvider.ID + " match is over after " + ROUNDS
          + " rounds; call restart() or reset() before stepping again");
    }
    AnchorKey anchor = anchor();
    ParsedAction<Move> parsed = PARSER.parse(response);
    if (!parsed.ok()) {
      return StepResult.invalid(observation, 0, anchor, parsed.text(), parsed.error());
    }
    // The opponent sees only the finished rounds, so it cannot react to the move just read.
    Move reply = opponent.play(state(), random);
    if (reply == null) {
      throw new IllegalStateException("opponent '" + opponent.id() + "' (" + opponent.getClass().getName()
          + ") returned no move in round " + (played.size() + 1));
    }
    played.add(new Round(parsed.action(), reply));
    observation = render();
    if (!isDone()) {
      return StepResult.valid(observation, anchor, parsed.text()).build();
    }
    State end = state();
    int result = Integer.signum(end.agentWins() - end.opponentWins());
    return StepResult.valid(observation, anchor, parsed.text())
        .optReward(MATCH_REWARD * result)
        .optScore(result)
        .optOutcome(result > 0 ? Outcome.WON : result == 0 ? Outcome.DRAW : Outcome.LOST)
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
    return opponent == null || isDone() ? List.of() : LEGAL;
  }

  @Override
  public State state() {
    requireReset();
    return new State(ROUNDS, played);
  }

  @Override
  public boolean isDone() {
    return played.size() == ROUNDS;
  }

  @Override
  public PromptRenderer promptRenderer() {
    return RENDERER;
  }

  /**
   * The game's {@link ActionParser}: the text between the first {@code <action>} and the {@code </action>} after
   * it must be one of the words rock, paper or scissors (any case). Never throws; linear in the text length.
   *
   * @param response the policy's full response, possibly null
   * @return the move, or a failure saying what was wrong
   */
  public static ParsedAction<Move> parseAction(String response) {
    if (response == null || response.isEmpty()) {
      return ParsedAction.failure("", "the response is empty");
    }
    Optional<String> inside = Tags.first(response, "action");
    if (inside.isEmpty()) {
      return ParsedAction.failure("", "no <action>...</action> block was found");
    }
    Optional<Move> move = Move.fromText(inside.get());
    if (move.isPresent()) {
      return ParsedAction.of(move.get(), move.get().text());
    }
    String echo = Tags.abbreviate(inside.get().strip(), MAX_ECHO);
    return ParsedAction.failure(echo, "the action must be rock, paper or scissors, but the <action> block holds '"
        + echo + "'");
  }

  private void requireReset() {
    if (opponent == null) {
      throw new IllegalStateException(
          "the " + RpsProvider.ID + " environment was never reset; call reset(seed, opponent, seat) first");
    }
  }

  /** The observation: the round to play (or the result), the score, and every earlier round. */
  private String render() {
    State s = new State(ROUNDS, played);
    StringBuilder sb = new StringBuilder(160);
    if (s.over()) {
      int result = Integer.signum(s.agentWins() - s.opponentWins());
      sb.append("The match is over. Final score: you ").append(s.agentWins()).append(", opponent ")
          .append(s.opponentWins()).append(result > 0 ? ". You won the match." : result < 0
              ? ". You lost the match." : ". The match is a draw.");
    } else {
      sb.append("Round ").append(s.nextRound()).append(" of ").append(ROUNDS).append(". Score: you ")
          .append(s.agentWins()).append(", opponent ").append(s.opponentWins()).append('.');
    }
    if (played.isEmpty()) {
      sb.append("\nNo round has been played yet.");
    }
    for (int i = 0; i < played.size(); i++) {
      Round r = played.get(i);
      sb.append("\nRound ").append(i + 1).append(": you played ").append(r.agent().text())
          .append(", the opponent played ").append(r.opponent().text())
          .append(r.result() > 0 ? " (you won the round)." : r.result() < 0 ? " (you lost the round)."
              : " (tie).");
    }
    return sb.toString();
  }
}
