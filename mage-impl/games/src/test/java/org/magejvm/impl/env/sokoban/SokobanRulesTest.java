package org.magejvm.impl.env.sokoban;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.magejvm.api.Seat;
import org.magejvm.spi.StepResult;
import org.junit.jupiter.api.Test;

class SokobanRulesTest {

  private static final double EPS = 1e-9;

  private static SokobanEnvironment env(String room) {
    SokobanEnvironment env = new SokobanEnvironment(SokobanConfig.DEFAULT);
    env.resetTo(SokobanState.parse(room));
    return env;
  }

  private static String act(String moves) {
    return "Let me think.\n<action>" + moves + "</action>";
  }

  private static final String PUSH_ROOM = String.join("\n",
      "#######",
      "#_____#",
      "#_PX_O#",
      "#_____#",
      "#######");

  @Test
  void walkingIntoAWallCostsAMoveAndChangesNothing() {
    SokobanEnvironment env = env(String.join("\n",
        "######",
        "#P___#",
        "#_XO_#",
        "#____#",
        "######"));
    String before = env.observation();
    StepResult r = env.step(act("up"));
    assertThat(r.actionValid()).isTrue();
    assertThat(r.reward()).isCloseTo(-0.1, within(EPS));
    assertThat(r.observation()).isEqualTo(before);
    assertThat(r.done()).isFalse();
    assertThat(env.movesUsed()).isEqualTo(1);
    r = env.step(act("left, up, left"));
    assertThat(r.reward()).isCloseTo(-0.3, within(EPS));
    assertThat(r.action()).isEqualTo("left, up, left");
    assertThat(env.position().player()).isEqualTo(new SokobanState.Cell(1, 1));
  }

  @Test
  void walkingOnFloorMovesThePlayer() {
    SokobanEnvironment env = env(PUSH_ROOM);
    StepResult r = env.step(act("down, right"));
    assertThat(r.reward()).isCloseTo(-0.2, within(EPS));
    assertThat(env.position().player()).isEqualTo(new SokobanState.Cell(3, 3));
    assertThat(r.observation()).isEqualTo(String.join("\n",
        "0:#######",
        "1:#_____#",
        "2:#__X_O#",
        "3:#__P__#",
        "4:#######"));
  }

