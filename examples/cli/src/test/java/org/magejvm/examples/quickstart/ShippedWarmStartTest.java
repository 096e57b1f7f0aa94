package org.magejvm.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Generation;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.env.keeper.GoalkeeperCeilings;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.spi.EnvironmentRegistry;

/** The warm start shipped for the quick start's defaults: when it applies, what it installs, and that it plays. */
class ShippedWarmStartTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();

  /** The quick start's defaults as far as the warm start depends on them (3,200 examples is the CLI's default). */
  private static RecipeSettings defaults(Path dir, long seed) {
    return RecipeSettings.builder(dir, config(seed)).optSeed(seed).build();
  }

  private static org.magejvm.impl.train.TrainingConfig config(long seed) {
    return GameRecipe.quickStartConfig(REGISTRY.require(GameRecipe.KUHN.environment()), seed);
  }

  private static GameRecipe recipe(RecipeSettings s) {
    return new GameRecipe(REGISTRY, s, new PrintWriter(Writer.nullWriter()));
  }

  @Test
  void itIsShippedForTheDefaultsWithSeedOneAndForNothingElse(@TempDir Path dir) {
    // fails when a default the warm start depends on changes: regenerate the shipped files (docs/results.md)
    assertThat(ShippedWarmStart.available(recipe(defaults(dir, 1)))).isTrue();
    assertThat(ShippedWarmStart.available(recipe(defaults(dir, 2)))).isFalse();
    assertThat(ShippedWarmStart.available(recipe(defaults(dir, 1).toBuilder().optWarmStart(1, 3e-3).build()))).isFalse();
    assertThat(ShippedWarmStart.available(recipe(defaults(dir, 1).toBuilder().optTraining(
        config(1).with("environment.options", Map.of("reward", "win-loss"))).build()))).isFalse();
    assertThat(ShippedWarmStart.available(recipe(defaults(dir, 1).toBuilder().optWarmStartExamples(640).build())))
        .isFalse();
    // settings of the training alone keep the shipped warm start
    assertThat(ShippedWarmStart.available(recipe(defaults(dir, 1).toBuilder().optTraining(config(1).toBuilder()
        .set("credit.gamma_traj", 0.6).set("credit.episode_score", "attempt").set("iterations", 5).build())
        .build()))).isTrue();
  }

  @Test
  void installCopiesTheShippedFilesOnceAndTheRecipeReusesThem(@TempDir Path dir) throws Exception {
    GameRecipe recipe = recipe(defaults(dir, 1));
    assertThat(ShippedWarmStart.install(recipe)).isTrue();
    Path warm = recipe.warmStartDir();
    for (String file : ShippedWarmStart.FILES) {
      try (InputStream in = ShippedWarmStart.class.getResourceAsStream(
          ShippedWarmStart.resourceFolder(recipe) + file)) {
        assertThat(Files.readAllBytes(warm.resolve(file))).as(file).isEqualTo(in.readAllBytes());
      }
    }
    assertThat(Files.readString(warm.resolve(GameRecipe.WARM_START_SETTINGS_FILE))).isEqualTo(recipe.warmStartKey());
    // no temporary directory is left beside it, and a second install leaves the first alone
    try (var entries = Files.list(dir)) {
      assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("warm-start");
    }
    assertThat(ShippedWarmStart.install(recipe)).isFalse();
    // the installed directory has the umask's mode, as a directory created afresh beside it (not 0700)
    if (Files.getFileStore(dir).supportsFileAttributeView(java.nio.file.attribute.PosixFileAttributeView.class)) {
      Path fresh = Files.createDirectory(dir.resolve("fresh"));
      assertThat(Files.getPosixFilePermissions(warm)).isEqualTo(Files.getPosixFilePermissions(fresh));
      Files.delete(fresh);
    }
    // the recipe takes it as its cached warm start, without writing the untrained tiny model
    assertThat(recipe.warmStart()).isEqualTo(warm);
    assertThat(recipe.tinyModelDir()).doesNotExist();
    Qwen3Config config = Qwen3Config.fromFile(warm);
    assertThat(config.hiddenSize()).isEqualTo(64);
    assertThat(config.numHiddenLayers()).isEqualTo(2);
    // asking for another model shape in the same work directory is refused rather than silently mixed
    assertThatThrownBy(() -> recipe.tinyModel(128, 2)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(warm.toString()).hasMessageContaining("width 64");
  }

  @Test
  void anExistingWarmStartDirectoryIsNeverOverwritten(@TempDir Path dir) throws Exception {
    GameRecipe recipe = recipe(defaults(dir, 1));
    Files.createDirectories(recipe.warmStartDir());
    assertThat(ShippedWarmStart.install(recipe)).isFalse();
    try (var entries = Files.list(recipe.warmStartDir())) {
      assertThat(entries).isEmpty();
    }
  }

  @Test
  void aTinyModelOfTheUsersOwnKeepsTheShippedWarmStartOut(@TempDir Path dir) throws Exception {
    GameRecipe recipe = recipe(defaults(dir, 1));
    Files.createDirectories(recipe.tinyModelDir());
    assertThat(ShippedWarmStart.install(recipe)).isFalse();
    assertThat(recipe.warmStartDir()).doesNotExist();
  }

  @Test
  void theAnchorTurnsAreScriptedAnswersTokenizedAsThePolicySeesThem(@TempDir Path dir) {
    GameRecipe recipe = recipe(defaults(dir, 1));
    assertThat(ShippedWarmStart.install(recipe)).isTrue();
    var config = recipe.settings().training();
    try (DjlLanguagePolicy policy = recipe.load(recipe.warmStartDir())) {
      List<org.magejvm.impl.train.update.PolicyUpdater.Row> anchors =
          org.magejvm.impl.train.MageTrainer.anchorTurns(config, policy, REGISTRY);
      assertThat(anchors).hasSize(config.checks().anchorTurns()).hasSize(256);
      int stop = policy.stopTokenIds().iterator().next();
      java.util.Set<String> answers = new java.util.HashSet<>();
      for (var a : anchors) {
        int[] r = a.response();
        assertThat(r[r.length - 1]).isEqualTo(stop);
        answers.add(policy.tokenizer().decode(java.util.Arrays.copyOf(r, r.length - 1), false));
        assertThat(policy.tokenizer().decode(a.prompt(), false)).contains("Kuhn poker").contains("<|im_start|>assistant");
      }
      assertThat(answers).containsExactlyInAnyOrder("<action>PASS</action>", "<action>BET</action>");
      // the same on every call
      assertThat(org.magejvm.impl.train.MageTrainer.anchorTurns(config, policy, REGISTRY).get(7).prompt())
          .containsExactly(anchors.get(7).prompt());
    }
  }

  @Test
  void theShippedModelAnswersInTheActionFormat(@TempDir Path dir) {
    GameRecipe recipe = recipe(defaults(dir, 1));
    assertThat(ShippedWarmStart.install(recipe)).isTrue();
    List<PolicyRequest> requests = new ArrayList<>();
    for (MetaEpisode m : recipe.probeMetaEpisodes(8)) {
      Turn first = m.episodes().get(0).turns().get(0);
      requests.add(new PolicyRequest(first.prompt(), Phase.PLAY, "probe-" + requests.size(), 0, 0,
          List.of("PASS", "BET"), null, List.of()));
    }
    SamplingConfig greedy = SamplingConfig.builder().optTemperature(0).optMaxNewTokens(16).build();
    try (DjlLanguagePolicy policy = recipe.load(recipe.warmStartDir())) {
      List<Generation> answers = policy.generate(requests, greedy);
      assertThat(answers).hasSize(8);
      for (Generation g : answers) {
        assertThat(g.text().strip()).isIn("<action>PASS</action>", "<action>BET</action>");
      }
    }
  }

  @Test
  void goalkeepersShippedHistoryWarmStartDoesNotAdaptAndStaysAtOrBelowTheHistoryBlindCeiling(@TempDir Path dir) {
    GameRecipe recipe = keeper(dir, GameRecipe.quickStartConfig(REGISTRY.require(GameRecipe.GOALKEEPER.environment()),
        1).with("rollout.context_mode", ContextMode.HISTORY_ONLY));
    assertThat(recipe.reflectiveWarmStart()).isFalse();
    // fails when a default the warm start depends on changes: regenerate the shipped files (docs/results.md)
    assertThat(ShippedWarmStart.available(recipe)).isTrue();
    assertThat(ShippedWarmStart.install(recipe)).isTrue();
    assertThat(recipe.warmStartDir().getFileName().toString()).isEqualTo("warm-start-goalkeeper");
    AttemptCeiling blind = GoalkeeperCeilings.historyBlind(7, 3);
    try (DjlLanguagePolicy policy = recipe.load(recipe.warmStart())) {
      Map<String, Number> m = recipe.evaluate(policy, ContextMode.HISTORY_ONLY).get(GameRecipe.ALL_SET);
      // it learned from keepers that never read where a shot went, so its history cannot lift it above the best
      // such keeper: Pass@3 at most 3/7, and the second attempt saves no more often than a blind guess does
      assertThat(m.get("success_rate[2]").doubleValue()).isLessThanOrEqualTo(blind.passAt().get(2));
      assertThat(m.get("per_attempt_success[1]").doubleValue()).isLessThanOrEqualTo(blind.perAttempt().get(1));
      assertThat(m.get("invalid_action_rate").doubleValue()).isLessThan(0.1);
      assertThat(m.get("meta_episodes").intValue()).isEqualTo(252);
    }
  }

  @Test
  void goalkeepersShippedReflectiveWarmStartWritesLessonsThatSayNothingAboutTheShotAndActsOnThem(
      @TempDir Path dir) {
    GameRecipe recipe = keeper(dir, GameRecipe.quickStartConfig(
        REGISTRY.require(GameRecipe.GOALKEEPER.environment()), 1));
    assertThat(recipe.settings().training().rollout().contextMode()).isEqualTo(ContextMode.REFLECTION_ONLY);
    assertThat(recipe.reflectiveWarmStart()).isTrue();
    assertThat(ShippedWarmStart.available(recipe)).isTrue();
    assertThat(ShippedWarmStart.install(recipe)).isTrue();
    assertThat(recipe.warmStartDir().getFileName().toString()).isEqualTo("warm-start-goalkeeper-reflect");
    String header = "The striker shoots every penalty at the same spot, 1 to 7. Dive there to save it.\n";
    try (DjlLanguagePolicy policy = recipe.load(recipe.warmStart())) {
      // the exact probability of each guess after every (dive, shot) pair of a first attempt
      List<String> prompts = new ArrayList<>();
      List<String> answers = new ArrayList<>();
      for (int d = 1; d <= 7; d++) {
        for (int s = 1; s <= 7; s++) {
          for (int g = 1; g <= 7 && s != d; g++) {
            prompts.add(header + "Try 1: dove " + d + ", shot " + s
                + "\nWrite a short lesson for the next try inside <remark></remark>.");
            answers.add("<remark> next shot " + g + "</remark>");
          }
        }
      }
      double[] lp = AnswerScores.logProbs(policy, prompts, answers);
      int i = 0;
      double naming = 0;
      double canonical = 0;
      for (int d = 1; d <= 7; d++) {
        double[][] guess = new double[8][8];
        double[] mean = new double[8];
        for (int s = 1; s <= 7; s++) {
          if (s == d) {
            continue;
          }
          double total = 0;
          for (int g = 1; g <= 7; g++) {
            guess[s][g] = Math.exp(lp[i++]);
            total += guess[s][g];
          }
          canonical += total / 42;
          for (int g = 1; g <= 7; g++) {
            guess[s][g] /= total;
            mean[g] += guess[s][g] / 6;
          }
          naming += guess[s][s] / 42;
        }
        // the guess does not depend on where the shot went: for each dive, the guess distributions after the six
        // shots are within 0.05 of their mean in total variation (measured: 0.006 at most)
        for (int s = 1; s <= 7; s++) {
          if (s != d) {
            double tv = 0;
            for (int g = 1; g <= 7; g++) {
              tv += Math.abs(guess[s][g] - mean[g]) / 2;
            }
            assertThat(tv).as("dive %d, shot %d", d, s).isLessThan(0.05);
          }
        }
      }
      // so it names the shot's spot at chance (measured 0.146; 1/7 = 0.143), and almost always in the lesson's format
      assertThat(naming).isBetween(0.10, 0.20);
      assertThat(canonical).isGreaterThan(0.9);
      // and the next attempt dives where the lesson says, whatever the spot (measured 0.99 for every spot)
      List<String> play = new ArrayList<>();
      List<String> dives = new ArrayList<>();
      for (int g = 1; g <= 7; g++) {
        play.add(header + "Try 1: not saved\nLesson: next shot " + g + "\nTry 2 now. Reply <action>N</action>.");
        dives.add("<action>" + g + "</action>");
      }
      double[] follow = AnswerScores.logProbs(policy, play, dives);
      for (int g = 0; g < 7; g++) {
        assertThat(Math.exp(follow[g])).as("lesson %d", g + 1).isGreaterThan(0.9);
      }
      // it stays below the history-blind ceiling in the mode it trains in
      Map<String, Number> m = recipe.evaluate(policy, ContextMode.REFLECTION_ONLY).get(GameRecipe.ALL_SET);
      assertThat(m.get("success_rate[2]").doubleValue()).isLessThan(GoalkeeperCeilings.historyBlind(7, 3)
          .passAt().get(2));
      assertThat(m.get("reflection_invalid_rate").doubleValue()).isLessThan(0.05);
    }
  }

  /** A Goalkeeper recipe with the quick start's defaults and a balanced evaluation set of 252 (36 per spot). */
  private static GameRecipe keeper(Path dir, org.magejvm.impl.train.TrainingConfig config) {
    RecipeSettings settings = RecipeSettings.builder(dir, config).optEvalMetaEpisodes(252).build();
    return new GameRecipe(REGISTRY, GameRecipe.GOALKEEPER, settings, new PrintWriter(Writer.nullWriter()));
  }
}
