package org.magejvm.spi.small;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Outcome;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.Tags;
import org.magejvm.spi.policy.RandomPolicy;
import org.magejvm.spi.policy.StatePolicy;

/** The small-game base on a toy game: high or low, N from an option. */
class HiddenNumberEnvironmentTest {

  /** A guess and its clue. */
  private record Guess(int guess, int hidden) implements HiddenNumberEnvironment.Feedback {
    @Override
    public boolean won() {
      return guess == hidden;
    }

    @Override
    public String text() {
      return guess + (won() ? " right" : guess < hidden ? " low" : " high");
    }
  }

  private static final class HighLow extends HiddenNumberEnvironment<Guess, List<Guess>> {
    HighLow(int size) {
      super("high-low", new Terms("n", "secret", "round"), size);
    }

    @Override
    protected ParsedAction<Integer> parse(String response) {
      String text = Tags.first(response == null ? "" : response, "action").orElse("").strip();
      return text.matches("[0-9]+") && Integer.parseInt(text) >= 1 && Integer.parseInt(text) <= size()
          ? ParsedAction.of(Integer.parseInt(text), text) : ParsedAction.failure(text, "no number");
    }

    @Override
    protected Guess judge(int answer, int hidden) {
      return new Guess(answer, hidden);
    }

    @Override
    protected String question() {
      return "1 to " + size() + "?";
    }

    @Override
    protected String answered(Guess g) {
      return "It was " + g.text() + ".";
    }

    @Override
    protected List<Guess> snapshot(List<Guess> earlier) {
      return earlier;
    }

    @Override
    public PromptRenderer promptRenderer() {
      return new Prompts(size());
    }
  }

  private static final class Prompts extends HiddenNumberPromptRenderer {
    private final int n;

    Prompts(int n) {
      this.n = n;
    }

    @Override
    protected String compactRules() {
      return "Find 1 to " + n + ".";
    }

    @Override
    protected String role() {
      return "You play high-low.";
    }

    @Override
    protected String rules() {
      return "A secret from 1 to " + n + ".";
    }

    @Override
    protected String goal() {
      return "Find it.";
    }

    @Override
    protected String actionFormat() {
      return "Answer <action>N</action>.";
    }

    @Override
    protected String verboseReflect(int attempt, String last) {
      return "Round " + attempt + ": " + last + ". Lesson?";
    }

    @Override
    protected String noAnswer() {
      return "nothing";
    }
  }

  private static final class Provider extends HiddenNumberProvider<HighLow> {
    Provider() {
      super(settings("high-low", "1.0").setDefaults(smallGameDefaults().build())
          .addScriptedPolicy("random", RandomPolicy::new), new SizeOption("n", "the range", 5, 2, 9));
    }

    @Override
    protected HighLow newEnvironment(int size) {
      return new HighLow(size);
    }
  }

  @Test
  void theHiddenNumberStaysForEveryAttemptAndTheStateListsTheEarlierOnes() {
    HighLow env = new HighLow(6);
    assertThat(env.legalActions()).isEmpty();
    assertThatThrownBy(env::observation).isInstanceOf(IllegalStateException.class)
        .hasMessage("high-low: reset() was never called");
    assertThat(env.reset(9, null, null)).isEqualTo("1 to 6?");
    int hidden = env.hidden();
    assertThat(hidden).isEqualTo(1 + new Random(9).nextInt(6)).isEqualTo(HiddenNumberEnvironment.draw(9, 6));
    assertThat(env).hasToString("high-low(n 6, secret " + hidden + ")");
    assertThat(env.legalActions()).containsExactly("1", "2", "3", "4", "5", "6");
    StepResult bad = env.step("<action>7</action>");
    assertThat(bad.actionValid()).isFalse();
    assertThat(bad.message()).isEqualTo("no number");
    assertThat(bad.action()).isEqualTo("7");
    assertThat(env.isDone()).isFalse();
    int wrong = hidden == 6 ? 5 : hidden + 1;
    StepResult miss = env.step("<action>" + wrong + "</action>");
    assertThat(miss.anchor().state()).isEqualTo("1 to 6?");
    assertThat(miss.action()).isEqualTo(wrong + " high");
    assertThat(miss.observation()).isEqualTo("It was " + wrong + " high.");
    assertThat(miss.reward()).isZero();
    assertThat(miss.done()).isTrue();
    assertThat(env.state()).isEmpty();
    assertThatThrownBy(() -> env.step("<action>1</action>")).isInstanceOf(IllegalStateException.class)
        .hasMessage("this round of high-low is over; call restart() or reset() before stepping again");
    assertThat(env.restart()).isEqualTo("1 to 6?");
    assertThat(env.state()).containsExactly(new Guess(wrong, hidden));
    StepResult win = env.step("<action>" + hidden + "</action>");
    assertThat(win.won()).isTrue();
    assertThat(win.reward()).isEqualTo(HiddenNumberEnvironment.WIN_REWARD);
    assertThat(win.score()).isEqualTo(1.0);
    env.reset(10, null, null);
    assertThat(env.state()).isEmpty();
    assertThatThrownBy(() -> new HighLow(1)).hasMessage("n must be >= 2, got 1");
  }

  @Test
  void playingEveryNumberCountsWinsPerAttempt() {
    // a player that answers 1, 2, 3, ...: attempt k finds number k + 1
    HiddenNumberEnvironment.Tally t = new HighLow(4).playEveryNumber(3, (earlier, k) -> k + 1);
    assertThat(t.wonAt()).containsExactly(1, 1, 1);
    assertThat(t.reached()).containsExactly(4, 3, 2);
    // a player that reads the state: it never repeats a miss, so answering the earlier misses' count + 1 sweeps too
    HiddenNumberEnvironment.Tally s = new HighLow(4).playEveryNumber(2, (earlier, k) -> earlier.size() + 1);
    assertThat(s.wonAt()).containsExactly(1, 1);
    assertThatThrownBy(() -> new HighLow(4).playEveryNumber(0, (earlier, k) -> 1))
        .hasMessageContaining("attempts must be >= 1");
  }

