package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mage experiment} with {@code mage-research} on the class path, as the launcher runs it: the tool finds the
 * comparison by name. In this package to use the tool's {@link CliRun} (from mage-cli's test jar).
 */
class ExperimentCommandTest {

  @Test
  void theMethodComparisonPrintsOneTablePerMetricAndTheOptimumOfItsDiscount(@TempDir Path dir) {
    CliRun run = CliRun.of("experiment", "kuhn-methods", "--work-dir", dir.toString(), "--warm-start-examples", "64",
        "--iterations", "0", "--eval-meta-episodes", "2", "--seeds", "1", "--methods", "gigpo", "--set", "credit.gamma_traj=1");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("optimum of the objective (attempt discount 1.0) on the same sets:")
        .containsPattern("  gigpo seed 1, trained and evaluated in \\d+ s: pool/success_rate\\[0\\] ");
    String[] lines = run.out().split("\n");
    List<String> headers = java.util.Arrays.stream(lines).filter(l -> l.startsWith("method ")).toList();
    assertThat(headers).hasSize(2);
    assertThat(headers.get(0)).contains("pool/success_rate[2]").contains("cfr/success_rate[0]").doesNotContain("score");
    assertThat(headers.get(1)).contains("pool/score[0]").contains("cfr/score[2]").doesNotContain("success_rate");
    assertThat(java.util.Arrays.stream(lines).filter(l -> l.startsWith("gigpo ")).count()).isEqualTo(2);
    assertThat(dir.resolve("methods.png")).exists();
  }

  @Test
  void theGoalkeeperComparisonPrintsTheCeilingsAndReusesFinishedRunsWithTheSameSettingsOnly(@TempDir Path dir)
      throws Exception {
    List<String> args = List.of("experiment", "methods", "--work-dir", dir.toString(), "--iterations", "1", "--tasks",
        "1", "--eval-meta-episodes", "2", "--seeds", "1", "--methods", "mage,gigpo");
    CliRun run = CliRun.of(args.toArray(String[]::new));
    assertThat(run.code()).as(run.err()).isZero();
    // the same number of attempts per iteration for both methods, said before each trains
    assertThat(run.out())
        .contains("mage: 1 iterations x 1 task groups x 8 meta-episodes of 3 attempt(s): 8 meta-episodes, at most 24"
            + " attempts per training seed")
        .contains("gigpo: 1 iterations x 1 task groups x 24 meta-episodes of 1 attempt(s): 24 meta-episodes, at most"
            + " 24 attempts per training seed")
        .contains("mage, training seed 1").contains("gigpo, training seed 1").doesNotContain("reused");
    String[] lines = run.out().split("\n");
    List<String> headers = Arrays.stream(lines).filter(l -> l.startsWith("method ")).toList();
    assertThat(headers).hasSize(2);
    assertThat(headers.get(0)).contains(" success_rate[0]").contains(" success_rate[2]")
        .contains("no_history/success_rate[2]").doesNotContain("per_attempt");
    assertThat(headers.get(1)).contains(" per_attempt_success[1]").contains("no_history/per_attempt_success[0]");
    // the exact ceilings with 7 spots: Pass@k = k/7 without the history, 1/7 then 1 with it
    List<String> blind = rows(lines, "ceiling-blind ");
    assertThat(blind).hasSize(2);
    assertThat(blind.get(0)).contains(" - ").contains("0.143").contains("0.286").contains("0.429");
    assertThat(rows(lines, "ceiling-adaptive ").get(0)).contains("0.143").contains("1.000");
    for (String row : List.of("react ", "warm+history ", "mage ", "gigpo ")) {
      assertThat(rows(lines, row)).as(row).hasSize(2);
    }
    Path mageRun = dir.resolve("mage-goalkeeper-reflect-seed1");
    assertThat(mageRun.resolve("summary.json")).exists();
    assertThat(dir.resolve("gigpo-goalkeeper-reflect-seed1").resolve("summary.json")).exists();
    assertThat(dir.resolve("methods-goalkeeper.png")).exists();
    Path metrics = mageRun.resolve("metrics.jsonl");
    byte[] metricsBytes = Files.readAllBytes(metrics);
    var metricsTime = Files.getLastModifiedTime(metrics);

    CliRun again = CliRun.of(args.toArray(String[]::new));
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out()).contains("  mage seed 1: reused ").contains("  gigpo seed 1: reused ")
        .doesNotContain(", training seed");
    assertThat(Files.readAllBytes(metrics)).isEqualTo(metricsBytes);
    assertThat(Files.getLastModifiedTime(metrics)).isEqualTo(metricsTime);
    String[] againLines = again.out().split("\n");
    for (String row : List.of("mage ", "gigpo ")) {
      assertThat(rows(againLines, row)).as(row).isEqualTo(rows(lines, row));
    }

