package org.magejvm.impl.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Episode;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Outcome;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.api.plugin.PluginException;
import org.magejvm.testkit.DuelOpponent;
import org.magejvm.testkit.RecordingPolicy;
import org.magejvm.testkit.ToyDuel;
import org.magejvm.testkit.ToyDuelProvider;
import org.magejvm.testkit.ToyWalkProvider;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.StepResult;
import org.junit.jupiter.api.Test;

class MetaEpisodeRunnerTest {

  private final ToyDuelProvider duel = new ToyDuelProvider();
  private final ToyWalkProvider walk = new ToyWalkProvider();
  private final MetaEpisodeRunner runner = MetaEpisodeRunner.of(duel, walk);

  private static RolloutConfig.Builder duelConfig() {
    return RolloutConfig.builder().setEnvironmentId(ToyDuelProvider.ID).optTasks(12).optGroupSize(2).optSeed(7);
  }

  private RecordingPolicy learner() {
    return new RecordingPolicy(duel.scriptedPolicy("learner", 1), false);
  }

  /** A base seed whose group-0 task hides a number other than 1 (so a first guess of 1 is wrong). */
  private static long seedWithSecretAbove1() {
    for (long s = 0; ; s++) {
      if (ToyDuel.secretFor(Seeds.taskSeed(s, 0)) != 1) {
        return s;
      }
    }
  }

  /** The toy duel, except that every step reports its anchor for the wrong opponent (a plugin bug). */
  private static EnvironmentProvider wrongAnchors(EnvironmentProvider real) {
    InvocationHandler provider = (proxy, method, args) -> {
      Object out = method.invoke(real, args);
      if (!method.getName().equals("create")) {
        return out;
      }
      Environment env = (Environment) out;
      return Proxy.newProxyInstance(Environment.class.getClassLoader(), new Class<?>[] {Environment.class},
          (p, m, a) -> {
            Object r = m.invoke(env, a);
            if (m.getName().equals("step")) {
              StepResult s = (StepResult) r;
              return new StepResult(s.observation(), s.reward(), s.done(), s.won(), s.draw(), s.actionValid(),
                  s.score(), new AnchorKey(s.anchor().state(), "someone-else"), s.action(), s.message());
            }
            return r;
          });
    };
    return (EnvironmentProvider) Proxy.newProxyInstance(EnvironmentProvider.class.getClassLoader(),
        new Class<?>[] {EnvironmentProvider.class}, provider);
  }

  @Test
  void anEnvironmentWhoseAnchorsNameAnotherOpponentFailsItsMetaEpisodes() {
    RolloutResult result = MetaEpisodeRunner.of(wrongAnchors(duel))
        .run(duelConfig().optTasks(2).optFixedOpponent("greedy").build(), learner());
    assertThat(result.metaEpisodes()).isEmpty();
    assertThat(result.failures()).hasSize(4).allSatisfy(f -> {
      assertThat(f.stage()).isEqualTo("step");
      assertThat(f.error()).isInstanceOf(IllegalStateException.class)
          .hasMessage("step() returned an anchor naming opponent 'someone-else', but this meta-episode plays"
              + " 'greedy'; an AnchorKey's opponent id is the opponent's id()");
      assertThat(f.partial().turns()).isEmpty();
    });
  }

