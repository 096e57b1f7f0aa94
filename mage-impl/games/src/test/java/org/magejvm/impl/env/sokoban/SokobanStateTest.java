package org.magejvm.impl.env.sokoban;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SokobanStateTest {

  private static final String ROOM = String.join("\n",
      "0:######",
      "1:#__√_#",
      "2:#_XS_#",
      "3:######");

  @Test
  void rendersAndParsesTheSameText() {
    SokobanState s = SokobanState.parse(ROOM);
    assertThat(s.render()).isEqualTo(ROOM);
    assertThat(s.toString()).isEqualTo(ROOM);
    assertThat(s.rows()).isEqualTo(4);
    assertThat(s.cols()).isEqualTo(6);
    assertThat(s.player()).isEqualTo(new SokobanState.Cell(2, 3));
    assertThat(s.boxes()).containsExactly(new SokobanState.Cell(1, 3), new SokobanState.Cell(2, 2));
    assertThat(s.targets()).containsExactly(new SokobanState.Cell(1, 3), new SokobanState.Cell(2, 3));
    assertThat(s.isTarget(2, 3)).isTrue();
    assertThat(s.isWall(0, 0)).isTrue();
    assertThat(s.hasBox(2, 2)).isTrue();
    assertThat(s.boxesOnTargets()).isEqualTo(1);
    assertThat(s.isSolved()).isFalse();
    // row numbers are optional when parsing; surrounding blank lines and spaces are ignored
    SokobanState bare = SokobanState.parse("\n  ######\n#__√_#\n#_XS_#  \n######\n\n");
    assertThat(bare).isEqualTo(s).hasSameHashCodeAs(s);
  }

  @Test
  void rejectsMalformedRooms() {
    expectBad("######\n#_P?_#\n######", "'?'", "row 1 column 3");
    expectBad("######\n#_PX_#\n#####", "row 2 has 5 squares");
    expectBad("######\n#_OX_#\n#____#\n######", "no player");
    expectBad("######\n#POXP#\n######", "second player");
    expectBad("######\n#_PX_#\n######", "1 boxes");
    expectBad("######\n#_PX_O\n######", "border");
    expectBad("######\n#_P__#\n######", "1 to 6 boxes");
    expectBad("", "no rows");
    assertThatThrownBy(() -> SokobanState.parse(null)).isInstanceOf(IllegalArgumentException.class);
    SokobanState s = SokobanState.parse(ROOM);
    assertThatThrownBy(() -> s.isWall(4, 0)).isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("row 4 column 0");
  }

  private static void expectBad(String text, String... fragments) {
    var check = assertThatThrownBy(() -> SokobanState.parse(text)).isInstanceOf(IllegalArgumentException.class);
    for (String f : fragments) {
      check.hasMessageContaining(f);
    }
  }
}
