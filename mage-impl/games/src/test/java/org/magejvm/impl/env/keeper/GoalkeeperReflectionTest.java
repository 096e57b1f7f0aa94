package org.magejvm.impl.env.keeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.impl.env.AttemptCeiling;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.ReflectionControl;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;

/**
 * Goalkeeper with reflections: the lesson-writing keepers that warm-start the reflective quick start (format without
 * content), the prompts of the reflection-only context, balanced evaluation sets and the memoryless ceiling.
 */
class GoalkeeperReflectionTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();
  private static final Pattern LESSON = Pattern.compile("<remark> next shot (\\d)</remark>");

  private static RolloutResult play(String policy, int tasks, long seed, ReflectionControl control) {
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(GoalkeeperProvider.ID).optTasks(tasks)
        .optGroupSize(1).optContextMode(ContextMode.REFLECTION_ONLY).optPromptStyle(PromptStyle.COMPACT)
        .optReflectionControl(control).optSampling(SamplingConfig.training(16)).optSeed(seed).build();
    try (LanguagePolicy p = REGISTRY.require(GoalkeeperProvider.ID).scriptedPolicy(policy, seed + 1)) {
      return new MetaEpisodeRunner(REGISTRY).run(config, p);
    }
  }

  /** For every reflection: {striker's spot, named spot, the dive it reflects on}. */
  private static List<int[]> lessons(RolloutResult r) {
    List<int[]> out = new ArrayList<>();
    for (MetaEpisode m : r.metaEpisodes()) {
      int striker = GoalkeeperEnvironment.strikerSpot(m.seed(), 7);
      List<Turn> turns = m.turns();
      for (int i = 0; i < turns.size(); i++) {
        Turn t = turns.get(i);
        if (t.isReflection()) {
          Matcher x = LESSON.matcher(t.response());
          assertThat(x.matches()).as(t.response()).isTrue();
          assertThat(t.valid()).isTrue();
          int dive = Integer.parseInt(turns.get(i - 1).response().replaceAll("\\D", ""));
          out.add(new int[] {striker, Integer.parseInt(x.group(1)), dive});
        }
      }
    }
    return out;
  }

  @Test
  void theWarmStartKeeperGuessesAFreshSpotThatNamesTheShotOnlyByChanceAndActsOnTheGuess() {
    RolloutResult r = play(GoalkeeperProvider.RANDOM_PLAN_POLICY, 2100, 3, ReflectionControl.OWN);
    List<int[]> lessons = lessons(r);
    assertThat(lessons).hasSizeGreaterThan(2000);
    // a guess never repeats the dive it reflects on, and names the shot's spot as any fresh guess would: 1/6
    assertThat(lessons).allMatch(l -> l[1] != l[2]);
    double naming = lessons.stream().filter(l -> l[0] == l[1]).count() / (double) lessons.size();
    assertThat(naming).isCloseTo(1 / 6.0, within(0.03));
    // given the dive, the guess does not depend on the striker's spot: for each dive the 6 x 6 table of (spot, guess)
    // over the other spots, chi-square summed over the 7 dives, 175 degrees of freedom (0.999 quantile 241.1; a guess
    // that copied the shot, or avoided it, would be in the thousands)
    assertThat(conditionalChiSquare(lessons)).isLessThan(241);
    for (MetaEpisode m : r.metaEpisodes()) {
      List<Turn> turns = m.turns();
      for (int i = 0; i + 1 < turns.size(); i++) {
        if (turns.get(i).isReflection()) {
          Matcher x = LESSON.matcher(turns.get(i).response());
          assertThat(x.matches()).isTrue();
          // the next dive is the guess
          assertThat(turns.get(i + 1).response()).isEqualTo("<action>" + x.group(1) + "</action>");
        }
      }
    }
    // just below the best history-blind keeper: 1 - (6/7)(5/6)(5/6) = 0.405 against 3/7 = 0.429
    double pass3 = EvaluationMetrics.of(r.metaEpisodes(), 3).toMap().get("success_rate[2]").doubleValue();
    assertThat(pass3).isCloseTo(1 - (6 / 7.0) * (5 / 6.0) * (5 / 6.0), within(0.04));
  }

  /** Chi-square of independence of (striker, guess), within each dive, summed over the dives. */
  private static double conditionalChiSquare(List<int[]> lessons) {
    double chi = 0;
    for (int dive = 1; dive <= 7; dive++) {
      double[][] n = new double[8][8];
      double total = 0;
      for (int[] l : lessons) {
        if (l[2] == dive) {
          n[l[0]][l[1]]++;
          total++;
        }
      }
      for (int i = 1; i <= 7; i++) {
        for (int j = 1; j <= 7; j++) {
          double row = 0;
          double col = 0;
          for (int k = 1; k <= 7; k++) {
            row += n[i][k];
            col += n[k][j];
          }
          double expected = total == 0 ? 0 : row * col / total;
          if (expected > 0) {
            chi += (n[i][j] - expected) * (n[i][j] - expected) / expected;
          }
        }
      }
    }
    return chi;
  }

  @Test
  void aReflectionOnlyPromptSaysTheAttemptWasNotSavedAndShowsItsLessonButNotTheDive() {
    RolloutResult r = play(GoalkeeperProvider.RANDOM_PLAN_POLICY, 40, 5, ReflectionControl.OWN);
    MetaEpisode m = r.metaEpisodes().stream().filter(x -> x.turns().size() == 5).findFirst().orElseThrow();
    List<Turn> turns = m.turns();
    int striker = GoalkeeperEnvironment.strikerSpot(m.seed(), 7);
    String dive = turns.get(0).response().replaceAll("\\D", "");
    // the reflect prompt shows the attempt it reflects on
    assertThat(turns.get(1).prompt()).contains("Try 1: dove " + dive + ", shot " + striker)
        .contains("<remark></remark>");
    // the next play prompt tells only what a reflection-only memory may: not saved, and the lesson
    String lesson = turns.get(1).action();
    assertThat(turns.get(2).prompt()).contains("Try 1: not saved\nLesson: " + lesson + "\nTry 2 now.")
        .doesNotContain("Try 1: dove").doesNotContain(", shot " + striker).doesNotContain("no dive");
    assertThat(turns.get(4).prompt()).contains("Try 2: not saved\nLesson: " + turns.get(3).action());
  }

  @Test
  void theControlsChangeOnlyWhatLaterAttemptsAreShown() {
    RolloutResult own = play(GoalkeeperProvider.RANDOM_PLAN_POLICY, 60, 6, ReflectionControl.OWN);
    RolloutResult removed = play(GoalkeeperProvider.RANDOM_PLAN_POLICY, 60, 6, ReflectionControl.REMOVED);
    RolloutResult shuffled = play(GoalkeeperProvider.RANDOM_PLAN_POLICY, 60, 6, ReflectionControl.SHUFFLED);
    // the first attempts and the first reflections are the same calls in every mode
    for (int i = 0; i < 60; i++) {
      assertThat(removed.metaEpisodes().get(i).turns().get(0)).isEqualTo(own.metaEpisodes().get(i).turns().get(0));
    }
    for (MetaEpisode m : removed.metaEpisodes()) {
      for (int j = 0; j < m.reflections().size(); j++) {
        assertThat(m.reflections().get(j)).isEmpty();
      }
      for (Turn t : m.turns()) {
        assertThat(t.prompt()).doesNotContain("Lesson:");
      }
    }
    // shuffled: every memory holds a lesson written in another meta-episode of the same phase, never its own
    int handed = 0;
    for (int i = 0; i < shuffled.metaEpisodes().size(); i++) {
      MetaEpisode m = shuffled.metaEpisodes().get(i);
      for (Turn t : m.turns()) {
        if (t.isReflection()) {
          int k = t.episodeIndex();
          String shown = m.reflections().get(k - 1);
          Set<String> others = new HashSet<>();
          for (MetaEpisode o : shuffled.metaEpisodes()) {
            if (o != m) {
              for (Turn u : o.turns()) {
                if (u.isReflection() && u.episodeIndex() == k) {
                  others.add(u.action());
                }
              }
            }
          }
          assertThat(others).contains(shown);
          handed++;
        }
      }
    }
    assertThat(handed).isGreaterThan(60);
    // the same seed hands the same lessons on
    RolloutResult again = play(GoalkeeperProvider.RANDOM_PLAN_POLICY, 60, 6, ReflectionControl.SHUFFLED);
    for (int i = 0; i < 60; i++) {
      assertThat(again.metaEpisodes().get(i).reflections()).isEqualTo(shuffled.metaEpisodes().get(i).reflections());
    }
  }

  @Test
  void balancedSeedsGiveEverySpotEquallyOftenRoundRobin() {
    List<Long> seeds = GoalkeeperEnvironment.balancedTaskSeeds(12, 7, 20);
    assertThat(seeds).hasSize(140).doesNotHaveDuplicates();
    for (int i = 0; i < seeds.size(); i++) {
      assertThat(GoalkeeperEnvironment.strikerSpot(seeds.get(i), 7)).isEqualTo(i % 7 + 1);
      assertThat(seeds.get(i)).isBetween(0L, (1L << 31) - 1);
    }
    assertThat(GoalkeeperEnvironment.balancedTaskSeeds(12, 7, 20)).isEqualTo(seeds);
    assertThat(GoalkeeperEnvironment.balancedTaskSeeds(13, 7, 20)).isNotEqualTo(seeds);
    assertThatThrownBy(() -> GoalkeeperEnvironment.balancedTaskSeeds(1, 1, 3))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 spots");
    // the sweep keeper scores exactly its ceiling, 3/7, on a balanced set
    RolloutConfig config = RolloutConfig.builder().setEnvironmentId(GoalkeeperProvider.ID).optTaskSeeds(seeds)
        .optGroupSize(1).optContextMode(ContextMode.NONE).optPromptStyle(PromptStyle.COMPACT)
        .optSampling(SamplingConfig.training(16)).build();
    try (LanguagePolicy sweep = REGISTRY.require(GoalkeeperProvider.ID).scriptedPolicy("sweep", 1)) {
      RolloutResult r = new MetaEpisodeRunner(REGISTRY).run(config, sweep);
      Map<String, Number> m = EvaluationMetrics.of(r.metaEpisodes(), 3).toMap();
      assertThat(m.get("success_rate[2]").doubleValue()).isEqualTo(60 / 140.0);
    }
  }

  @Test
  void noKeeperThatCannotTellItsAttemptsApartBeatsTheUniformOne() {
    AttemptCeiling c = GoalkeeperCeilings.memoryless(7, 3);
    assertThat(c.passAt().get(2)).isCloseTo(1 - Math.pow(6 / 7.0, 3), within(1e-12));
    assertThat(c.perAttempt()).containsOnly(1 / 7.0);
    // brute force over a grid of distributions on 3 spots: P(saved within k) = 1 - sum_s (1/3)(1 - p_s)^k
    AttemptCeiling three = GoalkeeperCeilings.memoryless(3, 3);
    double best = 0;
    for (int a = 0; a <= 30; a++) {
      for (int b = 0; a + b <= 30; b++) {
        double[] p = {a / 30.0, b / 30.0, (30 - a - b) / 30.0};
        double miss = 0;
        for (double q : p) {
          miss += Math.pow(1 - q, 3) / 3;
        }
        best = Math.max(best, 1 - miss);
      }
    }
    assertThat(best).isCloseTo(three.passAt().get(2), within(1e-12));
    assertThat(GoalkeeperCeilings.memoryless(7, 3).passAt().get(2))
        .isLessThan(GoalkeeperCeilings.historyBlind(7, 3).passAt().get(2));
    assertThatThrownBy(() -> GoalkeeperCeilings.memoryless(1, 3)).isInstanceOf(IllegalArgumentException.class);
  }
}
