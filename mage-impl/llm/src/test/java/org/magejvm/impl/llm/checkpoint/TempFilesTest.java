package org.magejvm.impl.llm.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;

/** Files written atomically get the permissions any new file gets from the umask, not createTempFile's 0600. */
class TempFilesTest {

  @Test
  void atomicallyWrittenFilesHaveTheUmaskPermissions(@TempDir Path dir) throws Exception {
    Path plain = Files.createFile(dir.resolve("plain"));
    Path weights = dir.resolve("model.safetensors");
    new SafetensorsWriter().add("w", new float[] {1, 2}, new long[] {2}, SafetensorsDtype.F32).write(weights);
    assertThat(Files.getPosixFilePermissions(weights)).isEqualTo(Files.getPosixFilePermissions(plain));
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("plain", "model.safetensors");
    }
  }

  @Test
  void siblingsAreHiddenUniqueAndInTheTargetsDirectory(@TempDir Path dir) throws Exception {
    Path a = TempFiles.sibling(dir.resolve("x.json"));
    Path b = TempFiles.sibling(dir.resolve("x.json"));
    assertThat(a).isNotEqualTo(b).exists();
    assertThat(a.getParent()).isEqualTo(dir.toAbsolutePath());
    assertThat(a.getFileName().toString()).startsWith(".x.json.").endsWith(".tmp");
  }
}
