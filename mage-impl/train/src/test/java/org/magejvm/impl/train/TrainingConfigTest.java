package org.magejvm.impl.train;

import org.magejvm.api.ConfigException;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.update.OldLogProbs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Grouping;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.impl.credit.CreditConfig;
import org.magejvm.impl.credit.EpisodeScore;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/** {@link TrainingConfig} and {@link TrainingPreset}: presets, JSON round trips, key checks, reference fidelity. */
class TrainingConfigTest {

  private static final EnvironmentRegistry GAMES = EnvironmentRegistry.discover();
  private static final List<String> GAME_IDS = List.of("mage-kuhn-poker", "mage-tictactoe", "mage-sokoban");

  private static TrainingConfig kuhn(TrainingPreset preset) {
    return preset.config(GAMES.require("mage-kuhn-poker"));
  }

  @Test
  void everyPresetOnEveryGameRoundTripsThroughJsonExactly() {
    for (String game : GAME_IDS) {
      for (TrainingPreset p : TrainingPreset.values()) {
        TrainingConfig c = p.config(GAMES.require(game));
        String json = c.toJson();
        TrainingConfig back = TrainingConfig.fromJson(json);
        assertThat(back).as(p.id() + " on " + game).isEqualTo(c);
        assertThat(back.toJson()).isEqualTo(json);
        assertThat(back.hashCode()).isEqualTo(c.hashCode());
      }
    }
  }

  @Test
  void roundTripKeepsAwkwardDoublesAndLongsBitForBit() {
    TrainingConfig c = kuhn(TrainingPreset.MAGE).toBuilder()
        .set("adamw.learning_rate", 0.1 + 0.2)
        .set("seed", Long.MIN_VALUE + 7)
        .set("credit.gamma_step", Math.nextDown(1.0))
        .set("environment.options", Map.of("reward", "win-loss"))
        .set("fine_tuning.lora_targets", List.of("q_proj", "v_proj"))
        .build();
    TrainingConfig back = TrainingConfig.fromJson(c.toJson());
    assertThat(back).isEqualTo(c);
    assertThat(back.adamw().learningRate()).isEqualTo(0.1 + 0.2);
    assertThat(back.seed()).isEqualTo(Long.MIN_VALUE + 7);
    assertThat(back.environment().options()).containsExactly(Map.entry("reward", "win-loss"));
  }

  @Test
  void magePresetIsTheQuickStartsAlgorithm() {
    TrainingConfig c = kuhn(TrainingPreset.MAGE);
    assertThat(c.credit().metaReturn()).isEqualTo(MetaReturn.DIFFERENTIAL);
    assertThat(c.credit().gammaTraj()).isEqualTo(1.0);
    assertThat(c.credit().invalidPenalty()).isEqualTo(25.0);
    assertThat(c.credit().episodeScore()).isEqualTo(EpisodeScore.META_EPISODE);
    assertThat(c.advantages().anchorScope()).isEqualTo(AnchorScope.PROMPT);
    assertThat(c.rollout().contextMode()).isEqualTo(ContextMode.REFLECTION_ONLY);
    assertThat(c.adamw().learningRate()).isEqualTo(5e-4);
    assertThat(c.loss().klCoefficient()).isEqualTo(1.0);
    assertThat(c.update().miniBatchTurns()).isEqualTo(64);
    assertThat(c.update().oldLogProbs()).isEqualTo(OldLogProbs.AUTO);
    assertThat(kuhn(TrainingPreset.MAGE_REFERENCE).update().oldLogProbs()).isEqualTo(OldLogProbs.RECOMPUTE);
    assertThat(c.checks().maxAnchorDrop()).isEqualTo(0.01);
    assertThat(c.checks().anchorPolicy()).isEqualTo("random");
    // the anchors are the environment's format player: Goalkeeper's writes lessons in the game's format
    assertThat(TrainingPreset.MAGE.config(GAMES.require("mage-goalkeeper")).checks().anchorPolicy())
        .isEqualTo("random-plan");
    assertThat(c.preset()).isEqualTo("mage");
  }

