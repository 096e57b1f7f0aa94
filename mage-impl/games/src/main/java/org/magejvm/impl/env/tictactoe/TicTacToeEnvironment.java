package org.magejvm.impl.env.tictactoe;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.spi.ActionParser;
import org.magejvm.spi.Environment;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StepResult;

/**
 * Tic-Tac-Toe against a {@link TicTacToeOpponent}. The agent always plays X and the opponent O.
 *
 * <p>Rewards (the reference's): +10 when the agent's move completes a line, -10 when the opponent's reply does, 0
 * for a draw, a running game and an invalid move. The score is +1, 0 or -1 once the episode is over and 0 before.
 * An unreadable move, a cell off the board or a taken cell is a no-op: the board stays, the opponent does not
 * move, and the result says why. After a valid move that does not end the game the opponent replies within the
 * same step.
 *
 * <p>Randomness: {@link #reset} seeds one {@link Random} from the seed; every random choice of the opponent (its
 * opening when the agent sits second, its tie-breaks, rollouts and so on) is drawn from it. {@link #restart()}
 * restores the board right after reset, opening included, but does <em>not</em> reseed the generator: it keeps
 * running across the episodes of a meta-episode, so a stochastic opponent may answer differently in a later
 * episode. Everything stays deterministic: the same seed, opponent, seat and sequence of agent actions (and
 * restarts) reproduce the same games. Not thread-safe.
 */
@Api(status = Api.Status.INTERNAL)
public final class TicTacToeEnvironment implements Environment {

  /** The reward for winning. */
  public static final double WIN_REWARD = 10;
  /** The reward for losing. */
  public static final double LOSS_REWARD = -10;

  private static final Mark AGENT = Mark.X;
  private static final Mark OPPONENT = Mark.O;

  private final ActionParser<Cell> parser = new TicTacToeActionParser();
  private final PromptRenderer renderer;

  private Random random;
  private TicTacToeOpponent opponent;
  private Seat seat;
  private Board initial;
  private Board board;
  private boolean done;
  private Mark winner = Mark.EMPTY;

  /** Creates an environment with the standard Tic-Tac-Toe prompts; call {@link #reset} before anything else. */
  public TicTacToeEnvironment() {
    this(TicTacToePrompts.renderer());
  }

  /**
   * Creates an environment with custom prompts.
   *
   * @param renderer the prompt renderer
   */
  public TicTacToeEnvironment(PromptRenderer renderer) {
    if (renderer == null) {
      throw new IllegalArgumentException("the prompt renderer must not be null");
    }
    this.renderer = renderer;
  }