  @Test
  void playsTheScheduleAndStopsAfterTheFirstWin() {
    RecordingPolicy policy = learner();
    RolloutResult result = runner.run(duelConfig().optFixedOpponent("greedy").build(), policy);

    assertThat(result.complete()).isTrue();
    assertThat(result.episodes()).isEqualTo(3);
    assertThat(result.maxTurns()).isEqualTo(4);
    assertThat(result.metaEpisodes()).hasSize(24);
    int[] bySecret = new int[4];
    for (MetaEpisode m : result.metaEpisodes()) {
      int secret = ToyDuel.secretFor(m.seed());
      bySecret[secret]++;
      // the learner guesses 1, 2, 3 in successive episodes; the greedy opponent ends every wrong guess
      assertThat(m.episodes()).hasSize(secret);
      assertThat(m.won()).isTrue();
      for (int k = 0; k < secret; k++) {
        Episode e = m.episodes().get(k);
        assertThat(e.outcome()).isEqualTo(k == secret - 1 ? Outcome.WON : Outcome.LOST);
        assertThat(e.totalReward()).isEqualTo(k == secret - 1 ? 10 : -10);
        assertThat(e.score()).isEqualTo(k == secret - 1 ? 1 : -1);
        assertThat(e.turns()).singleElement().satisfies(t -> assertThat(t.action()).isEqualTo("" + (e.index() + 1)));
      }
      List<String> phases = m.turns().stream().map(t -> t.phase() + "" + t.episodeIndex() + "." + t.turnIndex())
          .collect(Collectors.toList());
      List<String> schedule = new ArrayList<>();
      for (int k = 0; k < secret; k++) {
        if (k > 0) {
          schedule.add("REFLECT" + k + ".0");
        }
        schedule.add("PLAY" + k + ".0");
      }
      assertThat(phases).isEqualTo(schedule);
      assertThat(m.reflections().size()).isEqualTo(secret - 1);
      for (Turn t : m.turns()) {
        assertThat(t.opponentId()).isEqualTo("greedy");
        if (t.isReflection()) {
          assertThat(t.valid()).isTrue();
          assertThat(t.anchor()).isEqualTo(AnchorKey.reflection("greedy"));
          assertThat(t.action()).isEqualTo(m.reflections().get(t.episodeIndex() - 1));
          assertThat(t.reward()).isZero();
        }
      }
    }
    assertThat(bySecret[3]).as("the seed must give some task with secret 3").isPositive();
    // exactly one call per step, holding only the active meta-episodes
    int two = bySecret[2] + bySecret[3];
    List<Integer> expectedBatches = new ArrayList<>(List.of(24, two, two));
    if (bySecret[3] > 0) {
      expectedBatches.add(bySecret[3]);
      expectedBatches.add(bySecret[3]);
    }
    assertThat(policy.batchSizes()).isEqualTo(expectedBatches);
    assertThat(result.policyCalls()).isEqualTo(expectedBatches.size());
  }

  @Test
  void fillsPolicyRequestsAndDerivesSamplingSeeds() {
    RecordingPolicy policy = learner();
    RolloutConfig config = duelConfig().optFixedOpponent("greedy").build();
    runner.run(config, policy);

    PolicyRequest first = policy.calls.get(0).get(0);
    assertThat(first.workerKey()).isEqualTo("g0/0");
    assertThat(policy.calls.get(0).get(3).workerKey()).isEqualTo("g1/1");
    assertThat(first.phase()).isEqualTo(Phase.PLAY);
    assertThat(first.episodeIndex()).isZero();
    assertThat(first.turnIndex()).isZero();
    assertThat(first.legalActions()).containsExactly("1", "2", "3", "pass");
    assertThat(first.state()).isEqualTo(new ToyDuel.DuelState(List.of(), 0));
    assertThat(first.pastEpisodes()).isEmpty();
    PolicyRequest reflect = policy.calls.get(1).get(0);
    assertThat(reflect.phase()).isEqualTo(Phase.REFLECT);
    assertThat(reflect.episodeIndex()).isEqualTo(1);
    assertThat(reflect.legalActions()).isEmpty();
    assertThat(reflect.pastEpisodes()).hasSize(1);
    assertThat(policy.calls.get(2).get(0).pastEpisodes()).hasSize(1);

    Set<Long> seeds = new HashSet<>();
    for (int i = 0; i < policy.samplings.size(); i++) {
      SamplingConfig s = policy.samplings.get(i);
      assertThat(s.seed()).hasValue(Seeds.derive(7, Seeds.SAMPLING, i));
      assertThat(s.maxNewTokens()).isEqualTo(ToyDuelProvider.DEFAULTS.maxResponseTokens());
      assertThat(s.temperature()).isEqualTo(1.0);
      seeds.add(s.seed().getAsLong());
    }
    assertThat(seeds).hasSize(policy.samplings.size());

    RecordingPolicy seeded = learner();
    runner.run(config.toBuilder().optSampling(SamplingConfig.builder().optSeed(99).build()).build(), seeded);
    assertThat(seeded.samplings.get(2).seed()).hasValue(Seeds.derive(99, Seeds.SAMPLING, 2));
  }

