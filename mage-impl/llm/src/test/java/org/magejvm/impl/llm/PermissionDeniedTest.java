package org.magejvm.impl.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.text.HfTokenizer;

/**
 * A checkpoint file the process may not read is reported as "permission denied: PATH", not as missing or malformed.
 * Skipped where modes are not enforced: as root (which reads every file whatever its mode) or on a file system
 * without POSIX permissions.
 */
class PermissionDeniedTest {

  /** Makes {@code p} unreadable and reports whether the process then really cannot read it. */
  private static boolean deny(Path p, String mode) throws IOException {
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    return !Files.isReadable(p) || (Files.isDirectory(p) && !Files.isExecutable(p));
  }

  @Test
  void unreadableCheckpointFilesArePermissionDenied(@TempDir Path tmp) throws IOException {
    Assumptions.assumeTrue(Files.getFileStore(tmp).supportsFileAttributeView(PosixFileAttributeView.class),
        "no POSIX permissions here");
    Path dir = tmp.resolve("tiny");
    TinyCheckpoint.write(dir, TinyCheckpoint.Spec.small("PASS BET", 3));
    Assumptions.assumeTrue(deny(dir.resolve("config.json"), "---------"),
        "modes are not enforced for user " + System.getProperty("user.name") + " (root reads every file)");
    try {
      assertThatThrownBy(() -> Qwen3Config.fromFile(dir)).isInstanceOf(CheckpointException.class)
          .hasMessage("permission denied: " + dir.resolve("config.json"));
    } finally {
      Files.setPosixFilePermissions(dir.resolve("config.json"), PosixFilePermissions.fromString("rw-r--r--"));
    }
    deny(dir.resolve("tokenizer.json"), "---------");
    try {
      assertThatThrownBy(() -> HfTokenizer.load(dir)).isInstanceOf(CheckpointException.class)
          .hasMessage("permission denied: " + dir.resolve("tokenizer.json"));
    } finally {
      Files.setPosixFilePermissions(dir.resolve("tokenizer.json"), PosixFilePermissions.fromString("rw-r--r--"));
    }
    deny(dir.resolve("model.safetensors"), "---------");
    try {
      assertThatThrownBy(() -> Qwen3Checkpoint.loadModel(dir, Device.cpu(), DataType.FLOAT32))
          .isInstanceOf(CheckpointException.class)
          .hasMessage("permission denied: " + dir.resolve("model.safetensors"));
    } finally {
      Files.setPosixFilePermissions(dir.resolve("model.safetensors"), PosixFilePermissions.fromString("rw-r--r--"));
    }
    // a directory the process may not search: its files look absent to Files.exists, but are denied, not missing
    deny(dir, "rw-------");
    try {
      assertThatThrownBy(() -> HfTokenizer.load(dir.resolve("tokenizer.json"))).isInstanceOf(CheckpointException.class)
          .hasMessage("permission denied: " + dir.resolve("tokenizer.json"));
      assertThatThrownBy(() -> Qwen3Config.fromFile(dir.resolve("config.json"))).isInstanceOf(CheckpointException.class)
          .hasMessage("permission denied: " + dir.resolve("config.json"));
    } finally {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    }
    try (var m = Qwen3Checkpoint.loadModel(dir, Device.cpu(), DataType.FLOAT32)) {
      assertThat(m.config().vocabSize()).isPositive();
    }
  }

  @Test
  void missingFilesAreStillNotFound(@TempDir Path tmp) {
    assertThatThrownBy(() -> HfTokenizer.load(tmp)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("not found");
    assertThatThrownBy(() -> Qwen3Config.fromFile(tmp)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("not found");
    assertThatThrownBy(() -> Qwen3Checkpoint.loadModel(tmp.resolve("absent"), Device.cpu(), DataType.FLOAT32))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("does not exist");
  }
}
