package org.magejvm.impl.train.update;

import org.magejvm.impl.train.Params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

class AdamWTest {

  private static final Map<String, long[]> SHAPES = shapes();

  private NDManager manager;

  @TempDir Path tmp;

  private static Map<String, long[]> shapes() {
    Map<String, long[]> s = new LinkedHashMap<>();
    s.put("w", new long[] {2, 3});
    s.put("b", new long[] {4});
    return s;
  }

  @BeforeEach
  void open() {
    manager = NDManager.newBaseManager(Device.cpu(), "PyTorch");
  }

  @AfterEach
  void close() {
    manager.close();
  }

  private static Map<String, double[]> initial() {
    Map<String, double[]> v = new LinkedHashMap<>();
    for (Map.Entry<String, long[]> e : SHAPES.entrySet()) {
      int n = (int) new Shape(e.getValue()).size();
      double[] x = new double[n];
      for (int i = 0; i < n; i++) {
        x[i] = 0.5 * Math.cos(0.9 * i + (e.getKey().equals("w") ? 0 : 3));
      }
      v.put(e.getKey(), x);
    }
    return v;
  }

  /** Gradients of step {@code t} (from 0), scaled so that some steps exceed a clip of 1. */
  private static Map<String, double[]> gradients(int t, double scale) {
    Map<String, double[]> g = new LinkedHashMap<>();
    for (Map.Entry<String, long[]> e : SHAPES.entrySet()) {
      int n = (int) new Shape(e.getValue()).size();
      double[] x = new double[n];
      double offset = e.getKey().equals("w") ? 0 : 10;
      for (int i = 0; i < n; i++) {
        x[i] = scale * Math.sin(1.3 * (i + offset) + 0.7 * (t + 1));
      }
      g.put(e.getKey(), x);
    }
    return g;
  }

  private static final double[] SCALES = {0.2, 1.5, 0.05, 4.0, 0.3, 0.0, 2.5, 0.7};

  private static AdamWConfig trajectoryConfig() {
    return AdamWConfig.builder().optLearningRate(0.01).optWeightDecay(0.1).optGradientClip(1.0).optWarmupSteps(3)
        .build();
  }

  /** PyTorch's AdamW (decoupled decay, bias correction) with clip_grad_norm_ and the warm-up, in Java doubles. */
  static final class Reference {
    final AdamWConfig c;
    final Map<String, double[]> p = new LinkedHashMap<>();
    final Map<String, double[]> m = new LinkedHashMap<>();
    final Map<String, double[]> v = new LinkedHashMap<>();
    long t;
    double lastNorm;
    boolean lastClipped;
    double lastLr;

    Reference(AdamWConfig c, Map<String, double[]> init) {
      this.c = c;
      init.forEach((k, x) -> {
        p.put(k, x.clone());
        m.put(k, new double[x.length]);
        v.put(k, new double[x.length]);
      });
    }

    void step(Map<String, double[]> grads) {
      double sq = 0;
      for (double[] g : grads.values()) {
        for (double x : g) {
          sq += x * x;
        }
      }
      double norm = Math.sqrt(sq);
      t++;
      double lr = c.warmupSteps() == 0 ? c.learningRate()
          : c.learningRate() * Math.min(1.0, (double) t / c.warmupSteps());
      boolean clip = c.gradientClip() > 0 && c.gradientClip() < Double.POSITIVE_INFINITY && norm > c.gradientClip();
      double scale = clip ? c.gradientClip() / (norm + 1e-6) : 1;
      double bc1 = 1 - Math.pow(c.beta1(), t);
      double bc2 = 1 - Math.pow(c.beta2(), t);
      for (String k : p.keySet()) {
        double[] pp = p.get(k);
        double[] mm = m.get(k);
        double[] vv = v.get(k);
        double[] g = grads.get(k);
        for (int i = 0; i < pp.length; i++) {
          double gi = g[i] * scale;
          pp[i] *= 1 - lr * c.weightDecay();
          mm[i] += (1 - c.beta1()) * (gi - mm[i]);
          vv[i] = vv[i] * c.beta2() + (1 - c.beta2()) * gi * gi;
          double denom = Math.sqrt(vv[i]) / Math.sqrt(bc2) + c.eps();
          pp[i] -= (lr / bc1) * mm[i] / denom;
        }
      }
      lastNorm = norm;
      lastClipped = clip;
      lastLr = lr;
    }
  }

