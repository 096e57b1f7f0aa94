package org.magejvm.impl.env;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.impl.env.kuhn.KuhnPokerProvider;
import org.magejvm.impl.env.sokoban.SokobanProvider;
import org.magejvm.impl.env.tictactoe.TicTacToeProvider;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.PromptStyle;
import org.magejvm.testkit.GoldenFiles;
import org.magejvm.testkit.RecordingPolicy;

/**
 * The exact prompts each built-in game shows, in both styles, compared with golden files under {@code
 * src/test/resources/golden/prompts/GAME/STYLE/}: the first play turn, a later turn of the first attempt (with an
 * invalid move in its history), a turn of the third attempt (the earlier attempts' moves, outcomes and
 * reflections as context), and the reflection prompt after the first attempt.
 *
 * <p>The prompts come from a real meta-episode: the rollout engine plays three episodes (history and reflections as
 * context, no early stop) with a policy whose answers are scripted, so the files show what a model would read. When a
 * prompt changes on purpose, regenerate the files and review them with {@code git diff}:
 *
 * <pre>
 * mvn -B -pl mage-impl/games -am test -Dtest=PromptGoldenTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dmage.golden.update=true
 * </pre>
 *
 * <p>Without {@code -Dmage.golden.update=true} a difference fails with a line diff; files are never rewritten
 * otherwise.
 */
class PromptGoldenTest {

  private static final GoldenFiles GOLDEN = new GoldenFiles(Path.of("src", "test", "resources", "golden", "prompts"),
      "mvn -B -pl mage-impl/games -am test -Dtest=PromptGoldenTest -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dmage.golden.update=true");

  /** One game set up for the scripted meta-episode. */
  private record Game(String dir, EnvironmentProvider provider, String opponent, Seat seat, long seed,
      List<String> firstAttempt) {
    @Override
    public String toString() {
      return dir;
    }
  }

  private static final List<Game> GAMES = List.of(
      // X takes the center, then tries it again (taken: invalid), then plays the first free cells
      new Game("tictactoe", new TicTacToeProvider(), "preferred-corners-first", Seat.FIRST, 3,
          List.of("(2, 2)", "(2, 2)")),
      // the agent is player 1: it answers the opponent's opening, first with a word that is no action
      new Game("kuhn", new KuhnPokerProvider(), "aggressive", Seat.SECOND, 5, List.of("RAISE")),
      // two moves, then a word that is no move, then single moves
      new Game("sokoban", new SokobanProvider(), "", Seat.FIRST, 11, List.of("up, left", "fly")));

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Game g : GAMES) {
      for (PromptStyle style : PromptStyle.values()) {
        out.add(Arguments.of(g, style));
      }
    }
    return out.stream();
  }

  /**
   * Answers the first attempt's turns from the game's script, every later play turn with the first legal action,
   * and every reflection with a fixed remark, all in the game's tags.
   */
  private static final class ScriptedAnswers implements LanguagePolicy {
    private final List<String> firstAttempt;

    ScriptedAnswers(List<String> firstAttempt) {
      this.firstAttempt = firstAttempt;
    }

    @Override
    public String name() {
      return "scripted-answers";
    }

    @Override
    public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
      List<Generation> out = new ArrayList<>();
      for (PolicyRequest r : requests) {
        String text;
        if (r.phase() == Phase.REFLECT) {
          text = "<remark>After attempt " + r.episodeIndex() + " I will try another line.</remark>";
        } else if (r.episodeIndex() == 0 && r.turnIndex() < firstAttempt.size()) {
          text = "<action>" + firstAttempt.get(r.turnIndex()) + "</action>";
        } else {
          text = "<action>" + r.legalActions().get(0) + "</action>";
        }
        out.add(Generation.ofText(text));
      }
      return out;
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void promptsMatchTheGoldenFiles(Game game, PromptStyle style) {
    RecordingPolicy policy = new RecordingPolicy(new ScriptedAnswers(game.firstAttempt()), false);
    RolloutConfig.Builder config = RolloutConfig.builder().setEnvironmentId(game.provider().id())
        .optTasks(1).optGroupSize(1).optEpisodes(3).optEarlyStop(false)
        .optContextMode(ContextMode.HISTORY_AND_REFLECTION).optPromptStyle(style)
        .optSeating(Seating.of(game.seat())).optSeed(game.seed());
    if (!game.opponent().isEmpty()) {
      config.optFixedOpponent(game.opponent());
    }
    MetaEpisodeRunner.of(game.provider()).run(config.build(), policy);
    List<PolicyRequest> requests = new ArrayList<>();
    policy.calls.forEach(requests::addAll);

    String dir = game.dir() + "/" + style.name().toLowerCase(java.util.Locale.ROOT) + "/";
    Map<String, PolicyRequest> picked = Map.of(
        "play-first-turn.txt", find(requests, Phase.PLAY, 0, 0),
        "play-later-turn.txt", last(requests, Phase.PLAY, 0),
        "play-third-attempt.txt", last(requests, Phase.PLAY, 2),
        "reflect-after-first-attempt.txt", find(requests, Phase.REFLECT, 1, 0));
    assertThat(picked.get("play-later-turn.txt").turnIndex()).as("the later turn has a history").isPositive();
    for (String name : List.of("play-first-turn.txt", "play-later-turn.txt", "play-third-attempt.txt",
        "reflect-after-first-attempt.txt")) {
      GOLDEN.check(dir + name, picked.get(name).prompt());
    }
  }

  private static PolicyRequest find(List<PolicyRequest> requests, Phase phase, int episode, int turn) {
    Optional<PolicyRequest> r = requests.stream()
        .filter(q -> q.phase() == phase && q.episodeIndex() == episode && q.turnIndex() == turn).findFirst();
    return r.orElseThrow(() -> new AssertionError("no " + phase + " request for episode " + episode + ", turn "
        + turn));
  }

  private static PolicyRequest last(List<PolicyRequest> requests, Phase phase, int episode) {
    PolicyRequest last = null;
    for (PolicyRequest q : requests) {
      if (q.phase() == phase && q.episodeIndex() == episode) {
        last = q;
      }
    }
    if (last == null) {
      throw new AssertionError("no " + phase + " request for episode " + episode);
    }
    return last;
  }
}
