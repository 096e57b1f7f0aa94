package org.magejvm.impl.credit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Episode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.Outcome;
import org.magejvm.api.Phase;
import org.magejvm.api.ReflectionMemory;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.testkit.ToyDuelProvider;
import org.junit.jupiter.api.Test;

class CreditAssignerTest {

  private static final double TOL = 1e-3;

  /** The worked example of the specification: ep0 loss (3 rows), reflect, ep1 draw (4 rows), reflect, ep2 win. */
  private static MetaEpisode workedExample() {
    return meta(new double[][] {{0, 0, -10}, {0, 0, 0, 0}, {0, 0, 10}}, true);
  }

  /** Builds a meta-episode from per-episode play rewards, with reflection turns between episodes if asked. */
  static MetaEpisode meta(double[][] rewards, boolean reflections) {
    List<Turn> turns = new ArrayList<>();
    List<Episode> episodes = new ArrayList<>();
    List<String> written = new ArrayList<>();
    for (int n = 0; n < rewards.length; n++) {
      if (n > 0 && reflections) {
        turns.add(turn(Phase.REFLECT, n, 0, 0, true, 0));
        written.add("reflection " + n);
      }
      List<Turn> play = new ArrayList<>();
      double total = 0;
      for (int t = 0; t < rewards[n].length; t++) {
        Turn x = turn(Phase.PLAY, n, t, rewards[n][t], true, 0);
        play.add(x);
        total += rewards[n][t];
      }
      turns.addAll(play);
      episodes.add(new Episode(n, play, total > 0 ? Outcome.WON : total < 0 ? Outcome.LOST : Outcome.DRAW, total, 0));
    }
    return new MetaEpisode("toy", "g3", 1, 42, "opp", Seat.SECOND, turns, episodes, ReflectionMemory.of(written));
  }

  static Turn turn(Phase phase, int episode, int t, double reward, boolean valid, int tokens) {
    return Turn.builder().setPhase(phase).setEpisodeIndex(episode).setTurnIndex(t).setPrompt("p")
        .setResponse("r").optReward(reward).optValid(valid).optResponseTokenIds(new int[tokens]).optOpponentId("opp")
        .setAnchor(phase == Phase.REFLECT ? AnchorKey.reflection("opp") : new AnchorKey("s" + t, "opp")).build();
  }

  private static CreditAssigner assigner(MetaReturn kind) {
    return assigner(kind, EpisodeScore.ATTEMPT);
  }

  private static CreditAssigner assigner(MetaReturn kind, EpisodeScore score) {
    return new CreditAssigner(CreditConfig.builder().optMetaReturn(kind).optGammaStep(0.95).optGammaTraj(0.6)
        .optEpisodeScore(score).build());
  }

  private static void assertRows(List<ScoredTurn> rows, double[] returns, double[] scores) {
    assertThat(rows).hasSize(returns.length);
    for (int i = 0; i < rows.size(); i++) {
      assertThat(rows.get(i).stepReturn()).as("G of row %d", i).isCloseTo(returns[i], within(TOL));
      assertThat(rows.get(i).episodeScore()).as("s of row %d", i).isCloseTo(scores[i], within(TOL));
    }
  }

  @Test
  void differentialReproducesTheWorkedExample() {
    List<ScoredTurn> rows = assigner(MetaReturn.DIFFERENTIAL).assign(workedExample());
    assertRows(rows,
        new double[] {-1.868, -1.967, -2.070, 13.216, 13.216, 13.912, 14.644, 15.415, 9.025, 9.025, 9.5, 10.0},
        new double[] {-10, -10, -10, 0, 10, 10, 10, 10, 0, 10, 10, 10});
    assertThat(rows).allSatisfy(r -> {
      assertThat(r.groupId()).isEqualTo("g3");
      assertThat(r.seat()).isEqualTo(Seat.SECOND);
    });
    assertThat(rows.get(3).turn().isReflection()).isTrue();
  }

  @Test
  void cumulativeReproducesTheWorkedExample() {
    assertRows(assigner(MetaReturn.CUMULATIVE).assign(workedExample()),
        new double[] {-6.511, -6.854, -7.214, 4.643, 4.643, 4.887, 5.144, 5.415, 9.025, 9.025, 9.5, 10.0},
        new double[] {-10, -10, -10, 0, 0, 0, 0, 0, 0, 10, 10, 10});
  }

  @Test
  void differentialReproducesTheEarlyStopExample() {
    MetaEpisode m = meta(new double[][] {{0, -10}, {0, 0, 10}}, true);
    assertRows(assigner(MetaReturn.DIFFERENTIAL).assign(m),
        new double[] {0.789, 0.830, 18.05, 18.05, 19.0, 20.0},
        new double[] {-10, -10, 0, 20, 20, 20});
  }

