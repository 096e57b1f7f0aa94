package org.magejvm.impl.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.magejvm.api.AdvantageNormalizer;
import org.magejvm.api.LossAggregation;
import org.magejvm.api.LossDiagnostics;
import org.magejvm.api.LossInput;
import org.magejvm.api.LossResult;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.PolicyLoss;
import org.magejvm.api.PolicyOptimizer;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.Qwen3Weights;
import org.magejvm.impl.train.update.AdamW;
import org.magejvm.impl.train.update.AdamWConfig;
import org.magejvm.impl.train.update.PolicyUpdater;
import org.magejvm.impl.train.update.ReferencePolicy;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * Issue 38: one whole update of {@link PolicyUpdater} under {@code mage-reference}'s settings equals the reference
 * trainer's ({@code dp_actor.update_policy} with {@code core_algos}, clip_grad_norm_ and torch's AdamW) on a fixture
 * batch computed ahead of time in torch (src/test/python/make_reference_update_fixture.py): 128 rows with positive,
 * negative and zero advantages and responses of 1 to 9 tokens, two minibatches of 64 rows in micro-batches of 8.
 *
 * <p>Compared: the loss of each minibatch (and its policy-gradient, entropy and KL parts), the gradient of the loss
 * with respect to every token's log-probability and entropy, the gradient norm of each AdamW step and the parameters
 * after each step. The one allowed difference is the documented normaliser (docs/training.md): PolicyUpdater divides
 * every micro-batch's sums by the whole minibatch's token count, the reference takes each micro-batch's own token
 * mean and divides by the 8 micro-batches. The fixture holds both computations; PolicyUpdater must equal the first to
 * float64 rounding and differ from the reference's by exactly the recorded size of that difference.
 *
 * <p>The policy is a tiny Qwen3 that is a bigram model: its one decoder layer has zero {@code o_proj} and {@code
 * down_proj} (not trained), so each position's hidden state is its token's embedding; the embedding, the final norm
 * and the untied output head are trained. The batch's meaning does not depend on a language model.
 */
class ReferenceUpdateFidelityTest {

  private static final EnvironmentRegistry GAMES = EnvironmentRegistry.discover();
  private static JsonObject fixture;

  @BeforeAll
  static void load() throws IOException {
    try (InputStream in = ReferenceUpdateFidelityTest.class.getResourceAsStream(
        "/update/reference-update-fixture.json")) {
      fixture = JsonParser.parseString(new String(in.readAllBytes(), StandardCharsets.UTF_8)).getAsJsonObject();
    }
  }

  private static TrainingConfig reference() {
    return TrainingPreset.MAGE_REFERENCE.config(GAMES.require("mage-kuhn-poker"));
  }

  @Test
  void theFixtureRunsUnderMageReferencesUpdateSettings() {
    TrainingConfig c = reference();
    JsonObject s = fixture.getAsJsonObject("settings");
    PolicyUpdater.Settings u = TrainerFactory.updateSettings(c);
    assertThat(u.miniBatchTurns()).isEqualTo(s.get("mini_batch_turns").getAsInt());
    assertThat(u.microBatchTurns()).isEqualTo(s.get("micro_batch_turns").getAsInt());
    assertThat(u.epochs()).isEqualTo(s.get("epochs").getAsInt());
    assertThat(u.recomputeOldLogProbs()).isTrue();
    assertThat(u.skipZeroAdvantage()).isFalse();
    assertThat(u.maxUpdateKl()).isZero();
    assertThat(u.maxAnchorDrop()).isZero();
    OptimizerConfig o = TrainerFactory.optimizerConfig(c);
    assertThat(o.clipRatioLow()).isEqualTo(s.get("clip_ratio_low").getAsDouble());
    assertThat(o.clipRatioHigh()).isEqualTo(s.get("clip_ratio_high").getAsDouble());
    assertThat(o.dualClip()).isEqualTo(s.get("dual_clip").getAsDouble());
    assertThat(o.entropyCoefficient()).isEqualTo(s.get("entropy_coefficient").getAsDouble());
    assertThat(o.klCoefficient()).isEqualTo(s.get("kl_coefficient").getAsDouble());
    assertThat(o.lossAggregation()).isEqualTo(LossAggregation.TOKEN_MEAN);
    AdamWConfig a = TrainerFactory.adamWConfig(c);
    assertThat(a.learningRate()).isEqualTo(fixture.getAsJsonArray("cases").get(0).getAsJsonObject()
        .get("learning_rate").getAsDouble());
    assertThat(a.beta1()).isEqualTo(s.get("beta1").getAsDouble());
    assertThat(a.beta2()).isEqualTo(s.get("beta2").getAsDouble());
    assertThat(a.eps()).isEqualTo(s.get("eps").getAsDouble());
    assertThat(a.weightDecay()).isEqualTo(s.get("weight_decay").getAsDouble());
    assertThat(a.gradientClip()).isEqualTo(s.get("gradient_clip").getAsDouble());
    assertThat(a.warmupSteps()).isZero();
  }

