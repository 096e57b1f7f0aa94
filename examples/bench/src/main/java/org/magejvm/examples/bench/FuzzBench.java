package org.magejvm.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.magejvm.impl.llm.TinyCheckpoint;

/**
 * A fuzzing campaign against the checkpoint loader (issue 12): writes the tiny checkpoint, makes N seeded mutants of
 * it with {@link CheckpointFuzzer} (the mutator the unit test uses) and probes each one (load, render the chat
 * template, encode, logits). Prints the count of each outcome: loaded, refused by exception type, and unexpected
 * (with each unexpected mutant and what it gave).
 *
 * <p>Run with {@code ./mage bench fuzz [N, default 200] [seed=S, default 12] [timeout=SECONDS, default 30]}.
 */
public final class FuzzBench {
  private FuzzBench() {}

  /**
   * Runs the campaign.
   *
   * @param args the mutant count and {@code key=value} options (see the class comment)
   * @throws IOException when the temporary directories cannot be written
   */
  public static void main(String[] args) throws IOException {
    int n = 200;
    long seed = 12;
    int timeout = 30;
    for (String a : args) {
      if (a.startsWith("seed=")) {
        seed = Long.parseLong(a.substring(5));
      } else if (a.startsWith("timeout=")) {
        timeout = Integer.parseInt(a.substring(8));
      } else if (a.matches("\\d+")) {
        n = Integer.parseInt(a);
      } else {
        throw new IllegalArgumentException("unknown argument " + a + "; usage: fuzz [N] [seed=S] [timeout=SECONDS]");
      }
    }
    Path root = Files.createTempDirectory("mage-fuzz");
    Path tiny = root.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("Play <action>(2, 2)</action>", 7));
    CheckpointFuzzer fuzzer = new CheckpointFuzzer(tiny);
    Random random = new Random(seed);
    Map<String, Integer> counts = new TreeMap<>();
    Map<String, Integer> perFile = new TreeMap<>();
    List<String> unexpected = new ArrayList<>();
    long start = System.nanoTime();
    long slowest = 0;
    for (int i = 0; i < n; i++) {
      Path dir = root.resolve("mutant-" + i);
      CheckpointFuzzer.Mutation mutation = fuzzer.mutate(dir, random);
      CheckpointFuzzer.Outcome outcome = CheckpointFuzzer.probe(dir, Duration.ofSeconds(timeout));
      slowest = Math.max(slowest, outcome.millis());
      String key = switch (outcome.kind()) {
        case LOADED -> "loaded";
        case REFUSED -> "refused " + outcome.detail();
        case UNEXPECTED -> "unexpected " + outcome.detail();
      };
      counts.merge(key, 1, Integer::sum);
      perFile.merge(mutation.file() + " " + outcome.kind().name().toLowerCase(Locale.ROOT), 1, Integer::sum);
      if (outcome.kind() == CheckpointFuzzer.Outcome.Kind.UNEXPECTED) {
        unexpected.add("#" + i + " " + mutation + " -> " + outcome);
      }
      CheckpointFuzzer.delete(dir);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(Locale.ROOT, "fuzz: %d mutants, seed %d, %.1f s (slowest probe %d ms)%n", n, seed, seconds,
        slowest);
    counts.forEach((k, v) -> System.out.printf(Locale.ROOT, "  %-40s %5d%n", k, v));
    System.out.println("by mutated file:");
    perFile.forEach((k, v) -> System.out.printf(Locale.ROOT, "  %-40s %5d%n", k, v));
    for (String u : unexpected) {
      System.out.println("UNEXPECTED " + u);
    }
    CheckpointFuzzer.delete(tiny);
    Files.deleteIfExists(root);
  }
}
