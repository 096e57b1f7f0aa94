package org.magejvm.impl.env.sokoban;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SokobanSolverTest {

  private final SokobanSolver solver = new SokobanSolver();

  @Test
  void findsAShortestSolution() {
    SokobanState s = SokobanState.parse(String.join("\n",
        "#######",
        "#_____#",
        "#_PX_O#",
        "#_____#",
        "#######"));
    assertThat(solver.solve(s)).contains(List.of(Move.RIGHT, Move.RIGHT));
    assertThat(solver.shortestLength(s)).isEqualTo(2);
    assertThat(solver.isSolvable(s)).isTrue();
  }

  @Test
  void walksAroundToPushFromTheOtherSide() {
    SokobanState s = SokobanState.parse(String.join("\n",
        "######",
        "#___O#",
        "#__PX#",
        "#____#",
        "######"));
    assertThat(solver.solve(s)).contains(List.of(Move.DOWN, Move.RIGHT, Move.UP));
  }

  @Test
  void anAlreadySolvedPositionNeedsNoMoves() {
    SokobanState s = SokobanState.parse("#####\n#P√_#\n#####");
    assertThat(solver.solve(s)).contains(List.of());
    assertThat(solver.shortestLength(s)).isZero();
  }

  @Test
  void respectsTheMoveLimit() {
    SokobanState s = SokobanState.parse(String.join("\n",
        "######",
        "#___O#",
        "#__PX#",
        "#____#",
        "######"));
    assertThat(solver.solve(s, 2)).isEmpty();
    assertThat(solver.solve(s, 3)).isPresent();
    assertThatThrownBy(() -> solver.solve(s, -1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void recognisesUnsolvablePositions() {
    SokobanState corner = SokobanState.parse(String.join("\n",
        "######",
        "#X__O#",
        "#__P_#",
        "######"));
    assertThat(corner.hasBoxOnDeadSquare()).isTrue();
    assertThat(solver.solve(corner)).isEmpty();
    assertThat(solver.shortestLength(corner)).isEqualTo(-1);
    SokobanState frozen = SokobanState.parse(String.join("\n",
        "########",
        "#O_XX_O#",
        "#______#",
        "#___P__#",
        "########"));
    assertThat(frozen.hasBoxOnDeadSquare()).isFalse();
    assertThat(solver.isSolvable(frozen)).isFalse();
    SokobanState walledOff = SokobanState.parse(String.join("\n",
        "#######",
        "#P_#_O#",
        "#_X#__#",
        "#__#__#",
        "#######"));
    assertThat(solver.isSolvable(walledOff)).isFalse();
  }

  @Test
  void deadSquaresAreTheSquaresNoBoxCanLeaveForATarget() {
    SokobanState s = SokobanState.parse(String.join("\n",
        "#######",
        "#P____#",
        "#__X__#",
        "#___O_#",
        "#_____#",
        "#######"));
    Room room = s.room();
    // corners and the wall-side squares of a side without a target are dead; the middle is live
    assertThat(room.live[room.index(1, 1)]).isFalse();
    assertThat(room.live[room.index(1, 3)]).isFalse();
    assertThat(room.live[room.index(4, 5)]).isFalse();
    assertThat(room.live[room.index(2, 3)]).isTrue();
    assertThat(room.live[room.index(3, 4)]).isTrue();
    assertThat(room.live[room.index(3, 2)]).isTrue();
  }

  @Test
  void agreesWithAPlainBreadthFirstSearchOnGeneratedRooms() {
    for (int boxes = 1; boxes <= 3; boxes++) {
      SokobanGenerator g = new SokobanGenerator(SokobanConfig.builder().optBoxes(boxes).build());
      for (long seed = 0; seed < 15; seed++) {
        SokobanState start = g.generate(seed * 31 + boxes).start();
        assertThat(solver.shortestLength(start)).as("boxes %d seed %d", boxes, seed)
            .isEqualTo(plainShortest(start));
        // from a position a few random pushes away, solvable or not, both searches agree too
        SokobanEnvironment env = new SokobanEnvironment(SokobanConfig.DEFAULT);
        env.resetTo(start);
        env.step("<action>" + (seed % 2 == 0 ? "left, up, right" : "down, right, up") + "</action>");
        SokobanState moved = env.position();
        assertThat(solver.shortestLength(moved)).as("moved, boxes %d seed %d", boxes, seed)
            .isEqualTo(plainShortest(moved));
      }
    }
  }

  @Test
  void givesUpAtTheStateLimit() {
    SokobanState s = SokobanState.parse(String.join("\n",
        "#########",
        "#P______#",
        "#_X_____#",
        "#_______#",
        "#______O#",
        "#########"));
    SokobanSolver small = new SokobanSolver(10);
    assertThatThrownBy(() -> small.solve(s)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("10 positions");
    assertThatThrownBy(() -> new SokobanSolver(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sortOneRestoresOrder() {
    int[] a = {2, 5, 9};
    a[0] = 10;
    SokobanSolver.sortOne(a, 0);
    assertThat(a).containsExactly(5, 9, 10);
    a[2] = 1;
    SokobanSolver.sortOne(a, 2);
    assertThat(a).containsExactly(1, 5, 9);
    a[1] = 7;
    SokobanSolver.sortOne(a, 1);
    assertThat(a).containsExactly(1, 7, 9);
  }

  /** An independent, slow BFS keyed by rendered text, with no pruning: the length of a shortest solution or -1. */
  private static int plainShortest(SokobanState start) {
    ArrayDeque<SokobanState> queue = new ArrayDeque<>();
    Set<String> seen = new HashSet<>();
    queue.add(start);
    seen.add(start.render());
    int depth = 0;
    while (!queue.isEmpty()) {
      for (int i = queue.size(); i > 0; i--) {
        SokobanState s = queue.poll();
        if (s.isSolved()) {
          return depth;
        }
        for (Move m : Move.DIRECTIONS) {
          Optional<SokobanState> next = plainMove(s, m);
          if (next.isPresent() && seen.add(next.get().render())) {
            queue.add(next.get());
          }
        }
      }
      depth++;
    }
    return -1;
  }

  private static Optional<SokobanState> plainMove(SokobanState s, Move m) {
    int r = s.player().row() + m.rowDelta();
    int c = s.player().col() + m.colDelta();
    if (s.isWall(r, c)) {
      return Optional.empty();
    }
    int[] boxes = new int[s.boxCount()];
    int k = 0;
    for (SokobanState.Cell b : s.boxes()) {
      int cell = b.row() * s.cols() + b.col();
      if (b.row() == r && b.col() == c) {
        int br = r + m.rowDelta();
        int bc = c + m.colDelta();
        if (s.isWall(br, bc) || s.hasBox(br, bc)) {
          return Optional.empty();
        }
        cell = br * s.cols() + bc;
      }
      boxes[k++] = cell;
    }
    return Optional.of(new SokobanState(s.room(), r * s.cols() + c, boxes));
  }
}
