package org.magejvm.impl.env.penalty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Opponent;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.small.HiddenNumberEnvironment;
import org.magejvm.spi.small.HiddenNumberProvider;

/** Penalty Shoot-out's rules, providers, prompts and lesson-writing keeper. */
class PenaltyEnvironmentTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();

  @Test
  void theStrikerShootsByItsHabitAcrossRestartsAndEveryDiveIsJudged() {
    PenaltyEnvironment env = new PenaltyEnvironment(5, Scoring.BINARY);
    assertThat(env.legalActions()).isEmpty();
    assertThatThrownBy(env::observation).hasMessageContaining("reset() was never called");
    String first = env.reset(42, PenaltyStrikers.STEP_PLUS_1, null);
    int spot = HiddenNumberEnvironment.draw(42, 5);
    assertThat(env.first()).isEqualTo(spot).isEqualTo(PenaltyEnvironment.firstSpot(42, 5));
    assertThat(env.striker()).isEqualTo(PenaltyStrikers.STEP_PLUS_1);
    assertThat(first).isEqualTo("A penalty: the striker shoots at one of the spots 1 to 5, following its habit."
        + " Your dive?");
    assertThat(env.legalActions()).containsExactly("1", "2", "3", "4", "5");
    assertThat(env.anchor()).isEqualTo(new AnchorKey(first, "step+1"));
    int wrong = Striker.wrap(spot + 2, 5);
    StepResult r = env.step("<action>" + wrong + "</action>");
    assertThat(r.actionValid()).isTrue();
    assertThat(r.won()).isFalse();
    assertThat(r.done()).isTrue();
    assertThat(r.reward()).isZero();
    assertThat(r.action()).isEqualTo("dove " + wrong + ", shot " + spot);
    assertThat(r.anchor()).isEqualTo(new AnchorKey(first, "step+1"));
    assertThat(env.observation()).isEqualTo("You dove to " + wrong + "; the shot went to " + spot + ".");
    assertThat(env.isDone()).isTrue();
    assertThat(env.legalActions()).isEmpty();
    assertThatThrownBy(() -> env.step("<action>1</action>")).hasMessageContaining("restart()");
    assertThat(env.state().penalties()).containsExactly(new PenaltyEnvironment.Penalty(wrong, spot, 0));
    // the next penalty goes one spot right, and saving it wins
    assertThat(env.restart()).isEqualTo(first);
    assertThat(env.isDone()).isFalse();
    int next = Striker.wrap(spot + 1, 5);
    StepResult saved = env.step("I dive <action>" + next + "</action>");
    assertThat(saved.won()).isTrue();
    assertThat(saved.reward()).isEqualTo(PenaltyEnvironment.SAVE_REWARD);
    assertThat(saved.score()).isEqualTo(1.0);
    assertThat(saved.action()).isEqualTo("dove " + next + ", saved");
    assertThat(env.observation()).isEqualTo("You dove to " + next + " and saved it.");
    assertThat(env.state()).isEqualTo(new PenaltyEnvironment.State(5, Scoring.BINARY, List.of(
        new PenaltyEnvironment.Penalty(wrong, spot, 0), new PenaltyEnvironment.Penalty(next, next, 1))));
    assertThat(env).hasToString("mage-penalty(spots 5, binary, striker step+1, first " + spot + ")");
    // a new task forgets the penalties
    env.reset(43, PenaltyStrikers.COPY, null);
    assertThat(env.state().penalties()).isEmpty();
  }

  @Test
  void aGradedNearMissScoresHalfAndTheSeriesGoesOn() {
    PenaltyEnvironment env = new PenaltyEnvironment(GradedPenaltyProvider.ID, 5, Scoring.GRADED);
    env.reset(7, PenaltyStrikers.FIXED, null);
    int spot = env.first();
    int beside = Striker.wrap(spot - 1, 5);
    StepResult near = env.step("<action>" + beside + "</action>");
    assertThat(near.won()).isFalse();
    assertThat(near.reward()).isEqualTo(5.0);
    assertThat(near.score()).isEqualTo(0.5);
    assertThat(near.action()).isEqualTo("dove " + beside + ", shot " + spot + ", near miss");
    assertThat(env.observation()).isEqualTo("You dove to " + beside + "; the shot went to " + spot
        + ", a near miss.");
    env.restart();
    StepResult far = env.step("<action>" + Striker.wrap(spot + 2, 5) + "</action>");
    assertThat(far.score()).isZero();
    assertThat(far.action()).doesNotContain("near miss");
    assertThat(env.id()).isEqualTo(GradedPenaltyProvider.ID);
    assertThat(env.state().penalties().get(0).nearMiss()).isTrue();
    assertThat(env.state().penalties().get(1).nearMiss()).isFalse();
  }

  @Test
  void unreadableDivesAndForeignOpponentsAreRefusedWithWhatIsWrong() {
    PenaltyEnvironment env = new PenaltyEnvironment(5, Scoring.BINARY);
    assertThatThrownBy(() -> env.reset(1, null, null)).hasMessageContaining("needs a striker");
    Opponent other = () -> "mcts-100";
    assertThatThrownBy(() -> env.reset(1, other, null)).hasMessageContaining("'mcts-100'")
        .hasMessageContaining("is not a striker");
    env.reset(1, PenaltyStrikers.FIXED, null);
    StepResult bad = env.step("<action>6</action>");
    assertThat(bad.actionValid()).isFalse();
    assertThat(bad.message()).contains("from 1 to 5, got 6");
    assertThat(env.step("<action>left</action>").message()).contains("'left'");
    assertThat(env.step("4").message()).contains("no <action>");
    assertThat(env.isDone()).isFalse();
    assertThat(env.state().penalties()).isEmpty();
    // an attempt without a valid dive takes no penalty: the striker counts its own
    env.restart();
    StepResult r = env.step("<action>" + env.first() + "</action>");
    assertThat(r.won()).isTrue();
    assertThatThrownBy(() -> new PenaltyEnvironment(2, Scoring.BINARY)).hasMessageContaining("spots must be >= 3");
  }

  @Test
  void theProvidersDeclareTheirPopulationsOptionsAndKeepers() {
    EnvironmentProvider p = REGISTRY.require(PenaltyProvider.ID);
    assertThat(p.twoPlayer()).isTrue();
    assertThat(p.opponents().ids()).containsExactly("fixed", "step+1", "step-2", "alternate-1", "alternate+2",
        "copy-1", "step-1", "step+2", "alternate+1", "alternate-2");
    assertThat(p.opponents().training()).allMatch(e -> e.weight() == 1.0).hasSize(6);
    assertThat(p.evaluationOpponent()).isEqualTo("step-1");
    assertThat(p.validationOpponents()).containsExactly("step-1", "step+2", "alternate+1", "alternate-2");
    assertThat(p.options().keySet()).containsExactly("spots", "scoring");
    assertThat(p.options().get("spots")).isEqualTo("the number of spots, 3 to 9 (default 5)");
    assertThat(p.options().get("scoring")).contains("(default binary)");
    assertThat(p.scriptedPolicies()).containsExactly("random", "blind", "follow", "adaptive", "cumulative",
        "random-plan");
    assertThat(p.formatPolicy()).isEqualTo("random-plan");
    assertThat(p.defaults()).isEqualTo(HiddenNumberProvider.smallGameDefaults().build());
    PenaltyEnvironment created = (PenaltyEnvironment) p.create(Map.of());
    assertThat(created.spots()).isEqualTo(5);
    assertThat(created.scoring()).isEqualTo(Scoring.BINARY);
    PenaltyEnvironment graded = (PenaltyEnvironment) p.create(Map.of("spots", "7", "scoring", "graded"));
    assertThat(graded.spots()).isEqualTo(7);
    assertThat(graded.scoring()).isEqualTo(Scoring.GRADED);
    assertThatThrownBy(() -> p.create(Map.of("spots", "10"))).hasMessageContaining("'spots'")
        .hasMessageContaining("10");
    assertThatThrownBy(() -> p.create(Map.of("scoring", "partial"))).hasMessageContaining("'scoring'");
    assertThatThrownBy(() -> p.create(Map.of("size", "5"))).hasMessageContaining("unknown option 'size'");

    EnvironmentProvider g = REGISTRY.require(GradedPenaltyProvider.ID);
    assertThat(g.opponents().ids()).containsExactly("fixed", "step+2", "alternate+2", "copy", "step+1", "step-2",
        "alternate-2", "copy+1");
    assertThat(g.evaluationOpponent()).isEqualTo("step+1");
    assertThat(g.validationOpponents()).containsExactly("step+1", "step-2", "alternate-2", "copy+1");
    assertThat(g.options().get("scoring")).contains("(default graded)");
    assertThat(g.scriptedPolicies()).isEqualTo(p.scriptedPolicies());
    assertThat(((PenaltyEnvironment) g.create(Map.of())).scoring()).isEqualTo(Scoring.GRADED);
    assertThat(((PenaltyEnvironment) g.create(Map.of("scoring", "binary"))).scoring()).isEqualTo(Scoring.BINARY);
    assertThat(g.create(Map.of()).id()).isEqualTo(GradedPenaltyProvider.ID);

    EnvironmentProvider steps = REGISTRY.require(StepsPenaltyProvider.ID);
    assertThat(steps.opponents().ids()).containsExactly("fixed", "step+1", "step-1", "step+2", "step-2", "step+3",
        "step-3");
    assertThat(steps.evaluationOpponent()).isEqualTo("step+3");
    assertThat(steps.options().get("spots")).contains("7 to 9 (default 7)");
    assertThat(((PenaltyEnvironment) steps.create(Map.of())).spots()).isEqualTo(7);
    assertThat(((PenaltyEnvironment) steps.create(Map.of())).scoring()).isEqualTo(Scoring.BINARY);
    assertThat(steps.create(Map.of()).id()).isEqualTo(StepsPenaltyProvider.ID);
    assertThatThrownBy(() -> steps.create(Map.of("spots", "5"))).hasMessageContaining("'spots'")
        .hasMessageContaining("5");
    assertThatThrownBy(() -> new PenaltyPopulation(List.of(PenaltyStrikers.FIXED), List.of(PenaltyStrikers.FIXED)))
        .hasMessageContaining("'fixed' is both trained on and held out");
  }

  private static List<MetaEpisode> play(String game, String policy, String opponent, ContextMode context,
      PromptStyle style, int tasks, long seed) {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(game).optTasks(tasks).optGroupSize(1)
        .optFixedOpponent(opponent).optContextMode(context).optPromptStyle(style)
        .optSampling(SamplingConfig.training(16)).optSeed(seed).build();
    try (LanguagePolicy p = REGISTRY.require(game).scriptedPolicy(policy, seed + 1)) {
      return new MetaEpisodeRunner(REGISTRY).run(config, p).metaEpisodes();
    }
  }

  @Test
  void thePromptsListEveryEarlierDiveWithWhereTheShotWentAndNeverTheStriker() {
    // the blind keeper's dives 1, 5, 4 against a striker that steps two left; a task whose first spot is not 1
    MetaEpisode m = play(PenaltyProvider.ID, "blind", "step-2", ContextMode.HISTORY_ONLY, PromptStyle.COMPACT, 40, 3)
        .stream().filter(x -> x.turns().size() == 3).findFirst().orElseThrow();
    int first = PenaltyEnvironment.firstSpot(m.seed(), 5);
    List<Turn> turns = m.turns();
    String third = turns.get(2).prompt();
    assertThat(third).startsWith("A striker shoots one penalty per try at a spot 1 to 5 (after 5 comes 1) by a habit:")
        .contains("Try 1: dove 1, shot " + first + "\n")
        .contains("Try 2: dove 5, shot " + Striker.wrap(first - 2, 5) + "\n")
        .endsWith("Try 3 now. Reply <action>N</action>.")
        .doesNotContain("step-2").doesNotContain("half");
    assertThat(turns.get(0).prompt()).doesNotContain("Try 1:");
    assertThat(turns.get(0).anchor().opponentId()).isEqualTo("step-2");
    // verbose and graded: the rules, the near-miss rule, the earlier attempts
    MetaEpisode v = play(GradedPenaltyProvider.ID, "follow", "fixed", ContextMode.HISTORY_ONLY, PromptStyle.VERBOSE,
        1, 4).get(0);
    String second = v.turns().get(v.turns().size() - 1).prompt();
    assertThat(v.turns().get(0).prompt()).startsWith("You are the goalkeeper in a penalty shoot-out against a striker"
        + " with a habit.\n\n# Rules\nThe goal has 5 spots in a ring").contains("near miss: it scores half a save")
        .contains("# Goal\n").contains("This is attempt #1. Write the spot you dive to, a number from 1 to 5, inside"
            + " <action> </action>, for example <action>3</action>.").doesNotContain("# Earlier attempts");
    if (v.turns().size() > 1) {
      assertThat(second).contains("# Earlier attempts\nAttempt #1: dove 3, ");
    }
  }

  /**
   * With reflections and no history a later prompt shows only that the earlier penalty was not saved and the lesson;
   * the lesson-writing keeper names a spot other than its last dive and dives there next.
   */
  @Test
  void theLessonWritingKeeperActsOnItsGuessAndReflectionOnlyPromptsShowLessonsOnly() {
    Pattern lesson = Pattern.compile("<remark> next shot (\\d)</remark>");
    int lessons = 0;
    for (MetaEpisode m : play(PenaltyProvider.ID, "random-plan", "alternate+2", ContextMode.REFLECTION_ONLY,
        PromptStyle.COMPACT, 200, 8)) {
      List<Turn> turns = m.turns();
      for (int i = 0; i < turns.size(); i++) {
        Turn t = turns.get(i);
        if (!t.isReflection()) {
          continue;
        }
        Matcher x = lesson.matcher(t.response());
        assertThat(x.matches()).as(t.response()).isTrue();
        int guess = Integer.parseInt(x.group(1));
        int dive = Integer.parseInt(turns.get(i - 1).response().replaceAll("\\D", ""));
        assertThat(guess).isNotEqualTo(dive).isBetween(1, 5);
        Turn next = turns.get(i + 1);
        assertThat(next.response()).isEqualTo("<action>" + guess + "</action>");
        assertThat(next.prompt()).contains("Try " + next.episodeIndex() + ": not saved\nLesson: next shot " + guess)
            .doesNotContain("shot " + PenaltyEnvironment.firstSpot(m.seed(), 5) + ",");
        assertThat(t.prompt()).contains("Try " + t.episodeIndex() + ": dove " + dive + ", shot ")
            .endsWith("Write a short lesson for the next try inside <remark></remark>.");
        lessons++;
      }
    }
    assertThat(lessons).isGreaterThan(200);
  }
}
