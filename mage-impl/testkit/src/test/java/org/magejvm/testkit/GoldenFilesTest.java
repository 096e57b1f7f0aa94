package org.magejvm.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GoldenFilesTest {

  @Test
  void diffShowsChangedLinesWithContextAndNumbers() {
    assertThat(GoldenFiles.diff("1\n2\n3\n4\n5\n6\n7\n8\n9", "1\n2\nX\n4\n5\n6\n7\n8\nY")).isEqualTo(
        "     1 1\n"
            + "     2 2\n"
            + "-    3 3\n"
            + "+    3 X\n"
            + "     4 4\n"
            + "     5 5\n"
            + "  ...\n"
            + "     7 7\n"
            + "     8 8\n"
            + "-    9 9\n"
            + "+    9 Y\n");
  }

  @Test
  void diffShowsTrailingSpacesAndTheFinalLineBreak() {
    assertThat(GoldenFiles.diff("x  ", "x\n")).isEqualTo(
        "-    1 x··\n"
            + "+    1 x\n"
            + "+    2 \n"
            + "(the golden text does not end with a line break, the new text does)\n");
  }

  @Test
  void checkComparesAndNeverWritesUnlessAsked(@TempDir Path dir) throws Exception {
    GoldenFiles golden = new GoldenFiles(dir, "regenerate-command");
    assertThatThrownBy(() -> golden.check("p/missing.txt", "text")).isInstanceOf(AssertionError.class)
        .hasMessageContaining("p/missing.txt is missing").hasMessageContaining("regenerate-command");
    assertThat(dir.resolve("p/missing.txt")).doesNotExist();
    Files.createDirectories(dir.resolve("p"));
    Files.writeString(dir.resolve("p/x.txt"), "one\ntwo", StandardCharsets.UTF_8);
    golden.check("p/x.txt", "one\ntwo");
    assertThatThrownBy(() -> golden.check("p/x.txt", "one\nthree")).isInstanceOf(AssertionError.class)
        .hasMessageContaining("-    2 two\n+    2 three").hasMessageContaining("regenerate-command");
    assertThat(dir.resolve("p/x.txt")).hasContent("one\ntwo");
  }

  @Test
  void updateModeWritesOnlyWhatChanged(@TempDir Path dir) throws Exception {
    GoldenFiles golden = new GoldenFiles(dir, "regenerate-command");
    String before = System.getProperty(GoldenFiles.UPDATE_PROPERTY);
    System.setProperty(GoldenFiles.UPDATE_PROPERTY, "true");
    try {
      golden.check("new/y.txt", "fresh");
      assertThat(Files.readString(dir.resolve("new/y.txt"), StandardCharsets.UTF_8)).isEqualTo("fresh");
      long stamp = Files.getLastModifiedTime(dir.resolve("new/y.txt")).toMillis();
      Files.setLastModifiedTime(dir.resolve("new/y.txt"), FileTime.fromMillis(stamp - 60_000));
      golden.check("new/y.txt", "fresh");
      assertThat(Files.getLastModifiedTime(dir.resolve("new/y.txt")).toMillis()).isEqualTo(stamp - 60_000);
    } finally {
      if (before == null) {
        System.clearProperty(GoldenFiles.UPDATE_PROPERTY);
      } else {
        System.setProperty(GoldenFiles.UPDATE_PROPERTY, before);
      }
    }
  }
}
