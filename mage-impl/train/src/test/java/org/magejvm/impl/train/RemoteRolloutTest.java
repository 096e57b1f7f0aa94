package org.magejvm.impl.train;

import org.magejvm.impl.train.listen.TrainingListener;
import org.magejvm.impl.train.common.TrainingException;
import org.magejvm.impl.train.update.PolicyUpdater;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.generate.TokenScores;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.openai.OpenAiCompletionsPolicy;
import org.magejvm.impl.openai.VllmAdapterLoader;
import org.magejvm.impl.rollout.RolloutException;
import org.magejvm.impl.serve.CompletionServer;
import org.magejvm.testkit.RecordingPolicy;

/**
 * LoRA training whose rollouts go through a real {@link CompletionServer} with runtime adapters, the adapter pushed
 * after every update ({@link LoraAdapterSync} over {@link VllmAdapterLoader}), against the same run in process.
 */
class RemoteRolloutTest {

  static final String ADAPTER = "mage-policy";
  static final int ITERATIONS = 3;
  static final int RANK = 2;

  @TempDir Path dir;

  /** Keeps every generation of a policy and calls a hook with the call's index first. */
  static final class Capture implements LanguagePolicy {
    final LanguagePolicy inner;
    final List<List<Generation>> calls = new ArrayList<>();
    IntConsumer beforeCall = i -> { };