  private static void assertClose(double[] actual, double[] expected, double tol, String what) {
    assertThat(actual).as(what).hasSameSizeAs(expected);
    for (int i = 0; i < expected.length; i++) {
      assertThat(Math.abs(actual[i] - expected[i]))
          .as("%s[%d]: %s vs %s", what, i, actual[i], expected[i])
          .isLessThanOrEqualTo(tol * Math.max(1, Math.abs(expected[i])));
    }
  }

  private void checkTrajectory(DataType type, double tol) {
    AdamWConfig config = trajectoryConfig();
    Map<String, NDArray> params = Params.create(manager, initial(), SHAPES, type);
    Reference ref = new Reference(config, initial());
    try (AdamW opt = new AdamW(params, config)) {
      for (int t = 0; t < SCALES.length; t++) {
        Map<String, double[]> g = gradients(t, SCALES[t]);
        Params.addGradients(params, g);
        StepReport r = opt.step();
        ref.step(g);
        assertThat(r.step()).isEqualTo(t + 1);
        assertThat(r.skipped()).isFalse();
        assertThat(r.clipped()).as("step %d clipped", t + 1).isEqualTo(ref.lastClipped);
        assertThat(r.learningRate()).isEqualTo(ref.lastLr);
        assertThat(r.gradNorm()).isCloseTo(ref.lastNorm, org.assertj.core.data.Offset.offset(tol * (1 + ref.lastNorm)));
        for (String k : SHAPES.keySet()) {
          assertClose(Params.values(params.get(k)), ref.p.get(k), tol, type + " step " + (t + 1) + " param " + k);
          assertClose(Params.values(opt.firstMoment(k)), ref.m.get(k), tol, "exp_avg " + k);
          assertClose(Params.values(opt.secondMoment(k)), ref.v.get(k), tol, "exp_avg_sq " + k);
        }
      }
      assertThat(opt.stepCount()).isEqualTo(SCALES.length);
      assertThat(opt.skippedCount()).isZero();
      // some steps clipped, some did not, and the parameters really moved
      assertThat(new Reference(config, initial()).p.get("w")[0]).isNotEqualTo(ref.p.get("w")[0]);
    }
  }

  @Test
  void float64TrajectoryMatchesTheFormulasComputedInJava() {
    checkTrajectory(DataType.FLOAT64, 1e-13);
  }

  @Test
  void float32TrajectoryFollowsTheFormulasWithinFloat32Rounding() {
    checkTrajectory(DataType.FLOAT32, 2e-6);
  }

  @Test
  void clippingScalesTheGradientsLikeClipGradNorm() {
    AdamWConfig clipAt1 = AdamWConfig.builder().optLearningRate(0.05).optGradientClip(1.0).build();
    AdamWConfig noClip = clipAt1.toBuilder().optGradientClip(0).build();
    Map<String, NDArray> a = Params.create(manager, initial(), SHAPES, DataType.FLOAT64);
    Map<String, NDArray> b = Params.create(manager, initial(), SHAPES, DataType.FLOAT64);
    try (AdamW clipped = new AdamW(a, clipAt1); AdamW unclipped = new AdamW(b, noClip)) {
      for (int t = 0; t < 3; t++) {
        Map<String, double[]> g = gradients(t, 5.0);
        double sq = 0;
        for (double[] x : g.values()) {
          for (double y : x) {
            sq += y * y;
          }
        }
        double norm = Math.sqrt(sq);
        assertThat(norm).isGreaterThan(1.0);
        Params.addGradients(a, g);
        StepReport r = clipped.step();
        assertThat(r.clipped()).isTrue();
        assertThat(r.gradNorm()).isCloseTo(norm, org.assertj.core.data.Offset.offset(1e-12));
        // the same gradients, scaled by hand as clip_grad_norm_ does, through an optimizer that does not clip
        double scale = 1.0 / (r.gradNorm() + 1e-6);
        Map<String, double[]> scaled = new LinkedHashMap<>();
        g.forEach((k, x) -> {
          double[] y = new double[x.length];
          for (int i = 0; i < x.length; i++) {
            y[i] = x[i] * scale;
          }
          scaled.put(k, y);
        });
        Params.addGradients(b, scaled);
        StepReport u = unclipped.step();
        assertThat(u.clipped()).isFalse();
        for (String k : SHAPES.keySet()) {
          assertThat(Params.bytes(a.get(k))).as("step %d %s", t + 1, k).isEqualTo(Params.bytes(b.get(k)));
        }
      }
    }
  }

