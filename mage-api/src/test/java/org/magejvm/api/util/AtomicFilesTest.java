package org.magejvm.api.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A write leaves the old content or the new one, never a temporary file. */
class AtomicFilesTest {

  @TempDir
  Path dir;

  @Test
  void writesANewFileAndLeavesNoTemporaryFile() throws IOException {
    Path f = dir.resolve("state.json");
    AtomicFiles.write(f, new byte[] {1, 2, 3});
    assertThat(f).hasBinaryContent(new byte[] {1, 2, 3});
    assertThat(names()).containsExactly("state.json");
  }

  @Test
  void replacesAnExistingFile() throws IOException {
    Path f = dir.resolve("notes.txt");
    Files.writeString(f, "old content that is longer than the new one");
    AtomicFiles.writeString(f, "neu \u00e9\u4e2d");
    assertThat(Files.readAllBytes(f)).isEqualTo("neu \u00e9\u4e2d".getBytes(StandardCharsets.UTF_8));
    assertThat(names()).containsExactly("notes.txt");
  }

  @Test
  void streamsContentThroughTheChannel() throws IOException {
    Path f = dir.resolve("big.bin");
    AtomicFiles.write(f, out -> {
      for (int i = 0; i < 4; i++) {
        out.write(ByteBuffer.wrap(new byte[] {(byte) i, (byte) i}));
      }
    });
    assertThat(f).hasBinaryContent(new byte[] {0, 0, 1, 1, 2, 2, 3, 3});
    assertThat(names()).containsExactly("big.bin");
  }

  @Test
  void aFailingWriterLeavesTheOldFileAndNoTemporaryFile() throws IOException {
    Path f = dir.resolve("model.safetensors");
    Files.writeString(f, "old");
    IOException boom = new IOException("disk full");
    assertThatThrownBy(() -> AtomicFiles.write(f, out -> {
      out.write(ByteBuffer.wrap("half of the new".getBytes(StandardCharsets.UTF_8)));
      throw boom;
    })).isSameAs(boom);
    assertThat(f).hasContent("old");
    assertThat(names()).containsExactly("model.safetensors");
  }

  @Test
  void aFailedRenameNamesTheTargetAndLeavesNoTemporaryFile() throws IOException {
    // a non-empty directory cannot be replaced by a file, whoever runs the test (root included)
    Path target = dir.resolve("occupied");
    Files.createDirectories(target.resolve("inside"));
    assertThatThrownBy(() -> AtomicFiles.writeString(target, "new"))
        .isInstanceOf(IOException.class).hasMessageContaining(target.toString());
    assertThat(target.resolve("inside")).isDirectory();
    assertThat(names()).containsExactly("occupied");
  }

  @Test
  void aReadOnlyDirectoryFailsNamingThePathAndKeepsTheOldFile() throws IOException {
    assumePosix();
    Path ro = Files.createDirectory(dir.resolve("ro"));
    Path f = ro.resolve("best.json");
    AtomicFiles.writeString(f, "old");
    Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
    try {
      assumeFalse(Files.isWritable(ro), "the directory is still writable (running as root)");
      assertThatThrownBy(() -> AtomicFiles.writeString(f, "new"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(ro.toAbsolutePath().toString())
          .hasMessageContaining("best.json");
      assertThat(f).hasContent("old");
      try (Stream<Path> s = Files.list(ro)) {
        assertThat(s.map(p -> p.getFileName().toString())).containsExactly("best.json");
      }
    } finally {
      Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
  }

  @Test
  void aMissingDirectoryFailsAndCreatesNothing() {
    Path f = dir.resolve("missing/x.json");
    assertThatThrownBy(() -> AtomicFiles.writeString(f, "x"))
        .isInstanceOf(IOException.class).hasMessageContaining(dir.resolve("missing").toString());
    assertThat(dir.resolve("missing")).doesNotExist();
  }

  @Test
  void writtenFilesHaveTheUmaskPermissions() throws IOException {
    assumePosix();
    // a file written through a temporary sibling gets what any new file gets, not createTempFile's 0600
    AtomicFiles.writeString(dir.resolve("written"), "x");
    assertThat(Files.getPosixFilePermissions(dir.resolve("written")))
        .isEqualTo(Files.getPosixFilePermissions(Files.createFile(dir.resolve("plain"))));
  }

  @Test
  void siblingsAreHiddenUniqueAndInTheTargetsDirectory() throws IOException {
    Path a = AtomicFiles.tempSibling(dir.resolve("x.json"));
    Path b = AtomicFiles.tempSibling(dir.resolve("x.json"));
    assertThat(a).isNotEqualTo(b).exists().isEmptyFile();
    assertThat(a.getParent()).isEqualTo(dir.toAbsolutePath());
    assertThat(a.getFileName().toString()).startsWith(".x.json.").endsWith(".tmp");
  }

  @Test
  void movesFilesAndDirectoriesAndForcesThem() throws IOException {
    Path from = Files.createDirectories(dir.resolve(".tmp-x/sub"));
    Files.writeString(from.resolve("f"), "y");
    AtomicFiles.fsync(from.resolve("f"));
    AtomicFiles.fsync(from);
    AtomicFiles.move(dir.resolve(".tmp-x"), dir.resolve("x"));
    assertThat(dir.resolve("x/sub/f")).hasContent("y");
    Files.writeString(dir.resolve("a"), "1");
    Files.writeString(dir.resolve("b"), "2");
    AtomicFiles.move(dir.resolve("a"), dir.resolve("b"));
    assertThat(dir.resolve("b")).hasContent("1");
    assertThat(names()).containsExactlyInAnyOrder("x", "b");
  }

  private static void assumePosix() {
    assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"), "no POSIX permissions");
  }

  private List<String> names() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }
}