  @Test
  void pushingOntoTheLastTargetWinsAndDropsTheRestOfTheTurn() {
    SokobanEnvironment env = env(PUSH_ROOM);
    String before = env.observation();
    StepResult r = env.step(act("right, right, left"));
    // -0.1 for the first push, then -0.1 + 1 (box on target) + 10 (solved); "left" is never played
    assertThat(r.reward()).isCloseTo(10.8, within(EPS));
    assertThat(r.action()).isEqualTo("right, right");
    assertThat(r.done()).isTrue();
    assertThat(r.won()).isTrue();
    assertThat(r.draw()).isFalse();
    assertThat(r.score()).isEqualTo(1.0);
    assertThat(r.anchor().state()).isEqualTo(before);
    assertThat(r.anchor().opponentId()).isEmpty();
    assertThat(r.observation()).contains("2:#___P√#");
    assertThat(env.movesUsed()).isEqualTo(2);
    assertThat(env.isWon()).isTrue();
    assertThatThrownBy(() -> env.step(act("up"))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("over");
  }

  @Test
  void aBoxDoesNotMoveIntoAWall() {
    SokobanEnvironment env = env(String.join("\n",
        "######",
        "#___O#",
        "#__PX#",
        "#____#",
        "######"));
    String before = env.observation();
    StepResult r = env.step(act("right"));
    assertThat(r.reward()).isCloseTo(-0.1, within(EPS));
    assertThat(r.observation()).isEqualTo(before);
    assertThat(r.done()).isFalse();
    // walk below the box and push it up onto the target
    r = env.step(act("down, right, up"));
    assertThat(r.reward()).isCloseTo(-0.3 + 1 + 10, within(EPS));
    assertThat(r.won()).isTrue();
    assertThat(r.observation()).contains("1:#___√#").contains("2:#___P#");
  }

  @Test
  void aBoxDoesNotMoveIntoAnotherBox() {
    SokobanEnvironment env = env(String.join("\n",
        "#######",
        "#__O__#",
        "#PXX__#",
        "#__O__#",
        "#######"));
    String before = env.observation();
    StepResult r = env.step(act("right"));
    assertThat(r.reward()).isCloseTo(-0.1, within(EPS));
    assertThat(r.observation()).isEqualTo(before);
    assertThat(r.done()).isFalse();
  }

  @Test
  void pushingABoxOffATargetCostsOneAndOntoAnotherEarnsOne() {
    SokobanEnvironment env = env(String.join("\n",
        "#######",
        "#_____#",
        "#P√_O_#",
        "#_____#",
        "#_X___#",
        "#_____#",
        "#######"));
    StepResult r = env.step(act("right"));
    assertThat(r.reward()).isCloseTo(-1.1, within(EPS));
    assertThat(r.observation()).contains("2:#_SXO_#");
    r = env.step(act("right"));
    assertThat(r.reward()).isCloseTo(0.9, within(EPS));
    assertThat(r.observation()).contains("2:#_OP√_#");
    assertThat(r.done()).isFalse();
    assertThat(r.score()).isZero();
  }

  @Test
  void theTurnRewardIsTheSumOfItsMoves() {
    SokobanEnvironment env = env(String.join("\n",
        "#######",
        "#_____#",
        "#P√_O_#",
        "#_____#",
        "#_X___#",
        "#_____#",
        "#######"));
    // off a target (-1.1), onto a target (+0.9), a plain step (-0.1)
    StepResult r = env.step(act("right, right, down"));
    assertThat(r.reward()).isCloseTo(-0.3, within(EPS));
    assertThat(r.action()).isEqualTo("right, right, down");
  }

  @Test
  void stillSpendsAMoveInPlace() {
    SokobanEnvironment env = env(PUSH_ROOM);
    String before = env.observation();
    StepResult r = env.step(act("still"));
    assertThat(r.actionValid()).isTrue();
    assertThat(r.reward()).isCloseTo(-0.1, within(EPS));
    assertThat(r.observation()).isEqualTo(before);
    assertThat(r.action()).isEqualTo("still");
    assertThat(env.movesUsed()).isEqualTo(1);
  }

  @Test
  void anInvalidTurnIsANoOpWithZeroReward() {
    SokobanEnvironment env = env(PUSH_ROOM);
    String before = env.observation();
    StepResult r = env.step("I would jump over the box. <action>jump</action>");
    assertThat(r.actionValid()).isFalse();
    assertThat(r.reward()).isZero();
    assertThat(r.done()).isFalse();
    assertThat(r.observation()).isEqualTo(before);
    assertThat(r.action()).isEqualTo("jump");
    assertThat(r.message()).contains("no move word");
    assertThat(env.movesUsed()).isZero();
    r = env.step("no tags at all: up");
    assertThat(r.actionValid()).isFalse();
    assertThat(r.message()).contains("<action>");
  }

  @Test
  void pushingABoxIntoACornerEndsTheEpisodeAsLost() {
    SokobanEnvironment env = env(String.join("\n",
        "######",
        "#_XPO#",
        "#____#",
        "#____#",
        "######"));
    StepResult r = env.step(act("left, right, right"));
    assertThat(r.done()).isTrue();
    assertThat(r.won()).isFalse();
    assertThat(r.score()).isZero();
    assertThat(r.action()).isEqualTo("left");
    assertThat(r.reward()).isCloseTo(-0.1, within(EPS));
    assertThat(env.isDone()).isTrue();
  }

  @Test
  void freezingTwoBoxesAgainstAWallEndsTheEpisodeAsLost() {
    // both squares are live on their own; the pair is stuck, which only the search finds out
    SokobanEnvironment env = env(String.join("\n",
        "########",
        "#O_X__O#",
        "#___X__#",
        "#___P__#",
        "########"));
    assertThat(env.position().hasBoxOnDeadSquare()).isFalse();
    StepResult r = env.step(act("up, left"));
    assertThat(r.done()).isTrue();
    assertThat(r.won()).isFalse();
    assertThat(r.action()).isEqualTo("up");
    assertThat(r.observation()).contains("1:#O_XX_O#");
  }

  @Test
  void theEpisodeEndsAtTheMoveCap() {
    SokobanEnvironment env = env(PUSH_ROOM);
    int turns = 0;
    StepResult r;
    do {
      r = env.step(act("still, still, still"));
      turns++;
    } while (!r.done());
    assertThat(turns).isEqualTo(SokobanConfig.MOVE_CAP / 3);
    assertThat(env.movesUsed()).isEqualTo(SokobanConfig.MOVE_CAP);
    assertThat(r.won()).isFalse();
    assertThat(r.score()).isZero();
  }

  @Test
  void theMoveCapCutsATurnShort() {
    SokobanEnvironment env = env(PUSH_ROOM);
    for (int i = 0; i < 14; i++) {
      env.step(act("still, still"));
    }
    assertThat(env.movesUsed()).isEqualTo(28);
    StepResult r = env.step(act("up, left, down"));
    assertThat(r.action()).isEqualTo("up, left");
    assertThat(r.done()).isTrue();
    assertThat(r.reward()).isCloseTo(-0.2, within(EPS));
  }

  @Test
  void restartReturnsToTheStartPosition() {
    SokobanEnvironment env = env(PUSH_ROOM);
    String start = env.observation();
    env.step(act("down, right, right"));
    assertThat(env.observation()).isNotEqualTo(start);
    assertThat(env.restart()).isEqualTo(start);
    assertThat(env.movesUsed()).isZero();
    assertThat(env.isDone()).isFalse();
    StepResult r = env.step(act("right, right"));
    assertThat(r.won()).isTrue();
    assertThat(env.restart()).isEqualTo(start);
    assertThat(env.isDone()).isFalse();
    assertThat(env.anchor().state()).isEqualTo(start);
  }

  @Test
  void usingTheEnvironmentBeforeResetFails() {
    SokobanEnvironment env = new SokobanEnvironment(SokobanConfig.DEFAULT);
    assertThatThrownBy(() -> env.step(act("up"))).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("never reset");
    assertThatThrownBy(env::restart).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(env::observation).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void resetRejectsAnOpponentAndUnsolvablePositions() {
    SokobanEnvironment env = new SokobanEnvironment(SokobanConfig.DEFAULT);
    assertThatThrownBy(() -> env.reset(1, () -> "mcts-100", Seat.FIRST))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mcts-100");
    SokobanState stuck = SokobanState.parse(String.join("\n",
        "######",
        "#X__O#",
        "#__P_#",
        "######"));
    assertThatThrownBy(() -> env.resetTo(stuck)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot be solved");
  }

  @Test
  void stateIsAnImmutableSnapshot() {
    SokobanEnvironment env = env(PUSH_ROOM);
    SokobanSnapshot before = env.state();
    env.step(act("right"));
    SokobanSnapshot after = env.state();
    assertThat(before.position().boxes()).containsExactly(new SokobanState.Cell(2, 3));
    assertThat(after.position().boxes()).containsExactly(new SokobanState.Cell(2, 4));
    assertThat(before.movesUsed()).isZero();
    assertThat(after.movesUsed()).isEqualTo(1);
    assertThat(after.movesLeft()).isEqualTo(SokobanConfig.MOVE_CAP - 1);
    assertThat(after.movesPerTurn()).isEqualTo(3);
    assertThat(after.position().targets()).containsExactly(new SokobanState.Cell(2, 5));
    assertThat(after.position().rows()).isEqualTo(5);
    assertThat(after.position().cols()).isEqualTo(7);
    assertThat(env.legalActions()).containsExactly("up", "down", "left", "right");
  }
}
