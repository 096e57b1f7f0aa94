package org.magejvm.impl.env.sokoban;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;

class SokobanProviderTest {

  private final SokobanProvider provider = new SokobanProvider();

  @Test
  void isFoundThroughServiceLoader() {
    EnvironmentProvider p = EnvironmentRegistry.discover().require("mage-sokoban");
    assertThat(p).isInstanceOf(SokobanProvider.class);
    assertThat(p.version()).isEqualTo("0.1.0");
    assertThat(p.description()).isNotEmpty();
  }

  @Test
  void isSinglePlayerWithTheReferenceDefaults() {
    assertThat(provider.opponents().isEmpty()).isTrue();
    assertThat(provider.opponents().heldOut()).isEmpty();
    assertThat(provider.twoPlayer()).isFalse();
    assertThat(provider.evaluationOpponent()).isEmpty();
    EnvironmentDefaults d = provider.defaults();
    assertThat(d).isEqualTo(EnvironmentDefaults.builder()
        .setMaxTurns(7).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.9)
        .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(4096)
        .build());
  }

  @Test
  void createsEnvironmentsFromOptions() {
    SokobanEnvironment env = provider.create(Map.of());
    assertThat(env.id()).isEqualTo("mage-sokoban");
    assertThat(env.config()).isEqualTo(SokobanConfig.DEFAULT);
    SokobanEnvironment custom = provider.create(Map.of(
        "boxes", "3", "size", " 7 ", "min-moves", "6", "max-moves", "20", "moves-per-turn", "4"));
    assertThat(custom.config()).isEqualTo(new SokobanConfig(7, 3, 6, 20, 4));
    String board = custom.reset(9, null, Seat.FIRST);
    assertThat(board.split("\n")).hasSize(7);
    assertThat(board).startsWith("0:#######");
    assertThat(SokobanConfig.fromOptions(custom.config().toOptions())).isEqualTo(custom.config());
    assertThat(provider.options()).containsOnlyKeys("boxes", "size", "min-moves", "max-moves", "moves-per-turn");
  }

  @Test
  void rejectsBadOptionsNamingThem() {
    expectBad(Map.of("colour", "red"), "colour", "red");
    expectBad(Map.of("boxes", "4"), "boxes", "4");
    expectBad(Map.of("boxes", "0"), "boxes", "0");
    expectBad(Map.of("boxes", "two"), "boxes", "two");
    expectBad(Map.of("size", "4"), "size", "4");
    expectBad(Map.of("size", "11"), "size", "11");
    expectBad(Map.of("size", "6.5"), "size", "6.5");
    expectBad(Map.of("min-moves", "0"), "min-moves", "0");
    expectBad(Map.of("min-moves", "10", "max-moves", "9"), "max-moves", "9");
    expectBad(Map.of("max-moves", "31"), "max-moves", "31");
    expectBad(Map.of("moves-per-turn", "0"), "moves-per-turn", "0");
    expectBad(Map.of("moves-per-turn", ""), "moves-per-turn", "''");
  }

  private void expectBad(Map<String, String> options, String name, String value) {
    assertThatThrownBy(() -> provider.create(options)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + name + "'").hasMessageContaining(value);
  }

  @Test
  void offersRandomAndSolverPolicies() {
    assertThat(provider.scriptedPolicies()).containsExactly("random", "solver");
    assertThatThrownBy(() -> provider.scriptedPolicy("greedy", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("greedy").hasMessageContaining("random").hasMessageContaining("solver");
  }

  @Test
  void theRandomPolicyPlaysFullTurnsReproducibly() {
    SokobanEnvironment env = provider.create(Map.of("moves-per-turn", "4"));
    env.reset(3, null, Seat.FIRST);
    PolicyRequest request = new PolicyRequest(env.observation(), Phase.PLAY, "w", 0, 0, env.legalActions(),
        env.state(), List.of());
    String a = answer(provider.scriptedPolicy("random", 42), request);
    String b = answer(provider.scriptedPolicy("random", 42), request);
    assertThat(a).isEqualTo(b);
    StepResult r = env.step(a);
    assertThat(r.actionValid()).isTrue();
    assertThat(r.action().split(", ")).hasSizeLessThanOrEqualTo(4);
    assertThat(a).matches("<action>(up|down|left|right)(, (up|down|left|right)){3}</action>");
    // without the environment state it falls back to three moves
    assertThat(answer(provider.scriptedPolicy("random", 1), PolicyRequest.of("room")))
        .matches("<action>(up|down|left|right)(, (up|down|left|right)){2}</action>");
    Set<String> seen = new HashSet<>();
    LanguagePolicy random = provider.scriptedPolicy("random", 5);
    for (int i = 0; i < 50; i++) {
      seen.add(answer(random, request));
    }
    assertThat(seen.size()).isGreaterThan(30);
  }

  @Test
  void theSolverPolicyNeedsTheState() {
    LanguagePolicy solver = provider.scriptedPolicy("solver", 1);
    assertThatThrownBy(() -> answer(solver, PolicyRequest.of("room"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("SokobanSnapshot");
  }

  private static String answer(LanguagePolicy policy, PolicyRequest request) {
    List<Generation> out = policy.generate(List.of(request), SamplingConfig.evaluation(64));
    return out.get(0).text();
  }

  /** The exact prompts are in the golden files of {@code PromptGoldenTest}; this checks the moves-per-turn option. */
  @Test
  void compactPromptsAreShortAndFollowTheMovesPerTurn() {
    SokobanEnvironment env = provider.create(Map.of("moves-per-turn", "2"));
    String start = env.reset(12, null, Seat.FIRST);
    PromptContext c = new PromptContext(PromptStyle.COMPACT, start, 0, List.of(), List.of(), null);
    String compact = env.promptRenderer().renderPlay(c);
    String verbose = env.promptRenderer().renderPlay(
        new PromptContext(PromptStyle.VERBOSE, start, 0, List.of(), List.of(), null));
    assertThat(compact).contains(start).contains("√").contains("<action>up, up</action>")
        .contains("at most 2 moves");
    assertThat(compact.length()).isLessThan(verbose.length() / 2);
  }
}
