package org.magejvm.impl.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.ContextMode;
import org.magejvm.api.FinishReason;
import org.magejvm.api.Generation;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.PolicyRequestException;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.impl.env.tictactoe.TicTacToeProvider;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.LoraConfig;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.model.TinyFixture;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.PromptStyle;

/** A checkpoint directory written by {@link TinyCheckpoint} loads through the real path and plays meta-episodes. */
class Qwen3CheckpointTest {

  @TempDir static Path shared;
  static Path tiny;

  @BeforeAll
  static void writeTiny() {
    tiny = shared.resolve("tiny");
    Qwen3Config config = TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("Play <action>(2, 2)</action>", 7));
    assertThat(config.vocabSize()).isGreaterThan(256);
  }

  @Test
  void aPolicyLoadsWithAPeftAdapter() throws java.net.URISyntaxException {
    Path adapterDir = shared.resolve("adapter");
    try (Qwen3Model model = Qwen3Checkpoint.loadModel(tiny, Device.cpu(), DataType.FLOAT32);
        LoraAdapter lora = LoraAdapter.create(model, LoraConfig.builder().setRank(4).optAllLinear()
            .optInitLoraWeights(false).optBaseModelNameOrPath("tiny").build(), 5)) {
      PeftAdapters.save(lora, adapterDir);
    }
    List<PolicyRequest> requests = List.of(PolicyRequest.of("Your move?"));
    SamplingConfig greedy = SamplingConfig.builder().optTemperature(0).optMaxNewTokens(4).build();
    Generation base;
    Generation adapted;
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu())) {
      base = policy.generate(requests, greedy).get(0);
    }
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu(), adapterDir)) {
      adapted = policy.generate(requests, greedy).get(0);
    }
    assertThat(adapted.promptTokenIds()).containsExactly(base.promptTokenIds());
    assertThat(adapted.logProbs()[0]).isNotEqualTo(base.logProbs()[0]);
    // an adapter made for another model is refused, naming the tensor
    assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu(),
        Path.of(Qwen3CheckpointTest.class.getResource("/peft-tiny/adapter/adapter_config.json").toURI())
            .getParent()))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("adapter_model.safetensors")
        .hasMessageContaining("q_proj.lora_B.weight has shape [96, 4]").hasMessageContaining("imply [64, 4]");
  }

  @Test
  void tinyCheckpointLoadsAndGeneratesReproducibly() {
    assertThat(tiny.resolve("config.json")).exists();
    assertThat(tiny.resolve("model.safetensors")).exists();
    assertThat(tiny.resolve("tokenizer.json")).exists();
    assertThat(tiny.resolve("tokenizer_config.json")).exists();
    List<PolicyRequest> requests = List.of(PolicyRequest.of("Your move?"), PolicyRequest.of("A longer prompt here."));
    SamplingConfig sampling = SamplingConfig.builder().optMaxNewTokens(6).optSeed(11).build();
    List<Generation> first;
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu())) {
      assertThat(policy.name()).isEqualTo("tiny");
      first = policy.generate(requests, sampling);
      assertThat(first).hasSize(2);
      for (Generation g : first) {
        assertThat(g.promptTokenIds()).isNotEmpty();
        assertThat(g.responseTokenIds()).isNotEmpty().hasSizeLessThanOrEqualTo(6);
        assertThat(g.logProbs()).hasSize(g.responseTokenIds().length);
        for (float lp : g.logProbs()) {
          assertThat(lp).isLessThanOrEqualTo(0f).isGreaterThan(Float.NEGATIVE_INFINITY);
        }
        if (g.finishReason() == FinishReason.LENGTH) {
          assertThat(g.responseTokenIds()).hasSize(6);
        }
      }
    }
    try (DjlLanguagePolicy again = Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu())) {
      List<Generation> second = again.generate(requests, sampling);
      for (int i = 0; i < 2; i++) {
        assertThat(second.get(i).responseTokenIds()).containsExactly(first.get(i).responseTokenIds());
        assertThat(second.get(i).text()).isEqualTo(first.get(i).text());
      }
    }
  }

  @Test
  void theTinyPolicyPlaysMetaEpisodesWithTokensAndLogProbs() {
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu().withThinking(false))) {
      RolloutConfig config = RolloutConfig.builder()
          .setEnvironmentId(TicTacToeProvider.ID)
          .optTasks(1)
          .optGroupSize(2)
          .optEpisodes(2)
          .optMaxTurns(2)
          .optContextMode(ContextMode.REFLECTION_ONLY)
          .optPromptStyle(PromptStyle.COMPACT)
          .optFixedOpponent("random")
          .optSampling(SamplingConfig.builder().optMaxNewTokens(5).optSeed(3).build())
          .optSeed(5)
          .build();
      RolloutResult result = MetaEpisodeRunner.of(new TicTacToeProvider()).run(config, policy);
      assertThat(result.failures()).isEmpty();
      assertThat(result.metaEpisodes()).hasSize(2);
      for (MetaEpisode m : result.metaEpisodes()) {
        assertThat(m.turns()).isNotEmpty();
        for (Turn t : m.turns()) {
          assertThat(t.promptTokenIds()).isNotEmpty();
          assertThat(t.responseTokenIds()).isNotEmpty();
          assertThat(t.logProbs()).hasSize(t.responseLength());
        }
      }
    }
  }

  @Test
  void aHugeObservationFailsOnlyItsOwnMetaEpisode() {
    TicTacToeProvider real = new TicTacToeProvider();
    long[] huge = {Long.MIN_VALUE};
    // the environment of the first meta-episode created opens with a 64 KB observation (16 times the prompt limit;
    // a 1 MB one behaves the same but takes about 15 s to chat-format and tokenize here)
    EnvironmentProvider provider = (EnvironmentProvider) Proxy.newProxyInstance(
        EnvironmentProvider.class.getClassLoader(), new Class<?>[] {EnvironmentProvider.class},
        (p, m, a) -> {
          if (m.getName().equals("id")) {
            return "test-huge-tictactoe"; // ids starting with mage- are reserved for built-ins
          }
          Object out = m.invoke(real, a);
          if (!m.getName().equals("create")) {
            return out;
          }
          Environment env = (Environment) out;
          boolean first = huge[0] == Long.MIN_VALUE;
          huge[0] = 0;
          return Proxy.newProxyInstance(Environment.class.getClassLoader(), new Class<?>[] {Environment.class},
              (p2, m2, a2) -> {
                Object r = m2.invoke(env, a2);
                return first && m2.getName().equals("reset") ? r + "\n" + "x ".repeat(32 * 1024) : r;
              });
        });
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(tiny, Qwen3Checkpoint.Options.cpu().withThinking(false))) {
      RolloutConfig config = RolloutConfig.builder()
          .setEnvironmentId("test-huge-tictactoe")
          .optTasks(2)
          .optGroupSize(2)
          .optEpisodes(1)
          .optMaxTurns(1)
          .optPromptStyle(PromptStyle.COMPACT)
          .optFixedOpponent("random")
          .optSampling(SamplingConfig.builder().optMaxNewTokens(3).optSeed(3).build())
          .optSeed(5)
          .build();
      RolloutResult result = MetaEpisodeRunner.of(provider).run(config, policy);
      assertThat(result.metaEpisodes()).hasSize(3);
      assertThat(result.failures()).singleElement().satisfies(f -> {
        assertThat(f.workerKey()).isEqualTo("g0/0");
        assertThat(f.stage()).isEqualTo("policy");
        assertThat(f.error()).isInstanceOf(PolicyRequestException.class)
            .hasMessageContaining("worker 'g0/0'").hasMessageContaining("more than maxPromptTokens=4096");
      });
    }
  }

  @Test
  void aMissingDirectoryOrFileIsNamed(@TempDir Path dir) throws IOException {
    Path absent = dir.resolve("nope");
    assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(absent, Qwen3Checkpoint.Options.cpu()))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("nope").hasMessageContaining("does not exist");
    // weights and config but no tokenizer
    Path noTokenizer = dir.resolve("no-tokenizer");
    Files.createDirectories(noTokenizer);
    Files.copy(TinyFixture.dir().resolve("config.json"), noTokenizer.resolve("config.json"));
    Files.copy(TinyFixture.dir().resolve("model.safetensors"), noTokenizer.resolve("model.safetensors"));
    assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(noTokenizer, Qwen3Checkpoint.Options.cpu()))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("tokenizer");
    // config and tokenizer but no weights
    Path noWeights = dir.resolve("no-weights");
    Files.createDirectories(noWeights);
    for (String f : List.of("config.json", "tokenizer.json", "tokenizer_config.json")) {
      Files.copy(tiny.resolve(f), noWeights.resolve(f));
    }
    assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(noWeights, Qwen3Checkpoint.Options.cpu()))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("model.safetensors");
  }

  @Test
  void nonFiniteWeightsAreRefusedByDefaultAndNamed(@TempDir Path dir) throws IOException {
    Files.copy(TinyFixture.dir().resolve("config.json"), dir.resolve("config.json"));
    Path weights = dir.resolve("model.safetensors");
    Files.copy(TinyFixture.dir().resolve("model.safetensors"), weights);
    String tensor = "model.layers.0.mlp.up_proj.weight";
    long at;
    String dtype;
    try (org.magejvm.impl.llm.safetensors.SafetensorsFile st =
        org.magejvm.impl.llm.safetensors.SafetensorsFile.open(weights)) {
      at = st.byteRange(tensor)[0];
      dtype = st.info(tensor).dtype();
    }
    assertThat(dtype).isEqualTo("F32");
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(weights,
        java.nio.file.StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer nan = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN)
          .putFloat(Float.NaN).flip();
      ch.write(nan, at + 4 * 5); // element 5
    }
    assertThatThrownBy(() -> Qwen3Checkpoint.loadModel(dir, Device.cpu(), DataType.FLOAT32))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(weights.toString())
        .hasMessageContaining("tensor '" + tensor + "'")
        .hasMessageContaining("1 non-finite value")
        .hasMessageContaining("flat index 5");
    try (Qwen3Model m = Qwen3Checkpoint.loadModel(dir, Device.cpu(), DataType.FLOAT32,
        org.magejvm.impl.llm.safetensors.NonFiniteCheck.WARN)) {
      assertThat(m.config().numHiddenLayers()).isPositive();
    }
    assertThat(Qwen3Checkpoint.Options.cpu().nonFiniteWeights())
        .isEqualTo(org.magejvm.impl.llm.safetensors.NonFiniteCheck.REFUSE);
  }

  @Test
  void impossibleConfigValuesAndDeviceFilesAreRefusedQuickly(@TempDir Path dir) throws IOException {
    String config = Files.readString(TinyFixture.dir().resolve("config.json"));
    Files.writeString(dir.resolve("config.json"),
        config.replaceFirst("\"num_hidden_layers\":\\s*\\d+", "\"num_hidden_layers\": 1000000"));
    Files.copy(TinyFixture.dir().resolve("model.safetensors"), dir.resolve("model.safetensors"));
    assertThat(Files.readString(dir.resolve("config.json"))).contains("1000000");
    long start = System.nanoTime();
    assertThatThrownBy(() -> Qwen3Checkpoint.loadModel(dir, Device.cpu(), DataType.FLOAT32))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("'num_hidden_layers' is 1000000")
        .hasMessageContaining("each layer needs at least 9");
    assertThat((System.nanoTime() - start) / 1e9).isLessThan(5);
    // a config.json that is a link to /dev/zero (where there is one) is refused, not read forever
    Path zero = Path.of("/dev/zero");
    if (Files.exists(zero)) {
      Path linked = dir.resolve("linked");
      Files.createDirectories(linked);
      Files.createSymbolicLink(linked.resolve("config.json"), zero);
      assertThatThrownBy(() -> Qwen3Config.fromFile(linked)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining("config.json").hasMessageContaining("not a regular file");
    }
    Path big = dir.resolve("big");
    Files.createDirectories(big);
    try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(big.resolve("config.json").toFile(), "rw")) {
      raf.setLength(org.magejvm.impl.llm.checkpoint.CheckpointFiles.MAX_SMALL_FILE_BYTES + 1);
    }
    assertThatThrownBy(() -> Qwen3Config.fromFile(big)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("is larger than");
  }

  @Test
  void aRopeThetaBelowTheFloorAndAVocabSizeOtherThanTheEmbeddingsRowsAreRefusedNamingConfigJsonAndTheField(
      @TempDir Path dir) throws IOException {
    String config = Files.readString(TinyFixture.dir().resolve("config.json"));
    assertThat(config).containsPattern("\"rope_theta\":\\s*[0-9.e+]+").containsPattern("\"vocab_size\":\\s*97");
    for (String theta : new String[] {"1e-300", "0.5", "0"}) {
      Path d = dir.resolve("theta-" + theta);
      Files.createDirectories(d);
      Files.writeString(d.resolve("config.json"),
          config.replaceFirst("\"rope_theta\":\\s*[0-9.e+]+", "\"rope_theta\": " + theta));
      Files.copy(TinyFixture.dir().resolve("model.safetensors"), d.resolve("model.safetensors"));
      assertThatThrownBy(() -> Qwen3Checkpoint.loadModel(d, Device.cpu(), DataType.FLOAT32))
          .isInstanceOf(CheckpointException.class)
          .hasMessageStartingWith(d.resolve("config.json") + ": rope_theta must be finite and >= 1.0, got ")
          .hasMessageContaining(theta.equals("1e-300") ? "1.0E-300" : theta);
    }
    // the floor itself loads
    Path one = dir.resolve("theta-1");
    Files.createDirectories(one);
    Files.writeString(one.resolve("config.json"),
        config.replaceFirst("\"rope_theta\":\\s*[0-9.e+]+", "\"rope_theta\": 1.0"));
    Files.copy(TinyFixture.dir().resolve("model.safetensors"), one.resolve("model.safetensors"));
    try (Qwen3Model m = Qwen3Checkpoint.loadModel(one, Device.cpu(), DataType.FLOAT32)) {
      assertThat(m.config().ropeTheta()).isEqualTo(Qwen3Config.MIN_ROPE_THETA);
    }
    for (int vocab : new int[] {96, 98, 200}) {
      Path d = dir.resolve("vocab-" + vocab);
      Files.createDirectories(d);
      Files.writeString(d.resolve("config.json"),
          config.replaceFirst("\"vocab_size\":\\s*97", "\"vocab_size\": " + vocab));
      Files.copy(TinyFixture.dir().resolve("model.safetensors"), d.resolve("model.safetensors"));
      assertThatThrownBy(() -> Qwen3Checkpoint.loadModel(d, Device.cpu(), DataType.FLOAT32))
          .isInstanceOf(CheckpointException.class)
          .hasMessage("config.json: field 'vocab_size' is " + vocab + ", but tensor model.embed_tokens.weight in "
              + "model.safetensors has 97 rows (one per token id); the config and the weights"
              + " belong to different models");
    }
  }

  @Test
  void aTokenizerLargerThanTheModelIsRejected(@TempDir Path dir) throws IOException {
    // the fixture model has 97 token ids; the tiny tokenizer has more than 256
    Files.copy(TinyFixture.dir().resolve("config.json"), dir.resolve("config.json"));
    Files.copy(TinyFixture.dir().resolve("model.safetensors"), dir.resolve("model.safetensors"));
    Files.copy(tiny.resolve("tokenizer.json"), dir.resolve("tokenizer.json"));
    Files.copy(tiny.resolve("tokenizer_config.json"), dir.resolve("tokenizer_config.json"));
    // the fixture config names eos 2, which exists in the tiny tokenizer; the vocabulary check must fire
    assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu()))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("vocab_size 97");
  }

  @Test
  void bfloat16IsRefusedBeforeAnyArrayExists() {
    assertThatThrownBy(() -> Qwen3Checkpoint.Options.cpu().withDtype(ai.djl.ndarray.types.DataType.BFLOAT16))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bfloat16");
  }
}