  /**
   * The reference fidelity tests (GiGPO's golden batches, the PPO loss fixtures, credit assignment's worked examples)
   * run with {@code OptimizerConfig.defaults()}, the environments' {@code CreditConfig.forEnvironment} and the method
   * presets' rollouts; {@code mage-reference} (and lamer, gigpo, grpo) must turn into exactly those.
   */
  @Test
  void referencePresetsGiveExactlyTheConfigsTheFidelityTestsPin() {
    for (String game : GAME_IDS) {
      EnvironmentProvider provider = GAMES.require(game);
      for (TrainingPreset p : List.of(TrainingPreset.MAGE_REFERENCE, TrainingPreset.LAMER, TrainingPreset.GIGPO,
          TrainingPreset.GRPO)) {
        TrainingConfig c = p.config(provider);
        TrainingPreset m = p;
        assertThat(c.credit()).as(p.id() + " " + game)
            .isEqualTo(CreditConfig.forEnvironment(provider.defaults()).optMetaReturn(m.metaReturn().orElseThrow())
                .build());
        assertThat(TrainerFactory.optimizerConfig(c)).isEqualTo(m.optimizerConfig(provider));
        assertThat(m.optimizerConfig()).isEqualTo(OptimizerConfig.defaults().toBuilder()
            .optGrouping(Grouping.OPPONENT_STATIONARY).build());
        // the environment's script: Sokoban's turns the KL loss off (use_kl_loss=False), the games' keep 0.1
        assertThat(m.optimizerConfig(provider)).isEqualTo(m.optimizerConfig().toBuilder()
            .optKlCoefficient(game.equals("mage-sokoban") ? 0.0 : 0.1).build());
        assertThat(c.advantages().estimator()).isEqualTo(m.optimizerId().orElseThrow());
        assertThat(TrainerFactory.adamWConfig(c)).isEqualTo(AdamWConfig.defaults());
        assertThat(c.update().miniBatchTurns()).isEqualTo(64);
        assertThat(c.update().epochs()).isEqualTo(1);
        assertThat(TrainerFactory.rollout(c, provider).optSeed(3).build())
            .isEqualTo(m.trainingRollout(provider).optSeed(3).build());
        assertThat(c.checks().maxAnchorDrop()).isZero();
        assertThat(c.checks().maxUpdateKl()).isZero();
      }
    }
  }

