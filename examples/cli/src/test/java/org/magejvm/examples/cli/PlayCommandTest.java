package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.gson.JsonObject;
import org.magejvm.examples.testenv.GuessProvider;
import org.magejvm.impl.rollout.Seeds;
import org.junit.jupiter.api.Test;

class PlayCommandTest {

  private static CliRun run(String... args) {
    return CliRun.of(args);
  }

  private static double shareOfSecret(int meta, long seed, int secret) {
    int n = 0;
    for (int b = 0; b < meta; b++) {
      n += GuessProvider.secretFor(Seeds.taskSeed(seed, b)) == secret ? 1 : 0;
    }
    return n / (double) meta;
  }

  @Test
  void printsJsonMetricsOfAScriptedPolicy() {
    CliRun r = run("play", "--env", "cli-guess", "--policy", "learner", "--meta-episodes", "20", "--seed", "3",
        "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonObject settings = r.json().getAsJsonObject("settings");
    assertThat(settings.get("opponent").getAsString()).isEqualTo("greedy");
    assertThat(settings.get("seat").getAsString()).isEqualTo("first");
    assertThat(settings.get("context_mode").getAsString()).isEqualTo("reflection_only");
    assertThat(settings.get("episodes").getAsInt()).isEqualTo(3);
    assertThat(r.metric("meta_episodes")).isEqualTo(20);
    // the learner tries 1, 2, 3 in successive episodes against an opponent that punishes every wrong guess
    double first = shareOfSecret(20, 3, 1);
    assertThat(r.metric("success_rate[0]")).isCloseTo(first, within(1e-9));
    assertThat(r.metric("success_rate[1]")).isCloseTo(first + shareOfSecret(20, 3, 2), within(1e-9));
    assertThat(r.metric("success_rate[2]")).isEqualTo(1.0);
    assertThat(r.metric("greedy/success_rate[2]")).isEqualTo(1.0);
    assertThat(r.json().getAsJsonArray("failures")).isEmpty();
  }

  @Test
  void aRunsConfigPlaysAsTheRunTrainedAndTheReflectionControlsChangeWhatLaterAttemptsSee(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    CliRun print = run("quickstart", "--print-config");
    assertThat(print.code()).as(print.err()).isZero();
    java.nio.file.Path config = dir.resolve("config.json");
    java.nio.file.Files.writeString(config, print.out());
    // the quick start's config: Goalkeeper, compact prompts, reflections; a keeper that acts on its lessons
    CliRun own = run("play", "--env", "mage-goalkeeper", "--policy", "random-plan", "--config", config.toString(),
        "--meta-episodes", "140", "--seed", "2", "--json");
    assertThat(own.code()).as(own.err()).isZero();
    JsonObject settings = own.json().getAsJsonObject("settings");
    assertThat(settings.get("context_mode").getAsString()).isEqualTo("reflection_only");
    assertThat(settings.get("prompt_style").getAsString()).isEqualTo("compact");
    assertThat(settings.get("reflection_control").getAsString()).isEqualTo("own");
    assertThat(own.metric("reflection_turns")).isPositive();
    CliRun removed = run("play", "--env", "mage-goalkeeper", "--policy", "random-plan", "--config",
        config.toString(), "--meta-episodes", "140", "--seed", "2", "--reflection-control", "removed", "--json");
    assertThat(removed.code()).as(removed.err()).isZero();
    assertThat(removed.json().getAsJsonObject("settings").get("reflection_control").getAsString())
        .isEqualTo("removed");
    // the same first attempts; later ones differ once the lessons are gone
    assertThat(removed.metric("success_rate[0]")).isEqualTo(own.metric("success_rate[0]"));
    // an explicit option still wins over the config's
    CliRun verbose = run("play", "--env", "mage-goalkeeper", "--config", config.toString(), "--prompt-style",
        "verbose", "--meta-episodes", "2", "--json");
    assertThat(verbose.json().getAsJsonObject("settings").get("prompt_style").getAsString()).isEqualTo("verbose");
    // a config of another game, a missing file and an unknown control are usage errors naming what is wrong
    CliRun other = run("play", "--env", "mage-kuhn-poker", "--config", config.toString());
    assertThat(other.code()).isEqualTo(2);
    assertThat(other.err()).contains("--config").contains("mage-goalkeeper").contains("mage-kuhn-poker");
    CliRun missing = run("play", "--env", "mage-goalkeeper", "--config", dir.resolve("nope.json").toString());
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("--config").contains("nope.json");
    CliRun bad = run("play", "--env", "mage-goalkeeper", "--reflection-control", "hidden");
    assertThat(bad.code()).isNotZero();
    assertThat(bad.err()).contains("hidden").contains("own, removed or shuffled");
  }

  @Test
  void printsAReadableTable() {
    CliRun r = run("play", "--env", "cli-guess", "--policy", "learner", "--meta-episodes", "8", "--opponent",
        "patient", "--seat", "second", "--prompt-style", "compact");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("mage play: cli-guess, policy learner, opponent patient (seat second)",
        "8 meta-episodes x 3 episodes", "success_rate", "independent_success_rate", "score",
        "opponent patient (8 meta-episodes)", "invalid action rate 0.000");
    // against the patient opponent the learner always finds the number in the first episode
    assertThat(r.out()).containsPattern("\\nsuccess_rate\\s+1\\.000\\s+1\\.000\\s+1\\.000");
  }

  @Test
  void presetsAndContextModesChangeWhatIsPlayed() {
    CliRun gigpo = run("play", "--env", "cli-guess", "--policy", "learner", "--meta-episodes", "20", "--seed", "3",
        "--preset", "gigpo", "--json");
    assertThat(gigpo.code()).as(gigpo.err()).isZero();
    assertThat(gigpo.json().getAsJsonObject("settings").get("context_mode").getAsString()).isEqualTo("none");
    assertThat(gigpo.json().getAsJsonObject("settings").get("preset").getAsString()).isEqualTo("gigpo");
    double first = shareOfSecret(20, 3, 1);
    assertThat(gigpo.metric("success_rate[2]")).isCloseTo(first, within(1e-9));
    assertThat(gigpo.metric("reflection_turns")).isZero();

    CliRun history = run("play", "--env", "cli-guess", "--policy", "learner", "--meta-episodes", "5",
        "--context-mode", "history-only", "--episodes", "2", "--json");
    assertThat(history.code()).as(history.err()).isZero();
    assertThat(history.metric("reflection_turns")).isZero();
    assertThat(history.json().getAsJsonObject("metrics").has("success_rate[1]")).isTrue();
    assertThat(history.json().getAsJsonObject("metrics").has("success_rate[2]")).isFalse();
  }

  @Test
  void aStepTimeoutBoundsPluginCallsAndIsValidated() {
    CliRun plain = run("play", "--env", "cli-guess", "--policy", "learner", "--meta-episodes", "8", "--seed", "3",
        "--json");
    CliRun bounded = run("play", "--env", "cli-guess", "--policy", "learner", "--meta-episodes", "8", "--seed", "3",
        "--step-timeout", "30", "--json");
    assertThat(bounded.code()).as(bounded.err()).isZero();
    assertThat(bounded.metric("success_rate[0]")).isEqualTo(plain.metric("success_rate[0]"));
    assertThat(bounded.metric("success_rate[2]")).isEqualTo(plain.metric("success_rate[2]"));
    CliRun zero = run("play", "--env", "cli-guess", "--step-timeout", "0");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("--step-timeout must be in (0, 86400] seconds, got 0.0");
  }

  @Test
  void namesTheKnownValuesOnBadInput() {
    CliRun env = run("play", "--env", "nowhere");
    assertThat(env.code()).isEqualTo(1);
    assertThat(env.err()).contains("error:", "'nowhere'", "cli-guess");
    CliRun opponent = run("play", "--env", "cli-guess", "--opponent", "mcts");
    assertThat(opponent.code()).isEqualTo(2);
    assertThat(opponent.err()).contains("unknown opponent 'mcts'", "greedy", "patient");
    CliRun policy = run("play", "--env", "cli-guess", "--policy", "oracle");
    assertThat(policy.code()).isEqualTo(2);
    assertThat(policy.err()).contains("unknown policy 'oracle'", "known policies: random, learner");
    assertThat(run("play", "--env", "cli-guess", "--seat", "third").err()).contains("'first' or 'second'");
    assertThat(run("play", "--env", "cli-guess", "--context-mode", "all").err())
        .contains("unknown context mode 'all'", "history_only");
    assertThat(run("play", "--env", "cli-guess", "--preset", "ppo").err()).contains("unknown preset 'ppo'").contains("mage, mage-reference, lamer");
    assertThat(run("play").code()).isEqualTo(2);
  }

  @Test
  void reportsFailedEnvironmentsAndMeasuresTheRest() {
    long bad = Seeds.taskSeed(0, 0);
    CliRun r = run("play", "--env", "cli-guess", "--policy", "learner", "--meta-episodes", "6", "--env-option",
        "explode_seed=" + bad, "--json");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.metric("meta_episodes")).isEqualTo(5);
    assertThat(r.json().getAsJsonArray("failures")).hasSize(1);
    assertThat(r.err()).contains("warning: environment 'cli-guess' failed in meta-episode eval0/0", "kaboom");
  }
}