  @Test
  void metaEpisodeScoresGiveEveryTurnTheWholeMetaEpisodesOutcomeAndLeaveReturnsAlone() {
    MetaEpisode m = workedExample();
    // differential: r' = [-10, +10, +10] sums to 10, the last attempt's reward; the reflection turns (3 and 8) too
    assertRows(assigner(MetaReturn.DIFFERENTIAL, EpisodeScore.META_EPISODE).assign(m),
        new double[] {-1.868, -1.967, -2.070, 13.216, 13.216, 13.912, 14.644, 15.415, 9.025, 9.025, 9.5, 10.0},
        new double[] {10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10});
    // cumulative: R = [-10, 0, 10] sums to 0
    assertRows(assigner(MetaReturn.CUMULATIVE, EpisodeScore.META_EPISODE).assign(m),
        new double[] {-6.511, -6.854, -7.214, 4.643, 4.643, 4.887, 5.144, 5.415, 9.025, 9.025, 9.5, 10.0},
        new double[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // single-episode scores are the episode's own either way (a reflection's 0)
    assertRows(assigner(MetaReturn.SINGLE_EPISODE, EpisodeScore.META_EPISODE).assign(m),
        new double[] {-9.025, -9.5, -10, 0, 0, 0, 0, 0, 9.025, 9.025, 9.5, 10.0},
        new double[] {-10, -10, -10, 0, 0, 0, 0, 0, 0, 10, 10, 10});
    // the early-stop example: lost -10, then won +10; penalties still lower the invalid turn only
    MetaEpisode early = meta(new double[][] {{0, -10}, {0, 0, 10}}, true);
    assertRows(assigner(MetaReturn.DIFFERENTIAL, EpisodeScore.META_EPISODE).assign(early),
        new double[] {0.789, 0.830, 18.05, 18.05, 19.0, 20.0},
        new double[] {10, 10, 10, 10, 10, 10});
    CreditConfig c = CreditConfig.builder().optEpisodeScore(EpisodeScore.META_EPISODE).build();
    assertThat(c.toBuilder().build()).isEqualTo(c);
    assertThat(CreditConfig.builder().build().episodeScore()).isEqualTo(EpisodeScore.ATTEMPT);
  }

  @Test
  void singleEpisodeReturnsStopAtEpisodeBoundaries() {
    assertRows(assigner(MetaReturn.SINGLE_EPISODE).assign(workedExample()),
        new double[] {-9.025, -9.5, -10, 0, 0, 0, 0, 0, 9.025, 9.025, 9.5, 10.0},
        new double[] {-10, -10, -10, 0, 0, 0, 0, 0, 0, 10, 10, 10});
  }

  @Test
  void intermediateRewardsCountPerStepOnlyInCumulativeAndSingleEpisodeReturns() {
    MetaEpisode m = meta(new double[][] {{-0.1, -0.1, 10}}, false);
    double total = 9.8;
    assertRows(assigner(MetaReturn.DIFFERENTIAL).assign(m),
        new double[] {total * 0.95 * 0.95, total * 0.95, total}, new double[] {total, total, total});
    double g1 = -0.1 + 0.95 * 10;
    double g0 = -0.1 + 0.95 * g1;
    assertRows(assigner(MetaReturn.CUMULATIVE).assign(m), new double[] {g0, g1, 10},
        new double[] {total, total, total});
    assertRows(assigner(MetaReturn.SINGLE_EPISODE).assign(m), new double[] {g0, g1, 10},
        new double[] {total, total, total});
  }

  @Test
  void penaltiesLowerOnlyTheEpisodeScore() {
    List<Turn> turns = List.of(
        turn(Phase.PLAY, 0, 0, 0, false, 0),
        turn(Phase.PLAY, 0, 1, -10, true, 2304),
        turn(Phase.REFLECT, 1, 0, 0, false, 1536),
        turn(Phase.PLAY, 1, 0, 10, false, 5000),
        turn(Phase.PLAY, 1, 1, 0, true, 1537));
    List<Episode> episodes = List.of(
        new Episode(0, turns.subList(0, 2), Outcome.LOST, -10, -1),
        new Episode(1, turns.subList(3, 5), Outcome.WON, 10, 1));
    MetaEpisode m = new MetaEpisode("toy", "g0", 0, 1, "opp", Seat.FIRST, turns, episodes,
        ReflectionMemory.of(List.of("")));
    CreditConfig config = CreditConfig.builder().optInvalidPenalty(0.5).optLengthPenalty(2.0)
        .optMaxResponseTokens(3072).build();
    CreditAssigner penalised = new CreditAssigner(config);
    CreditAssigner free = new CreditAssigner(config.toBuilder().optInvalidPenalty(0).optLengthPenalty(0).build());
    List<ScoredTurn> with = penalised.assign(m);
    List<ScoredTurn> without = free.assign(m);
    double[] raw = {-10, -10, 0, 20, 20};
    double[] expectedPenalty = {0.5, 2.0 * (2304 - 1536) / 1536.0, 0.5, 0.5 + 2.0, 2.0 / 1536};
    for (int i = 0; i < turns.size(); i++) {
      assertThat(without.get(i).episodeScore()).isCloseTo(raw[i], within(1e-12));
      assertThat(with.get(i).episodeScore()).isCloseTo(raw[i] - expectedPenalty[i], within(1e-12));
      assertThat(with.get(i).stepReturn()).isEqualTo(without.get(i).stepReturn());
    }
    assertThat(penalised.lengthPenalty(1536)).isZero();
    assertThat(penalised.lengthPenalty(3072)).isEqualTo(2.0);
    assertThat(penalised.lengthPenalty(0)).isZero();
  }

  @Test
  void defaultsComeFromTheEnvironment() {
    CreditConfig c = CreditConfig.forEnvironment(ToyDuelProvider.DEFAULTS).optMetaReturn(MetaReturn.CUMULATIVE)
        .build();
    assertThat(c).isEqualTo(new CreditConfig(MetaReturn.CUMULATIVE, 0.95, 0.6, 0.5, 2.0, 16));
    assertThatThrownBy(() -> CreditConfig.builder().optGammaTraj(1.5).build())
        .hasMessageContaining("credit.gamma_traj must be in [0.0, 1.0], got 1.5");
  }

  @Test
  void rejectsMetaEpisodesWithoutAPlayTurnWhereOneIsNeeded() {
    // turns out of order never reach the assigner: MetaEpisode rejects them (see MetaEpisodeConsistencyTest)
    Turn second = turn(Phase.PLAY, 1, 0, 0, true, 0);
    MetaEpisode gap = new MetaEpisode("toy", "g0", 2, 1, "opp", Seat.FIRST, List.of(second),
        List.of(new Episode(0, List.of(), Outcome.LOST, 0, 0), new Episode(1, List.of(second), Outcome.LOST, 0, 0)),
        ReflectionMemory.empty());
    assertThatThrownBy(() -> assigner(MetaReturn.DIFFERENTIAL).assign(gap))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("g0/2").hasMessageContaining("episode 1");
    Turn first = turn(Phase.PLAY, 0, 0, 0, true, 0);
    List<Turn> dangling = List.of(first, turn(Phase.REFLECT, 1, 0, 0, true, 0));
    MetaEpisode d = new MetaEpisode("toy", "g0", 0, 1, "opp", Seat.FIRST, dangling,
        List.of(new Episode(0, List.of(first), Outcome.LOST, 0, 0)), ReflectionMemory.of(List.of("")));
    assertThatThrownBy(() -> assigner(MetaReturn.DIFFERENTIAL).assign(d))
        .hasMessageContaining("reflection turn 1 prepares episode 1, which has no play turn");
  }

  @Test
  void scoresEveryTurnOfARollout() {
    ToyDuelProvider duel = new ToyDuelProvider();
    RolloutResult r = MetaEpisodeRunner.of(duel).run(RolloutConfig.builder().setEnvironmentId(ToyDuelProvider.ID)
        .optTasks(4).optGroupSize(3).optFixedOpponent("greedy").build(), duel.scriptedPolicy("learner", 3));
    CreditAssigner a = new CreditAssigner(CreditConfig.forEnvironment(duel.defaults()).build());
    List<ScoredTurn> rows = a.assign(r.metaEpisodes());
    int turns = r.metaEpisodes().stream().mapToInt(m -> m.turns().size()).sum();
    assertThat(rows).hasSize(turns);
    // the learner's undiscounted differential total is the final (winning) episode's reward, +10
    int i = 0;
    for (MetaEpisode m : r.metaEpisodes()) {
      double sum = 0;
      for (Episode e : m.episodes()) {
        int last = m.turns().indexOf(e.turns().get(e.length() - 1));
        sum += rows.get(i + last).episodeScore();
      }
      assertThat(sum).isCloseTo(10, within(1e-9));
      i += m.turns().size();
    }
  }
}
