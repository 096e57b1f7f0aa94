package org.magejvm.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.Episode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Turn;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.train.warmstart.MixedScriptedPolicy;
import org.magejvm.spi.EnvironmentRegistry;

class GameRecipeTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();

  private static GameRecipe recipe(Path dir, double repeat) {
    return new GameRecipe(REGISTRY, small(dir).optRepeatShare(repeat).build(), new PrintWriter(Writer.nullWriter()));
  }

  /** The comparison's config: the quick start's with the environment's discount between attempts (0.6). */
  private static TrainingConfig config() {
    return GameRecipe.quickStartConfig(REGISTRY.require(GameRecipe.KUHN.environment()), 3).toBuilder()
        .set("iterations", 0).set("rollout.tasks", 1).set("credit.gamma_traj", 0.6).build();
  }

  /** Small settings: 64 warm-start examples, no training, 1 task group, 4 evaluation meta-episodes, seed 3. */
  private static RecipeSettingsBuilder small(Path dir) {
    return RecipeSettings.builder(dir, config()).optWarmStartExamples(64).optEvalMetaEpisodes(4).optSeed(3);
  }

  private static List<MetaEpisode> play(GameRecipe recipe, double repeat) {
    return play(recipe, recipe.rollout(TrainingPreset.MAGE, 16).optGroupSize(4).optSeed(5).build(), repeat);
  }

  private static List<MetaEpisode> play(GameRecipe recipe, RolloutConfig config, double repeat) {
    RecipeGame game = recipe.game();
    try (MixedScriptedPolicy player = new MixedScriptedPolicy(
        REGISTRY.require(game.environment()), game.fixedPolicy(), 7, repeat)) {
      return new MetaEpisodeRunner(REGISTRY).run(config, player).metaEpisodes();
    }
  }

  private static List<String> actions(Episode e) {
    List<String> out = new ArrayList<>();
    for (Turn t : e.turns()) {
      out.add(t.action());
    }
    return out;
  }

  /** Counts, over every later attempt, the turns that repeat the previous attempt's action at the same point. */
  private static int[] repeats(List<MetaEpisode> metaEpisodes) {
    int repeated = 0;
    int comparable = 0;
    for (MetaEpisode m : metaEpisodes) {
      for (int k = 1; k < m.episodes().size(); k++) {
        List<String> before = actions(m.episodes().get(k - 1));
        List<String> now = actions(m.episodes().get(k));
        for (int i = 0; i < Math.min(before.size(), now.size()); i++) {
          // a turn whose earlier moves differ from the previous attempt's sees another betting state
          if (!now.subList(0, i).equals(before.subList(0, i))) {
            break;
          }
          comparable++;
          repeated += now.get(i).equals(before.get(i)) ? 1 : 0;
        }
      }
    }
    return new int[] {repeated, comparable};
  }

  @Test
  void theWarmStartPlayerRepeatsThePreviousAttemptWhateverItsOutcome(@TempDir Path dir) {
    int[] always = repeats(play(recipe(dir, 1.0), 1.0));
    assertThat(always[1]).isGreaterThan(50);
    assertThat(always[0]).isEqualTo(always[1]);
    int[] never = repeats(play(recipe(dir, 0.0), 0.0));
    assertThat(never[1]).isGreaterThan(50);
    assertThat(never[0]).isLessThan(never[1]);
  }

  @Test
  void aCachedWarmStartMadeWithOtherSettingsIsRefused(@TempDir Path dir) throws Exception {
    Path warm = Files.createDirectories(dir.resolve("warm-start"));
    Files.writeString(warm.resolve("model.safetensors"), "");
    Files.writeString(warm.resolve("warm-start-settings.txt"),
        "examples=64 repeat_share=0.0 seed=3 epochs=4 lr=0.001\n");
    assertThatThrownBy(() -> recipe(dir, 0.5).warmStart())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("repeat_share=0.0")
        .hasMessageContaining("repeat_share=0.5");
    assertThat(recipe(dir, 0.0).warmStart()).isEqualTo(warm);
    // one made with another number of passes is refused too
    GameRecipe onePass = new GameRecipe(REGISTRY, small(dir).optRepeatShare(0.0).optWarmStart(1, 3e-3).build(),
        new PrintWriter(Writer.nullWriter()));
    assertThatThrownBy(onePass::warmStart).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("seed=3 epochs=4 lr=0.001,")
        .hasMessageContaining("not examples=64 repeat_share=0.0 seed=3;");
  }

  /** The rewards of the hands' last turns, as a set. */
  private static java.util.Set<Double> terminalRewards(List<MetaEpisode> metaEpisodes) {
    java.util.Set<Double> rewards = new java.util.TreeSet<>();
    for (MetaEpisode m : metaEpisodes) {
      for (Episode e : m.episodes()) {
        for (Turn t : e.turns()) {
          if (t.done()) {
            rewards.add(t.reward());
          }
        }
      }
    }
    return rewards;
  }

  @Test
  void environmentOptionsReachTheRolloutsAndTheWarmStartCacheKey(@TempDir Path dir) throws Exception {
    // the Kuhn recipe keeps the reference's reward unless the settings say otherwise
    GameRecipe chips = recipe(dir, 0.5);
    assertThat(chips.environmentOptions()).isEmpty();
    assertThat(terminalRewards(play(chips, 0.5))).containsExactly(-10.0, -5.0, 5.0, 10.0);
    RecipeSettings s = small(dir).optTraining(config().with("environment.options.reward", "win-loss")).build();
    GameRecipe winLoss = new GameRecipe(REGISTRY, s, new PrintWriter(Writer.nullWriter()));
    assertThat(winLoss.environmentOptions()).containsExactly(java.util.Map.entry("reward", "win-loss"));
    assertThat(terminalRewards(play(winLoss, 0.5))).containsExactly(-5.0, 5.0);
    // a warm start cached with other options is not taken for one made with these
    Path warm = Files.createDirectories(dir.resolve("warm-start"));
    Files.writeString(warm.resolve("model.safetensors"), "");
    Files.writeString(warm.resolve("warm-start-settings.txt"),
        "examples=64 repeat_share=0.5 seed=3 epochs=4 lr=0.001\n");
    assertThat(chips.warmStart()).isEqualTo(warm);
    assertThatThrownBy(winLoss::warmStart).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("options={reward=win-loss}").hasMessageContaining("epochs=4 lr=0.001,");
  }

  @Test
  void settingsRejectImpossibleValues(@TempDir Path dir) {
    assertThatThrownBy(() -> recipe(dir, 1.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("repeat share");
    RecipeSettings s = small(dir).build();
    assertThat(s.repeatShare()).isEqualTo(GameRecipe.DEFAULT_REPEAT_SHARE);
    assertThat(s.warmStartEpochs()).isEqualTo(GameRecipe.DEFAULT_WARM_START_EPOCHS);
    assertThat(s.warmStartLearningRate()).isEqualTo(GameRecipe.DEFAULT_WARM_START_LEARNING_RATE);
    assertThatThrownBy(() -> s.toBuilder().optWarmStart(0, 1e-3).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 epoch");
    assertThatThrownBy(() -> s.toBuilder().optWarmStart(1, 0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("learning rate");
    assertThatThrownBy(() -> s.toBuilder().optEvalMetaEpisodes(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("evaluation size");
    assertThatThrownBy(() -> s.toBuilder().optEvalTemperature(11).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("evaluation temperature");
  }

  @Test
  void theTicTacToeWarmStartPlayerRepeatsThePreviousAttemptToo(@TempDir Path dir) {
    for (double repeat : new double[] {1.0, 0.0}) {
      GameRecipe ttt = new GameRecipe(REGISTRY, GameRecipe.TIC_TAC_TOE, small(dir).optRepeatShare(repeat).build(),
          new PrintWriter(Writer.nullWriter()));
      // a deterministic opponent answers a repeated line with the same moves, so every repeat stays legal
      RolloutConfig config = ttt.rollout(TrainingPreset.MAGE, 16).optGroupSize(4).optSeed(5)
          .optFixedOpponent("preferred-center-first").build();
      int[] counts = repeats(play(ttt, config, repeat));
      assertThat(counts[1]).isGreaterThan(20);
      if (repeat == 1.0) {
        assertThat(counts[0]).isEqualTo(counts[1]);
      } else {
        assertThat(counts[0]).isLessThan(counts[1]);
      }
    }
  }

  @Test
  void eachGameNamesOpponentsAndPlayersItsEnvironmentKnows() {
    for (RecipeGame game : List.of(GameRecipe.KUHN, GameRecipe.TIC_TAC_TOE, GameRecipe.PENALTY,
        GameRecipe.PENALTY_GRADED, GameRecipe.PENALTY_STEPS)) {
      var provider = REGISTRY.require(game.environment());
      for (String opp : game.evaluationSets()) {
        assertThat(provider.opponents().find(opp)).as(game.environment() + " " + opp).isPresent();
      }
      assertThat(provider.opponents().heldOut()).extracting(o -> o.id()).containsAll(game.heldOut());
      provider.scriptedPolicy(game.fixedPolicy(), 1).close();
      provider.scriptedPolicy(game.referencePolicy(), 1).close();
    }
  }

  @Test
  void thePenaltyGamesSpotsAreTheirDefaultsUnlessTheConfigSetsThem() {
    assertThat(GameRecipe.penaltySpots(REGISTRY.require("mage-penalty"), Map.of())).hasValue(5);
    assertThat(GameRecipe.penaltySpots(REGISTRY.require("mage-penalty-graded"), Map.of())).hasValue(5);
    assertThat(GameRecipe.penaltySpots(REGISTRY.require("mage-penalty-steps"), Map.of())).hasValue(7);
    assertThat(GameRecipe.penaltySpots(REGISTRY.require("mage-penalty-steps"), Map.of("spots", "8"))).hasValue(8);
    assertThat(GameRecipe.penaltySpots(REGISTRY.require("mage-kuhn-poker"), Map.of())).isEmpty();
  }

  @Test
  void theBuilderHasTheRecipeDefaultsAndACopyKeepsEveryValue(@TempDir Path dir) {
    RecipeSettings d = RecipeSettings.builder(dir, config()).build();
    assertThat(d).isEqualTo(new RecipeSettings(dir, config(), 3200, 48, 1, GameRecipe.DEFAULT_REPEAT_SHARE,
        Double.NaN, GameRecipe.DEFAULT_WARM_START_EPOCHS, GameRecipe.DEFAULT_WARM_START_LEARNING_RATE));
    // every component differs from its default, and a copy through the builder keeps them all
    TrainingConfig other = config().with("iterations", 7);
    RecipeSettings all = new RecipeSettings(dir.resolve("x"), other, 65, 5, 9, 0.25, 1.0, 2, 3e-3);
    assertThat(all.toBuilder().build()).isEqualTo(all);
    assertThat(all.toBuilder().optSeed(4).build()).isEqualTo(new RecipeSettings(dir.resolve("x"), other, 65, 5,
        4, 0.25, 1.0, 2, 3e-3));
    assertThatThrownBy(() -> RecipeSettings.builder(dir, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("training");
  }

  @Test
  void theQuickStartConfigIsTheMagePresetWithASmallBudget() {
    var keeper = REGISTRY.require(GameRecipe.GOALKEEPER.environment());
    TrainingConfig g = GameRecipe.quickStartConfig(keeper, 1);
    assertThat(g.algorithmJson()).isEqualTo(TrainingPreset.MAGE.config(keeper).algorithmJson());
    assertThat(g.rollout().contextMode()).isEqualTo(org.magejvm.api.ContextMode.REFLECTION_ONLY);
    assertThat(g.checks().anchorPolicy()).isEqualTo(keeper.formatPolicy()).isEqualTo("random-plan");
    // Kuhn Poker's warm start teaches no reflection format: its quick start is the preset with the history instead
    var provider = REGISTRY.require(GameRecipe.KUHN.environment());
    TrainingConfig q = GameRecipe.quickStartConfig(provider, 1);
    assertThat(q.algorithmJson()).isEqualTo(TrainingPreset.MAGE.config(provider)
        .with("rollout.context_mode", org.magejvm.api.ContextMode.HISTORY_ONLY).algorithmJson());
    assertThat(q.rollout().tasks()).isEqualTo(8);
    assertThat(q.iterations()).isEqualTo(120);
    assertThat(q.sampling().maxNewTokens()).isEqualTo(GameRecipe.MAX_NEW_TOKENS);
    assertThat(q.validation().every()).isZero();
  }

  @Test
  void everyMethodOfTheComparisonTrainsOnTheSameBudgetAndUpdateSettings(@TempDir Path dir) {
    GameRecipe r = recipe(dir, 0.5);
    TrainingConfig mage = r.trainingConfig(TrainingPreset.MAGE);
    assertThat(mage).isEqualTo(config());
    TrainingConfig gigpo = r.trainingConfig(TrainingPreset.GIGPO);
    assertThat(gigpo.preset()).isEqualTo("gigpo");
    assertThat(gigpo.rollout().episodes()).isEqualTo(1);
    assertThat(gigpo.rollout().groupSize()).isEqualTo(24);
    assertThat(gigpo.rollout().contextMode()).isEqualTo(org.magejvm.api.ContextMode.NONE);
    assertThat(gigpo.credit().metaReturn()).isEqualTo(org.magejvm.api.MetaReturn.SINGLE_EPISODE);
    TrainingConfig lamer = r.trainingConfig(TrainingPreset.LAMER);
    assertThat(lamer.credit().metaReturn()).isEqualTo(org.magejvm.api.MetaReturn.CUMULATIVE);
    assertThat(lamer.rollout().contextMode()).isEqualTo(mage.rollout().contextMode());
    for (TrainingConfig c : List.of(gigpo, lamer)) {
      assertThat(c.adamw()).isEqualTo(mage.adamw());
      assertThat(c.update()).isEqualTo(mage.update());
      assertThat(c.checks()).isEqualTo(mage.checks());
      assertThat(c.rollout().tasks()).isEqualTo(mage.rollout().tasks());
      assertThat(c.iterations()).isEqualTo(mage.iterations());
    }
  }

  @Test
  void theReferencePresetTrainsWithItsOwnSettingsButTheRecipesPromptsAndBudget(@TempDir Path dir) {
    var out = new PrintWriter(Writer.nullWriter());
    for (RecipeGame game : List.of(GameRecipe.KUHN, GameRecipe.GOALKEEPER)) {
      var provider = REGISTRY.require(game.environment());
      TrainingConfig base = GameRecipe.quickStartConfig(provider, 3).with("iterations", 2);
      GameRecipe r = new GameRecipe(REGISTRY, game, RecipeSettings.builder(dir, base).build(), out);
      assertThat(r.trainingConfig(TrainingPreset.MAGE)).isEqualTo(base);
      TrainingConfig reference = r.trainingConfig(TrainingPreset.MAGE_REFERENCE);
      // the algorithm is the preset's, apart from the prompts' context
      com.google.gson.JsonObject got = reference.algorithmJson();
      com.google.gson.JsonObject want = TrainingPreset.MAGE_REFERENCE.config(provider).algorithmJson();
      got.getAsJsonObject("rollout").remove("context_mode");
      want.getAsJsonObject("rollout").remove("context_mode");
      assertThat(got).as(game.environment()).isEqualTo(want);
      assertThat(reference.preset()).isEqualTo("mage-reference");
      assertThat(reference.rollout().contextMode()).isEqualTo(base.rollout().contextMode());
      assertThat(reference.rollout().tasks()).isEqualTo(base.rollout().tasks());
      assertThat(reference.iterations()).isEqualTo(2);
      assertThat(reference.sampling()).isEqualTo(base.sampling());
      TrainingConfig grpo = r.trainingConfig(TrainingPreset.GRPO);
      assertThat(grpo.advantages().estimator()).isEqualTo("grpo");
      assertThat(grpo.rollout().groupSize() * grpo.rollout().episodes())
          .isEqualTo(base.rollout().groupSize() * base.rollout().episodes());
      assertThat(grpo.adamw()).isEqualTo(base.adamw());
    }
    assertThatThrownBy(() -> recipe(dir, 0.5).trainingConfig(TrainingPreset.REACT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("react");
  }

  @Test
  void theOptimumRowPlaysTheOptimumOfTheDiscountTrainedWith(@TempDir Path dir) {
    var out = new PrintWriter(Writer.nullWriter());
    GameRecipe reference = new GameRecipe(REGISTRY, small(dir).optEvalMetaEpisodes(24).build(), out);
    GameRecipe finalAttempt = new GameRecipe(REGISTRY, small(dir).optEvalMetaEpisodes(24)
        .optTraining(config().with("credit.gamma_traj", 1.0)).build(), out);
    var a = KuhnQuickStart.optimum(reference);
    var b = KuhnQuickStart.optimum(finalAttempt);
    RecipeGame kuhn = GameRecipe.KUHN;
    // at 0.6 it wins every winnable deal in its first attempt; at 1.0 it gives up first attempts to learn the opponent
    // and still wins every winnable deal by the last one, on the same deals
    assertThat(kuhn.poolAverage(a, "success_rate[0]")).isEqualTo(kuhn.poolAverage(a, "success_rate[2]"));
    assertThat(kuhn.poolAverage(b, "success_rate[2]")).isEqualTo(kuhn.poolAverage(a, "success_rate[2]"));
    assertThat(kuhn.poolAverage(b, "success_rate[0]")).isLessThan(kuhn.poolAverage(a, "success_rate[0]") - 0.1);
  }

  @Test
  void theDiscountBetweenAttemptsIsTheConfigs(@TempDir Path dir) {
    var out = new PrintWriter(Writer.nullWriter());
    assertThat(new GameRecipe(REGISTRY, small(dir).build(), out).trajGamma()).isEqualTo(0.6);
    assertThat(new GameRecipe(REGISTRY, small(dir).optTraining(config().with("credit.gamma_traj", 0.0)).build(), out)
        .trajGamma()).isEqualTo(0.0);
  }

  @Test
  void theStepTimeoutReachesEveryRolloutOfTheRecipeAndSurvivesCopies(@TempDir Path dir) {
    java.time.Duration limit = java.time.Duration.ofSeconds(7);
    RecipeSettings s = small(dir).optTraining(config().with("rollout.step_timeout_seconds", 7)).build()
        .toBuilder().optSeed(9).build();
    GameRecipe timed = new GameRecipe(REGISTRY, GameRecipe.TIC_TAC_TOE, s, new PrintWriter(Writer.nullWriter()));
    assertThat(timed.rollout(TrainingPreset.MAGE, 2).build().stepTimeout()).contains(limit);
    assertThat(recipe(dir, 0.5).rollout(TrainingPreset.MAGE, 2).build().stepTimeout()).isEmpty();
  }

  @Test
  void theTinyModelIsWrittenWithTheAskedShapeAndACachedOneOfAnotherShapeIsRefused(@TempDir Path dir) throws Exception {
    GameRecipe r = recipe(dir, 0.5);
    assertThatThrownBy(() -> r.tinyModel(48, 2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiple of 32");
    Path model = r.tinyModel(96, 3);
    String config = Files.readString(model.resolve("config.json"));
    assertThat(config).contains("\"hidden_size\": 96").contains("\"num_hidden_layers\": 3");
    assertThat(r.tinyModel()).isEqualTo(model);
    assertThat(r.tinyModel(96, 3)).isEqualTo(model);
    assertThatThrownBy(() -> r.tinyModel(64, 2)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("width 96 and 3 layers, not 64 and 2");
  }
}
