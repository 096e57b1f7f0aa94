package org.magejvm.gigpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.magejvm.gigpo.LossArrays.backward;
import static org.magejvm.gigpo.LossArrays.matrix;
import static org.magejvm.gigpo.LossArrays.toMatrix;
import static org.magejvm.gigpo.LossArrays.vector;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossDiagnostics;
import org.magejvm.api.LossInput;
import org.magejvm.api.OptimizerConfig;

/**
 * {@link PpoLoss} against the reference loss restated in PyTorch ({@code src/test/python/make_ppo_loss_fixture.py},
 * float64 autograd): loss, every diagnostic and d loss / d logp (and d loss / d entropy) to 1e-9. Before computing,
 * the masked positions of every input are overwritten with infinities and NaN, which the reference could not take.
 */
class PpoLossTorchFixtureTest {

  private static final double TOLERANCE = 1e-9;
  private static final String RESOURCE = "/ppo_loss_fixture.json";

  static Stream<JsonObject> cases() throws IOException {
    try (InputStream s = PpoLossTorchFixtureTest.class.getResourceAsStream(RESOURCE)) {
      assertThat(s).as(RESOURCE).isNotNull();
      try (Reader r = new InputStreamReader(s, StandardCharsets.UTF_8)) {
        JsonObject root = new Gson().fromJson(r, JsonObject.class);
        List<JsonObject> cases = new ArrayList<>();
        for (JsonElement e : root.getAsJsonArray("cases")) {
          cases.add(e.getAsJsonObject());
        }
        return cases.stream();
      }
    }
  }

  @Test
  void fixtureCoversBothAggregationsAndOptionalInputs() throws IOException {
    List<JsonObject> all = cases().toList();
    assertThat(all).hasSizeGreaterThanOrEqualTo(6);
    assertThat(all).extracting(c -> c.get("aggregation").getAsString())
        .contains("TOKEN_MEAN", "SEQ_MEAN_TOKEN_MEAN");
    assertThat(all).anyMatch(c -> c.get("ref_log_probs").isJsonNull());
    assertThat(all).anyMatch(c -> c.get("entropies").isJsonNull());
    assertThat(all).anyMatch(c -> c.getAsJsonArray("advantages").get(0).isJsonArray());
  }