    // --no-train: the finished runs, the missing ones named, a method with none left out; nothing trained
    List<String> printOnly = new ArrayList<>(args);
    printOnly.set(printOnly.indexOf("--methods") + 1, "mage,gigpo,grpo");
    printOnly.set(printOnly.indexOf("--seeds") + 1, "1,2");
    printOnly.add("--no-train");
    CliRun print = CliRun.of(printOnly.toArray(String[]::new));
    assertThat(print.code()).as(print.err()).isZero();
    assertThat(print.out()).contains("  mage seed 1: reused ").contains("  gigpo seed 1: reused ")
        .contains("  mage seed 2: no finished run in " + dir.resolve("mage-goalkeeper-reflect-seed2") + ", left out")
        .contains("  grpo seed 1: no finished run in ")
        .contains("grpo: no finished run, left out of the table and the chart")
        .doesNotContain(", training seed");
    String[] printLines = print.out().split("\n");
    for (String row : List.of("mage ", "gigpo ")) {
      assertThat(rows(printLines, row)).as(row).isEqualTo(rows(lines, row));
    }
    assertThat(rows(printLines, "grpo ")).isEmpty();
    assertThat(dir.resolve("mage-goalkeeper-reflect-seed2")).doesNotExist();
    assertThat(Files.readAllBytes(metrics)).isEqualTo(metricsBytes);
    CliRun nothing = CliRun.of("experiment", "methods", "--work-dir", dir.resolve("empty").toString(), "--no-train");
    assertThat(nothing.code()).isEqualTo(1);
    assertThat(nothing.err()).contains("holds no warm start").contains("--no-train trains nothing");
    assertThat(dir.resolve("empty").resolve("warm-start-goalkeeper-reflect")).doesNotExist();

