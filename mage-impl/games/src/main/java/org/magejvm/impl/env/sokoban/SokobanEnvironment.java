package org.magejvm.impl.env.sokoban;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * Single-player Sokoban with gym-sokoban's rewards, played a few moves per turn.
 *
 * <p><b>Task.</b> {@link #reset(long, Opponent, Seat)} generates a room from the seed with {@link
 * SokobanGenerator} (its shortest solution is between the configured bounds, 5 and 21 moves by default). {@link
 * #resetTo(SokobanState)} starts from a given position instead. {@link #restart()} goes back to the same start
 * position.
 *
 * <p><b>Turns.</b> A response holds up to {@link SokobanConfig#movesPerTurn()} moves (read by {@link
 * SokobanParser}); they are carried out in order. Each move earns, as in gym-sokoban: -0.1 (every move, including
 * {@code still} and moves blocked by a wall or a box), +1 when it pushes a box onto a target, -1 when it pushes one
 * off a target, and +10 when all boxes are then on targets. The reward of the turn is the <em>sum</em> over its
 * moves (the reference environment wrapper returned only the reward of the turn's last move; summing keeps every
 * push's reward and is what a step return should see).
 *
 * <p><b>End.</b> The episode ends, and the remaining moves of the turn are dropped, when all boxes are on targets
 * (won, score 1), when a push leaves a position that {@link SokobanSolver} can no longer solve (lost, score 0), or
 * when {@link SokobanConfig#MOVE_CAP} moves have been made (score 0). Otherwise the rollout engine's turn limit
 * truncates it.
 *
 * <p><b>Invalid turns.</b> A response without any move word is a no-op: nothing moves, the reward is 0 and the
 * episode goes on. The reference environment charged -0.1 for it (it executed a "still" move); this library's SPI
 * requires invalid actions to be no-ops, and the trainer penalises them through the invalid-action penalty instead.
 *
 * <p><b>Text.</b> The observation is the room as {@link SokobanState#render()} writes it (rows numbered from 0); the
 * anchor is that text before the action with an empty opponent id. {@link StepResult#action()} lists the moves
 * actually carried out, for example {@code up, up, left}.
 *
 * <p>Not thread-safe.
 */
@Api(status = Api.Status.INTERNAL)
public final class SokobanEnvironment implements Environment {

  private static final List<String> LEGAL = List.of("up", "down", "left", "right");

  private final String id;
  private final SokobanConfig config;
  private final SokobanGenerator generator;
  private final SokobanSolver solver = new SokobanSolver();
  private final SokobanParser parser;
  private final SokobanPromptRenderer renderer;

  private SokobanState start;
  private List<Move> startSolution;
  private int startAttempts;
  private Room room;
  private int player;
  private int[] boxes;
  private boolean[] boxAt;
  private int onTargets;
  private int movesUsed;
  private boolean done;
  private boolean won;
  private String observation;

  /**
   * @param id the id of the provider creating it
   * @param config the settings
   */
  public SokobanEnvironment(String id, SokobanConfig config) {
    this.id = Objects.requireNonNull(id, "id");
    this.config = Objects.requireNonNull(config, "config");
    this.generator = new SokobanGenerator(config);
    this.parser = new SokobanParser(config.movesPerTurn());
    this.renderer = new SokobanPromptRenderer(config);
  }

  /** @param config the settings; the id is {@link SokobanProvider#ID} */
  public SokobanEnvironment(SokobanConfig config) {
    this(SokobanProvider.ID, config);
  }

  @Override
  public String id() {
    return id;
  }

  /** @return the settings */
  public SokobanConfig config() {
    return config;
  }

  /**
   * Generates the room of a seed and starts an episode in it.
   *
   * @param seed the task seed
   * @param opponent must be null: Sokoban has no opponent
   * @param seat ignored
   * @return the initial observation
   * @throws IllegalArgumentException if an opponent is given
   * @throws IllegalStateException if no room meeting the solution bounds could be generated
   */
  @Override
  public String reset(long seed, Opponent opponent, Seat seat) {
    if (opponent != null) {
      throw new IllegalArgumentException("Sokoban is a single-player game, but opponent '" + opponent.id()
          + "' was given; pass null");
    }
    SokobanGenerator.Result r = generator.generate(seed);
    start = r.start();
    startSolution = r.solution();
    startAttempts = r.attempts();
    return restart();
  }

  /**
   * Starts an episode from a given position instead of a generated room (fixed puzzles, tests). Its solution
   * length is not checked against the configured bounds; it must only be solvable.
   *
   * @param position the start position
   * @return the initial observation
   * @throws IllegalArgumentException if the position cannot be solved
   */
  public String resetTo(SokobanState position) {
    Objects.requireNonNull(position, "position");
    List<Move> solution = solver.solve(position).orElseThrow(() -> new IllegalArgumentException(
        "the Sokoban position cannot be solved:\n" + position.render()));
    start = position;
    startSolution = solution;
    startAttempts = 0;
    return restart();
  }

  @Override
  public String restart() {
    if (start == null) {
      throw new IllegalStateException("the Sokoban environment was never reset");
    }
    room = start.room();
    player = start.playerCell();
    boxes = start.boxCells().clone();
    boxAt = new boolean[room.size()];
    onTargets = 0;
    for (int b : boxes) {
      boxAt[b] = true;
      if (room.target[b]) {
        onTargets++;
      }
    }
    movesUsed = 0;
    won = onTargets == boxes.length;
    done = won;
    observation = SokobanState.render(room, player, boxes);
    return observation;
  }

  @Override
  public StepResult step(String response) {
    if (start == null) {
      throw new IllegalStateException("the Sokoban environment was never reset");
    }
    if (done) {
      throw new IllegalStateException("the Sokoban episode is over; call restart() or reset() first");
    }
    AnchorKey anchor = new AnchorKey(observation, "");
    ParsedAction<List<Move>> parsed = parser.parse(response);
    if (!parsed.ok()) {
      return StepResult.invalid(observation, score(), anchor, parsed.text(), parsed.error());
    }
    List<Move> executed = new ArrayList<>(parsed.action().size());
    int tenths = 0;
    for (Move m : parsed.action()) {
      tenths += apply(m);
      executed.add(m);
      if (done) {
        break;
      }
    }
    observation = SokobanState.render(room, player, boxes);
    StepResult.Builder result = StepResult.valid(observation, anchor, Move.join(executed))
        .optReward(tenths / 10.0)
        .optScore(score());
    if (done) {
      result.optOutcome(won ? Outcome.WON : Outcome.LOST);
    }
    return result.build();
  }

  /**
   * Carries out one move and updates the end-of-episode flags.
   *
   * @return the move's reward in tenths
   */
  private int apply(Move m) {
    movesUsed++;
    int tenths = -1;
    boolean pushed = false;
    if (m != Move.STILL) {
      int off = m.offset(room.cols);
      int next = player + off;
      if (!room.wall[next]) {
        if (!boxAt[next]) {
          player = next;
        } else {
          int beyond = next + off;
          if (!room.wall[beyond] && !boxAt[beyond]) {
            moveBox(next, beyond);
            player = next;
            pushed = true;
            int before = onTargets;
            onTargets += (room.target[beyond] ? 1 : 0) - (room.target[next] ? 1 : 0);
            tenths += 10 * Integer.signum(onTargets - before);
          }
        }
      }
    }
    if (onTargets == boxes.length) {
      tenths += 100;
      won = true;
      done = true;
    } else if (movesUsed >= SokobanConfig.MOVE_CAP) {
      done = true;
    } else if (pushed && !solvable()) {
      done = true;
    }
    return tenths;
  }

  private void moveBox(int from, int to) {
    for (int i = 0; i < boxes.length; i++) {
      if (boxes[i] == from) {
        boxes[i] = to;
        break;
      }
    }
    boxAt[from] = false;
    boxAt[to] = true;
  }

  private boolean solvable() {
    for (int b : boxes) {
      if (!room.live[b]) {
        return false;
      }
    }
    return solver.isSolvable(new SokobanState(room, player, boxes));
  }

  private double score() {
    return won ? 1.0 : 0.0;
  }

  @Override
  public String observation() {
    requireReset();
    return observation;
  }

  @Override
  public AnchorKey anchor() {
    requireReset();
    return new AnchorKey(observation, "");
  }

  /** @return the four move words; {@code still} is accepted too but never needed */
  @Override
  public List<String> legalActions() {
    return LEGAL;
  }

  /** @return a {@link SokobanSnapshot} of the current position and turn budget */
  @Override
  public SokobanSnapshot state() {
    requireReset();
    return new SokobanSnapshot(position(), config.movesPerTurn(), movesUsed, SokobanConfig.MOVE_CAP);
  }

  /** @return the current position */
  public SokobanState position() {
    requireReset();
    return new SokobanState(room, player, boxes);
  }

  /** @return the start position of the current task */
  public SokobanState startPosition() {
    requireReset();
    return start;
  }

  /** @return a shortest solution of the start position */
  public List<Move> startSolution() {
    requireReset();
    return startSolution;
  }

  /** @return how many generation attempts the current room took (0 for {@link #resetTo}) */
  public int generationAttempts() {
    requireReset();
    return startAttempts;
  }

  /** @return the primitive moves made in this episode */
  public int movesUsed() {
    return movesUsed;
  }

  @Override
  public boolean isDone() {
    return done;
  }

  /** @return whether the current episode was won */
  public boolean isWon() {
    return won;
  }

  @Override
  public PromptRenderer promptRenderer() {
    return renderer;
  }

  private void requireReset() {
    if (start == null) {
      throw new IllegalStateException("the Sokoban environment was never reset");
    }
  }
}