  /**
   * Issue 38: every {@code update.*} value, the KL weight, the length and the opponent assignment of the reference
   * presets, game by game, as the reference's scripts set them (dp_actor trains every row: zero advantages add no
   * policy gradient but count in the token mean and keep their KL and entropy terms; Sokoban's mage.sh turns the KL
   * loss off and runs 300 epochs; the opponents are fixed quotas of the 16 groups).
   */
  @Test
  void referencePresetsPinTheUpdateTheLengthAndTheOpponentsGameByGame() {
    TrainingConfig.UpdateSettings reference = new TrainingConfig.UpdateSettings(64, 8,
        TrainingPreset.DEFAULT_MICRO_BATCH_TOKENS, 1, OldLogProbs.RECOMPUTE, false,
        org.magejvm.impl.llm.model.AttentionKernel.AUTO, org.magejvm.impl.llm.generate.Recompute.AUTO,
        org.magejvm.impl.llm.generate.Recompute.AUTO);
    for (String game : GAME_IDS) {
      EnvironmentProvider provider = GAMES.require(game);
      boolean sokoban = game.equals("mage-sokoban");
      for (TrainingPreset p : List.of(TrainingPreset.MAGE_REFERENCE, TrainingPreset.LAMER, TrainingPreset.GIGPO,
          TrainingPreset.GRPO)) {
        TrainingConfig c = p.config(provider);
        String what = p.id() + " on " + game;
        assertThat(c.update()).as(what).isEqualTo(reference);
        assertThat(c.update().skipZeroAdvantage()).as(what).isFalse();
        assertThat(TrainerFactory.updateSettings(c).skipZeroAdvantage()).as(what).isFalse();
        assertThat(c.loss().klCoefficient()).as(what).isEqualTo(sokoban ? 0.0 : 0.1);
        assertThat(c.iterations()).as(what).isEqualTo(sokoban ? 300 : 150);
        assertThat(c.rollout().opponentAssignment()).as(what).isEqualTo(OpponentAssignment.QUOTA);
        assertThat(p.opponentAssignment()).isEqualTo(OpponentAssignment.QUOTA);
        assertThat(TrainerFactory.rollout(c, provider).build().opponentSampling()).as(what)
            .isEqualTo(org.magejvm.impl.rollout.OpponentSampling.QUOTA);
      }
      // the mage preset keeps its values on every game: zero-advantage turns left out (until the five-seed
      // measurement on the quick start decides it), KL 1.0, 150 iterations, opponents drawn every iteration
      TrainingConfig mage = TrainingPreset.MAGE.config(provider);
      assertThat(mage.update().skipZeroAdvantage()).as(game).isTrue();
      assertThat(mage.update().miniBatchTurns()).isEqualTo(64);
      assertThat(mage.update().microBatchTurns()).isEqualTo(64);
      assertThat(mage.update().oldLogProbs()).isEqualTo(OldLogProbs.AUTO);
      assertThat(mage.loss().klCoefficient()).as(game).isEqualTo(1.0);
      assertThat(mage.iterations()).as(game).isEqualTo(150);
      assertThat(mage.rollout().opponentAssignment()).isEqualTo(OpponentAssignment.SAMPLED);
      assertThat(TrainerFactory.rollout(mage, provider).build().opponentSampling())
          .isEqualTo(org.magejvm.impl.rollout.OpponentSampling.PER_GROUP);
      // validation draws the population's opponents as before, whatever the training assignment
      for (TrainingConfig c : List.of(mage, TrainingPreset.MAGE_REFERENCE.config(provider))) {
        assertThat(TrainerFactory.validations(c, provider).get(0).config().opponentSampling())
            .isEqualTo(org.magejvm.impl.rollout.OpponentSampling.PER_GROUP);
      }
    }
    // the quotas of the reference's 16 groups: Kuhn Poker 5 / 5 / 6, Tic-Tac-Toe 7 MCTS-100 / 6 preferred / 3 random
    assertThat(quotas("mage-kuhn-poker", 16)).containsExactly(Map.entry("conservative", 5),
        Map.entry("aggressive", 5), Map.entry("intermediate", 6));
    assertThat(quotas("mage-tictactoe", 16)).containsExactly(Map.entry("mcts-100", 7), Map.entry("preferred", 6),
        Map.entry("random", 3));
  }

  /** The groups each training opponent gets by quota, preferred-position players counted together. */
  private static Map<String, Integer> quotas(String game, int groups) {
    Map<String, Integer> out = new java.util.LinkedHashMap<>();
    for (org.magejvm.api.Opponent o : org.magejvm.impl.rollout.OpponentQuota.assign(
        GAMES.require(game).opponents(), groups)) {
      out.merge(o.id().startsWith("preferred") ? "preferred" : o.id(), 1, Integer::sum);
    }
    return out;
  }

  @Test
  void sokobansReferenceRunHasNoKlAndThreeHundredIterationsWhileMageKeepsItsOwn() {
    TrainingConfig c = TrainingPreset.MAGE_REFERENCE.config(GAMES.require("mage-sokoban"));
    String json = c.toJson();
    assertThat(json).contains("\"kl_coefficient\": 0.0").contains("\"iterations\": 300");
    assertThat(TrainingConfig.fromJson(json)).isEqualTo(c);
    TrainingConfig mage = TrainingPreset.MAGE.config(GAMES.require("mage-sokoban"));
    assertThat(mage.iterations()).isEqualTo(150);
    assertThat(mage.loss().klCoefficient()).isEqualTo(1.0);
  }