  @Test
  void mageReferencesUpdateIsTheReferencesUpToTheMinibatchTokenNormaliser() {
    run(fixture.getAsJsonArray("cases").get(0).getAsJsonObject());
  }

  @Test
  void withALargeRateTheClipTheDualClipAndTheKlActAndStillAgree() {
    run(fixture.getAsJsonArray("cases").get(1).getAsJsonObject());
  }

  @Test
  void skippingZeroAdvantagesIsTheSameUpdateOverTheOtherRows() {
    run(fixture.getAsJsonArray("cases").get(2).getAsJsonObject());
  }

  // ------------------------------------------------------------------------------------------------------ the run

  private static void run(JsonObject c) {
    String name = c.get("name").getAsString();
    boolean skip = c.get("skip_zero_advantage").getAsBoolean();
    TrainingConfig config = reference().with("update.skip_zero_advantage", skip)
        .with("adamw.learning_rate", c.get("learning_rate").getAsDouble());
    List<PolicyUpdater.Row> rows = rows();
    List<Integer> trained = ints(c.getAsJsonArray("trained_rows"));
    List<double[]> expectedOld = doubleRows(c.getAsJsonArray("old_log_probs"));
    JsonArray steps = c.getAsJsonArray("global");
    try (Qwen3Model model = bigram(); Qwen3Model frozen = bigram()) {
      Map<String, NDArray> params = new LinkedHashMap<>();
      for (String k : List.of(Qwen3Weights.EMBED, Qwen3Weights.FINAL_NORM, Qwen3Weights.LM_HEAD)) {
        NDArray p = model.weights().parameters().get(k);
        p.setRequiresGradient(true);
        params.put(k, p);
      }
      try (AdamW adamw = new AdamW(params, TrainerFactory.adamWConfig(config))) {
        OptimizerConfig oc = TrainerFactory.optimizerConfig(config);
        PolicyOptimizer gigpo = TrainerFactory.estimator(config, oc);
        Recorder recorder = new Recorder(gigpo, adamw, params);
        PolicyUpdater updater = new PolicyUpdater(model, ReferencePolicy.frozen(frozen), recorder, adamw,
            TrainerFactory.updateSettings(config));

        // the model is the fixture's: its old log-probabilities (float32, as both trainers keep them) agree
        List<PolicyUpdater.Row> trainedRows = new ArrayList<>();
        trained.forEach(i -> trainedRows.add(rows.get(i)));
        List<float[]> old = updater.oldLogProbs(trainedRows);
        double oldDiff = 0;
        for (int i = 0; i < old.size(); i++) {
          for (int t = 0; t < old.get(i).length; t++) {
            oldDiff = Math.max(oldDiff, Math.abs(old.get(i)[t] - expectedOld.get(i)[t]));
          }
        }
        assertThat(oldDiff).as(name + ": old log-probs").isLessThan(1e-6);

        PolicyUpdater.Report report = updater.update(rows);
        recorder.snapshot();
        assertThat(report.rows()).isEqualTo(rows.size());
        assertThat(report.trainedRows()).isEqualTo(trained.size());
        assertThat(report.skippedZeroAdvantage()).isEqualTo(skip ? rows.size() - trained.size() : 0);
        assertThat(report.optimizerSteps()).isEqualTo(steps.size());
        assertThat(report.skippedSteps()).isZero();
        assertThat(adamw.stepCount()).isEqualTo(steps.size());

        Measured got = measure(recorder, rows, trained, expectedOld, gigpo.loss(), steps.size());
        double normSum = 0;
        for (int s = 0; s < steps.size(); s++) {
          JsonObject e = steps.get(s).getAsJsonObject();
          String at = name + " step " + (s + 1);
          assertThat(got.loss[s]).as(at + " loss").isCloseTo(e.get("loss").getAsDouble(), within(1e-13));
          assertThat(got.pgLoss[s]).as(at + " pg_loss").isCloseTo(e.get("pg_loss").getAsDouble(), within(1e-13));
          assertThat(got.entropy[s]).as(at + " entropy").isCloseTo(e.get("entropy").getAsDouble(), within(1e-13));
          assertThat(got.klLoss[s]).as(at + " kl_loss").isCloseTo(e.get("kl_loss").getAsDouble(), within(1e-13));
          normSum += e.get("grad_norm").getAsDouble();
          List<Integer> mini = ints(e.getAsJsonArray("rows"));
          List<double[]> gradLogp = doubleRows(e.getAsJsonArray("grad_log_probs"));
          List<double[]> gradEntropy = doubleRows(e.getAsJsonArray("grad_entropies"));
          for (int r = 0; r < mini.size(); r++) {
            int row = trained.get(mini.get(r));
            assertClose(got.gradLogp.get(row), gradLogp.get(r), 1e-15, at + " d loss / d log p, row " + row);
            assertClose(got.gradEntropy.get(row), gradEntropy.get(r), 1e-15, at + " d loss / d entropy, row " + row);
          }
          JsonObject p = e.getAsJsonObject("parameters");
          for (String k : params.keySet()) {
            assertClose(recorder.snapshots.get(s + 1L).get(k), doubles(p.get(k)), 1e-12, at + " parameter " + k);
          }
        }
        assertThat(report.meanGradNorm()).as(name + " mean gradient norm")
            .isCloseTo(normSum / steps.size(), within(1e-12));

        if (c.has("reference")) {
          // the one difference from dp_actor: the normaliser, whose size the fixture records
          JsonObject size = c.getAsJsonObject("normaliser_difference");
          JsonArray ref = c.getAsJsonArray("reference");
          double loss = 0;
          double grad = 0;
          double param = 0;
          for (int s = 0; s < ref.size(); s++) {
            JsonObject e = ref.get(s).getAsJsonObject();
            loss = Math.max(loss, Math.abs(got.loss[s] - e.get("loss").getAsDouble()));
            List<Integer> mini = ints(e.getAsJsonArray("rows"));
            List<double[]> gradLogp = doubleRows(e.getAsJsonArray("grad_log_probs"));
            for (int r = 0; r < mini.size(); r++) {
              grad = Math.max(grad, maxAbs(got.gradLogp.get(trained.get(mini.get(r))), gradLogp.get(r)));
            }
            for (String k : params.keySet()) {
              param = Math.max(param, maxAbs(recorder.snapshots.get(s + 1L).get(k),
                  doubles(e.getAsJsonObject("parameters").get(k))));
            }
          }
          assertThat(loss).as(name + ": loss vs dp_actor").isCloseTo(size.get("loss").getAsDouble(), within(1e-11))
              .isGreaterThan(1e-3);
          assertThat(grad).as(name + ": d loss / d log p vs dp_actor")
              .isCloseTo(size.get("grad_log_probs").getAsDouble(), within(1e-12)).isGreaterThan(1e-4);
          assertThat(param).as(name + ": parameters vs dp_actor")
              .isCloseTo(size.get("parameters").getAsDouble(), within(1e-9)).isGreaterThan(1e-7);
        }
      }
    }
  }

