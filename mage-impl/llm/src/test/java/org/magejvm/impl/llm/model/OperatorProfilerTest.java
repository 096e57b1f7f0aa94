package org.magejvm.impl.llm.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OperatorProfilerTest {
  @TempDir Path dir;

  private static void someOperators() {
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      NDArray a = m.ones(new Shape(4, 4));
      a.add(a).matMul(a).toFloatArray();
    }
  }

  @Test
  void writesTheOperatorsItRecordedAsAChromeTrace() throws Exception {
    Path trace = dir.resolve("trace.json");
    OperatorProfiler.start();
    someOperators();
    OperatorProfiler.stop(trace);
    String text = Files.readString(trace);
    assertThat(text).startsWith("[").contains("\"ph\": \"X\"").contains("aten::add").contains("aten::mm");
  }

  @Test
  void oneRecordingAtATime() throws Exception {
    assertThatThrownBy(() -> OperatorProfiler.stop(dir.resolve("t.json")))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not recording");
    OperatorProfiler.start();
    try {
      assertThatThrownBy(OperatorProfiler::start)
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("already recording");
    } finally {
      OperatorProfiler.stop(dir.resolve("t.json"));
    }
    assertThat(dir.resolve("t.json")).exists();
  }

  @Test
  void aMissingDirectoryIsNamedAndTheRecordingStillStops() {
    Path missing = dir.resolve("no-such-dir").resolve("trace.json");
    OperatorProfiler.start();
    assertThatThrownBy(() -> OperatorProfiler.stop(missing))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-such-dir");
    // stopped: a new recording can start
    OperatorProfiler.start();
    OperatorProfiler.stop(dir.resolve("again.json"));
    assertThat(dir.resolve("again.json")).exists();
  }
}
