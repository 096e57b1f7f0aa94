package org.magejvm.examples.bench;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Sums a libtorch operator trace (the Chrome trace {@code OperatorProfiler} writes) by operator: calls and self time,
 * that is each call's duration less the calls it made (a {@code linear} runs a {@code matmul} that runs an {@code
 * mm}), so that the self times add up to the time spent inside libtorch operators.
 */
final class OperatorTraceSummary {
  /** One operator's totals. */
  record Row(String name, long calls, double selfMicros) {}

  private record Event(String name, long tid, double start, double duration) {}

  private OperatorTraceSummary() {}

  /**
   * Reads a trace.
   *
   * @param file the Chrome trace (a JSON array of complete events, {@code "ph": "X"})
   * @return the operators by decreasing self time, and as the last row {@code (top level)} the time of the calls made
   *     from outside libtorch
   * @throws IOException when the file cannot be read or is not such a trace
   */
  static List<Row> summarize(Path file) throws IOException {
    List<Event> events = new ArrayList<>();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8); JsonReader json = new JsonReader(in)) {
      json.beginArray();
      while (json.hasNext()) {
        String name = null;
        String phase = null;
        long tid = 0;
        double ts = 0;
        double dur = 0;
        json.beginObject();
        while (json.hasNext()) {
          String key = json.nextName();
          switch (key) {
            case "name" -> name = json.nextString();
            case "ph" -> phase = json.nextString();
            case "ts" -> ts = json.nextDouble();
            case "dur" -> dur = json.nextDouble();
            case "tid" -> tid = json.peek() == JsonToken.NUMBER ? json.nextLong() : json.nextString().hashCode();
            default -> json.skipValue();
          }
        }
        json.endObject();
        if ("X".equals(phase) && name != null) {
          events.add(new Event(name, tid, ts, dur));
        }
      }
      json.endArray();
    } catch (IllegalStateException | NumberFormatException e) {
      throw new IOException(file + " is not a Chrome trace of complete events: " + e.getMessage(), e);
    }
    events.sort(Comparator.comparingLong(Event::tid).thenComparingDouble(Event::start)
        .thenComparing(Comparator.comparingDouble(Event::duration).reversed()));
    Map<String, double[]> totals = new HashMap<>();
    double topLevel = 0;
    long topCalls = 0;
    Deque<Event> open = new ArrayDeque<>();
    long tid = Long.MIN_VALUE;
    for (Event e : events) {
      if (e.tid() != tid) {
        open.clear();
        tid = e.tid();
      }
      while (!open.isEmpty() && open.peek().start() + open.peek().duration() <= e.start()) {
        open.pop();
      }
      if (open.isEmpty()) {
        topLevel += e.duration();
        topCalls++;
      } else {
        totals.get(open.peek().name())[1] -= e.duration();
      }
      double[] t = totals.computeIfAbsent(e.name(), k -> new double[2]);
      t[0]++;
      t[1] += e.duration();
      open.push(e);
    }
    List<Row> rows = new ArrayList<>();
    totals.forEach((name, t) -> rows.add(new Row(name, (long) t[0], t[1])));
    rows.sort(Comparator.comparingDouble(Row::selfMicros).reversed());
    rows.add(new Row("(top level)", topCalls, topLevel));
    return rows;
  }

  /**
   * Prints the operators that take most of the self time, per decoding step.
   *
   * @param file the trace
   * @param steps the decoding steps it recorded
   * @param top how many operators to print
   * @throws IOException when the trace cannot be read
   */
  static void print(Path file, int steps, int top) throws IOException {
    List<Row> rows = summarize(file);
    Row topLevel = rows.remove(rows.size() - 1);
    System.out.printf(Locale.ROOT, "operators (libtorch's profiler, which slows each call): %.2f ms per step inside"
        + " operators, %.0f calls per step from outside libtorch%n", topLevel.selfMicros() / 1e3 / steps,
        (double) topLevel.calls() / steps);
    for (Row r : rows.subList(0, Math.min(top, rows.size()))) {
      System.out.printf(Locale.ROOT, "  %-28s %8.3f ms/step %7.1f calls/step %7.1f us/call%n", r.name(),
          r.selfMicros() / 1e3 / steps, (double) r.calls() / steps, r.selfMicros() / r.calls());
    }
  }
}
