package org.magejvm.impl.agentgym;

import static org.assertj.core.api.Assertions.assertThat;

import org.magejvm.api.ContextMode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.impl.agentgym.server.EnvServer;
import org.magejvm.impl.env.kuhn.KuhnPokerProvider;
import org.magejvm.impl.env.sokoban.SokobanProvider;
import org.magejvm.impl.env.tictactoe.TicTacToeProvider;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.policy.RandomPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The end-to-end test of issue 11: a built-in game served by {@link EnvServer} on a loopback port and played through
 * {@link RemoteEnvironmentProvider} with {@link MetaEpisodeRunner} and a scripted policy gives exactly the same
 * meta-episodes (every prompt, response, action, reward, anchor, outcome, reflection) and metrics as in-process.
 * Kuhn Poker and Tic-Tac-Toe render their prompts on the client from the game's sentences; Sokoban, whose renderer is
 * its own, renders them on the server ({@code POST /render}).
 */
class RemoteGameParityTest {

  private static EnvServer server;

  @BeforeAll
  static void start() throws Exception {
    EnvironmentRegistry registry = EnvironmentRegistry.empty()
        .register(new KuhnPokerProvider()).register(new TicTacToeProvider()).register(new SokobanProvider());
    server = EnvServer.builder().setRegistry(registry).optPort(0).build().start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static EnvironmentProvider local(String id) {
    switch (id) {
      case "mage-kuhn-poker":
        return new KuhnPokerProvider();
      case "mage-tictactoe":
        return new TicTacToeProvider();
      default:
        return new SokobanProvider();
    }
  }

  @ParameterizedTest(name = "{0} seed {1} {2} {3}")
  @CsvSource({
      "mage-kuhn-poker, 7, REFLECTION_ONLY, mixed",
      "mage-kuhn-poker, 123, HISTORY_AND_REFLECTION, second",
      "mage-tictactoe, 7, REFLECTION_ONLY, mixed",
      "mage-tictactoe, 99, HISTORY_AND_REFLECTION, first",
      "mage-sokoban, 5, REFLECTION_ONLY, first"})
  void aServedGamePlaysExactlyAsInProcess(String envId, long seed, ContextMode mode, String seating) {
    EnvironmentProvider inProcess = local(envId);
    RemoteEnvironmentProvider remote = new RemoteEnvironmentProvider(RemoteSettings.of(server.url()), envId);
    assertThat(remote.opponents().ids()).isEqualTo(inProcess.opponents().ids());
    assertThat(remote.defaults()).isEqualTo(inProcess.defaults());
    assertThat(remote.evaluationOpponent()).isEqualTo(inProcess.evaluationOpponent());

    RolloutResult here = play(inProcess, seed, mode, seating);
    RolloutResult there = play(remote, seed, mode, seating);

    assertThat(here.failures()).isEmpty();
    assertThat(there.failures()).isEmpty();
    assertThat(there.policyCalls()).isEqualTo(here.policyCalls());
    assertThat(there.metaEpisodes()).hasSameSizeAs(here.metaEpisodes());
    for (int i = 0; i < here.metaEpisodes().size(); i++) {
      MetaEpisode a = here.metaEpisodes().get(i);
      MetaEpisode b = there.metaEpisodes().get(i);
      assertThat(b.opponentId()).isEqualTo(a.opponentId());
      assertThat(b.seat()).isEqualTo(a.seat());
      assertThat(b.seed()).isEqualTo(a.seed());
      assertThat(b.turns()).as("turns of meta-episode %d", i).isEqualTo(a.turns());
      assertThat(b.episodes()).isEqualTo(a.episodes());
      assertThat(b.reflections()).isEqualTo(a.reflections());
    }
    assertThat(EvaluationMetrics.of(there.metaEpisodes(), there.episodes()).toMap())
        .isEqualTo(EvaluationMetrics.of(here.metaEpisodes(), here.episodes()).toMap());
    // the games were really played: some turns and, for the two-player games, several opponents
    assertThat(here.metaEpisodes().stream().mapToInt(m -> m.turns().size()).sum()).isGreaterThan(20);
    if (inProcess.twoPlayer()) {
      assertThat(here.metaEpisodes()).allSatisfy(m -> assertThat(m.opponentId()).isNotEmpty());
    }
    assertThat(server.openInstances()).as("every instance was closed at the end of the run").isZero();
  }

  private static RolloutResult play(EnvironmentProvider p, long seed, ContextMode mode, String seating) {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(p.id())
        .optTasks(6).optGroupSize(2).optSeed(seed).optContextMode(mode).optPromptStyle(PromptStyle.VERBOSE)
        .optSeating(Seating.parse(seating))
        .build();
    // the same policy class on both sides: the remote provider offers only the generic random policy
    return MetaEpisodeRunner.of(p).run(config, new RandomPolicy(seed + 1));
  }
}
