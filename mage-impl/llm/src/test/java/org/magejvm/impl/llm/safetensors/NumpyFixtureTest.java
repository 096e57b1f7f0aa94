package org.magejvm.impl.llm.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * Reads a file written by numpy alone (src/test/python/make_safetensors_fixture.py): F32, F16 and BF16 tensors
 * with values and FLOAT16 narrowings computed by numpy, plus integer and boolean tensors that must open but not load.
 */
class NumpyFixtureTest {

  private static Path resource(String name) throws Exception {
    return Path.of(NumpyFixtureTest.class.getResource("/safetensors/" + name).toURI());
  }

  private static float[] floats(JsonArray array) {
    float[] out = new float[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = (float) array.get(i).getAsDouble(); // the decimal is the exact float32 value, printed as a double
    }
    return out;
  }

  @Test
  void valuesMatchNumpy() throws Exception {
    JsonObject expected = JsonParser.parseString(Files.readString(resource("numpy-mixed.json"))).getAsJsonObject();
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch");
        SafetensorsFile st = SafetensorsFile.open(resource("numpy-mixed.safetensors"))) {
      assertThat(st.metadata()).containsExactly(Map.entry("format", "pt"), Map.entry("source", "numpy"));
      assertThat(st.names()).containsExactly("model.f32", "model.f16", "model.bf16", "model.scalar", "model.empty",
          "ids", "bytes", "mask");
      assertThat(expected.keySet()).hasSize(5);
      for (Map.Entry<String, JsonElement> e : expected.entrySet()) {
        String name = e.getKey();
        JsonObject want = e.getValue().getAsJsonObject();
        assertThat(st.info(name).dtype()).isEqualTo(want.get("dtype").getAsString());
        long[] shape = new long[want.getAsJsonArray("shape").size()];
        for (int i = 0; i < shape.length; i++) {
          shape[i] = want.getAsJsonArray("shape").get(i).getAsLong();
        }
        NDArray f32 = st.load(m, name, DataType.FLOAT32);
        assertThat(f32.getShape().getShape()).as(name).isEqualTo(shape);
        assertThat(f32.toFloatArray()).as(name).containsExactly(floats(want.getAsJsonArray("values")));
        NDArray f16 = st.load(m, name, DataType.FLOAT16);
        assertThat(f16.getShape().getShape()).as(name).isEqualTo(shape);
        assertThat(f16.toType(DataType.FLOAT32, false).toFloatArray()).as(name + " as FLOAT16")
            .containsExactly(floats(want.getAsJsonArray("as_f16")));
      }
      assertThat(st.load(m, "model.bf16", DataType.FLOAT32).toFloatArray()[0]).isEqualTo(0.6875f);
      for (String other : new String[] {"ids", "bytes", "mask"}) {
        assertThatThrownBy(() -> st.load(m, other, DataType.FLOAT32)).isInstanceOf(CheckpointException.class)
            .hasMessageContaining("numpy-mixed.safetensors").hasMessageContaining("'" + other + "'")
            .hasMessageContaining("unsupported dtype");
      }
      assertThat(st.info("ids").shape()).containsExactly(3);
    }
  }
}
