package org.magejvm.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OperatorTraceSummaryTest {
  @TempDir Path dir;

  private static String event(String name, int tid, double ts, double dur) {
    return "{\"name\": \"" + name + "\", \"ph\": \"X\", \"ts\": " + ts + ", \"dur\": " + dur + ", \"tid\": " + tid
        + ", \"pid\": \"CPU Functions\", \"args\": {}}";
  }

  @Test
  void selfTimeIsEachCallLessTheCallsItMade() throws IOException {
    // thread 1: linear [0, 100) runs matmul [10, 90) which runs mm [20, 80); then add [200, 210)
    // thread 2: mm [5, 45), overlapping thread 1 in time but not nested in it
    Path trace = dir.resolve("trace.json");
    Files.writeString(trace, "[\n" + String.join(",\n",
        event("aten::add", 1, 200, 10),
        event("aten::mm", 1, 20, 60),
        event("aten::linear", 1, 0, 100),
        event("aten::matmul", 1, 10, 80),
        event("aten::mm", 2, 5, 40),
        "{\"name\": \"a counter\", \"ph\": \"C\", \"ts\": 1}") + "\n]\n");
    List<OperatorTraceSummary.Row> rows = OperatorTraceSummary.summarize(trace);
    OperatorTraceSummary.Row top = rows.get(rows.size() - 1);
    assertThat(top.name()).isEqualTo("(top level)");
    assertThat(top.calls()).isEqualTo(3);
    assertThat(top.selfMicros()).isEqualTo(150.0);
    Map<String, OperatorTraceSummary.Row> byName = rows.subList(0, rows.size() - 1).stream()
        .collect(Collectors.toMap(OperatorTraceSummary.Row::name, r -> r));
    assertThat(byName.get("aten::mm").selfMicros()).isEqualTo(100.0);
    assertThat(byName.get("aten::mm").calls()).isEqualTo(2);
    assertThat(byName.get("aten::matmul").selfMicros()).isEqualTo(20.0);
    assertThat(byName.get("aten::linear").selfMicros()).isEqualTo(20.0);
    assertThat(byName.get("aten::add").selfMicros()).isEqualTo(10.0);
    // largest self time first, and the self times add up to the top-level time
    assertThat(rows.get(0).name()).isEqualTo("aten::mm");
    assertThat(byName.values().stream().mapToDouble(OperatorTraceSummary.Row::selfMicros).sum()).isEqualTo(150.0);
  }

  @Test
  void aFileThatIsNoTraceIsNamed() throws IOException {
    Path bad = dir.resolve("not-a-trace.json");
    Files.writeString(bad, "{\"traceEvents\": 3}");
    assertThatThrownBy(() -> OperatorTraceSummary.summarize(bad))
        .isInstanceOf(IOException.class).hasMessageContaining("not-a-trace.json");
  }
}
