package org.magejvm.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code mage bench serve} at a tiny size: the table has a row per client count and every figure is sane. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ServeBenchTest {

  @Test
  void aTinyRunPrintsOneSaneRowPerClientCountWithTheIdleConnectionsHeld() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<ServeBench.Row> rows;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      rows = ServeBench.run(new String[] {"clients=1,3", "requests=6", "tokens=3", "idle=10"}, out);
    }
    String table = bytes.toString(StandardCharsets.UTF_8);
    assertThat(table).contains("6 requests of 3 tokens each, 10 idle connections held open")
        .contains("p50 ms").contains("p99 ms");
    assertThat(table.lines().count()).isEqualTo(2 + 2);
    assertThat(rows).extracting(ServeBench.Row::clients).containsExactly(1, 3);
    for (ServeBench.Row r : rows) {
      assertThat(r.requestsPerSecond()).isPositive();
      assertThat(r.tokensPerSecond()).isCloseTo(3 * r.requestsPerSecond(),
          org.assertj.core.data.Percentage.withPercentage(1));
      assertThat(r.p50Millis()).isPositive().isLessThanOrEqualTo(r.p99Millis());
      assertThat(r.inProcessP50Millis()).isPositive().isLessThanOrEqualTo(r.inProcessP99Millis());
      assertThat(r.inProcessRequestsPerSecond()).isPositive();
      assertThat(r.meanBatch()).isBetween(1.0, (double) r.clients());
      assertThat(r.idleOpen()).as("idle connections are held, not dropped, within the idle timeout").isEqualTo(10);
    }
    assertThat(ServeBench.percentile(new long[] {5_000_000, 1_000_000, 3_000_000, 2_000_000}, 50)).isEqualTo(2.0);
    assertThat(ServeBench.percentile(new long[] {5_000_000, 1_000_000, 3_000_000, 2_000_000}, 99)).isEqualTo(5.0);
  }
}
