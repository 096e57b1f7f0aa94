package org.magejvm.impl.train;

import org.magejvm.impl.train.listen.TrainingCharts;
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
  void seriesWithoutSpreadHaveNoErrorBars(@TempDir Path dir) throws Exception {
    List<String> states = List.of("a", "b", "c", "d", "e", "f", "g", "h");
    double[] values = {0.2, 0.4, 0.7, 0.7, 0.2, 0.7, 0.3, 0.3};
    String none = Files.readString(TrainingCharts.writeComparison(dir, "none", "t", "y", states,
        Map.of("s", values), Map.of("s", new double[8])).get(1));
    double[] small = new double[8];
    java.util.Arrays.fill(small, 0.01);
    String bars = Files.readString(TrainingCharts.writeComparison(dir, "bars", "t", "y", states,
        Map.of("s", values), Map.of("s", small)).get(1));
    // XChart draws each error bar as lines: 3 per bar here (the stem and two caps)
    assertThat(count(bars, "<line") - count(none, "<line")).isEqualTo(3 * 8);
  }

  private static int count(String text, String what) {
    int n = 0;
    for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void aSeriesOfTheWrongLengthIsRefused(@TempDir Path dir) {
    assertThatThrownBy(() -> TrainingCharts.writeComparison(dir, "m", "t", "y", List.of("a", "b"),
        Map.of("s", new double[] {1}), Map.of("s", new double[] {0})))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("series 's'");
  }
}
