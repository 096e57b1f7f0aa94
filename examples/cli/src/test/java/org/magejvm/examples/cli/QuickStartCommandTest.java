package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.impl.train.TrainingConfig;

/** The quick start end to end on a very small budget: the pipeline, the files it writes and its JSON output. */
class QuickStartCommandTest {

  @Test
  void trainsAndPrintsBeforeAndAfterAsJson(@TempDir Path dir) throws Exception {
    CliRun run = CliRun.of("quickstart", "--env", "mage-kuhn-poker", "--work-dir", dir.toString(), "--quick",
        "--iterations", "1", "--set", "rollout.tasks=1", "--json");
    assertThat(run.code()).as(run.err()).isZero();
    JsonObject root = JsonParser.parseString(run.out()).getAsJsonObject();
    assertThat(root.keySet()).containsExactly("before", "after", "after_without_history", "ceiling", "optimum",
        "bet_probability");
    JsonObject probe = root.getAsJsonObject("bet_probability");
    for (String part : List.of("before", "after")) {
      assertThat(probe.get(part + "/p0 Jack: nothing yet").getAsDouble()).isBetween(0.0, 1.0);
      assertThat(probe.get(part + "/p1 King: player 0 bets").getAsDouble()).isBetween(0.0, 1.0);
      assertThat(probe.get(part + "/spread").getAsDouble()).isBetween(0.0, 1.0);
      assertThat(probe.get(part + "/history_shift").getAsDouble()).isBetween(0.0, 1.0);
    }
    for (String part : List.of("before", "after", "after_without_history", "ceiling", "optimum")) {
      JsonObject m = root.getAsJsonObject(part);
      for (String opp : GameRecipe.KUHN.pool()) {
        assertThat(m.has(opp + "/success_rate[0]")).as(part + " " + opp).isTrue();
        assertThat(m.has(opp + "/success_rate[2]")).isTrue();
        assertThat(m.has(opp + "/score[0]")).isTrue();
        assertThat(m.has(opp + "/score[2]")).isTrue();
      }
      assertThat(m.get("cfr/meta_episodes").getAsInt()).isEqualTo(16);
    }
    // the ceiling is the adaptive scripted player: it never writes an invalid action
    assertThat(root.getAsJsonObject("ceiling").get("aggressive/invalid_action_rate").getAsDouble()).isZero();
    // the optimum of the quick start's objective (attempt discount 1) wins every winnable deal by its last attempt
    JsonObject optimum = root.getAsJsonObject("optimum");
    JsonObject ceiling = root.getAsJsonObject("ceiling");
    for (String opp : GameRecipe.KUHN.pool()) {
      assertThat(optimum.get(opp + "/success_rate[2]").getAsDouble()).as(opp)
          .isEqualTo(ceiling.get(opp + "/success_rate[2]").getAsDouble());
      assertThat(optimum.get(opp + "/invalid_action_rate").getAsDouble()).isZero();
    }
    assertThat(dir.resolve("warm-start").resolve("model.safetensors")).exists();
    assertThat(TrainingConfig.fromJson(Files.readString(dir.resolve("config.json"))).rollout().tasks()).isEqualTo(1);
    assertThat(Files.readAllLines(dir.resolve("metrics.jsonl"))).hasSize(1);
    assertThat(dir.resolve("trained").resolve("model.safetensors")).exists();
    assertThat(dir.resolve("trained").resolve("config.json")).exists();
    assertThat(dir.resolve("charts").resolve("bet_probability.png")).exists();
  }