  @Test
  void aConfigWrittenBeforeTheOpponentAssignmentExistedReadsAsItRan() {
    for (TrainingPreset p : List.of(TrainingPreset.MAGE, TrainingPreset.MAGE_REFERENCE)) {
      TrainingConfig now = kuhn(p);
      com.google.gson.JsonObject old = now.toJsonObject();
      old.getAsJsonObject("rollout").remove("opponent_assignment");
      // a complete config (a checkpoint's, a run's config.json): opponents drawn every iteration, as it ran
      TrainingConfig complete = TrainingConfig.fromJson(old.toString());
      assertThat(complete.rollout().opponentAssignment()).isEqualTo(OpponentAssignment.SAMPLED);
      assertThat(complete).isEqualTo(now.with("rollout.opponent_assignment", "sampled"));
      assertThat(TrainingConfig.fromJson(old.toString(), GAMES)).isEqualTo(complete);
    }
    // a partial file takes the key from its preset, as every missing key
    TrainingConfig partial = TrainingConfig.fromJson("{\"preset\": \"mage-reference\", \"environment\": {\"id\":"
        + " \"mage-kuhn-poker\"}, \"rollout\": {\"tasks\": 8}}", GAMES);
    assertThat(partial.rollout().opponentAssignment()).isEqualTo(OpponentAssignment.QUOTA);
    assertThat(kuhn(TrainingPreset.MAGE).with("rollout.opponent_assignment", "quota").rollout()
        .opponentAssignment()).isEqualTo(OpponentAssignment.QUOTA);
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("rollout.opponent_assignment", "random"))
        .hasMessage("config key 'rollout.opponent_assignment' must be one of sampled, quota, got 'random'");
  }

  @Test
  void aPartialFileTakesTheRestFromItsPreset(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("run.json");
    Files.writeString(file, "{\"preset\": \"mage\", \"environment\": {\"id\": \"mage-kuhn-poker\","
        + " \"options\": {\"reward\": \"win-loss\"}}, \"rollout\": {\"tasks\": 8}, \"iterations\": 120}");
    TrainingConfig read = TrainingConfig.read(file, GAMES);
    assertThat(read).isEqualTo(kuhn(TrainingPreset.MAGE).toBuilder().set("rollout.tasks", 8).set("iterations", 120)
        .set("environment.options.reward", "win-loss").build());
  }

  @Test
  void aCompleteConfigMayCarryANameOfItsOwnButAPartialOneNeedsAKnownPreset() {
    TrainingConfig mine = kuhn(TrainingPreset.MAGE).with("preset", "my-run");
    assertThat(TrainingConfig.fromJson(mine.toJson(), GAMES)).isEqualTo(mine);
    assertThatThrownBy(() -> TrainingConfig.fromJson("{\"preset\": \"my-run\", \"environment\": {\"id\":"
        + " \"mage-kuhn-poker\"}}", GAMES)).isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown preset 'my-run'").hasMessageContaining("must give every key");
  }

  @Test
  void setTakesCommandLineText() {
    TrainingConfig c = kuhn(TrainingPreset.MAGE).toBuilder()
        .set("rollout.tasks=4")
        .set("rollout.prompt_style=compact")
        .set("credit.episode_score=attempt")
        .set("checks.anchor_policy=fixed-line")
        .set("environment.options.reward=win-loss")
        .set("environment.fixed_opponent=cfr")
        .set("fine_tuning.lora_targets=q_proj,v_proj")
        .build();
    assertThat(c.rollout().tasks()).isEqualTo(4);
    assertThat(c.rollout().promptStyle()).isEqualTo(PromptStyle.COMPACT);
    assertThat(c.credit().episodeScore()).isEqualTo(EpisodeScore.ATTEMPT);
    assertThat(c.checks().anchorPolicy()).isEqualTo("fixed-line");
    assertThat(c.environment().options()).containsEntry("reward", "win-loss");
    assertThat(c.environment().fixedOpponent()).isEqualTo("cfr");
    assertThat(c.fineTuning().loraTargets()).containsExactly("q_proj", "v_proj");
    assertThat(c.toBuilder().set("environment.fixed_opponent=null").build().environment().fixedOpponent()).isNull();
  }

  @Test
  void aMisspeltKeyIsRefusedWithASuggestion() {
    String json = kuhn(TrainingPreset.MAGE).toJson().replace("\"group_size\"", "\"grup_size\"");
    assertThatThrownBy(() -> TrainingConfig.fromJson(json))
        .isInstanceOf(ConfigException.class)
        .hasMessage("unknown config key 'rollout.grup_size'; did you mean 'rollout.group_size'?")
        .extracting(e -> ((ConfigException) e).key()).isEqualTo("rollout.grup_size");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("adamw.learning_rte", 1e-5))
        .hasMessage("unknown config key 'adamw.learning_rte'; did you mean 'adamw.learning_rate'?");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("rolout.tasks", 1))
        .hasMessage("unknown config key 'rolout'; did you mean 'rollout'?");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("zzz", 1))
        .hasMessageStartingWith("unknown config key 'zzz'; known keys: preset, environment, rollout");
  }

  @Test
  void aWrongTypeIsRefusedNamingTheKey(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("bad.json");
    Files.writeString(file, "{\"environment\": {\"id\": \"mage-kuhn-poker\"}, \"rollout\": {\"tasks\": \"eight\"}}");
    assertThatThrownBy(() -> TrainingConfig.read(file, GAMES))
        .isInstanceOf(ConfigException.class)
        .hasMessage(file + ": config key 'rollout.tasks' must be a whole number, got \"eight\"");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("rollout.tasks", 1.5))
        .hasMessage("config key 'rollout.tasks' must be a whole number, got 1.5");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("rollout.early_stop", "yes"))
        .hasMessage("config key 'rollout.early_stop' must be true or false, got 'yes'");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("credit.episode_score", "turn"))
        .hasMessage("config key 'credit.episode_score' must be one of attempt, meta_episode, got 'turn'");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("rollout", 3))
        .hasMessageStartingWith("config key 'rollout' is a section; set one of its keys: rollout.tasks, ");
  }

  @Test
  void anOutOfRangeValueIsRefusedInOneLineNamingTheKey() {
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("rollout.tasks", 0))
        .isInstanceOf(ConfigException.class)
        .hasMessage("rollout.tasks must be in [1, 65536], got 0");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("credit.gamma_traj", 1.5))
        .hasMessage("credit.gamma_traj must be in [0.0, 1.0], got 1.5");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("adamw.learning_rate", 0))
        .hasMessage("adamw.learning_rate must be in (0, 1], got 0.0");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("rollout.seating", "left"))
        .hasMessage("rollout.seating must be first, second or mixed:SHARE with SHARE in [0, 1], got 'left'");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("rollout.episodes", 1))
        .extracting(e -> ((ConfigException) e).key()).isEqualTo("rollout.episodes");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("checks.anchor_policy", null))
        .extracting(e -> ((ConfigException) e).key()).isEqualTo("checks.anchor_policy");
    assertThatThrownBy(() -> kuhn(TrainingPreset.MAGE).with("fine_tuning.lora_targets", List.of("qq_proj")))
        .hasMessageStartingWith("fine_tuning.lora_targets: unknown module 'qq_proj'");
    for (Throwable t : List.of(
        catchConfig(() -> kuhn(TrainingPreset.MAGE).with("rollout.tasks", 0)),
        catchConfig(() -> TrainingConfig.fromJson("{\"preset\": 1")))) {
      assertThat(t.getMessage()).doesNotContain("\n");
    }
  }

  @Test
  void notJsonAndMissingKeysAreRefused() {
    assertThatThrownBy(() -> TrainingConfig.fromJson("[1, 2]")).isInstanceOf(ConfigException.class)
        .hasMessage("a training config must be a JSON object, got [1,2]");
    assertThatThrownBy(() -> TrainingConfig.fromJson("{} trailing")).isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("not valid JSON");
    assertThatThrownBy(() -> TrainingConfig.fromJson("{\"preset\": \"mage\"}")).isInstanceOf(ConfigException.class)
        .hasMessage("config key 'environment' is missing");
    assertThatThrownBy(() -> TrainingConfig.fromJson("{\"rollout\": {}}", GAMES))
        .hasMessageStartingWith("config key 'environment.id' is required");
    assertThatThrownBy(() -> TrainingConfig.fromJson("{\"preset\": \"magic\", \"environment\": {\"id\":"
        + " \"mage-kuhn-poker\"}}", GAMES))
        .hasMessageStartingWith("unknown preset 'magic'; known presets: mage, mage-reference, lamer");
    assertThatThrownBy(() -> TrainingConfig.fromJson("{\"environment\": {\"id\": \"chess\"}}", GAMES))
        .hasMessageStartingWith("environment.id 'chess' is not a known environment");
  }

  @Test
  void validationSetsAreThePopulationAndEachHeldOutOpponentInItsEvaluationSeat() {
    TrainingConfig ttt = TrainingPreset.MAGE.config(GAMES.require("mage-tictactoe")).with("validation.meta_episodes",
        16);
    List<Validation> sets = TrainerFactory.validations(ttt, GAMES.require("mage-tictactoe"));
    assertThat(sets).extracting(Validation::name)
        .containsExactly("", "heldout/mcts-100", "heldout/mcts-1000");
    for (Validation v : sets) {
      assertThat(v.config().tasks()).isEqualTo(16);
      assertThat(v.config().groupSize()).isEqualTo(1);
      assertThat(v.config().sampling().orElseThrow().temperature()).isEqualTo(0.7);
      assertThat(v.config().contextMode()).isEqualTo(ContextMode.REFLECTION_ONLY);
    }
    for (Validation v : sets.subList(1, 3)) {
      assertThat(v.config().fixedOpponent()).contains(v.name().substring("heldout/".length()));
      assertThat(v.config().seating()).isEqualTo(org.magejvm.impl.rollout.Seating.first());
    }
    TrainingConfig kuhn = kuhn(TrainingPreset.GIGPO);
    List<Validation> k = TrainerFactory.validations(kuhn, GAMES.require("mage-kuhn-poker"));
    assertThat(k).extracting(Validation::name).containsExactly("", "heldout/cfr");
    assertThat(k.get(1).config().seating()).isEqualTo(org.magejvm.impl.rollout.Seating.second());
    // a single-episode method is validated with the environment's attempts and no history
    assertThat(k.get(0).config().episodes()).hasValue(3);
    assertThat(k.get(0).config().contextMode()).isEqualTo(ContextMode.NONE);
    assertThat(TrainerFactory.validations(kuhn.with("validation.held_out", false),
        GAMES.require("mage-kuhn-poker"))).hasSize(1);
  }

  @Test
  void suggestionsUseEditDistance() {
    assertThat(ConfigCodec.distance("kitten", "sitting")).isEqualTo(3);
    assertThat(ConfigCodec.distance("", "abc")).isEqualTo(3);
    assertThat(ConfigCodec.snakeCase("maxNewTokens")).isEqualTo("max_new_tokens");
  }

  @Test
  void evaluationOnlyPresetsSayTheyDoNotTrain() {
    assertThat(TrainingPreset.REACT.trains()).isFalse();
    assertThat(TrainingPreset.REFLEXION.trains()).isFalse();
    assertThat(TrainingPreset.parse("MAGE_REFERENCE")).isEqualTo(TrainingPreset.MAGE_REFERENCE);
    for (TrainingPreset p : TrainingPreset.values()) {
      assertThat(p.description()).isNotBlank();
    }
  }

  private static Throwable catchConfig(Runnable r) {
    try {
      r.run();
    } catch (ConfigException e) {
      return e;
    }
    throw new AssertionError("no ConfigException");
  }
}