  /** What the recorded micro-batches add up to, per minibatch, and the gradients per row of the batch. */
  private static final class Measured {
    double[] loss;
    double[] pgLoss;
    double[] entropy;
    double[] klLoss;
    Map<Integer, double[]> gradLogp = new LinkedHashMap<>();
    Map<Integer, double[]> gradEntropy = new LinkedHashMap<>();
  }

  /**
   * Adds the recorded micro-batches' diagnostics up per minibatch (the AdamW step count when the micro-batch ran) and
   * computes each token's gradient by running the same loss on the recorded inputs with leaf log-probabilities and
   * entropies; rows are found by their advantage and old log-probabilities.
   */
  private static Measured measure(Recorder recorder, List<PolicyUpdater.Row> rows, List<Integer> trained,
      List<double[]> expectedOld, PolicyLoss loss, int steps) {
    Measured m = new Measured();
    m.loss = new double[steps];
    m.pgLoss = new double[steps];
    m.entropy = new double[steps];
    m.klLoss = new double[steps];
    for (Micro micro : recorder.micros) {
      int s = (int) micro.step;
      m.loss[s] += micro.diagnostics.loss();
      m.pgLoss[s] += micro.diagnostics.pgLoss();
      m.entropy[s] += micro.diagnostics.entropy();
      m.klLoss[s] += micro.diagnostics.klLoss();
      double[][] grads = gradients(micro, loss);
      for (int b = 0; b < micro.rows; b++) {
        int row = find(micro, b, rows, trained, expectedOld);
        int n = rows.get(row).response().length;
        assertThat(m.gradLogp.put(row, slice(grads[0], b, micro.width, n))).as("row %d trained twice", row).isNull();
        m.gradEntropy.put(row, slice(grads[1], b, micro.width, n));
      }
    }
    assertThat(m.gradLogp).hasSize(trained.size());
    return m;
  }