    Capture(LanguagePolicy inner) {
      this.inner = inner;
    }

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
      beforeCall.accept(calls.size());
      List<Generation> out = inner.generate(requests, sampling);
      calls.add(out);
      return out;
    }
  }

  static OpenAiCompletionsPolicy remote(CompletionServer server, DjlLanguagePolicy formatter) {
    return OpenAiCompletionsPolicy.builder().addEndpoint(server.baseUrl()).setModel(ADAPTER)
        .optPromptFormatter(formatter::renderPrompt).optTokenizer(formatter.tokenizer()::encode)
        .optBackoff(Duration.ofMillis(20), Duration.ofMillis(50)).optMaxAttempts(2)
        .optConnectTimeout(Duration.ofSeconds(5)).optRequestTimeout(Duration.ofSeconds(60)).build();
  }

  static CompletionServer server(Path model) {
    return CompletionServer.builder()
        .setPolicy(Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu().withThinking(false)), true)
        .optPort(0).optEnableLora(true).optBatchWindow(Duration.ofMillis(20)).start();
  }

  /** Collects each iteration's metrics without the timings and memory figures, which differ between runs. */
  static TrainingListener metrics(List<Map<String, Object>> into) {
    return new TrainingListener() {
      @Override
      public void onIterationEnd(int iteration, Map<String, Object> m) {
        Map<String, Object> kept = new LinkedHashMap<>();
        m.forEach((k, v) -> {
          if (!k.startsWith("timing/") && !k.startsWith("memory/")) {
            kept.put(k, v);
          }
        });
        into.add(kept);
      }
    };
  }

  /** The teacher-forced log-probs at temperature 1 of a generation under the model, as the trainer recomputes. */
  static float[] recompute(Qwen3Model model, Generation g) {
    GradMode off = GradMode.disabled();
    try (NDManager m = model.newManager();
        TokenScores s = new TeacherForcing(model).score(m, List.of(g.promptTokenIds()),
            List.of(g.responseTokenIds()), 1.0, false)) {
      float[] flat = s.logProbs().toType(DataType.FLOAT32, false).toFloatArray();
      return java.util.Arrays.copyOf(flat, g.responseTokenIds().length);
    } finally {
      off.close();
    }
  }

  @Test
  void aLoraRunRolledOutThroughMageServeWithAdapterPushesMatchesTheInProcessRun() {
    Path model = TinyRun.writeModel(dir.resolve("model"));
    List<Map<String, Object>> local = new ArrayList<>();
    List<List<Generation>> localCalls;
    try (TinyRun run = new TinyRun(dir.resolve("local"), model, -1, RANK, List.of(metrics(local)), (b, p) -> {
      b.optRolloutPolicy(new Capture(p));
    })) {
      run.trainer.fit(ITERATIONS);
      localCalls = ((Capture) run.trainer.rolloutPolicy()).calls;
    }

    List<Map<String, Object>> remote = new ArrayList<>();
    List<String> pushed = new ArrayList<>();
    float[] recomputeGap = new float[1];
    Path pushDir = dir.resolve("push");
    try (CompletionServer server = server(model)) {
      VllmAdapterLoader loader = VllmAdapterLoader.builder().addEndpoint(server.baseUrl()).build();
      OpenAiCompletionsPolicy[] client = new OpenAiCompletionsPolicy[1];
      Capture[] capture = new Capture[1];
      try (TinyRun run = new TinyRun(dir.resolve("remote"), model, -1, RANK, List.of(metrics(remote)), (b, p) -> {
        client[0] = remote(server, p);
        capture[0] = new Capture(client[0]);
        Qwen3Model trained = MageTrainer.modelOf(p);
        b.optRolloutPolicy(new LanguagePolicy() {
          @Override
          public String name() {
            return capture[0].name();
          }

          @Override
          public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
            List<Generation> out = capture[0].generate(requests, sampling);
            // the old log-probs the trainer recomputes, with the weights the server was given
            for (Generation g : out) {
              float[] local = recompute(trained, g);
              for (int j = 0; j < local.length; j++) {
                recomputeGap[0] = Math.max(recomputeGap[0], Math.abs(local[j] - g.logProbs()[j]));
              }
            }
            return out;
          }
        });
        b.optPolicySync(LoraAdapterSync.builder().setDirectory(pushDir).setName(ADAPTER).setPublisher((name, path) -> {
          pushed.add(path);
          loader.replace(name, path);
        }).build());
      })) {
        run.trainer.fit(ITERATIONS);
      } finally {
        client[0].close();
      }

      // the same iterations, metric for metric
      assertThat(remote).hasSize(ITERATIONS);
      assertThat(remote).isEqualTo(local);
      // the same turns: every generation's tokens; the sampled log-probs nearly
      List<List<Generation>> remoteCalls = capture[0].calls;
      assertThat(remoteCalls).hasSameSizeAs(localCalls);
      float samplingGap = 0;
      int tokens = 0;
      for (int c = 0; c < remoteCalls.size(); c++) {
        assertThat(remoteCalls.get(c)).hasSameSizeAs(localCalls.get(c));
        for (int i = 0; i < remoteCalls.get(c).size(); i++) {
          Generation r = remoteCalls.get(c).get(i);
          Generation l = localCalls.get(c).get(i);
          assertThat(r.responseTokenIds()).as("call %d row %d", c, i).containsExactly(l.responseTokenIds());
          assertThat(r.promptTokenIds()).containsExactly(l.promptTokenIds());
          for (int j = 0; j < r.logProbs().length; j++) {
            samplingGap = Math.max(samplingGap, Math.abs(r.logProbs()[j] - l.logProbs()[j]));
            tokens++;
          }
        }
      }
      // pushed before the first rollout and after each update, keeping the last two directories
      assertThat(pushed).hasSize(ITERATIONS + 1);
      assertThat(pushed.get(0)).endsWith("v0");
      assertThat(pushed.get(ITERATIONS)).endsWith("v" + ITERATIONS);
      assertThat(pushDir.resolve("v" + ITERATIONS)).isDirectory();
      assertThat(pushDir.resolve("v" + (ITERATIONS - 1))).isDirectory();
      assertThat(pushDir.resolve("v0")).doesNotExist();
      assertThat(samplingGap).isLessThanOrEqualTo(1e-5f);
      assertThat(recomputeGap[0]).isLessThanOrEqualTo(1e-5f);
      System.out.printf(Locale.ROOT, "remote rollouts over %d sampled tokens: largest |remote - in-process sampled"
          + " log-prob| %.3g, largest |remote sampled - locally recomputed old log-prob| %.3g%n", tokens,
          samplingGap, recomputeGap[0]);
    }
  }

  @Test
  void remoteRolloutsWithoutRecomputedOldLogProbsAreRefused() {
    Path model = TinyRun.writeModel(dir.resolve("model"));
    assertThatThrownBy(() -> new TinyRun(dir.resolve("run"), model, -1, RANK, List.of(), (b, p) -> b
        .optRolloutPolicy(new RecordingPolicy(p, false))
        .optUpdateSettings(new PolicyUpdater.Settings(4, 4, 1, false, true))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("recomputeOldLogProbs = true")
        .hasMessageContaining("recording(");
  }

  @Test
  void aServerThatDiesMidRunFailsTheIterationWithNothingRecorded() throws Exception {
    Path model = TinyRun.writeModel(dir.resolve("model"));
    List<Map<String, Object>> recorded = new ArrayList<>();
    AtomicInteger iteration = new AtomicInteger();
    TrainingListener track = new TrainingListener() {
      @Override
      public void onIterationStart(int it, int total) {
        iteration.set(it);
      }
    };
    CompletionServer server = server(model);
    String url = server.baseUrl();
    Path runDir = dir.resolve("run");
    try (DjlLanguagePolicy formatter = Qwen3Checkpoint.loadPolicy(model,
            Qwen3Checkpoint.Options.cpu().withThinking(false));
        OpenAiCompletionsPolicy client = remote(server, formatter);
        TinyRun run = new TinyRun(runDir, model, 1, RANK, List.of(track, metrics(recorded)), (b, p) -> {
          Capture c = new Capture(client);
          int[] firstOfIteration = {-1};
          c.beforeCall = i -> {
            if (iteration.get() == 1) {
              if (firstOfIteration[0] < 0) {
                firstOfIteration[0] = i;
              } else {
                server.close();   // dies in the middle of iteration 1's rollout
              }
            }
          };
          b.optRolloutPolicy(c);
          VllmAdapterLoader loader = VllmAdapterLoader.builder().addEndpoint(url).build();
          b.optPolicySync(LoraAdapterSync.builder().setDirectory(runDir.resolve("push")).setName(ADAPTER)
              .setPublisher(loader::replace).build());
        })) {
      assertThatThrownBy(() -> run.trainer.fit(ITERATIONS))
          .isInstanceOf(RolloutException.class)
          .hasMessageContaining(url);
      assertThat(run.trainer.iteration()).isEqualTo(1);
      assertThat(recorded).hasSize(1);
      try (Stream<Path> s = Files.list(runDir.resolve(TrainingCheckpoint.CHECKPOINTS_DIR))) {
        assertThat(s.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")))
            .contains(TrainingCheckpoint.directoryName(1))
            .doesNotContain(TrainingCheckpoint.directoryName(2));
      }
    } finally {
      server.close();
    }
  }

  @Test
  void aFailedPushFailsTheStepButKeepsTheRecordedIterationAndIsRetried() {
    Path model = TinyRun.writeModel(dir.resolve("model"));
    List<Map<String, Object>> recorded = new ArrayList<>();
    AtomicInteger pushes = new AtomicInteger();
    try (TinyRun run = new TinyRun(dir.resolve("run"), model, -1, RANK, List.of(metrics(recorded)), (b, p) -> b
        .optRolloutPolicy(new RecordingPolicy(p, false))
        .optPolicySync((trainer, version) -> {
          if (pushes.incrementAndGet() == 2) {
            throw new IllegalStateException("server gone");
          }
        }))) {
      // the first step rolls out and updates, then its push of the new weights fails
      assertThatThrownBy(() -> run.trainer.step()).isInstanceOf(TrainingException.class)
          .hasMessageContaining("after 1 iterations").hasMessageContaining("server gone");
      assertThat(run.trainer.iteration()).isEqualTo(1);
      assertThat(recorded).hasSize(1);
      run.trainer.step();
      assertThat(pushes.get()).isEqualTo(4);   // v0, v1 (failed), v1 again before the rollout, v2
      assertThat(recorded).hasSize(2);
    }
  }
}
