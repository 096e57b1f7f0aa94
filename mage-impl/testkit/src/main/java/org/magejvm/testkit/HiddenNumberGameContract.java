package org.magejvm.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.api.ContextMode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Turn;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.small.HiddenNumberEnvironment;

/**
 * The tests every small guessing game ({@link HiddenNumberEnvironment}) passes: its rules, its answers' parsing and
 * messages, its provider's option, its exact ceilings against the formulas and brute force, and its scripted players
 * in real rollouts. A game's test class extends this one, names the game's specifics, and adds its own tests.
 *
 * <p>The game must offer the scripted players {@code sweep} (a different number in each attempt), a middle player
 * ({@link #middlePolicy()}) and an adaptive one ({@link #adaptivePolicy()}), with N = 7 and 3 attempts by default.
 * This module cannot see the rollout engine (its tests use this module), so the test class runs rollouts for it
 * ({@link #rollout}, {@link #metrics}).
 *
 * @param <E> the game's environment type
 * @param <S> the game's state type
 */
public abstract class HiddenNumberGameContract<E extends HiddenNumberEnvironment<?, S>, S> {

  /** The providers on the class path. */
  protected static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();

  /**
   * The ceiling rates of a player.
   *
   * @param passAt for k = 0..K-1, the fraction of meta-episodes won by attempt k
   * @param perAttempt for k = 0..K-1, among the meta-episodes not won before attempt k, the fraction attempt k wins
   */
  public record Rates(List<Double> passAt, List<Double> perAttempt) {}

  /** For subclasses. */
  protected HiddenNumberGameContract() {}

  /** @return the provider id */
  protected abstract String providerId();

  /**
   * @param size N
   * @return a new environment of the game, not reset
   */
  protected abstract E newEnvironment(int size);

  /**
   * The game's own name for {@link HiddenNumberEnvironment#draw} ({@code strikerSpot}).
   *
   * @param seed a task seed
   * @param size N
   * @return the hidden number the seed draws
   */
  protected abstract int draw(long seed, int size);

  /**
   * The game's public parser.
   *
   * @param response a response
   * @param size N
   * @return the answer, or why there is none
   */
  protected abstract ParsedAction<Integer> parse(String response, int size);

  /** @return N's name: the size option's name, which the constructor's message also uses ({@code spots}) */
  protected abstract String sizeName();

  /** @return the provider's scripted players, in order */
  protected abstract List<String> scriptedPolicies();

  /** @return the scripted player that always answers the middle number, 4 for N = 7 */
  protected abstract String middlePolicy();

  /** @return the best scripted player that reads its earlier attempts */
  protected abstract String adaptivePolicy();

  /**
   * @param answer a wrong answer
   * @param hidden the hidden number
   * @return the observation after it
   */
  protected abstract String missed(int answer, int hidden);

  /**
   * @param answer an answer
   * @param hidden the hidden number
   * @return the line a compact prompt's history shows for it, after {@code Try i: }
   */
  protected abstract String historyLine(int answer, int hidden);

  /**
   * Checks the state at the start of the second attempt, after one wrong answer.
   *
   * @param state the state
   * @param wrong the wrong answer
   * @param hidden the hidden number
   */
  protected abstract void checkEarlier(S state, int wrong, int hidden);

  /**
   * Checks the state of a new task, before any answer.
   *
   * @param state the state
   */
  protected abstract void checkFresh(S state);

  /**
   * @param size N
   * @param attempts K
   * @return the best history-blind player's rates
   */
  protected abstract Rates historyBlind(int size, int attempts);

  /**
   * @param size N
   * @param attempts K
   * @return the best adaptive player's rates
   */
  protected abstract Rates adaptive(int size, int attempts);

  /**
   * @param size N
   * @param attempts K
   * @return the formula of the best adaptive player's Pass@K
   */
  protected abstract double adaptiveFormula(int size, int attempts);

  /**
   * Plays scripted meta-episodes of the game, one per group, sampling as training does (16 tokens).
   *
   * @param policy the scripted player
   * @param policySeed its seed
   * @param context what later attempts are shown
   * @param style the prompt style
   * @param tasks how many meta-episodes
   * @param seed the rollout seed
   * @return the meta-episodes
   */
  protected abstract List<MetaEpisode> rollout(String policy, long policySeed, ContextMode context, PromptStyle style,
      int tasks, long seed);