  @Test
  void groupsShareSeedOpponentAndSeat() {
    RolloutResult result = runner.run(duelConfig().optTasks(10).optGroupSize(4)
        .optSeating(Seating.mixed(0.5)).build(), learner());
    List<MetaEpisode> ms = result.metaEpisodes();
    assertThat(ms).hasSize(40);
    Set<String> opponents = new HashSet<>();
    int secondGroups = 0;
    for (int b = 0; b < 10; b++) {
      List<MetaEpisode> group = ms.subList(4 * b, 4 * b + 4);
      for (int i = 0; i < 4; i++) {
        MetaEpisode m = group.get(i);
        assertThat(m.groupId()).isEqualTo("g" + b);
        assertThat(m.indexInGroup()).isEqualTo(i);
        assertThat(m.seed()).isEqualTo(Seeds.taskSeed(7, b));
        assertThat(m.opponentId()).isEqualTo(group.get(0).opponentId());
        assertThat(m.seat()).isEqualTo(group.get(0).seat());
      }
      opponents.add(group.get(0).opponentId());
      if (group.get(0).seat() == Seat.SECOND) {
        secondGroups++;
        int opening = ToyDuel.openingFor(group.get(0).seed());
        assertThat(group.get(0).turns().get(0).prompt()).contains("Ruled out: " + opening);
      } else {
        assertThat(group.get(0).turns().get(0).prompt()).contains("Ruled out: none");
      }
    }
    assertThat(secondGroups).isEqualTo(5);
    assertThat(opponents).containsExactlyInAnyOrder("greedy", "patient");
  }

  @Test
  void perMetaEpisodeSamplingMixesOpponentsInsideGroups() {
    RolloutResult result = runner.run(duelConfig().optTasks(10).optGroupSize(4)
        .optOpponentSampling(OpponentSampling.PER_META_EPISODE).build(), learner());
    boolean mixed = false;
    for (int b = 0; b < 10; b++) {
      Set<String> ids = result.metaEpisodes().subList(4 * b, 4 * b + 4).stream()
          .map(MetaEpisode::opponentId).collect(Collectors.toSet());
      mixed |= ids.size() > 1;
    }
    assertThat(mixed).isTrue();
  }

  @Test
  void quotasGiveEveryGroupTheOpponentOfItsBlockWhateverTheSeed() {
    // weights 3 : 1 over 8 groups: 6 greedy groups then 2 patient ones, the same for every seed
    OpponentPool pool = OpponentPool.builder().addOpponent(DuelOpponent.greedy(), 3.0)
        .addOpponent(DuelOpponent.patient(), 1.0).build();
    for (long seed : new long[] {7, 8}) {
      RolloutResult result = runner.run(duelConfig().optTasks(8).optGroupSize(2).optSeed(seed).optOpponentPool(pool)
          .optSeating(Seating.mixed(0.5)).optOpponentSampling(OpponentSampling.QUOTA).build(), learner());
      List<String> byGroup = new ArrayList<>();
      for (int b = 0; b < 8; b++) {
        List<MetaEpisode> group = result.metaEpisodes().subList(2 * b, 2 * b + 2);
        assertThat(group.get(1).opponentId()).isEqualTo(group.get(0).opponentId());
        byGroup.add(group.get(0).opponentId());
      }
      assertThat(byGroup).containsExactly("greedy", "greedy", "greedy", "greedy", "greedy", "greedy", "patient",
          "patient");
    }
    // a fixed opponent still wins over the quotas
    RolloutResult fixed = runner.run(duelConfig().optTasks(4).optOpponentSampling(OpponentSampling.QUOTA)
        .optFixedOpponent("coin").build(), learner());
    assertThat(fixed.metaEpisodes()).extracting(MetaEpisode::opponentId).containsOnly("coin");
  }

  @Test
  void sameConfigAndSeedGiveEqualMetaEpisodes() {
    RolloutConfig config = duelConfig().optSeating(Seating.mixed(0.5)).build();
    RolloutResult a = runner.run(config, duel.scriptedPolicy("random", 5));
    RolloutResult b = runner.run(config, duel.scriptedPolicy("random", 5));
    assertThat(a.metaEpisodes()).isEqualTo(b.metaEpisodes());
    assertThat(a).isEqualTo(b);
    RolloutResult c = runner.run(config.toBuilder().optSeed(8).build(), duel.scriptedPolicy("random", 5));
    assertThat(c.metaEpisodes()).isNotEqualTo(a.metaEpisodes());
    assertThat(c.metaEpisodes().get(0).seed()).isNotEqualTo(a.metaEpisodes().get(0).seed());
  }