  @Test
  void clippingIsOffAtZeroAndBelowTheNorm() {
    for (double clip : new double[] {0, 100}) {
      Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, DataType.FLOAT64);
      try (AdamW opt = new AdamW(p, AdamWConfig.builder().optGradientClip(clip).build())) {
        Params.addGradients(p, gradients(0, 20.0));
        StepReport r = opt.step();
        assertThat(r.clipped()).as("clip %s", clip).isFalse();
        assertThat(r.gradNorm()).isBetween(20.0, 100.0);
      }
    }
    assertThat(AdamWConfig.builder().optGradientClip(0).build().clipsGradients()).isFalse();
    // one rule for every path a setting comes by: no infinite clip (a config file could not hold it); 0 is off
    assertThatThrownBy(() -> AdamWConfig.builder().optGradientClip(Double.POSITIVE_INFINITY).build())
        .isInstanceOf(org.magejvm.api.ConfigException.class)
        .hasMessage("adamw.gradient_clip must be in [0.0, 1.0E9], got Infinity");
    assertThat(AdamWConfig.defaults().clipsGradients()).isTrue();
  }

  @Test
  void warmUpRisesLinearlyThenHoldsAndSkippedStepsDoNotAdvanceIt() {
    AdamWConfig c = AdamWConfig.builder().optLearningRate(0.2).optWarmupSteps(4).build();
    assertThat(c.learningRateAt(1)).isEqualTo(0.05);
    assertThat(c.learningRateAt(2)).isEqualTo(0.1);
    assertThat(c.learningRateAt(3)).isCloseTo(0.15, org.assertj.core.data.Offset.offset(1e-16));
    assertThat(c.learningRateAt(4)).isEqualTo(0.2);
    assertThat(c.learningRateAt(1000)).isEqualTo(0.2);
    assertThat(AdamWConfig.defaults().learningRateAt(1)).isEqualTo(1e-6);
    assertThatThrownBy(() -> c.learningRateAt(0)).isInstanceOf(IllegalArgumentException.class);

    Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, DataType.FLOAT64);
    List<Double> rates = new ArrayList<>();
    try (AdamW opt = new AdamW(p, c)) {
      for (int t = 0; t < 6; t++) {
        if (t == 2) {
          Map<String, double[]> bad = gradients(t, 1);
          bad.get("b")[1] = Double.NaN;
          Params.addGradients(p, bad);
          StepReport skipped = opt.step();
          assertThat(skipped.skipped()).isTrue();
          assertThat(skipped.step()).isEqualTo(3);
        }
        Params.addGradients(p, gradients(t, 1));
        StepReport r = opt.step();
        assertThat(r.step()).isEqualTo(t + 1);
        rates.add(r.learningRate());
      }
    }
    assertThat(rates).containsExactly(0.05, 0.1, c.learningRateAt(3), 0.2, 0.2, 0.2);
  }

  @Test
  void aNonFiniteGradientSkipsTheStepLeavingEverythingBitIdentical() {
    AdamWConfig config = trajectoryConfig();
    Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, DataType.FLOAT32);
    Map<String, NDArray> twin = Params.create(manager, initial(), SHAPES, DataType.FLOAT32);
    try (AdamW opt = new AdamW(p, config); AdamW reference = new AdamW(twin, config)) {
      for (int t = 0; t < 2; t++) {
        stepBoth(gradients(t, SCALES[t]), p, opt, twin, reference);
      }
      for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
        Map<String, String> before = snapshot(opt, p);
        Map<String, double[]> g = gradients(5, 1.0);
        g.get("w")[4] = bad;
        Params.addGradients(p, g);
        StepReport r = opt.step();
        assertThat(r.skipped()).as("gradient %s", bad).isTrue();
        assertThat(r.clipped()).isFalse();
        assertThat(Double.isFinite(r.gradNorm())).isFalse();
        assertThat(r.step()).isEqualTo(3);
        assertThat(snapshot(opt, p)).as("state after a %s gradient", bad).isEqualTo(before);
        assertAllZero(Params.gradients(p));
      }
      assertThat(opt.stepCount()).isEqualTo(2);
      assertThat(opt.skippedCount()).isEqualTo(3);
      // the skips left no trace: the next steps match an optimizer that never saw them, bit for bit
      for (int t = 2; t < 5; t++) {
        stepBoth(gradients(t, SCALES[t]), p, opt, twin, reference);
      }
      assertThat(snapshot(opt, p)).isEqualTo(snapshot(reference, twin));
    }
  }

  @Test
  void restoringASnapshotUndoesTheStepsSinceBitForBit() {
    AdamWConfig config = trajectoryConfig();
    Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, DataType.FLOAT32);
    Map<String, NDArray> twin = Params.create(manager, initial(), SHAPES, DataType.FLOAT32);
    try (AdamW opt = new AdamW(p, config); AdamW reference = new AdamW(twin, config)) {
      for (int t = 0; t < 2; t++) {
        stepBoth(gradients(t, SCALES[t]), p, opt, twin, reference);
      }
      Map<String, String> before = snapshot(opt, p);
      try (AdamW.Snapshot saved = opt.snapshot()) {
        assertThat(saved.stepCount()).isEqualTo(2);
        for (int t = 2; t < 4; t++) {
          Params.addGradients(p, gradients(t, SCALES[t]));
          opt.step();
        }
        assertThat(snapshot(opt, p)).isNotEqualTo(before);
        // a gradient left pending is dropped too
        Params.addGradients(p, gradients(4, 1.0));
        opt.restore(saved);
        assertThat(snapshot(opt, p)).isEqualTo(before);
        assertThat(opt.stepCount()).isEqualTo(2);
        assertAllZero(Params.gradients(p));
        // the same arrays were written: the next steps match an optimizer that never took the undone ones
        for (int t = 2; t < 5; t++) {
          stepBoth(gradients(t + 10, SCALES[t]), p, opt, twin, reference);
        }
        assertThat(snapshot(opt, p)).isEqualTo(snapshot(reference, twin));
        assertThatThrownBy(() -> reference.restore(saved)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("another optimizer");
      }
    }
  }

  @Test
  void aScaledStepIsAStepAtTheScaledRate() {
    AdamWConfig config = trajectoryConfig();
    AdamWConfig half = config.toBuilder().optLearningRate(config.learningRate() * 0.5).build();
    Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, DataType.FLOAT64);
    Map<String, NDArray> twin = Params.create(manager, initial(), SHAPES, DataType.FLOAT64);
    try (AdamW opt = new AdamW(p, config); AdamW reference = new AdamW(twin, half)) {
      for (int t = 0; t < 3; t++) {
        Params.addGradients(p, gradients(t, SCALES[t]));
        StepReport r = opt.step(0.5);
        Params.addGradients(twin, gradients(t, SCALES[t]));
        StepReport q = reference.step();
        assertThat(r.learningRate()).isEqualTo(q.learningRate());
      }
      assertThat(snapshot(opt, p)).isEqualTo(snapshot(reference, twin));
      for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
        assertThatThrownBy(() -> opt.step(bad)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("scale");
      }
    }
  }

  @Test
  void aClosedSnapshotCannotBeRestored() {
    Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, DataType.FLOAT64);
    try (AdamW opt = new AdamW(p, trajectoryConfig())) {
      AdamW.Snapshot saved = opt.snapshot();
      saved.close();
      saved.close();
      assertThatThrownBy(() -> opt.restore(saved)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("closed");
    }
  }

  /** Adds the same gradients to two parameter sets and steps each one's optimizer. */
  private static void stepBoth(Map<String, double[]> grads, Map<String, NDArray> p, AdamW opt,
      Map<String, NDArray> twin, AdamW reference) {
    Params.addGradients(p, grads);
    opt.step();
    Params.addGradients(twin, grads);
    reference.step();
  }

  /** Every parameter's and moment's bytes, hex-encoded, for bit-identity checks. */
  private static Map<String, String> snapshot(AdamW opt, Map<String, NDArray> params) {
    Map<String, String> s = new java.util.TreeMap<>();
    java.util.HexFormat hex = java.util.HexFormat.of();
    for (String k : params.keySet()) {
      s.put("p/" + k, hex.formatHex(Params.bytes(params.get(k))));
      s.put("m/" + k, hex.formatHex(Params.bytes(opt.firstMoment(k))));
      s.put("v/" + k, hex.formatHex(Params.bytes(opt.secondMoment(k))));
    }
    return s;
  }

  private static void assertAllZero(Map<String, double[]> grads) {
    grads.forEach((k, g) -> {
      for (double x : g) {
        assertThat(x).as("gradient of %s", k).isEqualTo(0.0);
      }
    });
  }

  @Test
  void gradientsAreZeroAfterEveryStepAndOnRequest() {
    Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, DataType.FLOAT64);
    try (AdamW opt = new AdamW(p, trajectoryConfig())) {
      // before any backward pass there is no gradient: it counts as zero
      StepReport first = opt.step();
      assertThat(first.gradNorm()).isZero();
      for (int t = 0; t < 4; t++) {
        Params.addGradients(p, gradients(t, SCALES[t] + 0.1));
        assertThat(Params.gradients(p).get("w")).isNotEqualTo(new double[6]);
        opt.step();
        assertAllZero(Params.gradients(p));
      }
      Params.addGradients(p, gradients(1, 1));
      opt.zeroGradients();
      assertAllZero(Params.gradients(p));
      // accumulated gradients are what a step sees
      Params.addGradients(p, gradients(1, 0.25));
      Params.addGradients(p, gradients(1, 0.25));
      Map<String, double[]> sum = Params.gradients(p);
      assertClose(sum.get("b"), gradients(1, 0.5).get("b"), 1e-15, "accumulated gradient");
    }
  }

  @Test
  void saveAndLoadContinueBitForBit() {
    for (DataType type : new DataType[] {DataType.FLOAT32, DataType.FLOAT64}) {
      Path dir = tmp.resolve(type.name());
      AdamWConfig config = trajectoryConfig();
      Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, type);
      Map<String, String> afterResume;
      Map<String, String> saved;
      Map<String, double[]> savedParams = new LinkedHashMap<>();
      try (AdamW opt = new AdamW(p, config)) {
        for (int t = 0; t < 4; t++) {
          Params.addGradients(p, gradients(t, SCALES[t]));
          opt.step();
        }
        Map<String, double[]> nan = gradients(0, 1);
        nan.get("b")[0] = Double.NaN;
        Params.addGradients(p, nan);
        opt.step();
        opt.save(dir);
        saved = snapshot(opt, p);
        p.forEach((k, a) -> savedParams.put(k, Params.values(a)));
        for (int t = 4; t < 8; t++) {
          Params.addGradients(p, gradients(t, SCALES[t]));
          opt.step();
        }
        afterResume = snapshot(opt, p);
      }
      assertThat(Files.exists(dir.resolve(AdamW.STATE_FILE))).isTrue();

      // a fresh run: parameters as saved, the optimizer from the directory
      Map<String, NDArray> q = Params.create(manager, savedParams, SHAPES, type);
      try (AdamW resumed = AdamW.load(dir, q)) {
        assertThat(resumed.stepCount()).isEqualTo(4);
        assertThat(resumed.skippedCount()).isEqualTo(1);
        assertThat(resumed.config()).isEqualTo(config);
        assertThat(snapshot(resumed, q)).isEqualTo(saved);
        for (int t = 4; t < 8; t++) {
          Params.addGradients(q, gradients(t, SCALES[t]));
          resumed.step();
        }
        assertThat(snapshot(resumed, q)).as(type.name()).isEqualTo(afterResume);
      }

      // the instance method restores into an existing optimizer
      Map<String, NDArray> r = Params.create(manager, savedParams, SHAPES, type);
      try (AdamW other = new AdamW(r, config)) {
        Params.addGradients(r, gradients(0, 1));
        other.step();
        other.load(dir);
        assertThat(other.stepCount()).isEqualTo(4);
        // put the parameters back to the saved values (x - x + y is exactly y)
        GradMode noGrad = GradMode.disabled();
        try {
          r.forEach((k, a) -> {
            try (NDArray src = manager.create(savedParams.get(k), a.getShape());
                NDArray typed = src.toType(type, true)) {
              a.subi(a).addi(typed);
            }
          });
        } finally {
          noGrad.close();
        }
        for (int t = 4; t < 8; t++) {
          Params.addGradients(r, gradients(t, SCALES[t]));
          other.step();
        }
        assertThat(snapshot(other, r)).isEqualTo(afterResume);
      }
    }
  }

  @Test
  void aSecondSaveReplacesTheFirstAndKeepsOneMomentsFile() throws Exception {
    Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, DataType.FLOAT32);
    try (AdamW opt = new AdamW(p, trajectoryConfig())) {
      Params.addGradients(p, gradients(0, 1));
      opt.step();
      opt.save(tmp);
      Params.addGradients(p, gradients(1, 1));
      opt.step();
      opt.save(tmp);
      try (var files = Files.list(tmp)) {
        List<String> names = files.map(f -> f.getFileName().toString()).sorted().toList();
        assertThat(names).hasSize(2).contains(AdamW.STATE_FILE);
        assertThat(names.stream().filter(n -> n.startsWith("adamw-moments-")).count()).isEqualTo(1);
      }
      String json = Files.readString(tmp.resolve(AdamW.STATE_FILE));
      assertThat(json).contains("\"step_count\": 2", "\"learning_rate\": 0.01", "\"warmup_steps\": 3");
    }
  }

  @Test
  void loadRejectsStateOfOtherParametersNamingTheFileAndTensor() throws Exception {
    Map<String, NDArray> p = Params.create(manager, initial(), SHAPES, DataType.FLOAT32);
    try (AdamW opt = new AdamW(p, trajectoryConfig())) {
      Params.addGradients(p, gradients(0, 1));
      opt.step();
      opt.save(tmp);
    }
    String moments;
    try (var files = Files.list(tmp)) {
      moments = files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("adamw-moments-")).findFirst()
          .orElseThrow();
    }

    // a parameter the state does not have
    Map<String, double[]> extraValues = new LinkedHashMap<>(initial());
    extraValues.put("extra", new double[] {1, 2});
    Map<String, long[]> extraShapes = new LinkedHashMap<>(SHAPES);
    extraShapes.put("extra", new long[] {2});
    Map<String, NDArray> extra = Params.create(manager, extraValues, extraShapes, DataType.FLOAT32);
    assertThatThrownBy(() -> AdamW.load(tmp, extra)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(moments).hasMessageContaining("exp_avg/extra");

    // a parameter missing from this optimizer (the state has one more)
    Map<String, double[]> fewer = new LinkedHashMap<>(initial());
    fewer.remove("b");
    Map<String, NDArray> missing = Params.create(manager, fewer, SHAPES, DataType.FLOAT32);
    assertThatThrownBy(() -> AdamW.load(tmp, missing)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(moments).hasMessageContaining("exp_avg/b");

    // another name
    Map<String, double[]> renamedValues = new LinkedHashMap<>();
    Map<String, long[]> renamedShapes = new LinkedHashMap<>();
    renamedValues.put("w", initial().get("w"));
    renamedShapes.put("w", SHAPES.get("w"));
    renamedValues.put("bias", initial().get("b"));
    renamedShapes.put("bias", SHAPES.get("b"));
    Map<String, NDArray> renamed = Params.create(manager, renamedValues, renamedShapes, DataType.FLOAT32);
    assertThatThrownBy(() -> AdamW.load(tmp, renamed)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(moments).hasMessageContaining("exp_avg/bias");

    // another shape
    Map<String, long[]> reshaped = new LinkedHashMap<>(SHAPES);
    reshaped.put("w", new long[] {3, 2});
    Map<String, NDArray> otherShape = Params.create(manager, initial(), reshaped, DataType.FLOAT32);
    assertThatThrownBy(() -> AdamW.load(tmp, otherShape)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(moments).hasMessageContaining("exp_avg/w").hasMessageContaining("[3, 2]");

    // another type
    Map<String, NDArray> otherType = Params.create(manager, initial(), SHAPES, DataType.FLOAT64);
    assertThatThrownBy(() -> AdamW.load(tmp, otherType)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(moments).hasMessageContaining("F32");

    // a failed instance load changes nothing
    Map<String, NDArray> q = Params.create(manager, initial(), reshaped, DataType.FLOAT32);
    try (AdamW opt = new AdamW(q, trajectoryConfig())) {
      Params.addGradients(q, gradients(3, 1));
      opt.step();
      Map<String, String> before = snapshot(opt, q);
      assertThatThrownBy(() -> opt.load(tmp)).isInstanceOf(CheckpointException.class);
      assertThat(snapshot(opt, q)).isEqualTo(before);
      assertThat(opt.stepCount()).isEqualTo(1);
    }

    // a damaged or absent state file names itself
    Path state = tmp.resolve(AdamW.STATE_FILE);
    String json = Files.readString(state);
    Files.writeString(state, json.replace("\"save_id\": \"", "\"save_id\": \"x"));
    assertThatThrownBy(() -> AdamW.load(tmp, p)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(moments).hasMessageContaining("different saves");
    Files.writeString(state, json.replace("\"step_count\"", "\"steps\""));
    assertThatThrownBy(() -> AdamW.load(tmp, p)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(AdamW.STATE_FILE).hasMessageContaining("step_count");
    Files.writeString(state, "{not json");
    assertThatThrownBy(() -> AdamW.load(tmp, p)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(AdamW.STATE_FILE);
    assertThatThrownBy(() -> AdamW.load(tmp.resolve("nowhere"), p)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("nowhere");
  }

  @Test
  void twoHundredStepsLeaveNoArraysBehind() {
    Map<String, double[]> values = new LinkedHashMap<>(initial());
    Map<String, long[]> shapes = new LinkedHashMap<>(SHAPES);
    values.put("big", new double[64 * 32]);
    shapes.put("big", new long[] {64, 32});
    Map<String, NDArray> p = Params.create(manager, values, shapes, DataType.FLOAT32);
    Map<String, double[]> g = new LinkedHashMap<>();
    values.forEach((k, x) -> {
      double[] y = new double[x.length];
      for (int i = 0; i < y.length; i++) {
        y[i] = Math.sin(i + k.length());
      }
      g.put(k, y);
    });
    try (AdamW opt = new AdamW(p, AdamWConfig.builder().optLearningRate(1e-3).optGradientClip(0.5).build())) {
      Params.addGradients(p, g);
      opt.step(); // the first backward pass attaches the gradient tensors
      int before = manager.getManagedArrays().size();
      long start = System.nanoTime();
      for (int i = 0; i < 200; i++) {
        Params.addGradients(p, g);
        if (i % 50 == 7) {
          Map<String, double[]> nan = new LinkedHashMap<>(g);
          double[] w = g.get("w").clone();
          w[0] = Double.NaN;
          nan.put("w", w);
          Params.addGradients(p, nan);
        }
        opt.step();
      }
      long micros = (System.nanoTime() - start) / 1000 / 200;
      System.out.printf("AdamW: 200 steps over %d parameters (%d elements): %d us per step including the "
          + "backward pass that sets the gradients%n", p.size(), 6 + 4 + 64 * 32, micros);
      assertThat(manager.getManagedArrays()).as("arrays in the parameters' manager").hasSize(before);
      assertThat(opt.stepCount()).isEqualTo(197);
      assertThat(opt.skippedCount()).isEqualTo(4);
      opt.save(tmp);
      opt.load(tmp);
      opt.zeroGradients();
      assertThat(manager.getManagedArrays()).hasSize(before);
    }
  }

  @Test
  void constructorRejectsUnsuitableParameters() {
    Map<String, NDArray> ok = Params.create(manager, initial(), SHAPES, DataType.FLOAT32);
    AdamWConfig c = AdamWConfig.defaults();
    assertThatThrownBy(() -> new AdamW(Map.of(), c)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no parameters");
    NDArray noGrad = manager.zeros(new Shape(3));
    assertThatThrownBy(() -> new AdamW(Map.of("frozen", noGrad), c)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("frozen").hasMessageContaining("gradients");
    // (FLOAT16 parameters train with FLOAT32 master weights: AdamWFloat16Test)
    NDArray ints = manager.zeros(new Shape(3), DataType.INT32);
    assertThatThrownBy(() -> new AdamW(Map.of("ints", ints), c)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ints").hasMessageContaining("INT32");
    Map<String, NDArray> twice = new LinkedHashMap<>();
    twice.put("embed", ok.get("w"));
    twice.put("lm_head", ok.get("w"));
    assertThatThrownBy(() -> new AdamW(twice, c)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("embed").hasMessageContaining("lm_head");
    AdamW closed = new AdamW(ok, c);
    closed.close();
    closed.close();
    assertThatThrownBy(closed::step).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void configDefaultsAndValidation() {
    AdamWConfig d = AdamWConfig.defaults();
    assertThat(d).isEqualTo(new AdamWConfig(1e-6, 0.9, 0.999, 1e-8, 0.01, 1.0, 0));
    assertThat(d.toBuilder().build()).isEqualTo(d);
    assertThatThrownBy(() -> AdamWConfig.builder().optLearningRate(-1).build())
        .hasMessageContaining("adamw.learning_rate");
    // the same bounds and exception type as the config key: a rate of 0 trains nothing and is refused
    assertThatThrownBy(() -> AdamWConfig.builder().optLearningRate(0).build())
        .isInstanceOf(org.magejvm.api.ConfigException.class)
        .hasMessage("adamw.learning_rate must be in (0, 1], got 0.0");
    assertThatThrownBy(() -> AdamWConfig.builder().optLearningRate(Double.NaN).build())
        .hasMessageContaining("adamw.learning_rate");
    assertThatThrownBy(() -> AdamWConfig.builder().optBeta1(1).build()).hasMessageContaining("adamw.beta1");
    assertThatThrownBy(() -> AdamWConfig.builder().optBeta2(-0.1).build()).hasMessageContaining("adamw.beta2");
    assertThatThrownBy(() -> AdamWConfig.builder().optEps(0).build()).hasMessageContaining("adamw.eps");
    assertThatThrownBy(() -> AdamWConfig.builder().optWeightDecay(-1).build())
        .hasMessageContaining("adamw.weight_decay");
    assertThatThrownBy(() -> AdamWConfig.builder().optGradientClip(-1).build())
        .hasMessageContaining("adamw.gradient_clip");
    assertThatThrownBy(() -> AdamWConfig.builder().optWarmupSteps(-1).build())
        .hasMessageContaining("adamw.warmup_steps");
  }
}
