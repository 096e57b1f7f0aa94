package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.TinyCheckpoint;

/**
 * {@code mage logits} on a checkpoint whose weights are finite but overflow float32 in the forward pass (every
 * element of one projection is 3e38, which loads under the default non-finite check): an error naming the first
 * module whose output is not finite, as {@code mage generate} gives, instead of a table of NaNs.
 */
class NonFiniteLogitsTest {

  static final String TENSOR = "model.layers.0.self_attn.q_proj.weight";

  /** The tiny checkpoint with every element of one float32 tensor set to {@code value}. */
  static Path overflowing(Path dir, String tensor, float value) throws IOException {
    TinyCheckpoint.write(dir, TinyCheckpoint.Spec.small("<action>(1, 1)</action> PASS BET", 3));
    try (FileChannel ch = FileChannel.open(dir.resolve("model.safetensors"), StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(len, 0);
      long headerLength = len.getLong(0);
      ByteBuffer header = ByteBuffer.allocate((int) headerLength);
      ch.read(header, 8);
      JsonObject t = JsonParser.parseString(new String(header.array(), StandardCharsets.UTF_8)).getAsJsonObject()
          .getAsJsonObject(tensor);
      assertThat(t.get("dtype").getAsString()).isEqualTo("F32");
      long begin = t.getAsJsonArray("data_offsets").get(0).getAsLong();
      long end = t.getAsJsonArray("data_offsets").get(1).getAsLong();
      ByteBuffer v = ByteBuffer.allocate((int) (end - begin)).order(ByteOrder.LITTLE_ENDIAN);
      while (v.hasRemaining()) {
        v.putFloat(value);
      }
      v.flip();
      ch.write(v, 8 + headerLength + begin);
    }
    return dir;
  }

  @Test
  void nonFiniteLogitsAreAnErrorNamingTheFirstNonFiniteModule(@TempDir Path dir) throws IOException {
    Path model = overflowing(dir.resolve("overflow"), TENSOR, 3e38f);
    for (String[] args : new String[][] {
        {"logits", "--model", model.toString(), "--ids", "1,2,3,4"},
        {"logits", "--model", model.toString(), "--ids", "1,2,3,4", "--all", "--json"}}) {
      CliRun r = CliRun.of(args);
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(r.out()).isEmpty();
      assertThat(r.err()).startsWith("error: the model produced ").contains(" non-finite logits (the first at position")
          .contains("; the first non-finite value is in the output of model.layers.0.self_attn.q_proj, at token"
              + " position ").hasLineCount(1);
    }
    // the same checkpoint in mage generate: the message names the same module
    CliRun gen = CliRun.of("generate", "--model", model.toString(), "--prompt", "PASS BET");
    assertThat(gen.code()).isEqualTo(1);
    assertThat(gen.err()).contains("the first non-finite value is in the output of model.layers.0.self_attn.q_proj");
  }
}
