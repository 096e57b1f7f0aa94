package org.magejvm.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Compares text with golden files kept in the source tree, and rewrites them only when asked.
 *
 * <p>{@link #check(String, String)} fails with a line diff when the text differs from its file, or when the file is
 * missing. With the system property {@value #UPDATE_PROPERTY}{@code =true} it writes the text instead (only files
 * that change), prints each file it wrote to standard error, and passes; review the result with {@code git diff}.
 * Maven passes the property to the tests: {@code mvn -pl MODULE -am test -Dtest=SomeGoldenTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dmage.golden.update=true}.
 *
 * <p>A golden file holds the exact text, UTF-8, with nothing added (no final line break unless the text ends with one).
 */
public final class GoldenFiles {

  /** The system property that makes {@link #check(String, String)} write the files instead of comparing. */
  public static final String UPDATE_PROPERTY = "mage.golden.update";

  private static final int CONTEXT_LINES = 2;

  private final Path directory;
  private final String regenerate;

  /**
   * @param directory where the files live, relative to the module directory (where Maven runs the tests), for
   *     example {@code src/test/resources/golden/prompts}
   * @param regenerate the command that regenerates them, quoted in failure messages
   */
  public GoldenFiles(Path directory, String regenerate) {
    this.directory = directory;
    this.regenerate = regenerate;
  }

  /** @return whether this run rewrites golden files instead of comparing with them */
  public static boolean updating() {
    return Boolean.getBoolean(UPDATE_PROPERTY);
  }

  /**
   * Compares a text with its golden file, or writes the file when {@link #updating()}.
   *
   * @param name the file's path below the directory, for example {@code tictactoe/compact/reflect.txt}
   * @param actual the text
   * @throws AssertionError with a line diff and the command that regenerates the files, when they differ or the
   *     file is missing
   */
  public void check(String name, String actual) {
    Path file = directory.resolve(name);
    String expected = null;
    try {
      if (Files.exists(file)) {
        expected = Files.readString(file, StandardCharsets.UTF_8);
      }
      if (updating()) {
        if (!actual.equals(expected)) {
          Files.createDirectories(file.getParent());
          Files.writeString(file, actual, StandardCharsets.UTF_8);
          System.err.println("golden file " + (expected == null ? "created" : "rewritten") + ": " + file);
        }
        return;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or write golden file " + file.toAbsolutePath(), e);
    }
    if (expected == null) {
      throw new AssertionError("golden file " + file + " is missing. To create it, run\n  " + regenerate
          + "\nand review the new file.");
    }
    if (!actual.equals(expected)) {
      throw new AssertionError("the text differs from golden file " + file + " (- golden, + actual):\n"
          + diff(expected, actual) + "If the new text is right, regenerate the golden files with\n  " + regenerate
          + "\nand review them with git diff.");
    }
  }

  /**
   * A line diff in the style of {@code diff -u}: changed lines with {@value #CONTEXT_LINES} lines of context, each
   * with its line number (in the golden text for {@code -} lines, in the new text for the others); trailing spaces
   * show as {@code ·}, and a difference in the final line break is noted.
   *
   * @param expected the golden text
   * @param actual the new text
   * @return the diff, one line per line, ending with a line break
   */
  static String diff(String expected, String actual) {
    String[] a = expected.split("\n", -1);
    String[] b = actual.split("\n", -1);
    int[][] lcs = new int[a.length + 1][b.length + 1];
    for (int i = a.length - 1; i >= 0; i--) {
      for (int j = b.length - 1; j >= 0; j--) {
        lcs[i][j] = a[i].equals(b[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    // the edit script: ' ' kept, '-' only in the golden text, '+' only in the new text
    List<String> ops = new ArrayList<>();
    List<Integer> lineNumbers = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i].equals(b[j])) {
        ops.add("  " + show(a[i]));
        lineNumbers.add(j + 1);
        i++;
        j++;
      } else if (i < a.length && (j == b.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
        ops.add("- " + show(a[i]));
        lineNumbers.add(i + 1);
        i++;
      } else {
        ops.add("+ " + show(b[j]));
        lineNumbers.add(j + 1);
        j++;
      }
    }
    StringBuilder out = new StringBuilder();
    int lastShown = -1;
    for (int k = 0; k < ops.size(); k++) {
      boolean near = false;
      for (int d = -CONTEXT_LINES; d <= CONTEXT_LINES && !near; d++) {
        int n = k + d;
        near = n >= 0 && n < ops.size() && ops.get(n).charAt(0) != ' ';
      }
      if (!near) {
        continue;
      }
      if (lastShown >= 0 && k > lastShown + 1) {
        out.append("  ...\n");
      }
      String op = ops.get(k);
      out.append(op.charAt(0)).append(String.format(" %4d ", lineNumbers.get(k))).append(op.substring(2))
          .append('\n');
      lastShown = k;
    }
    if (expected.endsWith("\n") != actual.endsWith("\n")) {
      out.append("(the golden text ").append(expected.endsWith("\n") ? "ends" : "does not end")
          .append(" with a line break, the new text ").append(actual.endsWith("\n") ? "does" : "does not")
          .append(")\n");
    }
    return out.toString();
  }

  private static String show(String line) {
    int end = line.length();
    while (end > 0 && line.charAt(end - 1) == ' ') {
      end--;
    }
    return line.substring(0, end) + "·".repeat(line.length() - end);
  }
}
