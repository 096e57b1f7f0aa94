package org.magejvm.impl.env.tictactoe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class MctsOpponentTest {

  @Test
  void takesAnImmediateWinAndStopsOnceTheRootIsProven() {
    // O (to move) wins at (1, 3); X threatens (3, 3) too
    Board b = Board.parse("O O .\nX X .\nX . .");
    MctsOpponent mcts = new MctsOpponent(100);
    for (long seed = 0; seed < 50; seed++) {
      MctsOpponent.SearchResult r = mcts.search(b, Mark.O, new Random(seed));
      assertThat(r.move()).isEqualTo(2);
      assertThat(r.rootProven()).isTrue();
      assertThat(r.rootValue()).isEqualTo(1.0);
      // one simulation scores the root, at most one per child finds the win
      assertThat(r.simulationsRun()).isLessThanOrEqualTo(1 + b.emptyCount());
    }
  }

  @Test
  void blocksAnImmediateThreat() {
    // X threatens (1, 3); O to move has no win of its own
    Board b = Board.parse("X X .\n. O .\n. . .");
    for (long seed = 0; seed < 50; seed++) {
      assertThat(new MctsOpponent(100).chooseMove(b, Mark.O, new Random(seed))).as("seed %d", seed).isEqualTo(2);
    }
    // X to move: (3, 3) both completes X's row and stops O's diagonal
    Board c = Board.parse("O . .\n. O .\nX X .");
    for (long seed = 0; seed < 50; seed++) {
      int move = new MctsOpponent(100).chooseMove(c, Mark.X, new Random(seed));
      assertThat(move).as("seed %d", seed).isEqualTo(8); // (3, 3) wins for X at once
    }
  }

  @Test
  void provesALostPositionAndPicksAmongLosses() {
    Board b = Board.parse("X . .\n. O .\nX . X");
    // X threatens column 1 at (2, 1) and row 3 at (3, 2): O loses whatever it does
    MctsOpponent.SearchResult r = new MctsOpponent(1000).search(b, Mark.O, new Random(4));
    assertThat(r.rootProven()).isTrue();
    assertThat(r.rootValue()).isEqualTo(-1.0);
    assertThat(r.simulationsRun()).isLessThan(1000);
    assertThat(b.isEmpty(r.move())).isTrue();
  }

  @Test
  void provesADrawAndAvoidsTheLosingCorners() {
    // O to move after X took opposite corners: only an edge holds the draw, a corner loses to a fork
    Board b = Board.parse("X . .\n. O .\n. . X");
    for (long seed = 0; seed < 5; seed++) {
      MctsOpponent.SearchResult r = new MctsOpponent(50_000).search(b, Mark.O, new Random(seed));
      assertThat(r.rootProven()).isTrue();
      assertThat(r.rootValue()).isZero();
      assertThat(r.simulationsRun()).isLessThan(50_000);
      assertThat(r.move()).isIn(1, 3, 5, 7);
    }
  }

  @Test
  void isDeterministicGivenTheGenerator() {
    Board b = Board.parse("X . .\n. . .\n. . .");
    for (long seed = 0; seed < 20; seed++) {
      MctsOpponent m = new MctsOpponent(100);
      assertThat(m.search(b, Mark.O, new Random(seed))).isEqualTo(m.search(b, Mark.O, new Random(seed)));
    }
  }

  @Test
  void answersTheCornerOpeningWithTheCenterMostOfTheTime() {
    // against a corner opening only the center holds the draw; 1000 simulations find it almost always
    Board b = Board.parse("X . .\n. . .\n. . .");
    int center = 0;
    for (long seed = 0; seed < 40; seed++) {
      if (new MctsOpponent(1000).chooseMove(b, Mark.O, new Random(seed)) == 4) {
        center++;
      }
    }
    assertThat(center).isGreaterThanOrEqualTo(30);
  }

  @Test
  void aSingleSimulationPlaysARandomEmptyCell() {
    Board b = Board.parse("X O X\n. O .\n. X .");
    for (long seed = 0; seed < 30; seed++) {
      MctsOpponent.SearchResult r = new MctsOpponent(1).search(b, Mark.O, new Random(seed));
      assertThat(b.isEmpty(r.move())).isTrue();
      assertThat(r.simulationsRun()).isEqualTo(1);
    }
    assertThat(new MctsOpponent(1).id()).isEqualTo("mcts-1");
  }
}
