package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mage experiment} with {@code mage-research} on the class path, as the launcher runs it: the tool finds the
 * comparison by name. In this package to use the tool's {@link CliRun} (from mage-cli's test jar).
 */
class ExperimentCommandTest {

  @Test
  void theMethodComparisonPrintsOneTablePerMetricAndTheOptimumOfItsDiscount(@TempDir Path dir) {
    CliRun run = CliRun.of("experiment", "kuhn-methods", "--work-dir", dir.toString(), "--warm-start-examples", "64",
        "--iterations", "0", "--eval-meta-episodes", "2", "--seeds", "1", "--methods", "gigpo", "--set", "credit.gamma_traj=1");
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out()).contains("optimum of the objective (attempt discount 1.0) on the same sets:")
        .contains("  gigpo seed 1: pool/success_rate[0] ");
    String[] lines = run.out().split("\n");
    List<String> headers = java.util.Arrays.stream(lines).filter(l -> l.startsWith("method ")).toList();
    assertThat(headers).hasSize(2);
    assertThat(headers.get(0)).contains("pool/success_rate[2]").contains("cfr/success_rate[0]").doesNotContain("score");
    assertThat(headers.get(1)).contains("pool/score[0]").contains("cfr/score[2]").doesNotContain("success_rate");
    assertThat(java.util.Arrays.stream(lines).filter(l -> l.startsWith("gigpo ")).count()).isEqualTo(2);
    assertThat(dir.resolve("methods.png")).exists();
  }
}