    // other evaluation settings or another config: a clear refusal, nothing trained
    List<String> moreEpisodes = new ArrayList<>(args);
    moreEpisodes.set(moreEpisodes.indexOf("--eval-meta-episodes") + 1, "3");
    CliRun evaluation = CliRun.of(moreEpisodes.toArray(String[]::new));
    assertThat(evaluation.code()).isEqualTo(1);
    assertThat(evaluation.err()).contains(mageRun.resolve("summary.json").toString())
        .contains("evaluation.meta_episodes: 2 there, 3 now");
    List<String> otherRate = new ArrayList<>(args);
    otherRate.addAll(List.of("--set", "adamw.learning_rate=0.001"));
    CliRun config = CliRun.of(otherRate.toArray(String[]::new));
    assertThat(config.code()).isEqualTo(1);
    assertThat(config.err()).contains("config.adamw.learning_rate").contains("other settings");
    assertThat(config.out()).doesNotContain(", training seed");
    assertThat(Files.readAllBytes(metrics)).isEqualTo(metricsBytes);
  }

  @Test
  void theGoalkeeperComparisonStartsFromTheQuickStartsConfigAndNamesWhatItDoesNotPlay(@TempDir Path dir) {
    CliRun experiment = CliRun.of("experiment", "methods", "--work-dir", dir.toString(), "--print-config");
    CliRun quickStart = CliRun.of("quickstart", "--work-dir", dir.toString(), "--print-config");
    assertThat(experiment.code()).as(experiment.err()).isZero();
    assertThat(experiment.out()).isEqualTo(quickStart.out()).contains("\"mage-goalkeeper\"");
    CliRun kuhn = CliRun.of("experiment", "methods", "--env", "mage-kuhn-poker", "--work-dir", dir.toString(),
        "--print-config");
    assertThat(kuhn.out()).isEqualTo(CliRun.of("experiment", "kuhn-methods", "--work-dir", dir.toString(),
        "--print-config").out()).contains("\"iterations\": 40");
    CliRun alias = CliRun.of("experiment", "kuhn-methods", "--env", "mage-goalkeeper", "--work-dir", dir.toString());
    assertThat(alias.code()).isEqualTo(2);
    assertThat(alias.err()).contains("methods --env mage-goalkeeper");
    CliRun game = CliRun.of("experiment", "methods", "--env", "mage-sokoban", "--work-dir", dir.toString());
    assertThat(game.code()).isEqualTo(2);
    assertThat(game.err()).contains("mage-goalkeeper, mage-kuhn-poker, mage-tictactoe");
    CliRun method = CliRun.of("experiment", "methods", "--methods", "mage,react", "--work-dir", dir.toString());
    assertThat(method.code()).isEqualTo(2);
    assertThat(method.err()).contains("'react' is not one of mage, mage-reference, lamer, gigpo, grpo");
    assertThat(dir.resolve("warm-start-goalkeeper-reflect")).doesNotExist();
  }

  @Test
  void theClaimsPrintTheirTablesAndAJsonReportAndReuseFinishedRuns(@TempDir Path dir) throws Exception {
    List<String> args = new ArrayList<>(List.of("experiment", "claims", "--work-dir", dir.toString(),
        "--warm-start-examples", "64", "--warm-start-epochs", "1", "--iterations", "1", "--tasks", "1",
        "--eval-meta-episodes", "5", "--seeds", "1", "--methods", "mage,lamer,gigpo", "--json"));
    CliRun run = CliRun.of(args.toArray(String[]::new));
    assertThat(run.code()).as(run.err()).isZero();
    // the tables and the progress on standard error, the report on standard output
    assertThat(run.err()).contains("mage-penalty-graded: graded scoring, 5 spots, 3 attempts, attempt discount 1.0;"
        + " multi-episode methods see history_only")
        .contains("Training population (fixed, step+2, alternate+2, copy)")
        .contains("Held-out strikers, never trained on (step+1, step-2, alternate-2, copy+1)")
        .contains("Pass@3 per striker (* held out)").contains("Predicted before training")
        .contains("mage, training seed 1").contains("lamer, training seed 1").contains("gigpo, training seed 1");
    String[] lines = run.err().split("\n");
    assertThat(rows(lines, "optimum-final ")).hasSize(3).allMatch(l -> l.contains(" 1.000 "));
    assertThat(rows(lines, "mage ")).hasSize(3);
    var report = com.google.gson.JsonParser.parseString(run.out()).getAsJsonObject();
    assertThat(report.keySet()).contains("methods", "ceilings", "predicted", "measured");
    assertThat(report.getAsJsonObject("methods").keySet()).containsExactly("warm-start", "mage", "lamer", "gigpo");
    var mage = report.getAsJsonObject("methods").getAsJsonObject("mage");
    assertThat(mage.get("context_mode").getAsString()).isEqualTo("history_only");
    assertThat(report.getAsJsonObject("methods").getAsJsonObject("gigpo").get("context_mode").getAsString())
        .isEqualTo("none");
    assertThat(mage.getAsJsonObject("train").keySet()).contains("final_attempt_score", "cumulative_score",
        "success_rate[2]");
    assertThat(mage.getAsJsonObject("strikers").keySet()).contains("copy", "copy+1");
    assertThat(report.getAsJsonObject("ceilings").getAsJsonObject("held_out").getAsJsonObject("ceiling_blind")
        .get("success_rate[2]").getAsDouble()).isEqualTo(0.65);
    assertThat(report.getAsJsonObject("predicted").getAsJsonObject("mage_minus_lamer_train")
        .get("final_attempt_score").getAsDouble()).isEqualTo(0.125);
    // what a perfect learner of the training population reaches on the held-out strikers (PenaltyTransfer)
    var predicted = report.getAsJsonObject("predicted");
    assertThat(predicted.getAsJsonObject("training_optima_on_held_out_pass_at_3").get("max").getAsDouble())
        .isEqualTo(0.65);
    assertThat(predicted.getAsJsonArray("frontier_pass_at_3")).hasSize(5);
    assertThat(predicted.get("last_shot_keeper_train_pass_at_3").getAsDouble()).isEqualTo(0.85);
    assertThat(run.err()).contains("A perfect learner: every keeper optimal for MAGE's objective on the training"
        + " population saves 0.300 to 0.650 of the held-out strikers");
    assertThat(report.getAsJsonObject("measured").getAsJsonObject("mage_minus_lamer_train")
        .getAsJsonObject("final_attempt_score").get("verdict").getAsString()).isNotEmpty();
    assertThat(dir.resolve("claims-penalty-graded.json")).exists();
    assertThat(dir.resolve("claims-penalty-graded.png")).exists();
    Path summary = dir.resolve("claims-mage-penalty-graded-seed1").resolve("summary.json");
    byte[] before = Files.readAllBytes(summary);

    CliRun again = CliRun.of(args.toArray(String[]::new));
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.err()).contains("  mage seed 1: reused ").doesNotContain(", training seed");
    assertThat(again.out()).isEqualTo(run.out());
    assertThat(Files.readAllBytes(summary)).isEqualTo(before);

    CliRun other = CliRun.of("experiment", "claims", "--env", "mage-kuhn-poker", "--work-dir", dir.toString());
    assertThat(other.code()).isEqualTo(2);
    assertThat(other.err()).contains("mage-penalty-graded or mage-penalty or mage-penalty-steps");
    CliRun json = CliRun.of("experiment", "methods", "--json", "--work-dir", dir.toString());
    assertThat(json.code()).isEqualTo(2);
    assertThat(json.err()).contains("only `claims` prints JSON");
  }

  private static List<String> rows(String[] lines, String start) {
    return Arrays.stream(lines).filter(l -> l.startsWith(start)).toList();
  }
}
