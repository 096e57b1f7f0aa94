package org.magejvm.impl.llm.safetensors;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.ShortBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Our reader against DJL's own safetensors decoder on the tiny Qwen3 fixture (F32, small enough for DJL). */
class QwenTinyFixtureTest {

  private static Path fixture() throws Exception {
    return Path.of(QwenTinyFixtureTest.class.getResource("/qwen3-tiny/model.safetensors").toURI());
  }

  @Test
  void everyTensorEqualsWhatDjlDecodes() throws Exception {
    Path file = fixture();
    try (NDManager m = NDManager.newBaseManager(Device.cpu(), "PyTorch");
        TensorSource source = TensorSources.openCheckpoint(file.getParent())) {
      NDList decoded = NDList.decode(m, Files.readAllBytes(file));
      Set<String> decodedNames = new HashSet<>();
      for (NDArray a : decoded) {
        decodedNames.add(a.getName());
      }
      assertThat(source.names()).hasSize(35).containsExactlyInAnyOrderElementsOf(decodedNames);
      for (String name : source.names()) {
        NDArray theirs = decoded.get(name);
        NDArray ours = source.load(m, name, DataType.FLOAT32);
        assertThat(source.info(name).dtype()).isEqualTo("F32");
        assertThat(ours.getShape()).as(name).isEqualTo(theirs.getShape());
        assertThat(ours.toFloatArray()).as(name).containsExactly(theirs.toFloatArray());
        // narrowing while loading gives the same bits as PyTorch's own conversion
        ShortBuffer ourHalves = source.load(m, name, DataType.FLOAT16).toByteBuffer().asShortBuffer();
        ShortBuffer torchHalves = theirs.toType(DataType.FLOAT16, false).toByteBuffer().asShortBuffer();
        assertThat(ourHalves).as(name).isEqualTo(torchHalves);
      }
      assertThat(source.names()).contains("model.embed_tokens.weight", "model.norm.weight");
    }
  }
}
