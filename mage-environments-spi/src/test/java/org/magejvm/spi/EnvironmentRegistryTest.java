package org.magejvm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.api.plugin.PluginException;
import org.magejvm.api.plugin.ProviderInfo;

class EnvironmentRegistryTest {

  private static final OpponentPool NONE = OpponentPool.builder().build();
  private static final String TEST_CLASSES = ProviderInfo.locationOf(CoinRowProvider.class);

  @Test
  void emptyRegistry() {
    EnvironmentRegistry r = EnvironmentRegistry.empty();
    assertThat(r.all()).isEmpty();
    assertThat(r.describe()).isEmpty();
    assertThatThrownBy(() -> r.require("coin-row")).isInstanceOf(PluginException.class)
        .hasMessage("no EnvironmentProvider with id 'coin-row'; known ids: []");
  }

  @Test
  void registerRequireAndDescribe() {
    CoinRowProvider a = new CoinRowProvider("coins", NONE);
    CoinRowProvider b = new CoinRowProvider("mage-coins", NONE);
    EnvironmentRegistry r = EnvironmentRegistry.empty();
    assertThat(r.register(a)).isSameAs(r);
    r.register(b);
    assertThat(r.require("coins")).isSameAs(a);
    assertThat(r.require("mage-coins")).isSameAs(b);
    assertThat(r.all()).containsExactly(a, b);
    assertThat(r.describe()).containsExactly(
        new ProviderInfo("coins", "0.0.1", "take coins from either end of a row", CoinRowProvider.class.getName(),
            TEST_CLASSES),
        new ProviderInfo("mage-coins", "0.0.1", "take coins from either end of a row",
            CoinRowProvider.class.getName(), TEST_CLASSES));
    assertThatThrownBy(() -> r.require("chess")).isInstanceOf(PluginException.class)
        .hasMessage("no EnvironmentProvider with id 'chess'; known ids: [coins, mage-coins]");
  }

  @Test
  void duplicateAndMalformedIdsAreRejected() {
    EnvironmentRegistry r = EnvironmentRegistry.empty().register(new CoinRowProvider("coins", NONE));
    assertThatThrownBy(() -> r.register(new CoinRowProvider("coins", NONE))).isInstanceOf(PluginException.class)
        .hasMessageStartingWith("two EnvironmentProviders share the id 'coins': " + CoinRowProvider.class.getName()
            + " (" + TEST_CLASSES + ") and " + CoinRowProvider.class.getName() + " (" + TEST_CLASSES + ")");
    assertThatThrownBy(() -> r.register(new CoinRowProvider("Coins", NONE))).isInstanceOf(PluginException.class)
        .hasMessageContaining("malformed id 'Coins'");
    assertThat(r.all()).hasSize(1);
  }

  @Test
  void discoverFindsTheServicesFile() {
    EnvironmentRegistry r = EnvironmentRegistry.discover();
    assertThat(r.describe()).extracting(ProviderInfo::id).containsExactly("coin-row");
    assertThat(r.require("coin-row")).isInstanceOf(CoinRowProvider.class);
    assertThat(EnvironmentRegistry.discover(getClass().getClassLoader()).all()).hasSize(1);
  }

  @Test
  void discoverThroughALoaderThatSeesNothing() throws IOException {
    try (URLClassLoader isolated = new URLClassLoader(new URL[0], null)) {
      assertThat(EnvironmentRegistry.discover(isolated).all()).isEmpty();
    }
  }

  @Test
  void providerDefaults() {
    CoinRowProvider single = new CoinRowProvider();
    assertThat(single.twoPlayer()).isFalse();
    assertThat(single.options()).isEqualTo(Map.of());
    assertThat(single.evaluationOpponent()).isEmpty();
    assertThat(single.evaluationSeat()).isEqualTo(Seat.FIRST);
    Opponent greedy = () -> "greedy";
    assertThat(new CoinRowProvider("c", OpponentPool.builder().addOpponent(greedy, 1).build()).twoPlayer())
        .isTrue();
    // held-out opponents alone still make a two-player game
    assertThat(new CoinRowProvider("c", OpponentPool.builder().addHeldOut(greedy).build()).twoPlayer()).isTrue();
  }
}
