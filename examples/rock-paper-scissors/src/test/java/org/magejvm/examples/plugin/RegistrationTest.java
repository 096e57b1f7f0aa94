package org.magejvm.examples.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.example.test.CopycatRpsProvider;
import com.example.test.ReservedIdProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.plugin.PluginException;
import org.magejvm.api.plugin.ProviderInfo;
import org.magejvm.examples.cli.MageCli;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.StepResult;

class RegistrationTest {

  @Test
  void serviceLoaderDiscoveryFindsTheExample() {
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    assertThat(registry.require("rps")).isInstanceOf(RpsProvider.class);
    ProviderInfo info = registry.describe().stream().filter(i -> i.id().equals("rps")).findFirst().orElseThrow();
    assertThat(info.version()).isEqualTo("1.0.0");
    assertThat(info.className()).isEqualTo(RpsProvider.class.getName());
    assertThat(info.location()).isNotEqualTo("(unknown)");
  }

  @Test
  void programmaticRegistrationNeedsNoServiceFile() {
    EnvironmentRegistry registry = EnvironmentRegistry.empty().register(new RpsProvider());
    assertThat(registry.all()).hasSize(1);
    assertThat(registry.require("rps").version()).isEqualTo("1.0.0");
    assertThatThrownBy(() -> registry.require("tic-tac-toe")).isInstanceOf(PluginException.class)
        .hasMessageContaining("[rps]");
  }

  @Test
  void aSecondProviderWithTheSameIdIsRejectedNamingBothClasses() {
    EnvironmentRegistry registry = EnvironmentRegistry.empty().register(new RpsProvider());
    assertThatThrownBy(() -> registry.register(new CopycatRpsProvider())).isInstanceOf(PluginException.class)
        .hasMessageContaining("'rps'")
        .hasMessageContaining(RpsProvider.class.getName())
        .hasMessageContaining(CopycatRpsProvider.class.getName())
        .hasMessageContaining(ProviderInfo.locationOf(RpsProvider.class))
        .hasMessageContaining(ProviderInfo.locationOf(CopycatRpsProvider.class));
    // the registry is unchanged
    assertThat(registry.require("rps")).isInstanceOf(RpsProvider.class);

    assertThatThrownBy(() -> registry.register(new RpsProvider())).isInstanceOf(PluginException.class)
        .hasMessageContaining("share the id 'rps'");
  }

  @Test
  void aDuplicateOnTheClassPathIsRejectedAtDiscovery(@TempDir Path dir) throws IOException {
    // a second "jar" (a class-path directory here) whose service file lists another provider with the id rps
    Path services = dir.resolve("META-INF/services");
    Files.createDirectories(services);
    Files.writeString(services.resolve(EnvironmentProvider.class.getName()),
        "# a third-party plugin\n" + CopycatRpsProvider.class.getName() + "\n", StandardCharsets.UTF_8);
    try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
        RegistrationTest.class.getClassLoader())) {
      assertThatThrownBy(() -> EnvironmentRegistry.discover(loader)).isInstanceOf(PluginException.class)
          .hasMessageContaining("'rps'")
          .hasMessageContaining(RpsProvider.class.getName())
          .hasMessageContaining(CopycatRpsProvider.class.getName());
    }
  }

  @Test
  void theMagePrefixIsReservedForBuiltInGames() {
    assertThatThrownBy(() -> EnvironmentRegistry.empty().register(new ReservedIdProvider()))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining("'mage-rps'")
        .hasMessageContaining("reserved")
        .hasMessageContaining(ReservedIdProvider.class.getName());
  }

  @Test
  void mageEnvsListsTheExample() {
    String table = runCli("envs");
    assertThat(table).containsPattern("(?m)^rps +1\\.0\\.0 ")
        .contains("always-rock, cycle, mirror, uniform, beat-last")
        .contains("random, counter");
    String json = runCli("envs", "--json");
    assertThat(json).contains("\"id\": \"rps\"").contains("\"class\": \"" + RpsProvider.class.getName() + "\"");
  }

  private static String runCli(String... args) {
    PrintStream saved = System.out;
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    try (PrintStream capture = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      assertThat(MageCli.run(args)).isZero();
    } finally {
      System.setOut(saved);
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theProgrammaticExamplePlaysOneEpisodeByHand() {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    EnvironmentProvider rps = EnvironmentRegistry.empty().register(new RpsProvider()).require("rps");
    List<StepResult> results;
    try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
      results = RegisterProgrammatically.playOneEpisode(rps, "always-rock", "counter", 5,
          RegisterProgrammatically.policySeed(5), out);
    }
    assertThat(results).hasSize(RpsEnvironment.ROUNDS);
    assertThat(results.get(2).won()).isTrue();
    String transcript = buffer.toString(StandardCharsets.UTF_8);
    assertThat(transcript).contains("playing rps against always-rock with the counter policy, seed 5")
        .contains("--- turn 1 prompt ---\n" + RpsEnvironment.GAME_TEXT.compactRules())
        .contains("--- answer: <action>paper</action>")
        .contains("episode over: reward 10.0, score 1.0");
    assertThatThrownBy(() -> RegisterProgrammatically.playOneEpisode(rps, "mcts", "counter", 1, 2, System.out))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("always-rock");
    assertThatThrownBy(() -> RegisterProgrammatically.main(new String[] {"cycle", "counter", "x1"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'x1'");
  }
}
