package org.magejvm.impl.train.update;

import org.magejvm.impl.train.Params;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.update.StepReport;
import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * Replays the trajectory that PyTorch's own AdamW, clip_grad_norm_ and a LambdaLR warm-up produced (written by
 * src/test/python/make_adamw_fixture.py) and compares every step in float64.
 */
class AdamWTorchFixtureTest {

  private static JsonObject fixture() throws IOException {
    try (InputStream in = AdamWTorchFixtureTest.class.getResourceAsStream("/adamw/torch-adamw-trajectory.json")) {
      return JsonParser.parseString(new String(in.readAllBytes(), StandardCharsets.UTF_8)).getAsJsonObject();
    }
  }

  private static double[] doubles(JsonElement e) {
    JsonArray a = e.getAsJsonArray();
    double[] out = new double[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i).getAsDouble();
    }
    return out;
  }

  private static Map<String, double[]> tensors(JsonObject o) {
    Map<String, double[]> out = new LinkedHashMap<>();
    for (String k : o.keySet()) {
      out.put(k, doubles(o.get(k)));
    }
    return out;
  }

  private static void assertClose(double[] actual, double[] expected, String what) {
    for (int i = 0; i < expected.length; i++) {
      assertThat(actual[i]).as("%s[%d]", what, i)
          .isCloseTo(expected[i], Offset.offset(1e-13 + 1e-12 * Math.abs(expected[i])));
    }
  }

  @Test
  void float64StepsMatchPyTorch() throws IOException {
    JsonObject f = fixture();
    JsonObject c = f.getAsJsonObject("config");
    AdamWConfig config = AdamWConfig.builder()
        .optLearningRate(c.get("learning_rate").getAsDouble())
        .optBeta1(c.get("beta1").getAsDouble())
        .optBeta2(c.get("beta2").getAsDouble())
        .optEps(c.get("eps").getAsDouble())
        .optWeightDecay(c.get("weight_decay").getAsDouble())
        .optGradientClip(c.get("gradient_clip").getAsDouble())
        .optWarmupSteps(c.get("warmup_steps").getAsInt())
        .build();
    Map<String, long[]> shapes = new LinkedHashMap<>();
    JsonObject s = f.getAsJsonObject("shapes");
    for (String k : s.keySet()) {
      double[] d = doubles(s.get(k));
      long[] shape = new long[d.length];
      for (int i = 0; i < d.length; i++) {
        shape[i] = (long) d[i];
      }
      shapes.put(k, shape);
    }
    try (NDManager manager = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      Map<String, NDArray> params = Params.create(manager, tensors(f.getAsJsonObject("initial")), shapes,
          DataType.FLOAT64);
      try (AdamW opt = new AdamW(params, config)) {
        int t = 0;
        boolean sawClip = false;
        for (JsonElement e : f.getAsJsonArray("steps")) {
          t++;
          JsonObject step = e.getAsJsonObject();
          Params.addGradients(params, tensors(step.getAsJsonObject("gradients")));
          StepReport r = opt.step();
          assertThat(r.learningRate()).as("step %d learning rate", t)
              .isCloseTo(step.get("learning_rate").getAsDouble(), Offset.offset(1e-18));
          assertThat(r.gradNorm()).as("step %d norm", t)
              .isCloseTo(step.get("grad_norm").getAsDouble(), Offset.offset(1e-12));
          assertThat(r.clipped()).as("step %d clipped", t).isEqualTo(step.get("clipped").getAsBoolean());
          sawClip |= r.clipped();
          Map<String, double[]> p = tensors(step.getAsJsonObject("parameters"));
          Map<String, double[]> m = tensors(step.getAsJsonObject("exp_avg"));
          Map<String, double[]> v = tensors(step.getAsJsonObject("exp_avg_sq"));
          for (String k : shapes.keySet()) {
            assertClose(Params.values(params.get(k)), p.get(k), "step " + t + " parameter " + k);
            assertClose(Params.values(opt.firstMoment(k)), m.get(k), "step " + t + " exp_avg " + k);
            assertClose(Params.values(opt.secondMoment(k)), v.get(k), "step " + t + " exp_avg_sq " + k);
          }
        }
        assertThat(t).isEqualTo(7);
        assertThat(sawClip).isTrue();
      }
    }
  }
}
