package org.magejvm.impl.env.tictactoe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.magejvm.spi.ParsedAction;

class TicTacToeActionParserTest {

  private final TicTacToeActionParser parser = new TicTacToeActionParser();

  private ParsedAction<Cell> p(String s) {
    return parser.parse(s);
  }

  @Test
  void readsAWellFormedMove() {
    ParsedAction<Cell> r = p("I think the center is best. <action>(2, 2)</action>");
    assertThat(r.ok()).isTrue();
    assertThat(r.action()).isEqualTo(new Cell(1, 1));
    assertThat(r.text()).isEqualTo("(2, 2)");
    assertThat(r.error()).isEmpty();
    assertThat(p("<action>(3,1)</action>").action()).isEqualTo(new Cell(2, 0));
    assertThat(p("<action>(1, 3)</action>").action()).isEqualTo(new Cell(0, 2));
  }

  @Test
  void acceptsWhitespaceAndNewlinesInsideTheParentheses() {
    ParsedAction<Cell> r = p("<action>\n  (  3 ,\n\t 2  )\n</action>");
    assertThat(r.action()).isEqualTo(new Cell(2, 1));
    assertThat(r.text()).isEqualTo("(3, 2)");
    assertThat(p("<action>( 1\r\n,\u00a02 )</action>").action()).isEqualTo(new Cell(0, 1));
  }

  @Test
  void takesTheFirstPairInsideTheFirstTag() {
    assertThat(p("<action>(1, 1)</action> or <action>(2, 2)</action>").action()).isEqualTo(new Cell(0, 0));
    assertThat(p("<action>row 2 col 3: (2, 3) or (1, 1)</action>").action()).isEqualTo(new Cell(1, 2));
    assertThat(p("(3, 3) <action>(1, 2)</action>").action()).isEqualTo(new Cell(0, 1));
    // a second opening tag before the first closing one is just text inside the first block
    assertThat(p("<action>maybe <action>(2, 1)</action>").action()).isEqualTo(new Cell(1, 0));
    // the first block has no pair: the later tag is not consulted
    ParsedAction<Cell> r = p("<action>center</action> <action>(2, 2)</action>");
    assertThat(r.ok()).isFalse();
    assertThat(r.text()).isEmpty();
  }

  @Test
  void missingOrMalformedTagsAreFailures() {
    for (String s : new String[] {"", "(1, 1)", "<action>(1, 1)", "(1, 1)</action>", "</action>(1, 1)<action>",
        "<Action>(1, 1)</Action>", "<ACTION>(1, 1)</ACTION>", "<action >(1, 1)</action>", "<action>(1, 1)</Action>"}) {
      ParsedAction<Cell> r = p(s);
      assertThat(r.ok()).as(s).isFalse();
      assertThat(r.text()).as(s).isEmpty();
      assertThat(r.error()).as(s).isNotEmpty();
    }
    assertThat(p(null).ok()).isFalse();
  }

  @Test
  void garbageInsideTheTagsIsAFailure() {
    for (String s : new String[] {"center", "(1 1)", "(1,)", "(a, b)", "[1, 1]", "1, 1", "(-1, 2)", "(1.5, 2)",
        "(+1, 2)", "()", "(,)"}) {
      ParsedAction<Cell> r = p("<action>" + s + "</action>");
      assertThat(r.ok()).as(s).isFalse();
      assertThat(r.error()).as(s).isNotEmpty();
    }
    // garbage before a pair does not hide it
    assertThat(p("<action>(x(2, 2)</action>").action()).isEqualTo(new Cell(1, 1));
  }

  @Test
  void numbersOffTheBoardAreFailuresThatShowWhatWasRead() {
    ParsedAction<Cell> r = p("<action>(4, 1)</action>");
    assertThat(r.ok()).isFalse();
    assertThat(r.text()).isEqualTo("(4, 1)");
    assertThat(r.error()).contains("row is outside 1..3");
    assertThat(p("<action>(0, 0)</action>").error()).contains("row and column are");
    assertThat(p("<action>(2, 9)</action>").error()).contains("column is");
    // leading zeros are read as Python's int() reads them
    assertThat(p("<action>(02, 003)</action>").action()).isEqualTo(new Cell(1, 2));
    assertThat(p("<action>(00, 1)</action>").text()).isEqualTo("(0, 1)");
  }

  @Test
  void hugeNumbersDoNotOverflow() {
    ParsedAction<Cell> r = p("<action>(99999999999999999999999999, 1)</action>");
    assertThat(r.ok()).isFalse();
    assertThat(r.text()).startsWith("(999999999").endsWith("..., 1)");
    // 2^32 + 2 would wrap to 2 in a careless int conversion
    assertThat(p("<action>(4294967298, 2)</action>").ok()).isFalse();
    assertThat(p("<action>(2, 18446744073709551618)</action>").ok()).isFalse();
    assertThat(p("<action>(" + "0".repeat(5000) + "3, 1)</action>").action()).isEqualTo(new Cell(2, 0));
  }

  @Test
  void nonAsciiDigitsCountAsDigitsLikePythonsRegex() {
    // Arabic-Indic digits two and three
    assertThat(p("<action>(\u0662, \u0663)</action>").action()).isEqualTo(new Cell(1, 2));
  }

  @Test
  void longTextIsHandled() {
    String filler = "Let me think about the board carefully. ".repeat(260); // about 10 kB
    assertThat(filler.length()).isGreaterThan(10_000);
    assertThat(p(filler + "<action>(3, 3)</action>").action()).isEqualTo(new Cell(2, 2));
    assertThat(p("<action>" + filler + "(1, 2)" + filler + "</action>").action()).isEqualTo(new Cell(0, 1));
    assertThat(p(filler).ok()).isFalse();
    // adversarial shapes for the regular expression: many open parentheses, long digit and space runs
    String parens = "<action>" + "(".repeat(200_000) + "</action>";
    assertThat(p(parens).ok()).isFalse();
    String digits = "<action>(" + "1".repeat(200_000) + " " .repeat(100_000) + "</action>";
    assertThat(p(digits).ok()).isFalse();
    String pairs = "<action>" + "(1, ".repeat(50_000) + "(2, 2)</action>";
    assertThat(p(pairs).action()).isEqualTo(new Cell(1, 1));
    String error = p("<action>" + filler + "</action>").error();
    assertThat(error.length()).isLessThan(200);
  }
}
