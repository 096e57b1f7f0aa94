package org.magejvm.impl.env.sokoban;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.magejvm.spi.ParsedAction;

class SokobanParserTest {

  private final SokobanParser parser = new SokobanParser(3);

  private List<Move> moves(String response) {
    ParsedAction<List<Move>> p = parser.parse(response);
    assertThat(p.ok()).as("parse of %s", response).isTrue();
    return p.action();
  }

  @Test
  void readsCommaSeparatedMoves() {
    ParsedAction<List<Move>> p = parser.parse("I think so.\n<action>up, down, left</action>");
    assertThat(p.action()).containsExactly(Move.UP, Move.DOWN, Move.LEFT);
    assertThat(p.text()).isEqualTo("up, down, left");
    assertThat(p.error()).isEmpty();
  }

  @Test
  void keepsOnlyTheFirstMovesOfATurn() {
    assertThat(moves("<action>right, right, right, up, up</action>"))
        .containsExactly(Move.RIGHT, Move.RIGHT, Move.RIGHT);
    assertThat(new SokobanParser(1).parse("<action>left, up</action>").action()).containsExactly(Move.LEFT);
  }

  @Test
  void toleratesWhitespaceAndCase() {
    assertThat(moves("<action>\n  UP ,\n\tLeft\t,  dOwN </action>")).containsExactly(Move.UP, Move.LEFT, Move.DOWN);
    assertThat(moves("<action>Right</action>")).containsExactly(Move.RIGHT);
  }

  @Test
  void readsWordsInsideLongerPhrases() {
    assertThat(moves("<action>move up, then go left!, push the box RIGHT</action>"))
        .containsExactly(Move.UP, Move.LEFT, Move.RIGHT);
  }

  @Test
  void checksTheWordsInAFixedOrderInsideAPiece() {
    // "up" is checked before "down", wherever it stands in the piece
    assertThat(moves("<action>down and then up</action>")).containsExactly(Move.UP);
    assertThat(moves("<action>left or right</action>")).containsExactly(Move.LEFT);
    assertThat(moves("<action>right or left</action>")).containsExactly(Move.LEFT);
  }

  @Test
  void skipsPiecesWithoutAMoveWord() {
    assertThat(moves("<action>up, jump, , left, fly, right</action>"))
        .containsExactly(Move.UP, Move.LEFT, Move.RIGHT);
  }

  @Test
  void stillIsAMove() {
    ParsedAction<List<Move>> p = parser.parse("<action>still, up</action>");
    assertThat(p.action()).containsExactly(Move.STILL, Move.UP);
    assertThat(p.text()).isEqualTo("still, up");
  }

  @Test
  void takesTheTextFromTheFirstOpeningToTheLastClosingTag() {
    // one block: "left</action><action>up, right" -> pieces "left</action><action>up" (up wins) and " right"
    assertThat(moves("<action>left</action><action>up, right</action>")).containsExactly(Move.UP, Move.RIGHT);
    assertThat(moves("<action>up</action> and later <action>down</action> then </action>"))
        .containsExactly(Move.UP);
    assertThat(moves("<action>down, </action> left </action>")).containsExactly(Move.DOWN, Move.LEFT);
  }

  @Test
  void failsWithoutAnActionBlock() {
    for (String bad : new String[] {"up, up, left", "<action>up, up", "up</action>", "</action>up<action>",
        "<ACTION>up</ACTION>", "", "<action></action>"}) {
      ParsedAction<List<Move>> p = parser.parse(bad);
      assertThat(p.ok()).as("parse of '%s'", bad).isFalse();
      assertThat(p.action()).isNull();
      assertThat(p.error()).isNotEmpty();
    }
    assertThat(parser.parse(null).ok()).isFalse();
  }

  @Test
  void failsWhenTheBlockHasNoMoveWord() {
    ParsedAction<List<Move>> p = parser.parse("<action> jump, fly north </action>");
    assertThat(p.ok()).isFalse();
    assertThat(p.text()).isEqualTo("jump, fly north");
    assertThat(p.error()).contains("no move word");
  }

  @Test
  void handlesTenKilobytesOfGarbage() {
    Random random = new Random(7);
    StringBuilder garbage = new StringBuilder();
    String alphabet = "abcefghijkmnoqsvwxyz ,.;:<>/\n\t";
    while (garbage.length() < 10_000) {
      garbage.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    ParsedAction<List<Move>> p = parser.parse("<action>" + garbage + "</action>");
    assertThat(p.ok()).isFalse();
    assertThat(p.text().length()).isLessThanOrEqualTo(120);
    assertThat(parser.parse(garbage.toString()).ok()).isFalse();
    assertThat(moves(garbage + "<action>" + garbage + ", up," + garbage + "</action>" + garbage))
        .containsExactly(Move.UP);
    String commas = ",".repeat(10_000);
    assertThat(parser.parse("<action>" + commas + "</action>").ok()).isFalse();
    assertThat(moves("<action>" + commas + "left" + commas + "</action>")).containsExactly(Move.LEFT);
    String manyTags = "<action>".repeat(1_000) + "down" + "</action>".repeat(1_000);
    assertThat(moves(manyTags)).containsExactly(Move.DOWN);
  }
}
