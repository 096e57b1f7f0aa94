package org.magejvm.examples.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The repository's {@code mage} launcher lists this plugin only when its jar is on the class path through {@code
 * MAGE_CLASSPATH}, exactly as docs/plugins.md says. Runs after {@code package} (failsafe), so it uses the real
 * plugin jar and the tool jar that {@code examples/cli} packaged earlier in the same reactor build.
 */
class MageLauncherIT {

  private static Path launcher;
  private static Path pluginJar;

  @BeforeAll
  static void locate() throws IOException {
    launcher = Path.of(System.getProperty("mage.launcher", "../../mage")).toRealPath();
    pluginJar = Path.of(System.getProperty("mage.plugin.jar")).toAbsolutePath();
    Path toolJar = launcher.resolveSibling("examples/cli/target/mage-cli.jar");
    assertThat(toolJar).as("the mage tool jar; build it with mvn -B package from the repository root").exists();
    assertThat(pluginJar).as("this module's jar, made by the package phase").exists();
  }

  @Test
  void plainMageEnvsDoesNotListThePlugin() throws Exception {
    String out = run(Map.of("MAGE_CLASSPATH", ""), "envs");
    assertThat(out).containsPattern("(?m)^mage-tictactoe +").doesNotContainPattern("(?m)^rps +");
  }

  @Test
  void mageClasspathAddsThePluginJar() throws Exception {
    String out = run(Map.of("MAGE_CLASSPATH", pluginJar.toString()), "envs");
    assertThat(out).containsPattern("(?m)^mage-tictactoe +")
        .containsPattern("(?m)^rps +1\\.0\\.0 +file:" + Pattern.quote(pluginJar.toString()) + "$")
        .contains("always-rock, cycle, mirror, uniform, beat-last");
  }

  @Test
  void aMissingClasspathEntryIsReported() throws Exception {
    Path missing = pluginJar.resolveSibling("no-such-plugin.jar");
    Process p = start(Map.of("MAGE_CLASSPATH", missing.toString()), "envs");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(out).contains("MAGE_CLASSPATH names " + missing + ", which does not exist");
  }

  private static String run(Map<String, String> env, String... args) throws Exception {
    Process p = start(env, args);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("mage %s finished", List.of(args)).isTrue();
    assertThat(p.exitValue()).as("exit code of mage %s; output:%n%s", List.of(args), out).isZero();
    return out;
  }

  private static Process start(Map<String, String> env, String... args) throws IOException {
    ProcessBuilder pb = new ProcessBuilder();
    pb.command().add("bash");
    pb.command().add(launcher.toString());
    pb.command().addAll(List.of(args));
    pb.environment().putAll(env);
    pb.redirectErrorStream(true);
    pb.directory(Files.createTempDirectory("mage-launcher").toFile()); // the launcher must not depend on the cwd
    return pb.start();
  }
}
