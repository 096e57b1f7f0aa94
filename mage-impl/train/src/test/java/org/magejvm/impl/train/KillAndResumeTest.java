package org.magejvm.impl.train;

import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.checkpoint.Durable;
import org.magejvm.impl.train.listen.MetricsFileListener;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exact resume after a real SIGKILL: a child JVM ({@link ResumeChild}) trains the tiny run with a checkpoint after
 * every iteration and is killed with {@code destroyForcibly()} at a random moment after its second checkpoint
 * appears; another child resumes from the latest complete checkpoint. Its {@code metrics.jsonl} must then hold every
 * iteration exactly once, equal (timings aside, work counters such as {@code tokens/update_checks} included, with the
 * anchor check on) to that of an uninterrupted child, and its final weights must be
 * bit-identical. All children run libtorch with one intra-op and one inter-op thread.
 */
class KillAndResumeTest {

  @Test
  void aRunKilledWithSigkillAndResumedMatchesAnUninterruptedRun(@TempDir Path tmp) throws Exception {
    long t0 = System.nanoTime();
    Path killed = tmp.resolve("killed");
    Path whole = tmp.resolve("whole");
    Process victim = start(killed, 1000, "fresh");
    Path second = killed.resolve("checkpoints").resolve(TrainingCheckpoint.directoryName(2));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!Files.isDirectory(second)) {
      assertThat(victim.isAlive()).as("the child died early:%n%s", log(killed)).isTrue();
      assertThat(System.nanoTime()).as("no second checkpoint after 120 s:%n%s", log(killed)).isLessThan(deadline);
      Thread.sleep(5);
    }
    int delayMs = ThreadLocalRandom.current().nextInt(400);
    Thread.sleep(delayMs);
    assertThat(victim.isAlive()).isTrue();
    victim.destroyForcibly();
    assertThat(victim.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(victim.exitValue()).as("killed by SIGKILL").isEqualTo(137);
    List<String> leftOver = new ArrayList<>();
    try (var s = Files.list(killed.resolve("checkpoints"))) {
      s.forEach(p -> leftOver.add(p.getFileName().toString()));
    }
    int resumeFrom = TrainingCheckpoint.list(killed.resolve("checkpoints")).keySet().stream()
        .mapToInt(Integer::intValue).max().orElseThrow();
    int killedLines = Files.readAllLines(killed.resolve(MetricsFileListener.FILE_NAME)).size();
    int total = resumeFrom + 2;
    long t1 = System.nanoTime();

    Process resumed = start(killed, total, "resume");
    Process uninterrupted = start(whole, total, "fresh");
    assertThat(resumed.waitFor(180, TimeUnit.SECONDS)).isTrue();
    assertThat(uninterrupted.waitFor(180, TimeUnit.SECONDS)).isTrue();
    assertThat(resumed.exitValue()).as("resumed child:%n%s", log(killed)).isZero();
    assertThat(uninterrupted.exitValue()).as("uninterrupted child:%n%s", log(whole)).isZero();
    // a kill that lands while the next checkpoint is being put in place leaves it complete under its temporary name,
    // and the resume puts it in place and starts from it (CheckpointManager's recovery)
    String next = ".tmp-" + TrainingCheckpoint.directoryName(resumeFrom + 1) + "-";
    boolean recoverable = leftOver.stream().anyMatch(n -> n.startsWith(next));
    if (recoverable && log(killed).contains("resumed-from " + (resumeFrom + 1))) {
      assertThat(log(killed)).contains("putting the complete checkpoint");
    } else {
      assertThat(log(killed)).contains("resumed-from " + resumeFrom);
    }

    List<JsonObject> expected = metrics(whole);
    List<JsonObject> actual = metrics(killed);
    assertThat(expected).hasSize(total);
    for (int i = 0; i < total; i++) {
      assertThat(actual.get(i).get("iteration").getAsInt()).isEqualTo(i);
    }
    assertThat(actual).hasSize(total);
    for (int i = 0; i < total; i++) {
      // the work counters too: the anchors the resumed run scores again are not counted (PolicyUpdater)
      assertThat(actual.get(i).get("tokens/update_checks")).as("iteration %d", i)
          .isEqualTo(expected.get(i).get("tokens/update_checks")).isNotNull();
      assertThat(actual.get(i)).as("iteration %d", i).isEqualTo(expected.get(i));
    }
    assertThat(expected.get(resumeFrom).has("anchor_logprob_change")).as("the anchor check ran").isTrue();
    // the weights changed from iteration to iteration, so equal metrics are not a coincidence of a frozen model
    assertThat(expected.get(total - 1).get("actor/pg_loss")).isNotEqualTo(expected.get(total - 2).get("actor/pg_loss"));
    // and the final weights are bit-identical
    String sha = "weights/model.safetensors";
    assertThat(Durable.sha256(finalCheckpoint(killed, total).resolve(sha)))
        .isEqualTo(Durable.sha256(finalCheckpoint(whole, total).resolve(sha)));
    assertThat(Durable.sha256(finalCheckpoint(whole, total).resolve(sha)))
        .isNotEqualTo(Durable.sha256(whole.resolve("tiny-model/model.safetensors")));
    System.out.printf(Locale.ROOT, "kill-and-resume: killed %d ms after checkpoint 2 appeared, with %d metrics lines"
        + " and checkpoints dir %s; resumed from %d to %d; kill phase %.1f s, resume + uninterrupted %.1f s%n",
        delayMs, killedLines, leftOver, resumeFrom, total, (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
  }

  private static Path finalCheckpoint(Path run, int total) {
    return run.resolve("checkpoints").resolve(TrainingCheckpoint.directoryName(total));
  }

  /** The metrics lines without timings, in file order. */
  private static List<JsonObject> metrics(Path run) throws IOException {
    List<JsonObject> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve(MetricsFileListener.FILE_NAME), StandardCharsets.UTF_8)) {
      JsonObject o = JsonParser.parseString(line).getAsJsonObject();
      JsonObject kept = new JsonObject();
      for (Map.Entry<String, JsonElement> e : o.entrySet()) {
        if (!e.getKey().startsWith("timing/")) {
          kept.add(e.getKey(), e.getValue());
        }
      }
      out.add(kept);
    }
    return out;
  }

  private static Process start(Path runDir, int iterations, String mode) throws IOException {
    Files.createDirectories(runDir);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC",
        "-Dai.djl.pytorch.num_threads=1", "-Dai.djl.pytorch.num_interop_threads=1", "-Dai.djl.offline=true",
        "-Dai.djl.default_engine=PyTorch", "-cp", System.getProperty("java.class.path"),
        ResumeChild.class.getName(), runDir.toString(), Integer.toString(iterations), mode);
    pb.environment().put("DJL_OFFLINE", "true");
    pb.environment().put("OPT_OUT_TRACKING", "true");
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(runDir.resolve("child.log").toFile()));
    return pb.start();
  }

  private static String log(Path runDir) {
    try {
      List<String> lines = Files.readAllLines(runDir.resolve("child.log"), StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
