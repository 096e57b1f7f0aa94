package org.magejvm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.spi.policy.RandomPolicy;

class BaseEnvironmentProviderTest {

  private static final EnvironmentDefaults DEFAULTS = EnvironmentDefaults.builder()
      .setMaxTurns(5).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
      .setInvalidPenalty(0.5).setLengthPenalty(1.0).setMaxResponseTokens(64)
      .build();

  private record Named(String id) implements Opponent {}

  /** A provider whose environments record the options they were created with. */
  private static final class Game extends BaseEnvironmentProvider<Environment> {
    Map<String, String> lastOptions;
    boolean returnNull;

    Game(UnaryOperator<Settings> settings) {
      super(settings.apply(settings("coin-game", "2.1")));
    }

    @Override
    protected Environment newEnvironment(Map<String, String> options) {
      lastOptions = options;
      return returnNull ? null : (Environment) Proxy.newProxyInstance(Environment.class.getClassLoader(),
          new Class<?>[] {Environment.class}, (proxy, method, args) -> {
            throw new UnsupportedOperationException(method.getName());
          });
    }
  }

  private static BaseEnvironmentProvider.Settings full(BaseEnvironmentProvider.Settings s) {
    return s.optDescription("take coins")
        .setDefaults(DEFAULTS)
        .optOpponents(OpponentPool.builder().addOpponent(new Named("greedy"), 1).addHeldOut(new Named("wise")).build())
        .optEvaluationOpponent("wise")
        .optEvaluationSeat(Seat.SECOND)
        .addOption("coins", "coins in the row (default 8)")
        .addOption("ends", "1 or 2 (default 2)")
        .addScriptedPolicy("random", RandomPolicy::new)
        .addScriptedPolicy("greedy", seed -> new RandomPolicy(seed + 1));
  }

  @Test
  void answersFromItsSettings() {
    Game g = new Game(BaseEnvironmentProviderTest::full);
    assertThat(g.id()).isEqualTo("coin-game");
    assertThat(g.version()).isEqualTo("2.1");
    assertThat(g.description()).isEqualTo("take coins");
    assertThat(g.defaults()).isSameAs(DEFAULTS);
    assertThat(g.opponents().ids()).containsExactly("greedy", "wise");
    assertThat(g.twoPlayer()).isTrue();
    assertThat(g.evaluationOpponent()).isEqualTo("wise");
    assertThat(g.evaluationSeat()).isEqualTo(Seat.SECOND);
    assertThat(g.validationOpponents()).containsExactly("wise");
    assertThat(new Game(s -> full(s).addValidationOpponent("greedy")).validationOpponents())
        .containsExactly("wise", "greedy");
    assertThat(g.options().keySet()).containsExactly("coins", "ends");
    assertThat(g.scriptedPolicies()).containsExactly("random", "greedy");
    assertThat(g.scriptedPolicy("greedy", 1).name()).isEqualTo("random");
    assertThat(g.toString()).isEqualTo("Game[coin-game 2.1]");
  }

  @Test
  void aSinglePlayerGameNeedsOnlyDefaultsAndRandom() {
    Game g = new Game(s -> s.setDefaults(DEFAULTS).addScriptedPolicy("random", RandomPolicy::new));
    assertThat(g.description()).isEmpty();
    assertThat(g.twoPlayer()).isFalse();
    assertThat(g.evaluationOpponent()).isEmpty();
    assertThat(g.evaluationSeat()).isEqualTo(Seat.FIRST);
    assertThat(g.options()).isEmpty();
  }

  @Test
  void createChecksTheOptionsBeforeTheGameSeesThem() {
    Game g = new Game(BaseEnvironmentProviderTest::full);
    Map<String, String> given = new LinkedHashMap<>();
    given.put("ends", "1");
    given.put("coins", "6");
    assertThat(g.create(given)).isInstanceOf(Environment.class);
    assertThat(g.lastOptions).containsExactly(Map.entry("ends", "1"), Map.entry("coins", "6"));
    given.put("ends", "3");
    assertThat(g.lastOptions).containsEntry("ends", "1"); // a copy
    g.create(null);
    assertThat(g.lastOptions).isEmpty();
    assertThatThrownBy(() -> g.create(Map.of("colour", "red"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown option 'colour' (value 'red') for environment 'coin-game'; known options: [coins, ends]");
    Map<String, String> nullValue = new LinkedHashMap<>();
    nullValue.put("coins", null);
    assertThatThrownBy(() -> g.create(nullValue)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("option 'coins' of environment 'coin-game' has no value");
    Game none = new Game(s -> s.setDefaults(DEFAULTS).addScriptedPolicy("random", RandomPolicy::new));
    assertThatThrownBy(() -> none.create(Map.of("coins", "6"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown option 'coins' (value '6') for environment 'coin-game': it takes no options");
    g.returnNull = true;
    assertThatThrownBy(() -> g.create(Map.of())).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("newEnvironment returned null");
  }

  @Test
  void anUnknownPolicyNamesTheKnownOnes() {
    Game g = new Game(BaseEnvironmentProviderTest::full);
    assertThatThrownBy(() -> g.scriptedPolicy("oracle", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown scripted policy 'oracle' for environment 'coin-game'; known policies: random, greedy");
    assertThatThrownBy(() -> g.scriptedPolicy(null, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown scripted policy 'null'");
  }

  @Test
  void rejectsIncompleteOrInconsistentSettings() {
    assertThatThrownBy(() -> new Game(s -> s.addScriptedPolicy("random", RandomPolicy::new)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("environment provider 'coin-game' has no defaults (setDefaults)");
    assertThatThrownBy(() -> new Game(s -> s.setDefaults(DEFAULTS).addScriptedPolicy("solver", RandomPolicy::new)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("environment 'coin-game' must offer the scripted policy 'random'")
        .hasMessageEndingWith("got [solver]");
    assertThatThrownBy(() -> new Game(s -> full(s).optEvaluationOpponent("mcts")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the evaluation opponent 'mcts' of environment 'coin-game' is not in its opponent pool"
            + " [greedy, wise]");
    assertThatThrownBy(() -> new Game(s -> full(s).addValidationOpponent("mcts")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the validation opponent 'mcts' of environment 'coin-game' is not in its opponent pool"
            + " [greedy, wise]");
    assertThatThrownBy(() -> new Game(s -> full(s).addValidationOpponent("wise")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'wise'").hasMessageContaining("twice");
    assertThatThrownBy(() -> new Game(s -> full(s).addOption("coins", "again")))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("option 'coins' is declared twice");
    assertThatThrownBy(() -> new Game(s -> full(s).addScriptedPolicy("random", RandomPolicy::new)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("scripted policy 'random' is declared twice");
    assertThat(new Game(s -> full(s).addOptions(Map.of("rows", "1 or 2"))).options())
        .containsOnlyKeys("coins", "ends", "rows");
  }
}
