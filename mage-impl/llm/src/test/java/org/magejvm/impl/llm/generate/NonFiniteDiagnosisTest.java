package org.magejvm.impl.llm.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.safetensors.NonFiniteCheck;

/**
 * A generation that meets a NaN names the module (and weight) where the first non-finite value appeared, found by a
 * second forward pass with a check after every module, run only on that error path.
 */
class NonFiniteDiagnosisTest {

  private static final String POISONED = "model.layers.1.mlp.down_proj.weight";

  /** Writes the tiny checkpoint and overwrites element {@code index} of one float32 tensor with {@code value}. */
  private static Path poisoned(Path dir, String tensor, int index, float value) throws IOException {
    TinyCheckpoint.write(dir, TinyCheckpoint.Spec.small("the opponent bets; I pass or call.", 3));
    Path file = dir.resolve("model.safetensors");
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(len, 0);
      long headerLength = len.getLong(0);
      ByteBuffer header = ByteBuffer.allocate((int) headerLength);
      ch.read(header, 8);
      JsonObject h = JsonParser.parseString(new String(header.array(), StandardCharsets.UTF_8)).getAsJsonObject();
      JsonObject t = h.getAsJsonObject(tensor);
      assertThat(t.get("dtype").getAsString()).isEqualTo("F32");
      long begin = t.getAsJsonArray("data_offsets").get(0).getAsLong();
      ByteBuffer v = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(0, value);
      ch.write(v, 8 + headerLength + begin + 4L * index);
    }
    return dir;
  }

  @Test
  void aPoisonedWeightIsNamedWithItsLayerAndTheStep(@TempDir Path dir) throws IOException {
    Path model = poisoned(dir, POISONED, 5, Float.NaN);
    // refused by default, naming the tensor
    assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu()))
        .isInstanceOf(CheckpointException.class).hasMessageContaining(POISONED);
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, Qwen3Checkpoint.Options.cpu()
        .withNonFiniteWeights(NonFiniteCheck.ALLOW))) {
      assertThatThrownBy(() -> policy.generate(List.of(PolicyRequest.of("I pass")), SamplingConfig.evaluation(4)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("NaN log-probabilities at generation step 0 of row 0")
          .hasMessageContaining("the first non-finite value is in the output of model.layers.1.mlp.down_proj,"
              + " at token position 0 of ")
          .hasMessageContaining("its weight holds 1 non-finite value")
          .hasMessageNotContaining("FLOAT16");
    }
  }

  @Test
  void anInfinityInAnEarlierLayerIsFoundThere(@TempDir Path dir) throws IOException {
    Path model = poisoned(dir, "model.layers.0.self_attn.v_proj.weight", 0, Float.POSITIVE_INFINITY);
    try (Qwen3Model m = Qwen3Checkpoint.loadModel(model, ai.djl.Device.cpu(), ai.djl.ndarray.types.DataType.FLOAT32,
        NonFiniteCheck.ALLOW)) {
      assertThat(m.firstNonFinite(new int[] {1, 2, 3})).hasValueSatisfying(d -> assertThat(d)
          .startsWith("model.layers.0.self_attn.v_proj, at token position 0 of 3")
          .contains("its weight holds 1 non-finite value"));
    }
  }

  @Test
  void aHealthyModelHasNoNonFiniteOutput(@TempDir Path dir) throws IOException {
    Path model = poisoned(dir, POISONED, 0, 0.5f); // a finite value: nothing to find
    try (Qwen3Model m = Qwen3Checkpoint.loadModel(model, ai.djl.Device.cpu(),
        ai.djl.ndarray.types.DataType.FLOAT32, NonFiniteCheck.REFUSE)) {
      assertThat(m.firstNonFinite(new int[] {1, 2, 3, 4})).isEmpty();
      assertThat(m.firstNonFinite(new int[0])).isEmpty();
    }
  }
}