  /** The micro-batch's loss differentiated with respect to its log-probabilities and entropies (as leaves). */
  private static double[][] gradients(Micro micro, PolicyLoss loss) {
    try (NDManager manager = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      Shape shape = new Shape(micro.rows, micro.width);
      NDArray logp = leaf(manager, micro.logp, shape);
      NDArray entropy = leaf(manager, micro.entropy, shape);
      LossInput in = LossInput.builder().setLogProbs(logp)
          .setOldLogProbs(manager.create(micro.old, shape))
          .optRefLogProbs(manager.create(micro.ref, shape))
          .setAdvantages(manager.create(micro.advantages))
          .setMask(manager.create(micro.mask, shape))
          .optEntropies(entropy)
          .setNormalizer(micro.normalizer)
          .build();
      try (GradientCollector gc = Engine.getEngine("PyTorch").newGradientCollector()) {
        LossResult r = loss.compute(in);
        assertThat(r.diagnostics().loss()).isEqualTo(micro.diagnostics.loss());
        gc.backward(r.loss());
      }
      return new double[][] {logp.getGradient().toDoubleArray(), entropy.getGradient().toDoubleArray()};
    }
  }

  private static NDArray leaf(NDManager manager, double[] values, Shape shape) {
    NDArray a = manager.create(values, shape).duplicate(); // owns its storage
    a.setRequiresGradient(true);
    return a;
  }

  /** The batch row of a micro-batch's row b: the one trained row with its advantage and old log-probabilities. */
  private static int find(Micro micro, int b, List<PolicyUpdater.Row> rows, List<Integer> trained,
      List<double[]> expectedOld) {
    int found = -1;
    for (int i = 0; i < trained.size(); i++) {
      PolicyUpdater.Row r = rows.get(trained.get(i));
      if (r.advantage() != micro.advantages[b] || r.response().length != micro.lengths[b]) {
        continue;
      }
      double[] old = slice(micro.old, b, micro.width, r.response().length);
      if (maxAbs(old, expectedOld.get(i)) < 1e-6) {
        assertThat(found).as("two rows match micro-batch row %d", b).isEqualTo(-1);
        found = trained.get(i);
      }
    }
    assertThat(found).as("no row matches micro-batch row %d", b).isNotEqualTo(-1);
    return found;
  }

  // ------------------------------------------------------------------------------------------------ the recorder

  /** One micro-batch's loss inputs, as the updater gave them, and its diagnostics. */
  private static final class Micro {
    long step;
    int rows;
    int width;
    int[] lengths;
    double[] logp;
    double[] old;
    double[] ref;
    double[] entropy;
    double[] mask;
    double[] advantages;
    double normalizer;
    LossDiagnostics diagnostics;
  }

  /**
   * GiGPO's optimizer with a loss that records every micro-batch it is given and, whenever AdamW has stepped since
   * the last call, the trained parameters (so the parameters after each step are seen inside one update).
   */
  private static final class Recorder implements PolicyOptimizer {
    private final PolicyOptimizer inner;
    private final AdamW adamw;
    private final Map<String, NDArray> params;
    final List<Micro> micros = new ArrayList<>();
    final Map<Long, Map<String, double[]>> snapshots = new LinkedHashMap<>();

    Recorder(PolicyOptimizer inner, AdamW adamw, Map<String, NDArray> params) {
      this.inner = inner;
      this.adamw = adamw;
      this.params = params;
    }

    void snapshot() {
      if (!snapshots.containsKey(adamw.stepCount())) {
        Map<String, double[]> values = new LinkedHashMap<>();
        params.forEach((k, v) -> values.put(k, Params.values(v)));
        snapshots.put(adamw.stepCount(), values);
      }
    }

    @Override
    public String id() {
      return inner.id();
    }

    @Override
    public OptimizerConfig config() {
      return inner.config();
    }

    @Override
    public AdvantageNormalizer advantageNormalizer() {
      return inner.advantageNormalizer();
    }