  @ParameterizedTest(name = "{index}: {0}")
  @MethodSource("cases")
  void matchesTorch(JsonObject c) {
    OptimizerConfig config = OptimizerConfig.builder()
        .optClipRatioLow(c.get("clip_ratio_low").getAsDouble())
        .optClipRatioHigh(c.get("clip_ratio_high").getAsDouble())
        .optDualClip(c.get("dual_clip").getAsDouble())
        .optEntropyCoefficient(c.get("entropy_coefficient").getAsDouble())
        .optKlCoefficient(c.get("kl_coefficient").getAsDouble())
        .optLossAggregation(LossAggregation.valueOf(c.get("aggregation").getAsString()))
        .build();
    double[][] mask = matrixOf(c.get("mask"));
    JsonObject expected = c.getAsJsonObject("expected");
    try (NDManager m = NDManager.newBaseManager()) {
      LossInput.Builder b = LossInput.builder()
          .setLogProbs(matrix(m, garbageWhereMasked(matrixOf(c.get("log_probs")), mask, Double.NEGATIVE_INFINITY)))
          .setOldLogProbs(matrix(m, garbageWhereMasked(matrixOf(c.get("old_log_probs")), mask, Double.NaN)))
          .setMask(matrix(m, mask))
          .setNormalizer(c.get("normalizer").getAsDouble());
      JsonArray adv = c.getAsJsonArray("advantages");
      if (adv.get(0).isJsonArray()) {
        b.setAdvantages(matrix(m, garbageWhereMasked(matrixOf(adv), mask, Double.NaN)));
      } else {
        b.setAdvantages(vector(m, vectorOf(adv)));
      }
      if (!c.get("ref_log_probs").isJsonNull()) {
        b.optRefLogProbs(matrix(m,
            garbageWhereMasked(matrixOf(c.get("ref_log_probs")), mask, Double.POSITIVE_INFINITY)));
      }
      if (!c.get("entropies").isJsonNull()) {
        b.optEntropies(matrix(m, garbageWhereMasked(matrixOf(c.get("entropies")), mask, Double.NaN)));
      }
      LossInput in = b.build();
      LossDiagnostics d = backward(new PpoLoss(config), in);

      assertThat(d.loss()).as("loss").isCloseTo(expected.get("loss").getAsDouble(), within(TOLERANCE));
      assertThat(d.pgLoss()).as("pg_loss").isCloseTo(expected.get("pg_loss").getAsDouble(), within(TOLERANCE));
      assertThat(d.clipFracLow()).as("clipfrac_low")
          .isCloseTo(expected.get("clipfrac_low").getAsDouble(), within(TOLERANCE));
      assertThat(d.clipFracHigh()).as("clipfrac_high")
          .isCloseTo(expected.get("clipfrac_high").getAsDouble(), within(TOLERANCE));
      assertThat(d.clipFracDual()).as("clipfrac_dual")
          .isCloseTo(expected.get("clipfrac_dual").getAsDouble(), within(TOLERANCE));
      assertThat(d.ppoKl()).as("ppo_kl").isCloseTo(expected.get("ppo_kl").getAsDouble(), within(TOLERANCE));
      if (expected.has("entropy")) {
        assertThat(d.entropy()).as("entropy").isCloseTo(expected.get("entropy").getAsDouble(), within(TOLERANCE));
      } else {
        assertThat(d.entropy()).as("entropy").isNaN();
      }
      if (expected.has("kl_loss")) {
        assertThat(d.klLoss()).as("kl_loss").isCloseTo(expected.get("kl_loss").getAsDouble(), within(TOLERANCE));
      } else {
        assertThat(d.klLoss()).as("kl_loss").isNaN();
      }
      assertThat(d.tokens()).isEqualTo(expected.get("tokens").getAsLong());
      assertThat(d.sequences()).isEqualTo(expected.get("sequences").getAsLong());

      double maxDiff = assertMatrixClose("d loss / d logp", in.logProbs().getGradient(),
          matrixOf(expected.get("grad_log_probs")));
      if (!expected.get("grad_entropies").isJsonNull()) {
        maxDiff = Math.max(maxDiff, assertMatrixClose("d loss / d entropy", in.entropies().getGradient(),
            matrixOf(expected.get("grad_entropies"))));
      }
      maxDiff = Math.max(maxDiff, Math.abs(d.loss() - expected.get("loss").getAsDouble()));
      System.out.printf("ppo loss fixture %-50s max |java - torch| = %.3g%n", c.get("name").getAsString(), maxDiff);
    }
  }

  private static double assertMatrixClose(String what, NDArray actual, double[][] expected) {
    double[][] a = toMatrix(actual);
    double max = 0;
    for (int b = 0; b < expected.length; b++) {
      for (int t = 0; t < expected[b].length; t++) {
        assertThat(a[b][t]).as("%s[%d][%d]", what, b, t).isCloseTo(expected[b][t], within(TOLERANCE));
        max = Math.max(max, Math.abs(a[b][t] - expected[b][t]));
      }
    }
    return max;
  }

  private static double[][] garbageWhereMasked(double[][] values, double[][] mask, double garbage) {
    for (int b = 0; b < values.length; b++) {
      for (int t = 0; t < values[b].length; t++) {
        if (mask[b][t] == 0) {
          values[b][t] = garbage;
        }
      }
    }
    return values;
  }

  private static double[][] matrixOf(JsonElement e) {
    JsonArray rows = e.getAsJsonArray();
    double[][] out = new double[rows.size()][];
    for (int b = 0; b < rows.size(); b++) {
      out[b] = vectorOf(rows.get(b).getAsJsonArray());
    }
    return out;
  }

  private static double[] vectorOf(JsonArray a) {
    double[] out = new double[a.size()];
    for (int i = 0; i < a.size(); i++) {
      out[i] = a.get(i).getAsDouble();
    }
    return out;
  }
}
