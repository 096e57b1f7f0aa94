package org.magejvm.impl.llm.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

class ShardedSafetensorsTest {

  private static NDManager manager;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    manager = NDManager.newBaseManager(Device.cpu(), "PyTorch");
  }

  @AfterAll
  static void stop() {
    manager.close();
  }

  private static float[] seq(int n, float start) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      v[i] = start + i;
    }
    return v;
  }

  /** Six tensors of 64 bytes each; a 128-byte budget gives shards of two tensors: a, b | c, d | e, f. */
  private Path writeThreeShards() {
    SafetensorsWriter w = new SafetensorsWriter();
    for (String name : new String[] {"a", "b", "c", "d", "e", "f"}) {
      w.add(name, seq(16, name.charAt(0)), new long[] {4, 4}, SafetensorsDtype.F32);
    }
    return w.addMetadata("origin", "test").writeSharded(dir, "model", 128);
  }

  private void writeIndex(String json) throws Exception {
    Files.writeString(dir.resolve(ShardedSafetensors.INDEX_FILE), json, StandardCharsets.UTF_8);
  }

  private void assertBadIndex(String... fragments) {
    assertThatThrownBy(() -> ShardedSafetensors.open(dir).close())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(ShardedSafetensors.INDEX_FILE)
        .hasMessageContainingAll(fragments);
  }

  @Test
  void writesAndReadsThreeShards() throws Exception {
    Path index = writeThreeShards();
    assertThat(index.getFileName().toString()).isEqualTo("model.safetensors.index.json");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList())).containsExactly(
          "model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors",
          "model-00003-of-00003.safetensors", "model.safetensors.index.json");
    }
    JsonObject json = JsonParser.parseString(Files.readString(index)).getAsJsonObject();
    assertThat(json.getAsJsonObject("metadata").get("total_size").getAsLong()).isEqualTo(6 * 64);
    assertThat(json.getAsJsonObject("weight_map").get("c").getAsString())
        .isEqualTo("model-00002-of-00003.safetensors");
    ShardedSafetensors st = ShardedSafetensors.open(dir);
    try (NDManager m = manager.newSubManager()) {
      assertThat(st.names()).containsExactly("a", "b", "c", "d", "e", "f");
      assertThat(st.shards()).hasSize(3);
      assertThat(st.shards().get(0).metadata()).containsEntry("origin", "test").containsEntry("format", "pt");
      assertThat(st.info("e").file()).isEqualTo("model-00003-of-00003.safetensors");
      for (String name : st.names()) {
        assertThat(st.load(m, name, DataType.FLOAT32).toFloatArray()).containsExactly(seq(16, name.charAt(0)));
      }
      assertThat(st.load(m, "f", DataType.FLOAT16).getShape().getShape()).containsExactly(4, 4);
      assertThatThrownBy(() -> st.info("zz")).isInstanceOf(CheckpointException.class)
          .hasMessageContaining("'zz'").hasMessageContaining(ShardedSafetensors.INDEX_FILE);
    } finally {
      st.close();
    }
    try (NDManager m = manager.newSubManager()) {
      assertThatThrownBy(() -> st.load(m, "a", DataType.FLOAT32)).isInstanceOf(IllegalStateException.class);
    }
    // the index file itself can be named, and the factory finds the index in a directory
    try (ShardedSafetensors byIndex = ShardedSafetensors.open(index);
        TensorSource viaFactory = TensorSources.openCheckpoint(dir)) {
      assertThat(byIndex.names()).hasSize(6);
      assertThat(viaFactory).isInstanceOf(ShardedSafetensors.class);
      assertThat(viaFactory.names()).hasSize(6);
    }
  }

  @Test
  void oversizedTensorsGetAShardOfTheirOwn() {
    Path index = new SafetensorsWriter()
        .add("big", seq(100, 0), new long[] {100}, SafetensorsDtype.F32)
        .add("small", seq(2, 0), new long[] {2}, SafetensorsDtype.BF16)
        .writeSharded(dir, "adapter", 16);
    try (ShardedSafetensors st = ShardedSafetensors.open(index)) {
      assertThat(st.shards()).hasSize(2);
      assertThat(st.info("big").file()).isEqualTo("adapter-00001-of-00002.safetensors");
    }
  }

  @Test
  void malformedIndexes() throws Exception {
    writeThreeShards();
    writeIndex("{\"weight_map\": {\"a\": \"model-00001-of-00003.safetensors\",}}");
    assertBadIndex("not valid JSON");
    writeIndex("[1, 2]");
    assertBadIndex("must be a JSON object");
    writeIndex("{\"metadata\": {\"total_size\": 10}}");
    assertBadIndex("no 'weight_map'");
    writeIndex("{\"weight_map\": [\"a\"]}");
    assertBadIndex("'weight_map' must be an object");
    writeIndex("{\"weight_map\": {\"a\": 1}}");
    assertBadIndex("tensor 'a'", "must be a shard file name");
    writeIndex("{\"weight_map\": {}}");
    assertBadIndex("lists no tensors");
    writeIndex("{\"weight_map\": {\"a\": \"model-00001-of-00003.safetensors\", "
        + "\"a\": \"model-00001-of-00003.safetensors\"}}");
    assertBadIndex("tensor 'a' is listed twice");
    writeIndex("{\"weight_map\": {\"a\": \"../outside.safetensors\"}}");
    assertBadIndex("tensor 'a'", "'../outside.safetensors'", "not a file inside");
    writeIndex("{\"weight_map\": {\"a\": \"/etc/passwd\"}}");
    assertBadIndex("not a file inside");
    writeIndex("{\"weight_map\": {\"a\": \"bad\\u0000name\"}}");
    assertBadIndex("tensor 'a'", "not a file inside");
    writeIndex("{\"weight_map\": {\"a\": \".\"}}");
    assertBadIndex("tensor 'a'", "not a file inside");
    Files.delete(dir.resolve(ShardedSafetensors.INDEX_FILE));
    assertThatThrownBy(() -> ShardedSafetensors.open(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(ShardedSafetensors.INDEX_FILE).hasMessageContaining("does not exist");
  }

  @Test
  void missingShardFile() throws Exception {
    writeThreeShards();
    Files.delete(dir.resolve("model-00002-of-00003.safetensors"));
    assertBadIndex("shard file 'model-00002-of-00003.safetensors'", "does not exist", "2 tensors", "'c'");
  }

  @Test
  void corruptShardFile() throws Exception {
    writeThreeShards();
    Path shard = dir.resolve("model-00003-of-00003.safetensors");
    byte[] bytes = Files.readAllBytes(shard);
    Files.write(shard, java.util.Arrays.copyOf(bytes, bytes.length - 1));
    assertThatThrownBy(() -> ShardedSafetensors.open(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("model-00003-of-00003.safetensors").hasMessageContaining("tensor 'f'");
  }

  @Test
  void tensorListedButAbsentFromItsShard() throws Exception {
    writeThreeShards();
    writeIndex("{\"weight_map\": {\"a\": \"model-00001-of-00003.safetensors\","
        + " \"c\": \"model-00001-of-00003.safetensors\", \"d\": \"model-00002-of-00003.safetensors\"}}");
    assertBadIndex("tensor 'c' is listed under shard 'model-00001-of-00003.safetensors'",
        "does not contain it", "it is in 'model-00002-of-00003.safetensors'");
    writeIndex("{\"weight_map\": {\"ghost\": \"model-00001-of-00003.safetensors\"}}");
    assertBadIndex("tensor 'ghost'", "does not contain it");
  }

  @Test
  void tensorPresentInTwoShards() throws Exception {
    writeThreeShards();
    // shard 2 rewritten to also hold "a", which shard 1 holds
    new SafetensorsWriter().add("a", seq(16, 0), new long[] {16}, SafetensorsDtype.F32)
        .add("c", seq(16, 'c'), new long[] {4, 4}, SafetensorsDtype.F32)
        .add("d", seq(16, 'd'), new long[] {4, 4}, SafetensorsDtype.F32)
        .write(dir.resolve("model-00002-of-00003.safetensors"));
    assertBadIndex("tensor 'a' is present in two shards", "'model-00001-of-00003.safetensors'",
        "'model-00002-of-00003.safetensors'");
  }

  @Test
  void tensorsMissingFromTheIndexAreIgnored() throws Exception {
    writeThreeShards();
    writeIndex("{\"metadata\": {\"total_size\": 128}, \"weight_map\": {\"a\": \"model-00001-of-00003.safetensors\","
        + " \"f\": \"model-00003-of-00003.safetensors\"}}");
    try (ShardedSafetensors st = ShardedSafetensors.open(dir); NDManager m = manager.newSubManager()) {
      assertThat(st.names()).containsExactly("a", "f");
      assertThat(st.shards()).hasSize(2);
      assertThat(st.load(m, "f", DataType.FLOAT32).toFloatArray()).containsExactly(seq(16, 'f'));
      assertThatThrownBy(() -> st.load(m, "b", DataType.FLOAT32)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining("'b'");
    }
  }

  @Test
  void factoryPrefersTheSingleFileAndExplainsWhatItFound() throws Exception {
    assertThatThrownBy(() -> TensorSources.openCheckpoint(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(dir.toString()).hasMessageContaining("model.safetensors")
        .hasMessageContaining("model.safetensors.index.json").hasMessageContaining("it is empty");
    Files.writeString(dir.resolve("config.json"), "{}");
    Files.createDirectory(dir.resolve("sub"));
    assertThatThrownBy(() -> TensorSources.openCheckpoint(dir)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("looked for model.safetensors and model.safetensors.index.json")
        .hasMessageContaining("[config.json, sub/]");
    assertThatThrownBy(() -> TensorSources.openCheckpoint(dir.resolve("absent")))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("does not exist");
    writeThreeShards();
    new SafetensorsWriter().add("single", seq(2, 0), new long[] {2}, SafetensorsDtype.F32)
        .write(dir.resolve("model.safetensors"));
    try (TensorSource source = TensorSources.openCheckpoint(dir)) {
      assertThat(source).isInstanceOf(SafetensorsFile.class);
      assertThat(List.copyOf(source.names())).containsExactly("single");
    }
    try (TensorSource source = TensorSources.openCheckpoint(dir.resolve("model-00001-of-00003.safetensors"))) {
      assertThat(List.copyOf(source.names())).containsExactly("a", "b");
    }
  }
}
