package org.magejvm.impl.env.kuhn;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.magejvm.spi.ParsedAction;

class KuhnActionParserTest {

  private final KuhnActionParser parser = new KuhnActionParser();

  @Test
  void readsExactUpperCaseWordsInsideTheFirstTag() {
    assertThat(parser.parse("<action>PASS</action>").action()).isEqualTo(KuhnAction.PASS);
    assertThat(parser.parse("I hold the King. <action>BET</action>").action()).isEqualTo(KuhnAction.BET);
    ParsedAction<KuhnAction> spaced = parser.parse("<action>\n  BET \t</action>");
    assertThat(spaced.action()).isEqualTo(KuhnAction.BET);
    assertThat(spaced.text()).isEqualTo("BET");
  }

  @Test
  void theFirstTagWinsWhenThereAreSeveral() {
    assertThat(parser.parse("<action>PASS</action> no, <action>BET</action>").action()).isEqualTo(KuhnAction.PASS);
    // an invalid first block is not rescued by a valid second one
    ParsedAction<KuhnAction> p = parser.parse("<action>maybe</action><action>BET</action>");
    assertThat(p.ok()).isFalse();
    assertThat(p.text()).isEqualTo("maybe");
    // the closing tag is the first one after the opening tag
    assertThat(parser.parse("</action><action>BET</action></action>").action()).isEqualTo(KuhnAction.BET);
  }

  @Test
  void rejectsWrongCaseOtherWordsAndMissingTags() {
    assertThat(parser.parse("<action>bet</action>").ok()).isFalse();
    assertThat(parser.parse("<action>Pass</action>").ok()).isFalse();
    assertThat(parser.parse("<action>CALL</action>").ok()).isFalse();
    assertThat(parser.parse("<action>BET BET</action>").ok()).isFalse();
    assertThat(parser.parse("<action>1</action>").ok()).isFalse();
    assertThat(parser.parse("<action></action>").ok()).isFalse();
    ParsedAction<KuhnAction> none = parser.parse("BET");
    assertThat(none.ok()).isFalse();
    assertThat(none.text()).isEmpty();
    assertThat(none.error()).contains("<action>");
    assertThat(parser.parse("<action>BET").ok()).isFalse();
    assertThat(parser.parse("BET</action>").ok()).isFalse();
    assertThat(parser.parse("<ACTION>BET</ACTION>").ok()).isFalse();
    assertThat(parser.parse("").ok()).isFalse();
    assertThat(parser.parse(null).ok()).isFalse();
    ParsedAction<KuhnAction> lower = parser.parse("<action>bet</action>");
    assertThat(lower.text()).isEqualTo("bet");
    assertThat(lower.error()).contains("PASS or BET");
  }

  @Test
  void survivesLongTextAndGarbage() {
    String noise = "x<a>\u0000\uFFFF<action".repeat(800); // about 10 kB without a complete tag
    assertThat(noise.length()).isGreaterThan(10_000);
    assertThat(parser.parse(noise).ok()).isFalse();
    assertThat(parser.parse(noise + "<action>BET</action>").action()).isEqualTo(KuhnAction.BET);
    ParsedAction<KuhnAction> big = parser.parse("<action>" + "B".repeat(10_000) + "</action>");
    assertThat(big.ok()).isFalse();
    assertThat(big.text()).hasSizeLessThanOrEqualTo(KuhnActionParser.MAX_ECHO);
    assertThat(big.error()).hasSizeLessThan(200);
    assertThat(parser.parse("<action><action>PASS</action>").ok()).isFalse();
  }
}
