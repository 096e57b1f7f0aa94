package org.magejvm.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * Issue 12: seeded mutants of a tiny valid checkpoint either load (with finite logits) or are refused with a typed
 * exception naming a file of the directory, each within a time limit. The longer campaign is {@code mage bench fuzz}.
 */
class CheckpointFuzzTest {

  private static final long SEED = 12;
  private static final int MUTANTS = 500;

  @TempDir static Path shared;
  static Path tiny;

  @BeforeAll
  static void writeTiny() {
    tiny = shared.resolve("tiny");
    TinyCheckpoint.write(tiny, TinyCheckpoint.Spec.small("Play <action>(2, 2)</action>", 7));
  }

  @Test
  void theValidDirectoryLoads() {
    CheckpointFuzzer.Outcome outcome = CheckpointFuzzer.probe(tiny, Duration.ofSeconds(30));
    assertThat(outcome.kind()).as(outcome.toString()).isEqualTo(CheckpointFuzzer.Outcome.Kind.LOADED);
  }

  @Test
  void mutantsLoadOrAreRefusedNamingAFile() {
    CheckpointFuzzer fuzzer = new CheckpointFuzzer(tiny);
    Random random = new Random(SEED);
    List<String> unexpected = new ArrayList<>();
    TreeMap<String, Integer> counts = new TreeMap<>();
    for (int i = 0; i < MUTANTS; i++) {
      Path dir = shared.resolve("mutant-" + i);
      CheckpointFuzzer.Mutation mutation = fuzzer.mutate(dir, random);
      CheckpointFuzzer.Outcome outcome = CheckpointFuzzer.probe(dir, Duration.ofSeconds(20));
      counts.merge(outcome.kind() + (outcome.kind() == CheckpointFuzzer.Outcome.Kind.LOADED ? ""
          : " " + outcome.detail()), 1, Integer::sum);
      if (outcome.kind() == CheckpointFuzzer.Outcome.Kind.UNEXPECTED) {
        unexpected.add(i + " " + mutation + " -> " + outcome);
      }
      CheckpointFuzzer.delete(dir);
    }
    System.out.println("CheckpointFuzzTest outcomes: " + counts);
    assertThat(unexpected).as("unexpected outcomes").isEmpty();
  }

  private static Path copyOfTiny(String name) throws IOException {
    Path dir = shared.resolve(name);
    Files.createDirectories(dir);
    for (String f : CheckpointFuzzer.FILES) {
      Files.copy(tiny.resolve(f), dir.resolve(f));
    }
    return dir;
  }

  @Test
  void duplicateKeysAreRefusedNamingFileAndKey() throws IOException {
    for (String file : List.of("config.json", "tokenizer_config.json")) {
      Path dir = copyOfTiny("duplicate-" + file);
      String text = Files.readString(dir.resolve(file)).strip();
      Files.writeString(dir.resolve(file), "{\"fuzz_key\": 1, \"fuzz_key\": 2, " + text.substring(1));
      assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu()).close())
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining(file)
          .hasMessageContaining("'fuzz_key' appears twice");
    }
  }

  @Test
  void anAddedTokenBeyondTheVocabularyIsNamed() throws IOException {
    Path dir = copyOfTiny("added-token");
    String text = Files.readString(dir.resolve("tokenizer.json"));
    String entry = "{\"id\": 100000, \"content\": \"<|fuzz|>\", \"single_word\": false, \"lstrip\": false, "
        + "\"rstrip\": false, \"normalized\": false, \"special\": true}, ";
    int at = text.indexOf("\"added_tokens\"");
    int open = text.indexOf('[', at) + 1;
    Files.writeString(dir.resolve("tokenizer.json"), text.substring(0, open) + entry + text.substring(open));
    assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu()).close())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("tokenizer.json")
        .hasMessageContaining("'<|fuzz|>'")
        .hasMessageContaining("100000");
  }

  @Test
  void anotherModelTypeWithQwen3WeightsSaysSo() throws IOException {
    Path dir = copyOfTiny("llama");
    String text = Files.readString(dir.resolve("config.json"));
    text = text.replace("\"qwen3\"", "\"llama\"").replaceAll("\"architectures\"\\s*:\\s*\\[[^\\]]*\\],?", "");
    Files.writeString(dir.resolve("config.json"), text);
    assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu()).close())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("model.safetensors")
        .hasMessageContaining("look like a qwen3 model")
        .hasMessageContaining("config.json says model_type llama");
  }

  @Test
  void anEmptySafetensorsHeaderIsNamed() throws IOException {
    Path dir = copyOfTiny("empty-header");
    Files.write(dir.resolve("model.safetensors"), new byte[] {8, 0, 0, 0, 0, 0, 0, 0, '{', '}', ' ', ' ', ' ', ' ',
        ' ', ' '});
    assertThatThrownBy(() -> Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu()).close())
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining("model.safetensors")
        .hasMessageContaining("no tensors");
  }
}
