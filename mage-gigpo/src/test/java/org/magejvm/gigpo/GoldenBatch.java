package org.magejvm.gigpo;

import java.util.List;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Phase;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;

/**
 * The small hand-checked batch of the golden tests (15 turns, four episode groups). Scores already include the
 * invalid-action penalty (c_inv = 1 here). {@code src/test/python/golden_batch_check.py} recomputes its advantages
 * with numpy as an independent cross-check of the hand arithmetic in the tests.
 *
 * <pre>
 *  idx name phase   ep t anchor       G    s    episode group           notes
 *   0  A1   PLAY    0  0 S0/mcts      1  -10    E1 (g1, mcts, FIRST)    meta-episode A: loss, then a draw
 *   1  A2   PLAY    0  1 S1/mcts      2  -11    E1                      invalid move: -10 - 1
 *   2  A3   REFLECT 1  0 R/mcts       6    0    E1
 *   3  A4   PLAY    1  0 S0/mcts      6   10    E1                      r'_1 = 0 - (-10)
 *   4  B1   PLAY    0  0 S0/mcts      5   10    E1                      meta-episode B: win at once
 *   5  C1   PLAY    0  0 S0/mcts      2    0    E1                      meta-episode C: draw, then a win
 *   6  C2   REFLECT 1  0 R/mcts       4   -1    E1                      invalid reflection: 0 - 1
 *   7  C3   PLAY    1  0 S0/mcts      6   10    E1
 *   8  C4   PLAY    1  1 S1/mcts      4   10    E1                      S1 again, at turn 1 of episode 1
 *   9  D1   PLAY    0  0 S0/random    9   10    E2 (g1, random, FIRST)  same task, another opponent
 *  10  F1   PLAY    0  0 S0/random    6  -10    E2
 *  11  F2   REFLECT 1  0 R/random     8    0    E2
 *  12  F3   PLAY    1  0 S0/random    9   20    E2                      r'_1 = 10 - (-10)
 *  13  H1   PLAY    0  0 S0/mcts      3   -5    E3 (g2, mcts, SECOND)   one-turn episode group
 *  14  K1   PLAY    0  0 S0/mcts      5    7    E4 (g2, mcts, FIRST)    one-turn episode group
 * </pre>
 */
final class GoldenBatch {

  /** Turn names, indexed like {@link #turns()}. */
  static final List<String> NAMES =
      List.of("A1", "A2", "A3", "A4", "B1", "C1", "C2", "C3", "C4", "D1", "F1", "F2", "F3", "H1", "K1");

  private GoldenBatch() {}

  /** @return the 15 turns in the order of the table */
  static List<ScoredTurn> turns() {
    return List.of(
        play("A1", "g1", "mcts", Seat.FIRST, 0, 0, "S0", 1, -10, true),
        play("A2", "g1", "mcts", Seat.FIRST, 0, 1, "S1", 2, -11, false),
        reflect("A3", "g1", "mcts", Seat.FIRST, 1, 6, 0, true),
        play("A4", "g1", "mcts", Seat.FIRST, 1, 0, "S0", 6, 10, true),
        play("B1", "g1", "mcts", Seat.FIRST, 0, 0, "S0", 5, 10, true),
        play("C1", "g1", "mcts", Seat.FIRST, 0, 0, "S0", 2, 0, true),
        reflect("C2", "g1", "mcts", Seat.FIRST, 1, 4, -1, false),
        play("C3", "g1", "mcts", Seat.FIRST, 1, 0, "S0", 6, 10, true),
        play("C4", "g1", "mcts", Seat.FIRST, 1, 1, "S1", 4, 10, true),
        play("D1", "g1", "random", Seat.FIRST, 0, 0, "S0", 9, 10, true),
        play("F1", "g1", "random", Seat.FIRST, 0, 0, "S0", 6, -10, true),
        reflect("F2", "g1", "random", Seat.FIRST, 1, 8, 0, true),
        play("F3", "g1", "random", Seat.FIRST, 1, 0, "S0", 9, 20, true),
        play("H1", "g2", "mcts", Seat.SECOND, 0, 0, "S0", 3, -5, true),
        play("K1", "g2", "mcts", Seat.FIRST, 0, 0, "S0", 5, 7, true));
  }

  /**
   * A play turn.
   *
   * @param name the turn's name, used as its prompt
   * @param groupId the episode group id
   * @param opponent the opponent id (of the turn and of its anchor)
   * @param seat the seat
   * @param episode the episode index
   * @param turn the turn index
   * @param state the anchor state
   * @param stepReturn G
   * @param score s, penalties included
   * @param valid whether the move was valid
   * @return the scored turn
   */
  static ScoredTurn play(String name, String groupId, String opponent, Seat seat, int episode, int turn,
      String state, double stepReturn, double score, boolean valid) {
    Turn t = Turn.builder()
        .setPhase(Phase.PLAY)
        .setEpisodeIndex(episode)
        .setTurnIndex(turn)
        .setPrompt(name)
        .setResponse(valid ? "<action>1</action>" : "no tag")
        .optValid(valid)
        .setAnchor(new AnchorKey(state, opponent))
        .optOpponentId(opponent)
        .build();
    return new ScoredTurn(t, groupId, seat, stepReturn, score);
  }

  /**
   * A reflection turn.
   *
   * @param name the turn's name, used as its prompt
   * @param groupId the episode group id
   * @param opponent the opponent id
   * @param seat the seat
   * @param episode the index of the episode the reflection prepares
   * @param stepReturn G
   * @param score s, penalties included
   * @param valid whether the reflection had its tag
   * @return the scored turn
   */
  static ScoredTurn reflect(String name, String groupId, String opponent, Seat seat, int episode,
      double stepReturn, double score, boolean valid) {
    Turn t = Turn.builder()
        .setPhase(Phase.REFLECT)
        .setEpisodeIndex(episode)
        .setTurnIndex(0)
        .setPrompt(name)
        .setResponse(valid ? "<remark>try the centre</remark>" : "no tag")
        .optValid(valid)
        .setAnchor(AnchorKey.reflection(opponent))
        .optOpponentId(opponent)
        .build();
    return new ScoredTurn(t, groupId, seat, stepReturn, score);
  }
}
