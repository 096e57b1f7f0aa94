package org.magejvm.impl.train.update;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.safetensors.SafetensorsFile;
import org.magejvm.impl.train.Params;

/**
 * AdamW over FLOAT16 parameters: FLOAT32 master weights and moments, the step a FLOAT32 parameter would take (the
 * master bit for bit, the parameter its rounding), and dynamic loss scaling (unscaled gradients, a halved scale and a
 * skipped step on overflow, growth after good steps), all saved and restored.
 */
class AdamWFloat16Test {

  private static final Map<String, double[]> VALUES = Map.of("w", new double[] {0.5, -0.25, 0.125, 1.0});
  private static final Map<String, long[]> SHAPES = Map.of("w", new long[] {2, 2});
  private static final AdamWConfig CONFIG = AdamWConfig.builder().optLearningRate(1e-3).optWeightDecay(0.01)
      .build();

  /** The gradient c (exact in float16) times the loss scale, as a scaled loss's backward pass would leave it. */
  private static void gradient(Map<String, NDArray> params, double scale, double... c) {
    double[] g = new double[c.length];
    for (int i = 0; i < c.length; i++) {
      g[i] = c[i] * scale;
    }
    Params.addGradients(params, Map.of("w", g));
  }

  @Test
  void aStepUpdatesTheFloat32MasterAsAFloat32ParameterAndRoundsItBack() {
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      Map<String, NDArray> half = Params.create(m, VALUES, SHAPES, DataType.FLOAT16);
      Map<String, NDArray> full = Params.create(m, VALUES, SHAPES, DataType.FLOAT32);
      try (AdamW a16 = new AdamW(half, CONFIG); AdamW a32 = new AdamW(full, CONFIG)) {
        assertThat(a16.lossScaling()).contains(LossScaling.dynamic());
        assertThat(a32.lossScaling()).isEmpty();
        assertThat(a32.lossScale()).isEqualTo(1.0);
        assertThat(a16.masterWeight("w").orElseThrow().getDataType()).isEqualTo(DataType.FLOAT32);
        assertThat(a16.firstMoment("w").getDataType()).isEqualTo(DataType.FLOAT32);
        assertThat(a32.masterWeight("w")).isEmpty();
        for (int step = 0; step < 3; step++) {
          gradient(half, a16.lossScale(), 0.5, -0.25, 0.0625, -0.5);
          gradient(full, 1, 0.5, -0.25, 0.0625, -0.5);
          StepReport r16 = a16.step();
          StepReport r32 = a32.step();
          assertThat(r16.skipped()).isFalse();
          assertThat(r16.gradNorm()).isEqualTo(r32.gradNorm());
        }
        NDArray master = a16.masterWeight("w").orElseThrow();
        assertThat(Params.bytes(master)).isEqualTo(Params.bytes(full.get("w")));
        try (NDArray rounded = master.toType(DataType.FLOAT16, false)) {
          assertThat(Params.bytes(half.get("w"))).isEqualTo(Params.bytes(rounded));
        }
        assertThat(Params.bytes(a16.secondMoment("w"))).isEqualTo(Params.bytes(a32.secondMoment("w")));
      }
    }
  }

  @Test
  void anOverflowSkipsTheStepAndHalvesTheScaleAndGoodStepsGrowIt() {
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      Map<String, NDArray> half = Params.create(m, VALUES, SHAPES, DataType.FLOAT16);
      byte[] before = Params.bytes(half.get("w"));
      try (AdamW a = new AdamW(half, CONFIG, new LossScaling(1024, 2))) {
        gradient(half, a.lossScale(), 100, 0, 0, 0); // 102400 is beyond float16: an infinity
        assertThat(a.gradientsOverflowed()).isTrue();
        StepReport skipped = a.step();
        assertThat(skipped.skipped()).isTrue();
        assertThat(a.skippedCount()).isEqualTo(1);
        assertThat(a.lossScale()).isEqualTo(512);
        assertThat(Params.bytes(half.get("w"))).isEqualTo(before);
        gradient(half, a.lossScale(), 1, 0, 0, 0);
        assertThat(a.gradientsOverflowed()).isFalse();
        assertThat(a.step().skipped()).isFalse();
        assertThat(a.lossScale()).isEqualTo(512);
        gradient(half, a.lossScale(), 1, 0, 0, 0);
        a.step();
        assertThat(a.lossScale()).isEqualTo(1024); // two applied steps in a row
        assertThat(a.rescaleAfterOverflow()).isTrue(); // what PolicyUpdater does instead of losing a minibatch
        assertThat(a.lossScale()).isEqualTo(512);
        assertThat(a.skippedCount()).isEqualTo(1);
      }
    }
  }

  @Test
  void theMastersAndTheLossScaleAreSavedAndRestored(@TempDir Path dir) throws Exception {
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      Map<String, NDArray> half = Params.create(m, VALUES, SHAPES, DataType.FLOAT16);
      Map<String, NDArray> again = Params.create(m, VALUES, SHAPES, DataType.FLOAT16);
      try (AdamW a = new AdamW(half, CONFIG, new LossScaling(1024, 100))) {
        gradient(half, a.lossScale(), 100, 0, 0, 0);
        a.step(); // overflow: scale 512
        for (int i = 0; i < 2; i++) {
          gradient(half, a.lossScale(), 0.5, -0.25, 0.0625, -1);
          a.step();
        }
        a.save(dir);
        assertThat(Files.readString(dir.resolve(AdamW.STATE_FILE))).contains("\"loss_scale\": 512.0")
            .contains("\"loss_scale_applied_steps\": 2");
        String moments;
        try (var files = Files.list(dir)) {
          moments = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".safetensors")).findFirst()
              .orElseThrow();
        }
        try (SafetensorsFile st = SafetensorsFile.open(dir.resolve(moments))) {
          assertThat(st.names()).contains(AdamW.MASTER_PREFIX + "w");
        }
        Map<String, NDArray> snapshot = new LinkedHashMap<>();
        snapshot.put("w", a.masterWeight("w").orElseThrow());
        try (AdamW b = AdamW.load(dir, again)) {
          assertThat(b.lossScale()).isEqualTo(512);
          assertThat(b.stepCount()).isEqualTo(2);
          assertThat(b.skippedCount()).isEqualTo(1);
          assertThat(Params.bytes(b.masterWeight("w").orElseThrow())).isEqualTo(Params.bytes(snapshot.get("w")));
          assertThat(Params.bytes(b.firstMoment("w"))).isEqualTo(Params.bytes(a.firstMoment("w")));
        }
      }
    }
  }
}
