package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.engine.Engine;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.TinyCheckpoint;

/** Size options are checked before anything is allocated, and every error is one line with exit code 2 or 1. */
class CliErrorsTest {

  private static final Path FIXTURE = ModelCommandsTest.FIXTURE;

  @Test
  void absurdMetaEpisodeCountsAreUsageErrors() {
    CliRun play = CliRun.of("play", "--env", "mage-kuhn-poker", "--meta-episodes", "2147483647");
    assertThat(play.code()).isEqualTo(2);
    assertThat(play.err()).startsWith("error: --meta-episodes must be <= 65536").hasLineCount(1)
        .contains("(see 'mage play --help')");
    CliRun zero = CliRun.of("play", "--env", "mage-kuhn-poker", "--meta-episodes", "0");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).startsWith("error: --meta-episodes must be >= 1, got 0").hasLineCount(1);
    CliRun transcripts = CliRun.of("transcripts", "--env", "mage-kuhn-poker", "--policy", "random", "--meta-episodes", "2147483647",
        "--out", "unused");
    assertThat(transcripts.code()).isEqualTo(2);
    assertThat(transcripts.err()).startsWith("error: --meta-episodes must be <= 65536").hasLineCount(1);
  }

  @Test
  void withoutTheBenchmarkAndResearchJarsTheCommandsNameThem(@TempDir Path tmp) {
    // the tool's own class path holds neither mage-bench nor mage-research (they depend on the tool, not it on them)
    CliRun bench = CliRun.of("bench", "kuhn");
    assertThat(bench.code()).isEqualTo(1);
    assertThat(bench.err()).hasLineCount(1).contains("no benchmark program is on the class path")
        .contains("examples/bench/target/mage-bench.jar");
    CliRun experiment = CliRun.of("experiment", "kuhn-methods", "--work-dir", tmp.toString());
    assertThat(experiment.code()).isEqualTo(1);
    assertThat(experiment.err()).hasLineCount(1).contains("the methods comparison (mage-research) is not on the class"
        + " path").contains("examples/research/target/mage-research.jar");
    assertThat(tmp.resolve("warm-start")).doesNotExist();
  }

  @Test
  void maxNewTokensBeyondTheModelsContextIsAUsageError() {
    CliRun gen = CliRun.of("generate", "--model", FIXTURE.toString(), "--prompt", "hi", "--max-new-tokens",
        "2147483647");
    assertThat(gen.code()).isEqualTo(2);
    assertThat(gen.err()).startsWith("error: --max-new-tokens must be <= 512 (the model's context")
        .hasLineCount(1);
    CliRun play = CliRun.of("play", "--env", "mage-kuhn-poker", "--model", FIXTURE.toString(), "--max-new-tokens",
        "100000");
    assertThat(play.code()).isEqualTo(2);
    assertThat(play.err()).contains("--max-new-tokens must be <= 512").hasLineCount(1);
  }

  @Test
  void samplingOptionsFollowTheServersRules(@TempDir Path tmp) {
    String[][] cases = {
        {"--temperature", "1e-300", "--temperature must be 0 (greedy) or in [0.01"},
        {"--temperature", "-1", "--temperature must be 0 (greedy)"},
        {"--temperature", "NaN", "--temperature must be 0 (greedy)"},
        {"--top-p", "0", "--top-p must be in (0, 1]"},
        {"--top-p", "1.5", "--top-p must be in (0, 1]"},
        {"--top-k", "-2", "--top-k must be >= -1"},
    };
    for (String[] c : cases) {
      CliRun gen = CliRun.of("generate", "--model", FIXTURE.toString(), "--prompt", "hi", "--max-new-tokens", "2",
          c[0], c[1]);
      assertThat(gen.code()).as(c[0] + " " + c[1] + ": " + gen.err()).isEqualTo(2);
      assertThat(gen.err()).as(c[0] + " " + c[1]).contains(c[2]).doesNotContain("non-finite");
    }
    Path tiny = tmp.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("hi there", 3));
    for (String[] ok : new String[][] {{"--temperature", "0"}, {"--temperature", "0.01"}, {"--top-k", "-1"}}) {
      CliRun gen = CliRun.of("generate", "--model", tiny.toString(), "--prompt", "hi", "--max-new-tokens", "2",
          ok[0], ok[1]);
      assertThat(gen.code()).as(ok[0] + " " + ok[1] + ": " + gen.err()).isZero();
    }
  }

  @Test
  void aGpuRequestWithoutCudaIsOneLine() {
    Assumptions.assumeTrue(Engine.getEngine("PyTorch").getGpuCount() == 0, "this machine has a GPU");
    CliRun r = CliRun.of("logits", "--model", FIXTURE.toString(), "--ids", "1", "--device", "gpu");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith("error: --device gpu: the PyTorch engine sees no CUDA GPU").hasLineCount(1);
  }

  @Test
  void unknownOptionsAreOneLineAndVerboseAddsTheStackTrace() {
    CliRun unknown = CliRun.of("play", "--env", "mage-kuhn-poker", "--bogus");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).startsWith("error: Unknown option: '--bogus'").hasLineCount(1);
    CliRun quiet = CliRun.of("logits", "--model", FIXTURE.resolve("absent").toString(), "--ids", "1");
    assertThat(quiet.code()).isEqualTo(2);
    assertThat(quiet.err()).startsWith("error: --model: ").contains("does not exist").hasLineCount(1);
    CliRun verbose = CliRun.of("logits", "--model", FIXTURE.resolve("absent").toString(), "--ids", "1",
        "--verbose");
    assertThat(verbose.code()).isEqualTo(2);
    assertThat(verbose.err()).startsWith("error: --model: ").contains("\tat org.magejvm.examples.cli.");
  }

  @Test
  void errorsWithoutAUsefulMessageAreNamedAndOverflowsAndOutOfMemoryAreOneLine() {
    assertThat(MageCli.oneLine(new UnsupportedOperationException("JsonObject")))
        .startsWith("UnsupportedOperationException: JsonObject at ");
    assertThat(MageCli.oneLine(new OutOfMemoryError("Java heap space")))
        .startsWith("out of memory (Java heap space); ask for less");
    assertThat(MageCli.oneLine(new IllegalStateException("first\nsecond")))
        .isEqualTo("first (more with --verbose)");
    assertThat(MageCli.oneLine(new NullPointerException())).startsWith("java.lang.NullPointerException at ");
  }
}