  @Test
  void reflectionOnlyShowsReflectionsOfEarlierEpisodes() {
    RolloutResult result = runner.run(singleTask(ContextMode.REFLECTION_ONLY, 4).optFixedOpponent("greedy")
        .build(), duel.scriptedPolicy("stubborn", 1));
    MetaEpisode m = result.metaEpisodes().get(0);
    assertThat(m.turns().stream().filter(Turn::isReflection).count()).isEqualTo(2);
    var ep2 = playContexts().stream().filter(c -> c.episodeIndex() == 2).findFirst().orElseThrow();
    assertThat(ep2.pastEpisodes()).hasSize(2);
    for (var p : ep2.pastEpisodes()) {
      assertThat(p.steps()).isEmpty();
      assertThat(p.reflection()).isEqualTo(m.reflections().get(p.index()));
      assertThat(p.outcome()).isEqualTo(Outcome.LOST);
    }
    assertThat(m.turns().get(m.turns().size() - 1).prompt()).contains(m.reflections().get(1));
  }

  @Test
  void historyAndReflectionShowsActionsOutcomeAndReflection() {
    runner.run(singleTask(ContextMode.HISTORY_AND_REFLECTION, 4).optFixedOpponent("greedy").build(),
        duel.scriptedPolicy("stubborn", 1));
    var ep1 = playContexts().stream().filter(c -> c.episodeIndex() == 1).findFirst().orElseThrow();
    assertThat(ep1.pastEpisodes()).singleElement().satisfies(p -> {
      assertThat(p.steps()).singleElement().satisfies(s -> {
        assertThat(s.action()).isEqualTo("1");
        assertThat(s.observation()).isNull();
      });
      assertThat(p.reflection()).isNotEmpty();
      assertThat(p.outcome()).isEqualTo(Outcome.LOST);
    });
  }

  @Test
  void historyOnlyWritesNoReflections() {
    RolloutResult result = runner.run(singleTask(ContextMode.HISTORY_ONLY, 4).optFixedOpponent("greedy").build(),
        duel.scriptedPolicy("stubborn", 1));
    MetaEpisode m = result.metaEpisodes().get(0);
    assertThat(m.turns()).noneMatch(Turn::isReflection);
    assertThat(m.reflections().isEmpty()).isTrue();
    assertThat(m.episodes()).hasSize(3);
    var ep1 = playContexts().stream().filter(c -> c.episodeIndex() == 1).findFirst().orElseThrow();
    assertThat(ep1.pastEpisodes()).singleElement().satisfies(p -> {
      assertThat(p.steps()).hasSize(1);
      assertThat(p.reflection()).isEmpty();
    });
  }

  @Test
  void noContextStartsEveryEpisodeBlank() {
    RecordingPolicy policy = new RecordingPolicy(duel.scriptedPolicy("learner", 1), false);
    RolloutResult result = runner.run(singleTask(ContextMode.NONE, 4).optFixedOpponent("greedy").build(), policy);
    MetaEpisode m = result.metaEpisodes().get(0);
    assertThat(m.turns()).noneMatch(Turn::isReflection);
    // the learner cannot see its earlier guesses, so it repeats its first one and keeps losing
    assertThat(m.episodes()).hasSize(3).allMatch(e -> e.outcome() == Outcome.LOST);
    assertThat(m.turns()).extracting(Turn::prompt).containsOnly(m.turns().get(0).prompt());
    assertThat(playContexts()).allMatch(c -> c.pastEpisodes().isEmpty() && c.episodeIndex() == 0);
    assertThat(policy.calls).allMatch(c -> c.get(0).pastEpisodes().isEmpty());
    assertThat(policy.calls.get(2).get(0).episodeIndex()).isEqualTo(2);
  }

