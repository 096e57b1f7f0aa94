package org.magejvm.impl.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComparisonChartTest {

  @Test
  void writesAPngAndAnSvgWithOneBarPerMethodAndSeries(@TempDir Path dir) throws Exception {
    Map<String, double[]> means = new LinkedHashMap<>();
    means.put("pool sr[0]", new double[] {0.39, 0.41, 0.45});
    means.put("pool sr[2]", new double[] {0.47, 0.48, 0.52});
    Map<String, double[]> spreads = new LinkedHashMap<>();
    spreads.put("pool sr[0]", new double[] {0, 0.04, 0.035});
    spreads.put("pool sr[2]", new double[] {0, 0.049, 0.018});
    List<Path> files = TrainingCharts.writeComparison(dir.resolve("charts"), "methods", "title", "rate",
        List.of("react", "mage", "gigpo"), means, spreads);
    assertThat(files).containsExactly(dir.resolve("charts/methods.png"), dir.resolve("charts/methods.svg"));
    byte[] png = Files.readAllBytes(files.get(0));
    assertThat(png).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
    String svg = Files.readString(files.get(1));
    assertThat(svg).contains("<svg");
    assertThat(png.length).isGreaterThan(5_000);
  }

  @Test
  void aSeriesOfTheWrongLengthIsRefused(@TempDir Path dir) {
    assertThatThrownBy(() -> TrainingCharts.writeComparison(dir, "m", "t", "y", List.of("a", "b"),
        Map.of("s", new double[] {1}), Map.of("s", new double[] {0})))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("series 's'");
  }
}