    @Override
    public PolicyLoss loss() {
      PolicyLoss loss = inner.loss();
      return new PolicyLoss() {
        @Override
        public LossAggregation aggregation() {
          return loss.aggregation();
        }

        @Override
        public LossResult compute(LossInput in) {
          snapshot();
          Micro m = new Micro();
          m.step = adamw.stepCount();
          m.rows = (int) in.batchSize();
          m.width = (int) in.responseLength();
          m.logp = Params.values(in.logProbs());
          m.old = Params.values(in.oldLogProbs());
          m.ref = Params.values(in.refLogProbs());
          m.entropy = Params.values(in.entropies());
          m.mask = Params.values(in.mask());
          m.advantages = Params.values(in.advantages());
          m.normalizer = in.normalizer();
          m.lengths = new int[m.rows];
          for (int b = 0; b < m.rows; b++) {
            for (int t = 0; t < m.width; t++) {
              m.lengths[b] += (int) m.mask[b * m.width + t];
            }
          }
          LossResult r = loss.compute(in);
          m.diagnostics = r.diagnostics();
          micros.add(m);
          return r;
        }
      };
    }
  }

  // ------------------------------------------------------------------------------------------------ the model

  /** The fixture's bigram model: a one-layer Qwen3 whose layer adds nothing, with the fixture's trained weights. */
  private static Qwen3Model bigram() {
    JsonObject m = fixture.getAsJsonObject("model");
    Qwen3Config config = Qwen3Config.builder().setVocabSize(m.get("vocab_size").getAsInt())
        .setHiddenSize(m.get("hidden_size").getAsInt()).setIntermediateSize(16).setNumHiddenLayers(1)
        .setNumAttentionHeads(2).optNumKeyValueHeads(1).optRmsNormEps(m.get("rms_norm_eps").getAsDouble())
        .optTieWordEmbeddings(false).addEosTokenId(3).build();
    Qwen3Model model = Qwen3Model.random(config, 38, Device.cpu(), DataType.FLOAT64);
    Map<String, NDArray> p = model.weights().parameters();
    JsonObject initial = fixture.getAsJsonObject("initial");
    GradMode noGrad = GradMode.disabled();
    try (NDManager scratch = model.newManager()) {
      NDIndex all = new NDIndex("...");
      for (String k : initial.keySet()) {
        NDArray target = p.get(k);
        target.set(all, scratch.create(doubles(initial.get(k)), target.getShape()));
      }
      for (String k : List.of("model.layers.0.self_attn.o_proj.weight", "model.layers.0.mlp.down_proj.weight")) {
        NDArray target = p.get(k);
        target.set(all, target.zerosLike());
      }
    } finally {
      noGrad.close();
    }
    return model;
  }

  // ------------------------------------------------------------------------------------------------ JSON helpers

  private static List<PolicyUpdater.Row> rows() {
    List<PolicyUpdater.Row> out = new ArrayList<>();
    for (JsonElement e : fixture.getAsJsonArray("rows")) {
      JsonObject r = e.getAsJsonObject();
      out.add(new PolicyUpdater.Row(intArray(r.getAsJsonArray("prompt")), intArray(r.getAsJsonArray("response")),
          null, r.get("advantage").getAsDouble()));
    }
    return out;
  }

  private static int[] intArray(JsonArray a) {
    int[] out = new int[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i).getAsInt();
    }
    return out;
  }

  private static List<Integer> ints(JsonArray a) {
    List<Integer> out = new ArrayList<>();
    a.forEach(e -> out.add(e.getAsInt()));
    return out;
  }

  private static double[] doubles(JsonElement e) {
    JsonArray a = e.getAsJsonArray();
    double[] out = new double[a.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i).getAsDouble();
    }
    return out;
  }

  private static List<double[]> doubleRows(JsonArray a) {
    List<double[]> out = new ArrayList<>();
    a.forEach(e -> out.add(doubles(e)));
    return out;
  }

  private static double[] slice(double[] flat, int row, int width, int n) {
    double[] out = new double[n];
    System.arraycopy(flat, row * width, out, 0, n);
    return out;
  }

  private static double maxAbs(double[] a, double[] b) {
    assertThat(a).hasSameSizeAs(b);
    double m = 0;
    for (int i = 0; i < a.length; i++) {
      m = Math.max(m, Math.abs(a[i] - b[i]));
    }
    return m;
  }

  private static void assertClose(double[] actual, double[] expected, double tolerance, String what) {
    assertThat(maxAbs(actual, expected)).as(what).isLessThanOrEqualTo(tolerance);
  }
}