  @Test
  void goalkeeperIsTheDefaultTrainsWithReflectionsAndPrintsTheControlsBesideTheirCeilings(@TempDir Path dir)
      throws Exception {
    CliRun run = CliRun.of("quickstart", "--work-dir", dir.toString(), "--quick", "--iterations", "1", "--set",
        "rollout.tasks=1", "--json");
    assertThat(run.code()).as(run.err()).isZero();
    JsonObject root = JsonParser.parseString(run.out()).getAsJsonObject();
    assertThat(root.keySet()).containsExactly("context_mode", "before", "after", "after_without_reflections",
        "after_shuffled_reflections", "after_without_history", "ceiling_blind", "ceiling_adaptive",
        "ceiling_without_reflections", "ceiling_shuffled_reflections", "ceiling_without_history", "ceiling_of",
        "example_reflections");
    assertThat(root.get("context_mode").getAsString()).isEqualTo("reflection_only");
    for (String row : root.keySet()) {
      if (!row.startsWith("after") && !row.startsWith("before") && !row.startsWith("ceiling_")
          || row.equals("ceiling_of")) {
        continue;
      }
      JsonObject m = root.getAsJsonObject(row);
      for (int k = 0; k < 3; k++) {
        assertThat(m.has("success_rate[" + k + "]")).as(row + " " + k).isTrue();
        assertThat(m.has("per_attempt_success[" + k + "]") || row.equals("ceiling_adaptive")).as(row).isTrue();
      }
    }
    // the model rows: evaluated on 35 meta-episodes, 5 per spot; the reflections' naming rate where any were written
    for (String row : List.of("before", "after", "after_without_reflections", "after_shuffled_reflections")) {
      JsonObject m = root.getAsJsonObject(row);
      assertThat(m.get("meta_episodes").getAsInt()).as(row).isEqualTo(35);
      assertThat(m.has("reflection_turns")).as(row).isTrue();
      assertThat(m.has("reflection_invalid_rate")).as(row).isTrue();
      assertThat(m.has("reflection_names_spot_rate")).as(row).isTrue();
    }
    assertThat(root.getAsJsonObject("after_without_history").get("reflection_turns").getAsInt()).isZero();
    // the probe per spot, before and after
    for (String row : List.of("before", "after")) {
      for (int s = 1; s <= 7; s++) {
        double f = root.getAsJsonObject(row).get("follow_rate[" + s + "]").getAsDouble();
        assertThat(f).as(row + " " + s).isBetween(0.0, 1.0);
      }
    }
    // each control beside its own ceiling: the attempt number known (3/7) or not (1 - (6/7)^3)
    JsonObject ceilingOf = root.getAsJsonObject("ceiling_of");
    assertThat(ceilingOf.get("after_without_reflections").getAsString()).isEqualTo("ceiling_without_reflections");
    assertThat(ceilingOf.get("after_shuffled_reflections").getAsString()).isEqualTo("ceiling_shuffled_reflections");
    assertThat(ceilingOf.get("after_without_history").getAsString()).isEqualTo("ceiling_without_history");
    assertThat(root.getAsJsonObject("ceiling_blind").get("success_rate[2]").getAsDouble()).isEqualTo(3 / 7.0);
    assertThat(root.getAsJsonObject("ceiling_without_reflections").get("success_rate[2]").getAsDouble())
        .isEqualTo(3 / 7.0);
    assertThat(root.getAsJsonObject("ceiling_without_history").get("success_rate[2]").getAsDouble())
        .isCloseTo(1 - Math.pow(6 / 7.0, 3), org.assertj.core.api.Assertions.within(1e-12));
    assertThat(root.getAsJsonObject("ceiling_adaptive").get("success_rate[1]").getAsDouble()).isEqualTo(1.0);
    // nobody reaches the adaptive keeper's third attempt: JSON has no NaN, so the rate is left out there
    assertThat(root.getAsJsonObject("ceiling_adaptive").has("per_attempt_success[2]")).isFalse();
    assertThat(root.getAsJsonObject("example_reflections").getAsJsonArray("before").size()).isBetween(1, 3);
    assertThat(dir.resolve("warm-start-goalkeeper-reflect").resolve("model.safetensors")).exists();
    assertThat(dir.resolve("trained").resolve("model.safetensors")).exists();
    assertThat(dir.resolve("charts").resolve("adaptation.png")).exists();
    assertThat(TrainingConfig.fromJson(Files.readString(dir.resolve("config.json"))).environment().id())
        .isEqualTo("mage-goalkeeper");
    CliRun text = CliRun.of("quickstart", "--work-dir", dir.toString(), "--quick", "--iterations", "0");
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out()).contains("best history-blind keeper", "best adaptive keeper", "reflections removed",
        "reflections shuffled", "no memory, no attempt no.", "memoryless ceiling", "follow rate per spot",
        "trained with context reflection_only", "Pass@3", "attempt 1", "5 per spot");
    // the history ablation: its own warm start, no reflection rows
    CliRun history = CliRun.of("quickstart", "--work-dir", dir.resolve("h").toString(), "--quick", "--iterations",
        "0", "--set", "rollout.context_mode=history_only", "--json");
    assertThat(history.code()).as(history.err()).isZero();
    JsonObject h = JsonParser.parseString(history.out()).getAsJsonObject();
    assertThat(h.keySet()).containsExactly("context_mode", "before", "after", "after_without_history",
        "ceiling_blind", "ceiling_adaptive", "ceiling_without_history", "ceiling_of", "example_reflections");
    assertThat(h.getAsJsonObject("after").has("follow_rate[7]")).isTrue();
    assertThat(dir.resolve("h").resolve("warm-start-goalkeeper").resolve("model.safetensors")).exists();
    CliRun other = CliRun.of("quickstart", "--env", "mage-tictactoe", "--work-dir", dir.toString());
    assertThat(other.code()).isEqualTo(2);
    assertThat(other.err()).contains("--env").contains("mage-goalkeeper or mage-kuhn-poker");
  }

  @Test
  void theDefaultWarmStartComesFromTheJarAndEveryUpdateIsChecked(@TempDir Path dir) throws Exception {
    CliRun run = CliRun.of("quickstart", "--env", "mage-kuhn-poker", "--work-dir", dir.toString(), "--quick",
        "--iterations", "2", "--set", "rollout.tasks=1");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("Warm start: the one shipped with mage").doesNotContain("supervised training")
        .contains("optimum of the objective", "score[0]");
    assertThat(dir.resolve("tiny-qwen3")).doesNotExist();
    assertThat(dir.resolve("warm-start").resolve("model.safetensors")).exists();
    List<String> lines = Files.readAllLines(dir.resolve("metrics.jsonl"));
    assertThat(lines).hasSize(2);
    for (String line : lines) {
      JsonObject m = JsonParser.parseString(line).getAsJsonObject();
      assertThat(m.get("update_backtracks").getAsInt()).isBetween(0, 3);
      assertThat(m.get("update_undone").getAsInt()).isBetween(0, 1);
      if (m.get("trained_turns").getAsInt() > 0) {
        // the anchor check is on by default (the KL check is not)
        assertThat(m.get("anchor_logprob_change").getAsDouble()).isFinite();
        assertThat(m.has("update_kl")).isFalse();
      }
    }
    // a second run finds it in the work directory like any cached warm start
    CliRun again = CliRun.of("quickstart", "--env", "mage-kuhn-poker", "--work-dir", dir.toString(), "--quick",
        "--iterations", "0");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out()).doesNotContain("Warm start:");
  }

  @Test
  void theSeedIsATrainingSeedFromTheShippedWarmStartAndTheWarmStartSeedIsItsOwnOption(@TempDir Path dir)
      throws Exception {
    CliRun seed3 = CliRun.of("quickstart", "--work-dir", dir.resolve("s3").toString(), "--quick", "--iterations",
        "0", "--seed", "3");
    assertThat(seed3.code()).as(seed3.err()).isZero();
    assertThat(seed3.out()).contains("Warm start: the one shipped with mage");
    long seed1 = TrainingConfig.fromJson(CliRun.of("quickstart", "--print-config").out()).seed();
    long seed3Training = TrainingConfig.fromJson(Files.readString(dir.resolve("s3").resolve("config.json"))).seed();
    assertThat(seed3Training).isNotEqualTo(seed1);
    // the warm start's seed is what --seed was before: no shipped warm start for it (printed, not trained, here)
    CliRun other = CliRun.of("quickstart", "--work-dir", dir.resolve("w3").toString(), "--warm-start-seed", "3",
        "--print-config");
    assertThat(other.code()).as(other.err()).isZero();
    assertThat(TrainingConfig.fromJson(other.out()).seed()).isEqualTo(seed1);
  }

  @Test
  void anEnvironmentOptionTheGameRefusesIsAUsageErrorNamingIt(@TempDir Path dir) {
    CliRun unknown = CliRun.of("quickstart", "--env", "mage-kuhn-poker", "--work-dir", dir.toString(), "--set",
        "environment.options.cards=5");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("environment.options").contains("cards").contains("reward");
    CliRun badValue = CliRun.of("experiment", "kuhn-methods", "--work-dir", dir.toString(), "--set",
        "environment.options.reward=money");
    assertThat(badValue.code()).isEqualTo(2);
    assertThat(badValue.err()).contains("environment.options").contains("'money'").contains("win-loss");
    assertThat(dir.resolve("warm-start")).doesNotExist();
  }

  @Test
  void theQuickStartAndTrainWithTheMagePresetPrintTheSameAlgorithm(@TempDir Path dir) throws Exception {
    CliRun quick = CliRun.of("quickstart", "--env", "mage-kuhn-poker", "--work-dir", dir.toString(),
        "--print-config");
    assertThat(quick.code()).as(quick.err()).isZero();
    CliRun train = CliRun.of("train", "--preset", "mage", "--env", "mage-kuhn-poker", "--model",
        dir.resolve("any-model").toString(), "--out", dir.resolve("run").toString(), "--print-config");
    assertThat(train.code()).as(train.err()).isZero();
    TrainingConfig q = TrainingConfig.fromJson(quick.out());
    TrainingConfig t = TrainingConfig.fromJson(train.out());
    assertThat(q.algorithmJson()).isEqualTo(t.with("rollout.context_mode", "history_only").algorithmJson());
    assertThat(q.preset()).isEqualTo("mage").isEqualTo(t.preset());
    // the budget differs (the quick start's is small), the algorithm does not
    assertThat(q.rollout().tasks()).isEqualTo(8);
    assertThat(t.rollout().tasks()).isEqualTo(16);
    assertThat(dir.resolve("config.json")).doesNotExist();
    // the same on the default game (Kuhn Poker's quick start differs in its context only: the history)
    assertThat(q.rollout().contextMode()).isEqualTo(org.magejvm.api.ContextMode.HISTORY_ONLY);
    assertThat(t.rollout().contextMode()).isEqualTo(org.magejvm.api.ContextMode.REFLECTION_ONLY);
    CliRun keeper = CliRun.of("quickstart", "--work-dir", dir.toString(), "--print-config");
    CliRun trainKeeper = CliRun.of("train", "--preset", "mage", "--env", "mage-goalkeeper", "--model",
        dir.resolve("any-model").toString(), "--out", dir.resolve("run").toString(), "--print-config");
    assertThat(keeper.code()).as(keeper.err()).isZero();
    assertThat(trainKeeper.code()).as(trainKeeper.err()).isZero();
    assertThat(TrainingConfig.fromJson(keeper.out()).algorithmJson())
        .isEqualTo(TrainingConfig.fromJson(trainKeeper.out()).algorithmJson());
  }

  @Test
  void aMisspeltSetKeyIsAOneLineUsageError(@TempDir Path dir) {
    CliRun run = CliRun.of("quickstart", "--work-dir", dir.toString(), "--set", "credit.gama_traj=0.6");
    assertThat(run.code()).isEqualTo(2);
    assertThat(run.err()).hasLineCount(1)
        .contains("--set credit.gama_traj=0.6: unknown config key 'credit.gama_traj'; did you mean"
            + " 'credit.gamma_traj'?");
  }

  @Test
  void aWorkDirThatIsAFileIsAOneLineUsageErrorForTheQuickStartAndTheExperiments(@TempDir Path dir)
      throws Exception {
    Path file = Files.writeString(dir.resolve("notes.txt"), "mine");
    for (String[] args : List.of(new String[] {"quickstart", "--quick", "--work-dir", file.toString()},
        new String[] {"experiment", "methods", "--work-dir", file.toString()})) {
      CliRun run = CliRun.of(args);
      assertThat(run.code()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.err()).hasLineCount(1).contains("--work-dir " + file + " is a file, not a folder");
    }
    assertThat(Files.readString(file)).isEqualTo("mine");
  }
}