  @Test
  void balancedSeedsListEveryNumberRoundRobin() {
    List<Long> seeds = HiddenNumberEnvironment.balancedTaskSeeds(3, 4, 5);
    assertThat(seeds).hasSize(20).doesNotHaveDuplicates();
    for (int i = 0; i < seeds.size(); i++) {
      assertThat(HiddenNumberEnvironment.draw(seeds.get(i), 4)).isEqualTo(i % 4 + 1);
    }
    assertThatThrownBy(() -> HiddenNumberEnvironment.balancedTaskSeeds(3, 1, 5))
        .hasMessageContaining("at least 2 numbers");
  }

  @Test
  void theProviderReadsItsSizeOption() {
    Provider p = new Provider();
    assertThat(p.options()).containsExactly(Map.entry("n", "the range, 2 to 9 (default 5)"));
    assertThat(p.create(Map.of()).size()).isEqualTo(5);
    assertThat(p.create(Map.of("n", " 3 ")).size()).isEqualTo(3);
    assertThatThrownBy(() -> p.create(Map.of("n", "x")))
        .hasMessage("option 'n' must be a whole number from 2 to 9, got 'x'");
    assertThatThrownBy(() -> p.create(Map.of("n", "10"))).hasMessage("option 'n' must be from 2 to 9, got 10");
    assertThat(p.defaults()).isEqualTo(EnvironmentDefaults.builder().setMaxTurns(1).setEpisodes(3).setStepGamma(0.95)
        .setTrajGamma(0.6).setInvalidPenalty(2.0).setLengthPenalty(1.0).setMaxResponseTokens(64).build());
    assertThatThrownBy(() -> new HiddenNumberProvider.SizeOption("n", "the range", 1, 2, 9))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void thePromptsListTheEarlierAttemptsAndTheirLessons() {
    PromptRenderer r = new Prompts(6);
    List<PastEpisode> past = List.of(
        new PastEpisode(0, List.of(new HistoryStep(1, "3 low", true, null)), Outcome.LOST, " go higher "),
        new PastEpisode(1, List.of(new HistoryStep(1, "x", false, null)), Outcome.LOST, ""),
        new PastEpisode(2, List.of(), Outcome.LOST, ""));
    PromptContext compact = new PromptContext(PromptStyle.COMPACT, "1 to 6?", 3, past, List.of(), null);
    assertThat(r.renderPlay(compact)).isEqualTo("Find 1 to 6.\nTry 1: 3 low\nLesson: go higher\n"
        + "Try 2: an invalid answer\nTry 3: nothing\nTry 4 now. Reply <action>N</action>.");
    PromptContext verbose = new PromptContext(PromptStyle.VERBOSE, "1 to 6?", 1, past.subList(0, 1), List.of(), null);
    assertThat(r.renderPlay(verbose)).isEqualTo("You play high-low.\n\n# Rules\nA secret from 1 to 6.\n\n# Goal\n"
        + "Find it.\n\n# Earlier attempts\nAttempt #1: 3 low.\nThe lesson you wrote after it: go higher\n\n"
        + "# Your answer\nThis is attempt #2. Answer <action>N</action>.");
    PromptContext first = new PromptContext(PromptStyle.VERBOSE, "1 to 6?", 0, List.of(), List.of(), null);
    assertThat(r.renderPlay(first)).doesNotContain("# Earlier attempts").endsWith("This is attempt #1. Answer"
        + " <action>N</action>.");
    List<HistoryStep> steps = List.of(new HistoryStep(1, "5 high", true, "It was 5 high."));
    assertThat(r.renderReflect(new PromptContext(PromptStyle.COMPACT, "1 to 6?", 0, List.of(), steps, Outcome.LOST)))
        .isEqualTo("Find 1 to 6.\nTry 1: 5 high\nWrite a short lesson for the next try inside <remark></remark>.");
    assertThat(r.renderReflect(new PromptContext(PromptStyle.VERBOSE, "1 to 6?", 1, List.of(), List.of(),
        Outcome.LOST))).isEqualTo("Round 2: nothing. Lesson?");
  }

  /** Answers one more than the earlier attempts. */
  private static final class Counter extends StatePolicy<List<?>> {
    @SuppressWarnings("unchecked")
    Counter() {
      super("counter", 1, (Class<List<?>>) (Class<?>) List.class, "high-low", "players");
    }

    @Override
    protected String chooseAction(PolicyRequest request, Random random) {
      return Integer.toString(state(request).size() + 1);
    }
  }

  @Test
  void aStatePolicyReadsTheStateOrNamesTheGameWhoseStateIsMissing() {
    Counter c = new Counter();
    PolicyRequest ok = new PolicyRequest("p", Phase.PLAY, "w", 0, 0, List.of("1"), List.of("a"), List.of());
    assertThat(c.generate(List.of(ok), SamplingConfig.training(16)).get(0).text()).isEqualTo("<action>2</action>");
    PolicyRequest none = new PolicyRequest("p", Phase.PLAY, "w", 0, 0, List.of("1"), "text", List.of());
    assertThatThrownBy(() -> c.generate(List.of(none), SamplingConfig.training(16)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the request carries no high-low state (got java.lang.String); scripted high-low players need the"
            + " environment's state");
  }
}