  @Override
  public String id() {
    return TicTacToeProvider.ID;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the opponent is null or not a {@link TicTacToeOpponent}, or seat is null
   */
  @Override
  public String reset(long seed, Opponent opponent, Seat seat) {
    if (opponent == null) {
      throw new IllegalArgumentException(
          "Tic-Tac-Toe (" + TicTacToeProvider.ID + ") is a two-player game and needs an opponent, got null");
    }
    if (!(opponent instanceof TicTacToeOpponent)) {
      throw new IllegalArgumentException("opponent '" + opponent.id() + "' (" + opponent.getClass().getName()
          + ") cannot play Tic-Tac-Toe (" + TicTacToeProvider.ID + "): it does not implement "
          + TicTacToeOpponent.class.getName());
    }
    if (seat == null) {
      throw new IllegalArgumentException("the agent's seat must be FIRST or SECOND, got null");
    }
    this.initial = null; // stays unset if the opponent's opening fails
    this.opponent = (TicTacToeOpponent) opponent;
    this.seat = seat;
    this.random = new Random(seed);
    Board start = Board.EMPTY;
    if (seat == Seat.SECOND) {
      start = start.place(opponentMove(start), OPPONENT);
    }
    this.initial = start;
    return restart();
  }

  /**
   * {@inheritDoc} The board returns to its state right after {@link #reset} (the opponent's opening included); the
   * random generator is not reseeded and continues from where it is.
   */
  @Override
  public String restart() {
    requireReset("restart()");
    board = initial;
    done = false;
    winner = Mark.EMPTY;
    return board.render();
  }

  @Override
  public StepResult step(String response) {
    requireReset("step()");
    if (done) {
      throw new IllegalStateException("the Tic-Tac-Toe episode is already over (" + describeEnd()
          + "); call restart() or reset() before step()");
    }
    Board before = board;
    String beforeText = before.render();
    AnchorKey anchor = new AnchorKey(beforeText, opponent.id());
    ParsedAction<Cell> parsed = parser.parse(response);
    if (!parsed.ok()) {
      return StepResult.invalid(beforeText, 0, anchor, parsed.text(), parsed.error());
    }
    Cell cell = parsed.action();
    String text = cell.text();
    Mark there = before.at(cell);
    if (there != Mark.EMPTY) {
      return StepResult.invalid(beforeText, 0, anchor, text,
          "cell " + text + " is already taken by " + there + (there == AGENT ? " (your own mark)" : ""));
    }
    Board after = before.place(cell.index(), AGENT);
    if (after.winner() == AGENT) {
      return finish(after, AGENT, anchor, text);
    }
    if (after.isFull()) {
      return finish(after, Mark.EMPTY, anchor, text);
    }
    after = after.place(opponentMove(after), OPPONENT);
    if (after.winner() == OPPONENT) {
      return finish(after, OPPONENT, anchor, text);
    }
    if (after.isFull()) {
      return finish(after, Mark.EMPTY, anchor, text);
    }
    board = after;
    return StepResult.valid(after.render(), anchor, text).build();
  }

  private StepResult finish(Board end, Mark win, AnchorKey anchor, String action) {
    board = end;
    done = true;
    winner = win;
    double reward = win == AGENT ? WIN_REWARD : win == OPPONENT ? LOSS_REWARD : 0;
    double score = win == AGENT ? 1 : win == OPPONENT ? -1 : 0;
    return StepResult.valid(end.render(), anchor, action)
        .optReward(reward)
        .optScore(score)
        .optOutcome(win == AGENT ? Outcome.WON : win == Mark.EMPTY ? Outcome.DRAW : Outcome.LOST)
        .build();
  }

  private int opponentMove(Board b) {
    int cell = opponent.chooseMove(b, OPPONENT, random);
    if (cell < 0 || cell >= Board.CELLS || !b.isEmpty(cell)) {
      throw new IllegalStateException("opponent '" + opponent.id() + "' (" + opponent.getClass().getName()
          + ") chose cell index " + cell + ", which is not an empty cell of the board\n" + b.render());
    }
    return cell;
  }

  private String describeEnd() {
    return winner == AGENT ? "you won" : winner == OPPONENT ? "you lost" : "a draw";
  }

  private void requireReset(String what) {
    if (initial == null) {
      throw new IllegalStateException(what + " was called on the Tic-Tac-Toe environment before reset()");
    }
  }

  @Override
  public String observation() {
    requireReset("observation()");
    return board.render();
  }

  @Override
  public AnchorKey anchor() {
    requireReset("anchor()");
    return new AnchorKey(board.render(), opponent.id());
  }

  @Override
  public List<String> legalActions() {
    requireReset("legalActions()");
    if (done) {
      return List.of();
    }
    List<String> out = new ArrayList<>(Board.CELLS);
    for (int i : board.emptyCells()) {
      out.add(Cell.of(i).text());
    }
    return List.copyOf(out);
  }

  @Override
  public TicTacToeState state() {
    requireReset("state()");
    return new TicTacToeState(board, AGENT, done ? Mark.EMPTY : AGENT, done, winner, seat, opponent.id());
  }

  /** @return whether the current episode is over; false before the first reset */
  @Override
  public boolean isDone() {
    return done;
  }

  @Override
  public PromptRenderer promptRenderer() {
    return renderer;
  }
}