  /**
   * @param metaEpisodes meta-episodes of 3 attempts
   * @return their evaluation metrics by name ({@code success_rate[2]}, {@code per_attempt_success[1]}, {@code
   *     invalid_action_rate})
   */
  protected abstract Map<String, Number> metrics(List<MetaEpisode> metaEpisodes);

  /** The hidden number stays across attempts; a wrong answer loses and says so, a right one wins. */
  @Test
  public void theHiddenNumberStaysAcrossAttemptsAndEveryAnswerIsJudged() {
    E env = newEnvironment(7);
    env.reset(42, null, null);
    int hidden = env.hidden();
    assertThat(hidden).isEqualTo(draw(42, 7)).isBetween(1, 7);
    assertThat(env.legalActions()).containsExactly("1", "2", "3", "4", "5", "6", "7");
    int wrong = hidden == 7 ? 6 : hidden + 1;
    StepResult r = env.step("<action>" + wrong + "</action>");
    assertThat(r.actionValid()).isTrue();
    assertThat(r.won()).isFalse();
    assertThat(r.reward()).isZero();
    assertThat(env.isDone()).isTrue();
    assertThat(env.legalActions()).isEmpty();
    assertThat(env.observation()).isEqualTo(missed(wrong, hidden));
    env.restart();
    assertThat(env.hidden()).isEqualTo(hidden);
    checkEarlier(env.state(), wrong, hidden);
    StepResult right = env.step("I think <action>" + hidden + "</action>");
    assertThat(right.reward()).isEqualTo(HiddenNumberEnvironment.WIN_REWARD);
    assertThat(right.won()).isTrue();
    assertThat(right.score()).isEqualTo(1.0);
    assertThatThrownBy(() -> env.step("<action>1</action>")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("restart()");
    // a new task forgets the earlier attempts
    env.reset(43, null, null);
    checkFresh(env.state());
  }

  /** Unreadable and out-of-range answers, sizes and options are refused with what is wrong. */
  @Test
  public void unreadableAndOutOfRangeAnswersAreInvalidAndNameTheProblem() {
    E env = newEnvironment(7);
    assertThatThrownBy(env::observation).hasMessageContaining("reset() was never called");
    env.reset(1, null, null);
    assertThat(env.step("<action>8</action>").actionValid()).isFalse();
    assertThat(parse("<action>8</action>", 7).error()).contains("from 1 to 7, got 8");
    assertThat(parse("<action>four</action>", 7).error()).contains("'four'");
    assertThat(parse("<action>left</action>", 7).error()).contains("'left'");
    assertThat(parse("4", 7).error()).contains("no <action>");
    assertThat(parse("", 7).error()).contains("empty");
    assertThat(env.isDone()).isFalse();
    assertThatThrownBy(() -> newEnvironment(1)).hasMessageContaining(sizeName() + " must be >= 2");
    EnvironmentProvider p = REGISTRY.require(providerId());
    assertThatThrownBy(() -> p.create(Map.of(sizeName(), "65"))).hasMessageContaining("'" + sizeName() + "'")
        .hasMessageContaining("65");
    assertThatThrownBy(() -> p.create(Map.of(sizeName(), "x"))).hasMessageContaining("'x'");
    assertThat(p.create(Map.of(sizeName(), "3")).legalActions()).isEmpty();
    assertThat(p.scriptedPolicies()).containsExactlyElementsOf(scriptedPolicies());
    assertThat(p.twoPlayer()).isFalse();
  }

  /** The ceilings are the formulas: history-blind min(1, k / N), adaptive {@link #adaptiveFormula}. */
  @Test
  public void theCeilingsAreTheFormulasForEverySizeAndAttemptCount() {
    Rates blind = historyBlind(7, 3);
    assertRates(blind.passAt(), 1 / 7.0, 2 / 7.0, 3 / 7.0);
    assertRates(blind.perAttempt(), 1 / 7.0, 1 / 6.0, 1 / 5.0);
    assertThat(adaptive(7, 3).passAt().get(2) - blind.passAt().get(2)).isGreaterThan(0.5);
    for (int n = 2; n <= 20; n++) {
      for (int k = 1; k <= 4; k++) {
        assertThat(historyBlind(n, k).passAt().get(k - 1)).as("blind %d %d", n, k)
            .isCloseTo(Math.min(1.0, (double) k / n), within(1e-12));
        assertThat(adaptive(n, k).passAt().get(k - 1)).as("adaptive %d %d", n, k)
            .isCloseTo(adaptiveFormula(n, k), within(1e-12));
      }
    }
  }

  /** No deterministic history-blind player does better than the ceiling (stochastic ones mix deterministic ones). */
  @Test
  public void bruteForceOverEveryHistoryBlindPlayerFindsNothingAboveTheCeiling() {
    for (int n = 2; n <= 9; n++) {
      for (int k = 1; k <= 3; k++) {
        // every sequence of k answers, each 1..n
        int best = 0;
        int sequences = (int) Math.pow(n, k);
        for (int code = 0; code < sequences; code++) {
          Set<Integer> covered = new HashSet<>();
          int c = code;
          for (int i = 0; i < k; i++) {
            covered.add(1 + c % n);
            c /= n;
          }
          best = Math.max(best, covered.size());
        }
        assertThat((double) best / n).as("blind %d %d", n, k)
            .isCloseTo(historyBlind(n, k).passAt().get(k - 1), within(1e-12));
      }
    }
  }

  /** The sweep, middle and adaptive players reach their ceilings in the rollout engine. */
  @Test
  public void theScriptedPlayersReachTheirCeilingsInRealRollouts() {
    // the attempt by which the adaptive player has found every number
    int solved = adaptive(7, 3).passAt().indexOf(1.0);
    assertThat(solved).isNotNegative();
    Map<String, Number> adaptive = metrics(rollout(adaptivePolicy(), 3, ContextMode.HISTORY_ONLY,
        PromptStyle.COMPACT, 700, 11));
    Map<String, Number> sweep = metrics(rollout("sweep", 3, ContextMode.NONE, PromptStyle.COMPACT, 700, 11));
    Map<String, Number> middle = metrics(rollout(middlePolicy(), 3, ContextMode.NONE, PromptStyle.COMPACT, 700, 11));
    assertThat(adaptive.get("success_rate[" + solved + "]").doubleValue()).isEqualTo(1.0);
    assertThat(adaptive.get("per_attempt_success[" + solved + "]").doubleValue()).isEqualTo(1.0);
    // 700 meta-episodes: the rates are within sampling error of 3/7 and 1/7
    assertThat(sweep.get("success_rate[2]").doubleValue()).isCloseTo(3 / 7.0, within(0.06));
    assertThat(middle.get("success_rate[2]").doubleValue()).isCloseTo(1 / 7.0, within(0.05));
    assertThat(middle.get("per_attempt_success[1]").doubleValue()).isZero();
    assertThat(adaptive.get("invalid_action_rate").doubleValue()).isZero();
  }

  /** A compact prompt with the history lists every earlier answer with what it revealed. */
  @Test
  public void thePromptsShowEveryEarlierAnswerWithWhatItRevealed() {
    MetaEpisode m = rollout(middlePolicy(), 1, ContextMode.HISTORY_ONLY, PromptStyle.COMPACT, 1, 5).get(0);
    List<Turn> turns = m.turns();
    int hidden = draw(m.seed(), 7);
    // this seed's number is not the middle one, so all three attempts are played
    assertThat(hidden).isNotEqualTo(4);
    assertThat(turns).hasSize(3);
    String line = historyLine(4, hidden);
    assertThat(turns.get(2).prompt()).contains("Try 1: " + line).contains("Try 2: " + line)
        .contains("Try 3 now. Reply <action>N</action>.");
    assertThat(turns.get(0).prompt()).doesNotContain("Try 1:");
  }

  /**
   * Checks rates one by one.
   *
   * @param actual the rates
   * @param expected what they should be, within 1e-12
   */
  protected static void assertRates(List<Double> actual, double... expected) {
    assertThat(actual).hasSize(expected.length);
    for (int i = 0; i < expected.length; i++) {
      assertThat(actual.get(i)).as("k=" + i).isCloseTo(expected[i], within(1e-12));
    }
  }
}
