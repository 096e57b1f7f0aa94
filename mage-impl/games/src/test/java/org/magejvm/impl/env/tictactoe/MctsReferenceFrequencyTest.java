package org.magejvm.impl.env.tictactoe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Compares how often our MCTS picks each move with the frequencies of an independent Python restatement of the
 * reference search (src/test/python/mcts_reference_fixture.py, numpy's generator). Same algorithm, different
 * random streams: frequencies must agree within sampling noise, and moves the reference never plays must never
 * be played.
 */
class MctsReferenceFrequencyTest {

  private record Row(String board, Mark toMove, int simulations, int runs, int[] counts) {}

  private static List<Row> fixture() throws IOException {
    List<Row> rows = new ArrayList<>();
    try (InputStream in = MctsReferenceFrequencyTest.class.getResourceAsStream("mcts-reference-frequencies.csv")) {
      assertThat(in).as("fixture on the class path").isNotNull();
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("#") || line.startsWith("board,") || line.isBlank()) {
          continue;
        }
        String[] f = line.split(",");
        int[] counts = new int[9];
        for (int i = 0; i < 9; i++) {
          counts[i] = Integer.parseInt(f[4 + i]);
        }
        rows.add(new Row(f[0], Mark.valueOf(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]), counts));
      }
    }
    return rows;
  }

  private static Board board(String cells) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 9; i++) {
      sb.append(cells.charAt(i)).append(i % 3 == 2 ? "\n" : " ");
    }
    return Board.parse(sb.toString());
  }

  @Test
  void moveFrequenciesMatchTheReferenceSearch() throws IOException {
    List<Row> rows = fixture();
    assertThat(rows).hasSizeGreaterThanOrEqualTo(5);
    for (Row row : rows) {
      Board b = board(row.board());
      MctsOpponent mcts = new MctsOpponent(row.simulations());
      int[] ours = new int[9];
      for (int i = 0; i < row.runs(); i++) {
        ours[mcts.chooseMove(b, row.toMove(), new Random(1_000_003L * i + 17))]++;
      }
      int n = row.runs();
      for (int c = 0; c < 9; c++) {
        double pRef = row.counts()[c] / (double) n;
        double pOurs = ours[c] / (double) n;
        String what = String.format("cell %d on %s (%s to move, %d sims): ours %s vs reference %s", c,
            row.board(), row.toMove(), row.simulations(), java.util.Arrays.toString(ours),
            java.util.Arrays.toString(row.counts()));
        if (row.counts()[c] == 0) {
          assertThat(ours[c]).as(what).isLessThanOrEqualTo(2);
        } else {
          double sd = Math.sqrt((pRef * (1 - pRef) + pOurs * (1 - pOurs)) / n);
          assertThat(Math.abs(pOurs - pRef)).as(what).isLessThanOrEqualTo(4.5 * sd + 0.005);
        }
      }
    }
  }
}
