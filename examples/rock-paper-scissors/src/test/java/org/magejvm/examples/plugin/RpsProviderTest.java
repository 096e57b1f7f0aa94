package org.magejvm.examples.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.example.test.RpsOnTheBaseClass;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Outcome;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.api.plugin.ProviderRegistry;
import org.magejvm.examples.plugin.RpsEnvironment.Move;
import org.magejvm.examples.plugin.RpsEnvironment.Round;
import org.magejvm.examples.plugin.RpsEnvironment.State;
import org.magejvm.examples.plugin.RpsProvider.CounterPolicy.Habit;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;

class RpsProviderTest {

  private static final RpsProvider PROVIDER = new RpsProvider();
  private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());
  private static final SamplingConfig SAMPLING = SamplingConfig.evaluation(16);

  @Test
  void describesItselfWithAThirdPartyId() {
    assertThat(PROVIDER.id()).isEqualTo("rps").doesNotStartWith(ProviderRegistry.RESERVED_PREFIX);
    assertThat(PROVIDER.version()).isEqualTo("1.0.0");
    assertThat(PROVIDER.description()).contains("Rock-Paper-Scissors");
    assertThat(PROVIDER.create(Map.of()).id()).isEqualTo("rps");
    assertThat(PROVIDER.twoPlayer()).isTrue();
    assertThat(PROVIDER.evaluationSeat()).isEqualTo(Seat.FIRST);
  }

  @Test
  void theBaseClassVersionInThePluginGuideReportsTheSame() {
    RpsOnTheBaseClass base = new RpsOnTheBaseClass();
    assertThat(base.version()).isEqualTo(PROVIDER.version());
    assertThat(base.description()).isEqualTo(PROVIDER.description());
    assertThat(base.defaults()).isEqualTo(PROVIDER.defaults());
    assertThat(base.opponents()).isSameAs(PROVIDER.opponents());
    assertThat(base.evaluationOpponent()).isEqualTo(PROVIDER.evaluationOpponent());
    assertThat(base.evaluationSeat()).isEqualTo(PROVIDER.evaluationSeat());
    assertThat(base.twoPlayer()).isEqualTo(PROVIDER.twoPlayer());
    assertThat(base.options()).isEqualTo(PROVIDER.options());
    assertThat(base.scriptedPolicies()).isEqualTo(PROVIDER.scriptedPolicies());
    for (String name : PROVIDER.scriptedPolicies()) {
      assertThat(base.scriptedPolicy(name, 3)).isInstanceOf(PROVIDER.scriptedPolicy(name, 3).getClass());
    }
    assertThat(base.create(null)).isInstanceOf(RpsEnvironment.class);
    assertThatThrownBy(() -> base.create(Map.of("rounds", "5"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown option 'rounds' (value '5') for environment 'rps-on-the-base-class': it takes no"
            + " options");
    assertThatThrownBy(() -> base.scriptedPolicy("oracle", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown scripted policy 'oracle' for environment 'rps-on-the-base-class'; known policies:"
            + " random, counter");
  }

  @Test
  void defaultsLeaveRoomForInvalidAnswers() {
    EnvironmentDefaults d = PROVIDER.defaults();
    assertThat(d).isEqualTo(EnvironmentDefaults.builder()
        .setMaxTurns(6).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
        .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(1024)
        .build());
    assertThat(d.maxTurns()).isGreaterThan(RpsEnvironment.ROUNDS);
  }

  @Test
  void theTrainingPoolIsWeightedAndTheEvaluationOpponentIsHeldOut() {
    OpponentPool pool = PROVIDER.opponents();
    assertThat(pool.training()).extracting(e -> e.opponent().id())
        .containsExactly("always-rock", "cycle", "mirror", "uniform");
    assertThat(pool.training()).extracting(OpponentPool.Entry::weight).containsExactly(0.3, 0.3, 0.2, 0.2);
    assertThat(pool.heldOut()).extracting(Opponent::id).containsExactly("beat-last");
    assertThat(pool.require(PROVIDER.evaluationOpponent())).isSameAs(RpsOpponent.Builtin.BEAT_LAST);
    for (OpponentPool.Entry e : pool.training()) {
      assertThat(e.opponent()).isInstanceOf(RpsOpponent.class);
    }
  }

  @Test
  void createRejectsOptionsAndReturnsFreshEnvironments() {
    assertThat(PROVIDER.create(Map.of())).isNotSameAs(PROVIDER.create(null));
    assertThatThrownBy(() -> PROVIDER.create(Map.of("rounds", "5"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rps").hasMessageContaining("rounds");
  }

  @Test
  void offersRandomAndCounterPolicies() {
    assertThat(PROVIDER.scriptedPolicies()).containsExactly("random", "counter");
    for (String name : PROVIDER.scriptedPolicies()) {
      try (LanguagePolicy p = PROVIDER.scriptedPolicy(name, 1)) {
        assertThat(p.name()).isEqualTo(name);
      }
    }
    assertThatThrownBy(() -> PROVIDER.scriptedPolicy("mcts", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'mcts'").hasMessageContaining("[random, counter]");
  }

  @Test
  void habitsAreScoredOnTheOpponentsMovesAfterTheFirst() {
    State cycle = new State(3, List.of(new Round(Move.PAPER, Move.SCISSORS), new Round(Move.ROCK, Move.ROCK)));
    assertThat(Habit.CYCLE.hits(cycle)).isEqualTo(1);
    assertThat(Habit.REPEAT.hits(cycle)).isZero();
    assertThat(Habit.MIRROR.hits(cycle)).isZero();
    assertThat(Habit.BEAT_LAST.hits(cycle)).isZero();
    assertThat(Habit.best(cycle)).isEqualTo(Habit.CYCLE);
    // the agent played rock before, so mirror fits as well as cycle; ties go to the earlier habit
    State tie = new State(3, List.of(new Round(Move.ROCK, Move.SCISSORS), new Round(Move.ROCK, Move.ROCK)));
    assertThat(Habit.CYCLE.hits(tie)).isEqualTo(1);
    assertThat(Habit.MIRROR.hits(tie)).isEqualTo(1);
    assertThat(Habit.best(tie)).isEqualTo(Habit.MIRROR);
    State mirror = new State(3, List.of(new Round(Move.PAPER, Move.ROCK), new Round(Move.ROCK, Move.PAPER),
        new Round(Move.SCISSORS, Move.ROCK)));
    assertThat(Habit.CYCLE.hits(mirror)).isEqualTo(1);
    assertThat(Habit.best(mirror)).isEqualTo(Habit.MIRROR);
    assertThat(Habit.MIRROR.hits(mirror)).isEqualTo(2);
    State beatLast = new State(3, List.of(new Round(Move.PAPER, Move.ROCK), new Round(Move.SCISSORS, Move.SCISSORS),
        new Round(Move.ROCK, Move.ROCK)));
    assertThat(Habit.best(beatLast)).isEqualTo(Habit.BEAT_LAST);
    assertThat(Habit.best(new State(3, List.of(new Round(Move.ROCK, Move.ROCK))))).isEqualTo(Habit.REPEAT);
  }

  @Test
  void theCounterPolicyBeatsTheHabitItHasRead() {
    try (LanguagePolicy counter = PROVIDER.scriptedPolicy("counter", 3)) {
      State vsCycle = new State(3, List.of(new Round(Move.ROCK, Move.ROCK), new Round(Move.SCISSORS, Move.PAPER)));
      // cycle and beat-last both fit; cycle comes first, predicts scissors and is beaten by rock
      assertThat(answer(counter, vsCycle)).isEqualTo("<action>rock</action>");
      State vsRock = new State(3, List.of(new Round(Move.SCISSORS, Move.ROCK)));
      assertThat(answer(counter, vsRock)).isEqualTo("<action>paper</action>");
    }
  }

  @Test
  void theCounterPolicyOpensWithASeededRandomMove() {
    Set<String> openings = new HashSet<>();
    for (long seed = 0; seed < 20; seed++) {
      try (LanguagePolicy a = PROVIDER.scriptedPolicy("counter", seed);
          LanguagePolicy b = PROVIDER.scriptedPolicy("counter", seed)) {
        String first = answer(a, new State(3, List.of()));
        assertThat(answer(b, new State(3, List.of()))).isEqualTo(first);
        openings.add(first);
      }
    }
    assertThat(openings).hasSize(3);
  }

  @Test
  void theCounterPolicyNeedsTheMatchState() {
    try (LanguagePolicy counter = PROVIDER.scriptedPolicy("counter", 3)) {
      PolicyRequest bare = new PolicyRequest("prompt", Phase.PLAY, "g0/m1", 0, 0, List.of("rock"), "a board",
          List.of());
      assertThatThrownBy(() -> counter.generate(List.of(bare), SAMPLING))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'g0/m1'")
          .hasMessageContaining("java.lang.String");
    }
  }

  @Test
  void theCounterPolicyReflectsOnTheHabitItFound() {
    try (LanguagePolicy counter = PROVIDER.scriptedPolicy("counter", 3)) {
      State vsCycle = new State(3, List.of(new Round(Move.ROCK, Move.ROCK), new Round(Move.ROCK, Move.PAPER),
          new Round(Move.ROCK, Move.SCISSORS)));
      PolicyRequest reflect = new PolicyRequest("reflect", Phase.REFLECT, "w", 0, 0, List.of(), vsCycle, List.of());
      String text = counter.generate(List.of(reflect), SAMPLING).get(0).text();
      assertThat(text).startsWith("<remark>").endsWith("</remark>").contains("cycle in 2 of 2 rounds");
    }
  }

  @Test
  void theCounterPolicyExploitsEveryOpponentWithAHabit() {
    int n = 300;
    // in-match analysis of the counter policy: 1, 2/3 and 2/3 of the matches won; a random player wins 10/27
    assertThat(rates(RpsOpponent.Builtin.ALWAYS_ROCK, "counter", n)).containsExactly(1.0, 0.0);
    double[] cycle = rates(RpsOpponent.Builtin.CYCLE, "counter", n);
    assertThat(cycle[0]).isBetween(0.58, 0.75);
    assertThat(cycle[1]).isZero();
    for (RpsOpponent o : List.of(RpsOpponent.Builtin.MIRROR, RpsOpponent.Builtin.BEAT_LAST)) {
      double[] counter = rates(o, "counter", n);
      double[] random = rates(o, "random", n);
      assertThat(counter[0]).as(o.id()).isBetween(0.58, 0.75);
      assertThat(random[0]).as(o.id()).isBetween(0.28, 0.46);
      assertThat(counter[0] - counter[1]).as(o.id()).isGreaterThan(random[0] - random[1] + 0.2);
    }
  }

  @Test
  void nobodyExploitsTheUniformOpponent() {
    int n = 300;
    for (String policy : PROVIDER.scriptedPolicies()) {
      double[] r = rates(RpsOpponent.Builtin.UNIFORM, policy, n);
      // 10/27 = 0.37 each way; the standard deviation over 300 matches is about 0.028
      assertThat(r[0]).as(policy).isBetween(0.28, 0.46);
      assertThat(r[1]).as(policy).isBetween(0.28, 0.46);
    }
  }

  /** Win and loss rates over matches with seeds 0..n-1. */
  private static double[] rates(RpsOpponent opponent, String policy, int n) {
    int won = 0;
    int lost = 0;
    for (long seed = 0; seed < n; seed++) {
      List<StepResult> results = RegisterProgrammatically.playOneEpisode(PROVIDER, opponent.id(), policy, seed,
          RegisterProgrammatically.policySeed(seed), QUIET);
      StepResult last = results.get(results.size() - 1);
      assertThat(last.done()).isTrue();
      assertThat(results).allMatch(StepResult::actionValid);
      won += last.won() ? 1 : 0;
      lost += last.reward() < 0 ? 1 : 0;
    }
    return new double[] {won / (double) n, lost / (double) n};
  }

  private static String answer(LanguagePolicy policy, State state) {
    PolicyRequest r = new PolicyRequest("prompt", Phase.PLAY, "w", 0, state.played().size(),
        List.of("rock", "paper", "scissors"), state, List.of());
    Generation g = policy.generate(List.of(r), SAMPLING).get(0);
    return g.text();
  }

  @Test
  void verbosePromptsCarryTheGameTextAndTheScoreboard() {
    RpsEnvironment env = PROVIDER.create(Map.of());
    String start = env.reset(1, RpsOpponent.Builtin.ALWAYS_ROCK, Seat.FIRST);
    StepResult r = env.step("<action>paper</action>");
    HistoryStep step = new HistoryStep(1, r.action(), r.actionValid(), r.observation());
    PastEpisode earlier = new PastEpisode(0, List.of(step), Outcome.DRAW, "It played rock every time.");
    String play = env.promptRenderer().renderPlay(
        new PromptContext(PromptStyle.VERBOSE, start, 1, List.of(earlier), List.of(step), null));
    assertThat(play).startsWith(RpsEnvironment.GAME_TEXT.role())
        .contains("# Rules\n- In every round both players pick rock, paper or scissors")
        .contains("# Goal\nWin the match.")
        .contains("The scoreboard at the start of every attempt:\n" + start)
        .contains("Attempt #1 ended in a draw.")
        .contains("It played rock every time.")
        .contains("This is attempt #2.")
        .contains("Step 1 - Action: paper\nObservation:\nRound 2 of 3. Score: you 1, opponent 0.")
        .contains(RpsEnvironment.GAME_TEXT.historyNote())
        .endsWith("for example <action>paper</action>.");
    String reflect = env.promptRenderer().renderReflect(
        new PromptContext(PromptStyle.VERBOSE, start, 0, List.of(), List.of(step), Outcome.LOST));
    assertThat(reflect).contains("attempt #1").contains("<remark>").contains("Round 1: you played paper");
  }

  @Test
  void compactPromptsAreShort() {
    RpsEnvironment env = PROVIDER.create(Map.of());
    String start = env.reset(1, RpsOpponent.Builtin.ALWAYS_ROCK, Seat.FIRST);
    String play = env.promptRenderer().renderPlay(
        new PromptContext(PromptStyle.COMPACT, start, 0, List.of(), List.of(), null));
    assertThat(play).isEqualTo(RpsEnvironment.GAME_TEXT.compactRules() + "\nStart:\n" + start + "\n"
        + RpsEnvironment.GAME_TEXT.compactActionFormat());
    assertThat(play.length()).isLessThan(400);
    String verbose = env.promptRenderer().renderPlay(
        new PromptContext(PromptStyle.VERBOSE, start, 0, List.of(), List.of(), null));
    assertThat(play.length()).isLessThan(verbose.length() / 2);
  }
}
