package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every size-type option of train, lora, sft, memory, experiment, quickstart and play refuses absurd values
 * (2147483647, 0, -1) before anything is loaded or allocated: exit code 2, one {@code error:} line naming the option.
 */
class SizeOptionsTest {

  private static final String FIXTURE = ModelCommandsTest.FIXTURE.toString();
  private static final String MAX = "2147483647";

  @TempDir static Path tmp;
  private static Path data;

  @BeforeAll
  static void data() throws IOException {
    data = tmp.resolve("data.jsonl");
    Files.writeString(data, "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}, {\"role\": \"assistant\","
        + " \"content\": \"yo\"}]}\n", StandardCharsets.UTF_8);
  }

  /** A command line (without the option), the option, and its absurd values (0 only where 0 is not allowed). */
  private static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    String[] play = {"play", "--env", "mage-kuhn-poker"};
    add(out, play, "--meta-episodes", MAX, "0", "-1");
    add(out, play, "--episodes", MAX, "0", "-1");
    add(out, play, "--max-turns", MAX, "0", "-1");
    add(out, play, "--max-new-tokens", MAX, "0", "-1");
    add(out, play, "--step-timeout", MAX, "0", "-1");
    add(out, new String[] {"play", "--env", "mage-kuhn-poker", "--model", FIXTURE}, "--max-new-tokens", "513");
    String[] train = {"train", "--preset", "gigpo", "--env", "mage-kuhn-poker", "--tiny", "--out",
        tmp.resolve("train").toString()};
    add(out, train, "--iterations", MAX, "0", "-1");
    add(out, train, "--validate-every", MAX, "-1");
    add(out, train, "--checkpoint-every", MAX, "-1");
    add(out, train, "--keep", MAX, "0", "-1");
    add(out, train, "--threads", MAX, "0", "-1");
    add(out, train, "--tasks", MAX, "0", "-1");
    add(out, train, "--group-size", MAX, "0", "-1");
    add(out, train, "--max-new-tokens", MAX, "8193", "0", "-1");
    add(out, train, "--lora-rank", MAX, "65", "0", "-1");
    add(out, train, "--val-meta-episodes", MAX, "0", "-1");
    add(out, train, "--step-timeout", MAX, "0", "-1");
    String[] trainModel = {"train", "--preset", "gigpo", "--env", "mage-kuhn-poker", "--model", FIXTURE, "--out",
        tmp.resolve("train2").toString()};
    add(out, trainModel, "--max-new-tokens", "513");
    add(out, trainModel, "--lora-rank", "65");
    String[] lora = {"lora", "--model", FIXTURE, "--env", "mage-kuhn-poker"};
    add(out, lora, "--iterations", MAX, "-1");
    add(out, lora, "--tasks", MAX, "0", "-1");
    add(out, lora, "--group-size", MAX, "0", "-1");
    add(out, lora, "--eval-meta-episodes", MAX, "0", "-1");
    add(out, lora, "--max-new-tokens", MAX, "513", "0", "-1");
    add(out, lora, "--micro-batch", MAX, "0", "-1");
    add(out, lora, "--lora-rank", MAX, "65", "0", "-1");
    add(out, lora, "--threads", MAX, "0", "-1");
    String[] sft = {"sft", "--model", FIXTURE, "--data", data.toString(), "--out", tmp.resolve("sft").toString()};
    add(out, sft, "--steps", MAX, "0", "-1");
    add(out, sft, "--epochs", MAX, "0", "-1");
    add(out, sft, "--batch-size", MAX, "0", "-1");
    add(out, sft, "--warmup", MAX, "-1");
    add(out, sft, "--max-length", MAX, "513", "0", "-1");
    add(out, sft, "--lora-rank", MAX, "65", "0", "-1");
    add(out, sft, "--threads", MAX, "0", "-1");
    add(out, sft, "--log-every", MAX, "0", "-1");
    String[] memory = {"memory", "--preset", "qwen3-0.6b"};
    add(out, memory, "--prompt-tokens", MAX, "40961", "0", "-1");
    add(out, memory, "--response-tokens", MAX, "0", "-1");
    add(out, memory, "--batch", MAX, "0", "-1");
    add(out, memory, "--lora-rank", MAX, "-1");
    String[] experiment = {"experiment", "kuhn-methods", "--work-dir", tmp.resolve("exp").toString()};
    add(out, experiment, "--iterations", MAX, "-1");
    add(out, experiment, "--tasks", MAX, "0", "-1");
    add(out, experiment, "--eval-meta-episodes", MAX, "0", "-1");
    add(out, experiment, "--threads", MAX, "0", "-1");
    add(out, experiment, "--warm-start-examples", MAX, "0", "-1");
    add(out, experiment, "--warm-start-epochs", MAX, "0", "-1");
    String[] quickstart = {"quickstart", "--work-dir", tmp.resolve("qs").toString()};
    add(out, quickstart, "--iterations", MAX, "-1");
    add(out, quickstart, "--threads", MAX, "0", "-1");
    add(out, experiment, "--warm-start-lr", "0", "-1", "NaN");
    for (String[] base : List.of(experiment, quickstart, train)) {
      // every training config key is checked by its record; --set names the key
      add(out, base, "--set", "rollout.tasks=0", "rollout.tasks=" + MAX, "rollout.group_size=-1",
          "adamw.learning_rate=0", "adamw.learning_rate=-1e-3", "adamw.learning_rate=NaN",
          "adamw.learning_rate=Infinity", "loss.kl_coefficient=-0.1", "checks.max_update_kl=-0.05",
          "checks.max_anchor_drop=-0.02", "credit.gamma_traj=-0.1", "credit.gamma_traj=1.5",
          "credit.gamma_traj=NaN", "rollout.step_timeout_seconds=-1", "sampling.max_new_tokens=0", "iterations=-1",
          "credit.gamma_trj=0.5", "rollout=3");
    }
    return out.stream();
  }

  private static void add(List<Arguments> out, String[] base, String option, String... values) {
    for (String v : values) {
      out.add(Arguments.of(String.join(" ", base), option, v));
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("cases")
  void absurdSizesAreOneLineUsageErrors(String base, String option, String value) {
    List<String> args = new ArrayList<>(List.of(base.split(" ")));
    args.add(option);
    args.add(value);
    CliRun r = CliRun.of(args.toArray(new String[0]));
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).startsWith("error: " + option).hasLineCount(1).doesNotContain("\tat ")
        .contains("(see 'mage " + args.get(0) + " --help')");
  }

  @Test
  void severalViolationsAreOneLineEach() {
    CliRun r = CliRun.of("lora", "--model", FIXTURE, "--env", "mage-kuhn-poker", "--tasks", "0", "--max-new-tokens",
        "100000", "--lora-rank", "1000");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().lines()).hasSize(3).allMatch(l -> l.startsWith("error: "));
    assertThat(r.err()).contains("--tasks must be >= 1, got 0", "--max-new-tokens must be <= 512",
        "--lora-rank must be <= 64");
  }

  @Test
  void theProductOfTasksAndGroupSizeIsBounded() {
    CliRun r = CliRun.of("train", "--preset", "gigpo", "--env", "mage-kuhn-poker", "--tiny", "--out",
        tmp.resolve("t3").toString(), "--tasks", "4096", "--group-size", "4096");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: --tasks x --group-size must be <= 65536 meta-episodes").hasLineCount(1)
        .contains("got 16777216");
  }

  @Test
  void theTurnsAPlayCanRecordMustFitTheHeap() {
    CliRun r = CliRun.of("play", "--env", "mage-kuhn-poker", "--meta-episodes", "65536", "--episodes", "1024",
        "--max-turns", "65536");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: --meta-episodes x --episodes x --max-turns: 65536 meta-episodes x 1024"
        + " episodes x 65536 turns").contains("more than half the heap").hasLineCount(1);
  }

  @Test
  void aBuilderRefusingAnOptionIsAUsageErrorButARunTimeFailureIsNot() throws IOException {
    // the optimizer's builder refuses a negative learning rate while the command reads its options: exit 2
    CliRun lr = CliRun.of("sft", "--model", FIXTURE, "--data", data.toString(), "--out",
        tmp.resolve("sft2").toString(), "--lr", "-1");
    assertThat(lr.code()).as(lr.err()).isEqualTo(2);
    assertThat(lr.err()).startsWith("error: ").hasLineCount(1).contains("(see 'mage sft --help')");
    // an IllegalArgumentException once the command runs (a transcript with an unknown role) is a failure: exit 1
    Path bad = tmp.resolve("bad.jsonl");
    Files.writeString(bad, "{\"messages\": [{\"role\": \"robot\", \"content\": \"beep\"}]}\n",
        StandardCharsets.UTF_8);
    CliRun run = CliRun.of("sft", "--model", FIXTURE, "--data", bad.toString(), "--out",
        tmp.resolve("sft3").toString());
    assertThat(run.code()).as(run.err()).isEqualTo(1);
    assertThat(run.err()).startsWith("error: ").contains("robot").hasLineCount(1).doesNotContain("--help");
    // --verbose adds the stack trace to a usage error too
    CliRun verbose = CliRun.of("sft", "--model", FIXTURE, "--data", data.toString(), "--out",
        tmp.resolve("sft2").toString(), "--lr", "-1", "--verbose");
    assertThat(verbose.code()).isEqualTo(2);
    assertThat(verbose.err()).contains("\tat org.magejvm.");
  }

  @Test
  void anUnknownPolicyOrEnvironmentIsAUsageError() {
    CliRun policy = CliRun.of("transcripts", "--env", "mage-kuhn-poker", "--policy", "nope", "--out",
        tmp.resolve("t.jsonl").toString());
    assertThat(policy.code()).as(policy.err()).isEqualTo(2);
    assertThat(policy.err()).startsWith("error: unknown policy 'nope'").hasLineCount(1);
    CliRun env = CliRun.of("lora", "--model", FIXTURE, "--env", "nope", "--iterations", "1");
    assertThat(env.code()).as(env.err()).isEqualTo(2);
    assertThat(env.err()).startsWith("error: --env: no EnvironmentProvider with id 'nope'").hasLineCount(1);
  }
}
