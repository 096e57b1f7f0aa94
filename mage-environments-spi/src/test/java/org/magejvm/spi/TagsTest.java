package org.magejvm.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TagsTest {

  @Test
  void firstTakesTheFirstPair() {
    assertThat(Tags.first("think <action>(1, 2)</action> done", "action")).contains("(1, 2)");
    assertThat(Tags.first("<action>a</action><action>b</action>", "action")).contains("a");
    assertThat(Tags.first("<action></action>", "action")).contains("");
    assertThat(Tags.first("<action> spaced \n</action>", "action")).contains(" spaced \n");
  }

  @Test
  void lastTakesTheLastOpeningTag() {
    assertThat(Tags.last("<action>a</action> no, <action>b</action>", "action")).contains("b");
    assertThat(Tags.last("<action>only</action>", "action")).contains("only");
    // the last opening tag has no closing tag: nothing, even though an earlier pair is complete
    assertThat(Tags.last("<action>a</action> <action>b", "action")).isEmpty();
  }

  @Test
  void outermostSpansFirstOpeningToLastClosing() {
    assertThat(Tags.outermost("<action>up</action> left</action>", "action")).contains("up</action> left");
    assertThat(Tags.outermost("<action>up left</action>", "action")).contains("up left");
    assertThat(Tags.outermost("x <action>a</action><action>b</action> y", "action"))
        .contains("a</action><action>b");
  }

  @Test
  void missingTags() {
    for (String text : new String[] {"", "no tags at all", "<action>open only", "close only</action>",
        "<act>x</act>", "<action x</action>"}) {
      assertThat(Tags.first(text, "action")).as(text).isEmpty();
      assertThat(Tags.last(text, "action")).as(text).isEmpty();
      assertThat(Tags.outermost(text, "action")).as(text).isEmpty();
    }
  }

  @Test
  void reversedTags() {
    String text = "</action>x<action>";
    assertThat(Tags.first(text, "action")).isEmpty();
    assertThat(Tags.last(text, "action")).isEmpty();
    assertThat(Tags.outermost(text, "action")).isEmpty();
    // a stray closing tag before a complete pair does not matter
    String stray = "</action> then <action>ok</action>";
    assertThat(Tags.first(stray, "action")).contains("ok");
    assertThat(Tags.last(stray, "action")).contains("ok");
    assertThat(Tags.outermost(stray, "action")).contains("ok");
  }

  @Test
  void nestedTags() {
    String text = "<action>outer <action>inner</action> tail</action>";
    assertThat(Tags.first(text, "action")).contains("outer <action>inner");
    assertThat(Tags.last(text, "action")).contains("inner");
    assertThat(Tags.outermost(text, "action")).contains("outer <action>inner</action> tail");
  }

  @Test
  void repeatedTags() {
    String text = "<action><action><action>x</action></action>";
    assertThat(Tags.first(text, "action")).contains("<action><action>x");
    assertThat(Tags.last(text, "action")).contains("x");
    assertThat(Tags.outermost(text, "action")).contains("<action><action>x</action>");
    String twice = "<remark>a</remark><remark>b</remark><remark>c</remark>";
    assertThat(Tags.first(twice, "remark")).contains("a");
    assertThat(Tags.last(twice, "remark")).contains("c");
  }

  @Test
  void tagNamesAreExactAndCaseSensitive() {
    assertThat(Tags.first("<Action>x</Action>", "action")).isEmpty();
    assertThat(Tags.first("<action >x</action>", "action")).isEmpty();
    assertThat(Tags.first("<actions>x</actions><action>y</action>", "action")).contains("y");
    assertThat(Tags.first("<remark>r</remark><action>a</action>", "remark")).contains("r");
  }

  @Test
  void oneMegabyteInputsComplete() {
    int n = 1 << 20;
    String opens = "<action>".repeat(n / 8);
    assertThat(Tags.first(opens, "action")).isEmpty();
    assertThat(Tags.last(opens, "action")).isEmpty();
    assertThat(Tags.outermost(opens, "action")).isEmpty();
    String almost = "<actio".repeat(n / 6) + "</actio";
    assertThat(Tags.first(almost, "action")).isEmpty();
    assertThat(Tags.last(almost, "action")).isEmpty();
    assertThat(Tags.outermost(almost, "action")).isEmpty();
    String filler = "x".repeat(n);
    String wrapped = "<action>" + filler + "</action>" + "</action>".repeat(n / 9);
    assertThat(Tags.first(wrapped, "action")).hasValueSatisfying(v -> assertThat(v).hasSize(n));
    assertThat(Tags.last(wrapped, "action")).hasValueSatisfying(v -> assertThat(v).hasSize(n));
    assertThat(Tags.outermost(wrapped, "action"))
        .hasValueSatisfying(v -> assertThat(v).hasSize(wrapped.length() - 17));
    String closes = "</action>".repeat(n / 9) + "<action>a</action>";
    assertThat(Tags.first(closes, "action")).contains("a");
    assertThat(Tags.outermost(closes, "action")).contains("a");
  }

  @Test
  void abbreviate() {
    assertThat(Tags.abbreviate("short", 10)).isEqualTo("short");
    assertThat(Tags.abbreviate("exactly10!", 10)).isEqualTo("exactly10!");
    assertThat(Tags.abbreviate("eleven char", 10)).isEqualTo("eleven ...").hasSize(10);
    assertThat(Tags.abbreviate("x".repeat(1000), 80)).hasSize(80).endsWith("x...");
    assertThat(Tags.abbreviate("abcdef", 3)).isEqualTo("...");
    assertThat(Tags.abbreviate("", 0)).isEmpty();
  }
}
