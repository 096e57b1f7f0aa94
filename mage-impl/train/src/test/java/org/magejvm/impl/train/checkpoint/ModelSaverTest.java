package org.magejvm.impl.train.checkpoint;

import org.magejvm.impl.train.MageTrainer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/** Saving a model never writes over its source or over another model, and a swapped call says so in one line. */
class ModelSaverTest {

  @Test
  void savesIntoANewDirectoryAndRefusesTheSourceAnExistingModelAndASwappedCall(@TempDir Path dir) throws Exception {
    Path source = dir.resolve("source");
    TinyCheckpoint.write(source, TinyCheckpoint.Spec.small("the quick brown fox jumps over the lazy dog", 7));
    byte[] weights = Files.readAllBytes(source.resolve("model.safetensors"));
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(source, Qwen3Checkpoint.Options.cpu())) {
      var model = MageTrainer.modelOf(policy);
      Path saved = dir.resolve("saved");
      ModelSaver.save(model, source, saved);
      assertThat(saved.resolve("model.safetensors")).exists();
      assertThat(saved.resolve("config.json")).hasSameTextualContentAs(source.resolve("config.json"));
      assertThat(saved.resolve("tokenizer.json")).exists();
      // over the source: refused, the source untouched
      assertThatThrownBy(() -> ModelSaver.save(model, source, source)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining(source.toString()).hasMessageContaining("loaded from").hasNoCause();
      assertThatThrownBy(() -> ModelSaver.saveReplacing(model, source, source.resolve("."))).isInstanceOf(
          CheckpointException.class).hasMessageContaining("loaded from");
      assertThat(Files.readAllBytes(source.resolve("model.safetensors"))).isEqualTo(weights);
      // over another model: refused by save, allowed by saveReplacing (a run's own output)
      assertThatThrownBy(() -> ModelSaver.save(model, source, saved)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining(saved.toString()).hasMessageContaining("already holds a model");
      ModelSaver.saveReplacing(model, source, saved);
      // the arguments swapped: the "source" does not exist yet
      Path fresh = dir.resolve("fresh");
      assertThatThrownBy(() -> ModelSaver.save(model, fresh, source)).isInstanceOf(CheckpointException.class)
          .hasMessageContaining(fresh.toString()).hasMessageContaining("is not a directory");
      assertThatThrownBy(() -> ModelSaver.save(model, fresh, dir.resolve("other")))
          .isInstanceOf(CheckpointException.class).hasMessageContaining(fresh.toString())
          .hasMessageContaining("is not a directory").hasMessageContaining("first");
      assertThat(Files.readAllBytes(source.resolve("model.safetensors"))).isEqualTo(weights);
    }
  }
}