  @Test
  void historyWindowShowsTheLatestStepsAndTheirLastObservations() {
    // stubborn vs patient: guess 1 (wrong, valid), then 1 again and again (ruled out, invalid) until truncation
    RolloutResult result = runner.run(singleTask(ContextMode.REFLECTION_ONLY, 9).optFixedOpponent("patient")
        .optEpisodes(2).build(), duel.scriptedPolicy("stubborn", 1));
    MetaEpisode m = result.metaEpisodes().get(0);
    assertThat(m.episodes()).hasSize(2).allSatisfy(e -> {
      assertThat(e.outcome()).isEqualTo(Outcome.TRUNCATED);
      assertThat(e.length()).isEqualTo(9);
      assertThat(e.score()).isZero();
      assertThat(e.totalReward()).isEqualTo(-1);
    });
    List<PromptContext> contexts = duel.contexts();
    assertThat(contexts).hasSize(19);
    for (int t = 0; t < 9; t++) {
      var c = contexts.get(t);
      int shown = Math.min(t, 7);
      assertThat(c.steps()).hasSize(shown);
      for (int i = 0; i < shown; i++) {
        var s = c.steps().get(i);
        assertThat(s.number()).isEqualTo(t - shown + i + 1);
        assertThat(s.observation() != null).isEqualTo(i >= shown - 2);
        assertThat(s.valid()).isEqualTo(s.number() == 1);
      }
    }
    var reflect = contexts.get(9);
    assertThat(reflect.outcome()).isEqualTo(Outcome.TRUNCATED);
    assertThat(reflect.episodeIndex()).isZero();
    assertThat(reflect.pastEpisodes()).isEmpty();
    assertThat(reflect.steps()).hasSize(9).allMatch(s -> s.observation() != null);
    assertThat(contexts.get(10).episodeIndex()).isEqualTo(1);
    assertThat(contexts.get(10).steps()).isEmpty();
    assertThat(m.turns().get(3).prompt()).contains("Step 3 - Action: 1, but it is invalid");
    assertThat(m.turns().get(2).valid()).isFalse();
    assertThat(m.turns().get(0).valid()).isTrue();
  }

  @Test
  void unreadableOutputIsAnInvalidTurnAndAMissingRemarkAnInvalidReflection() {
    RolloutResult result = runner.run(singleTask(ContextMode.REFLECTION_ONLY, 2).optFixedOpponent("greedy").build(),
        duel.scriptedPolicy("garbage", 1));
    MetaEpisode m = result.metaEpisodes().get(0);
    assertThat(m.turns()).hasSize(3 * 2 + 2).allMatch(t -> !t.valid());
    assertThat(m.episodes()).allMatch(e -> e.outcome() == Outcome.TRUNCATED);
    assertThat(m.reflections().asList()).containsExactly("", "");
    assertThat(m.turns().get(2).action()).isEmpty();
    assertThat(m.turns().get(2).anchor()).isEqualTo(AnchorKey.reflection("greedy"));
  }

