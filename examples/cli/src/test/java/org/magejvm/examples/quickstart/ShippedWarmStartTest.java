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
  private static GameRecipe.Settings defaults(Path dir, long seed) {
    return GameRecipe.Settings.builder(dir, config(seed)).optSeed(seed).build();
  }

  private static org.magejvm.impl.train.TrainingConfig config(long seed) {
    return GameRecipe.quickStartConfig(REGISTRY.require(GameRecipe.KUHN.environment()), seed);
  }

  private static GameRecipe recipe(GameRecipe.Settings s) {
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
      List<org.magejvm.impl.train.PolicyUpdater.Row> anchors =
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
  void goalkeepersShippedWarmStartDoesNotAdaptAndStaysAtOrBelowTheHistoryBlindCeiling(@TempDir Path dir) {
    GameRecipe.Settings settings = GameRecipe.Settings.builder(dir,
        GameRecipe.quickStartConfig(REGISTRY.require(GameRecipe.GOALKEEPER.environment()), 1))
        .optEvalMetaEpisodes(256).build();
    GameRecipe recipe = new GameRecipe(REGISTRY, GameRecipe.GOALKEEPER, settings,
        new PrintWriter(Writer.nullWriter()));
    // fails when a default the warm start depends on changes: regenerate the shipped files (docs/results.md)
    assertThat(ShippedWarmStart.available(recipe)).isTrue();
    assertThat(ShippedWarmStart.install(recipe)).isTrue();
    AttemptCeiling blind = GoalkeeperCeilings.historyBlind(7, 3);
    try (DjlLanguagePolicy policy = recipe.load(recipe.warmStart())) {
      Map<String, Number> m = recipe.evaluate(policy, org.magejvm.api.ContextMode.HISTORY_ONLY)
          .get(GameRecipe.ALL_SET);
      // it learned from keepers that never read where a shot went, so its history cannot lift it above the best
      // such keeper: Pass@3 at most 3/7, and the second attempt saves no more often than a blind guess does
      assertThat(m.get("success_rate[2]").doubleValue()).isLessThanOrEqualTo(blind.passAt().get(2));
      assertThat(m.get("per_attempt_success[1]").doubleValue()).isLessThanOrEqualTo(blind.perAttempt().get(1));
      assertThat(m.get("invalid_action_rate").doubleValue()).isLessThan(0.1);
      assertThat(m.get("meta_episodes").intValue()).isEqualTo(256);
    }
  }
}