  @Test
  void reflectionIsTheFirstRemarkStrippedAndCut() {
    assertThat(MetaEpisodeRunner.extractReflection("x <remark> a \n</remark> <remark>b</remark>")).hasValue("a");
    assertThat(MetaEpisodeRunner.extractReflection("<remark>never closed")).isEmpty();
    assertThat(MetaEpisodeRunner.extractReflection("<remark></remark>")).hasValue("");
    String longText = "y".repeat(3000);
    LanguagePolicy verbose = new LanguagePolicy() {
      @Override
      public String name() {
        return "verbose";
      }

      @Override
      public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
        return requests.stream().map(r -> Generation.ofText(r.phase() == Phase.REFLECT
            ? "thinking <remark>" + longText + "</remark> <remark>second</remark>" : "<action>1</action>"))
            .collect(Collectors.toList());
      }
    };
    RolloutResult result = runner.run(singleTask(ContextMode.REFLECTION_ONLY, 2).optFixedOpponent("greedy").build(),
        verbose);
    MetaEpisode m = result.metaEpisodes().get(0);
    assertThat(m.reflections().get(0)).hasSize(2000).isEqualTo(longText.substring(0, 2000));
    assertThat(m.turns().get(1).action()).isEqualTo(m.reflections().get(0));
    assertThat(m.turns().get(1).valid()).isTrue();
  }

  @Test
  void recordsTokensLogProbsAndTruncatedResponses() {
    RecordingPolicy policy = new RecordingPolicy(duel.scriptedPolicy("learner", 1), true);
    SamplingConfig sampling = SamplingConfig.builder().optMaxNewTokens(18).build();
    RolloutResult result = runner.run(duelConfig().optFixedOpponent("greedy").optSampling(sampling).build(), policy);
    for (MetaEpisode m : result.metaEpisodes()) {
      for (Turn t : m.turns()) {
        assertThat(t.responseTokenIds()).isEqualTo(t.response().chars().toArray());
        assertThat(t.logProbs()).hasSize(t.response().length()).containsOnly(-0.25f);
        assertThat(t.promptTokenIds()).containsExactly(t.prompt().length(), 1, 2);
        assertThat(t.responseTruncated()).isEqualTo(t.response().length() >= 18);
      }
      assertThat(m.turns().get(0).responseTruncated()).isTrue(); // "<action>1</action>" is 18 characters
    }
  }

  @Test
  void earlyStopOffKeepsPlayingAfterAWin() {
    RolloutResult result = runner.run(duelConfig().optFixedOpponent("greedy").optEarlyStop(false).build(),
        learner());
    for (MetaEpisode m : result.metaEpisodes()) {
      int secret = ToyDuel.secretFor(m.seed());
      assertThat(m.episodes()).hasSize(3);
      assertThat(m.reflections().size()).isEqualTo(2);
      for (Episode e : m.episodes()) {
        assertThat(e.won()).isEqualTo(e.index() >= secret - 1);
      }
    }
  }

  @Test
  void aThrowingEnvironmentStopsOnlyItsOwnMetaEpisodes() {
    int group = -1;
    for (int b = 0; b < 12 && group < 0; b++) {
      if (ToyDuel.secretFor(Seeds.taskSeed(7, b)) >= 2) {
        group = b;
      }
    }
    long bad = Seeds.taskSeed(7, group);
    RolloutResult result = runner.run(duelConfig().optFixedOpponent("patient")
        .addEnvironmentOption("explode_at", "step").addEnvironmentOption("explode_seed", "" + bad)
        .addEnvironmentOption("explode_turn", "1").build(), learner());
    int expectedFailures = 0;
    for (int b = 0; b < 12; b++) {
      expectedFailures += Seeds.taskSeed(7, b) == bad ? 2 : 0;
    }
    assertThat(result.failures()).hasSize(expectedFailures);
    assertThat(result.metaEpisodes()).hasSize(24 - expectedFailures).allMatch(MetaEpisode::won);
    WorkerFailure f = result.failures().get(0);
    assertThat(f.workerKey()).isEqualTo("g" + group + "/0");
    assertThat(f.seed()).isEqualTo(bad);
    assertThat(f.stage()).isEqualTo("step");
    assertThat(f.episodeIndex()).isZero();
    assertThat(f.turnIndex()).isEqualTo(1);
    assertThat(f.error()).hasMessageContaining("boom");
    assertThat(f.partial().turns()).hasSize(1);
    assertThat(f.partial().turns().get(0).action()).isEqualTo("1");
    assertThat(f.partial().episodes()).isEmpty();
    assertThat(f.describe()).contains("toy-duel", "g" + group + "/0", "seed " + bad, "episode 0, turn 1", "boom");
  }

  @Test
  void failuresAtResetRestartAndRendererAreReported() {
    long seed = seedWithSecretAbove1();
    long task = Seeds.taskSeed(seed, 0);
    RolloutConfig base = singleTask(ContextMode.REFLECTION_ONLY, 4).optSeed(seed).optFixedOpponent("greedy").build();

    RolloutResult restart = runner.run(base.toBuilder().addEnvironmentOption("explode_at", "restart")
        .addEnvironmentOption("explode_seed", "" + task).addEnvironmentOption("explode_episode", "1").build(),
        learner());
    assertThat(restart.metaEpisodes()).isEmpty();
    WorkerFailure f = restart.failures().get(0);
    assertThat(f.stage()).isEqualTo("restart");
    assertThat(f.episodeIndex()).isEqualTo(1);
    assertThat(f.partial().turns()).extracting(Turn::phase).containsExactly(Phase.PLAY, Phase.REFLECT);
    assertThat(f.partial().episodes()).hasSize(1);
    assertThat(f.partial().reflections().size()).isEqualTo(1);

    RolloutResult reset = runner.run(base.toBuilder().addEnvironmentOption("explode_at", "reset")
        .addEnvironmentOption("explode_seed", "" + task).build(), learner());
    assertThat(reset.failures()).singleElement().satisfies(r -> {
      assertThat(r.stage()).isEqualTo("reset");
      assertThat(r.partial().turns()).isEmpty();
    });
    assertThat(reset.policyCalls()).isZero();

    RolloutResult renderer = runner.run(duelConfig().optFixedOpponent("greedy")
        .addEnvironmentOption("explode_at", "renderer").build(), learner());
    assertThat(renderer.failures()).hasSize(24);
    assertThat(renderer.metaEpisodes()).isEmpty();
    assertThat(renderer.policyCalls()).isZero();
  }

  @Test
  void aPolicyThatMiscountsOrThrowsAbortsWithItsNameAndStep() {
    LanguagePolicy short1 = new LanguagePolicy() {
      @Override
      public String name() {
        return "short";
      }

      @Override
      public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
        return List.of(Generation.ofText("<action>1</action>"));
      }
    };
    assertThatThrownBy(() -> runner.run(duelConfig().optFixedOpponent("greedy").build(), short1))
        .isInstanceOf(RolloutException.class)
        .hasMessageContaining("policy 'short' returned 1 generations for 24 prompts at episode 0, turn 0");
    IllegalStateException cause = new IllegalStateException("out of memory on the pretend GPU");
    LanguagePolicy thrower = new LanguagePolicy() {
      @Override
      public String name() {
        return "thrower";
      }

      @Override
      public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
        throw cause;
      }
    };
    assertThatThrownBy(() -> runner.run(duelConfig().optFixedOpponent("greedy").build(), thrower))
        .isInstanceOf(RolloutException.class)
        .hasMessageContaining("policy 'thrower' threw at episode 0, turn 0")
        .hasCause(cause);
    assertThat(duel.closed()).as("environments are closed after an aborted run").isEqualTo(48);
  }

  @Test
  void reportsProgressAndClosesEnvironments() {
    List<String> events = new ArrayList<>();
    RolloutListener listener = new RolloutListener() {
      @Override
      public void onPolicyCall(Phase phase, int episodeIndex, int turnIndex, int batchSize, long nanos) {
        events.add(phase + " " + episodeIndex + "." + turnIndex + " x" + batchSize);
      }

      @Override
      public void onMetaEpisode(MetaEpisode metaEpisode) {
        events.add("done " + metaEpisode.groupId() + "/" + metaEpisode.indexInGroup());
      }

      @Override
      public void onFailure(WorkerFailure failure) {
        events.add("failed " + failure.workerKey());
      }
    };
    long bad = Seeds.taskSeed(7, 0);
    RolloutResult result = new MetaEpisodeRunner(EnvironmentRegistry.empty().register(duel),
        listener).run(duelConfig().optTasks(2).optFixedOpponent("greedy").addEnvironmentOption("explode_at",
        "step").addEnvironmentOption("explode_seed", "" + bad).build(), learner());
    assertThat(events.get(0)).isEqualTo("PLAY 0.0 x4");
    assertThat(events).contains("failed g0/0", "failed g0/1", "done g1/0", "done g1/1");
    assertThat(events.stream().filter(e -> e.startsWith("PLAY") || e.startsWith("REFLECT")).count())
        .isEqualTo(result.policyCalls());
    assertThat(duel.closed()).isEqualTo(4);
  }

  @Test
  void singlePlayerEnvironmentsHaveNoOpponentAndSitFirst() {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(ToyWalkProvider.ID).optTasks(6).optGroupSize(2)
        .optSeating(Seating.mixed(0.5)).build();
    RolloutResult result = runner.run(config, walk.scriptedPolicy("right", 1));
    assertThat(result.metaEpisodes()).hasSize(12).allSatisfy(m -> {
      assertThat(m.opponentId()).isEmpty();
      assertThat(m.seat()).isEqualTo(Seat.FIRST);
      int goal = ToyWalkProvider.goalFor(m.seed());
      assertThat(m.episodes()).singleElement().satisfies(e -> {
        assertThat(e.won()).isTrue();
        assertThat(e.length()).isEqualTo(goal);
        assertThat(e.totalReward()).isCloseTo(10 - 0.1 * (goal - 1), offset(1e-9));
      });
      assertThat(m.turns()).allMatch(t -> t.anchor().opponentId().isEmpty() && t.opponentId().isEmpty());
    });
    assertThatThrownBy(() -> runner.run(config.toBuilder().optFixedOpponent("greedy").build(),
        walk.scriptedPolicy("right", 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("single-player");
  }

  @Test
  void listedTaskSeedsReplaceTheDerivedOnesGroupByGroup() {
    List<Long> seeds = List.of(5L, 77L, 5L);
    RolloutResult result = runner.run(duelConfig().optTaskSeeds(seeds).optGroupSize(2).build(), learner());
    assertThat(result.metaEpisodes()).hasSize(6);
    for (int i = 0; i < 6; i++) {
      assertThat(result.metaEpisodes().get(i).seed()).isEqualTo(seeds.get(i / 2));
      assertThat(result.metaEpisodes().get(i).groupId()).isEqualTo("g" + (i / 2));
    }
    RolloutConfig c = duelConfig().optTaskSeeds(seeds).build();
    assertThat(c.tasks()).isEqualTo(3);
    assertThat(c.toBuilder().build()).isEqualTo(c);
    assertThatThrownBy(() -> duelConfig().optTaskSeeds(seeds).optTasks(4).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("taskSeeds holds 3 seeds")
        .hasMessageContaining("4 tasks");
    assertThatThrownBy(() -> duelConfig().optTaskSeeds(List.of())).hasMessageContaining("at least one seed");
    assertThat(duelConfig().build().reflectionControl()).isEqualTo(ReflectionControl.OWN);
  }

  @Test
  void badSettingsFailWithClearMessages() {
    assertThatThrownBy(() -> runner.run(RolloutConfig.builder().setEnvironmentId("nope").build(), learner()))
        .isInstanceOf(PluginException.class).hasMessageContaining("toy-duel");
    assertThatThrownBy(() -> runner.run(duelConfig().optFixedOpponent("mcts").build(), learner()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown opponent 'mcts'")
        .hasMessageContaining("greedy");
    assertThatThrownBy(() -> runner.run(duelConfig().addEnvironmentOption("size", "9").build(), learner()))
        .isInstanceOf(RolloutException.class)
        .hasMessageContaining("unknown option 'size' (value '9') for environment 'toy-duel'");
    OpponentPool heldOutOnly = OpponentPool.builder().addHeldOut(DuelOpponent.coin()).build();
    assertThatThrownBy(() -> runner.run(duelConfig().optOpponentPool(heldOutOnly).build(), learner()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no training opponents");
    assertThatThrownBy(() -> RolloutConfig.builder().setEnvironmentId("x").optTasks(0).build())
        .hasMessageContaining("tasks must be >= 1, got 0");
    assertThatThrownBy(() -> RolloutConfig.builder().build()).hasMessageContaining("environmentId");
    assertThatThrownBy(() -> Seating.parse("middle")).hasMessageContaining("first, second, mixed");
    assertThat(Seating.parse("mixed:0.25")).isEqualTo(Seating.mixed(0.25));
  }

  @Test
  void windowKeepsTheLastStepsAndObservations() {
    List<HistoryStep> steps = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      steps.add(new HistoryStep(i, "a" + i, true, "o" + i));
    }
    assertThat(MetaEpisodeRunner.window(steps, 3, 1)).extracting(HistoryStep::observation)
        .containsExactly(null, null, "o5");
    assertThat(MetaEpisodeRunner.window(steps, 10, 10)).isEqualTo(steps);
    assertThat(MetaEpisodeRunner.window(steps, 0, 2)).isEmpty();
  }

  private RolloutConfig.Builder singleTask(ContextMode mode, int maxTurns) {
    duel.contexts().clear();
    return RolloutConfig.builder().setEnvironmentId(ToyDuelProvider.ID).optTasks(1).optGroupSize(1)
        .optSeed(seedWithSecretAbove1()).optContextMode(mode).optMaxTurns(maxTurns);
  }

  private List<PromptContext> playContexts() {
    return duel.contexts().stream().filter(c -> c.outcome() == null).collect(Collectors.toList());
  }
}
