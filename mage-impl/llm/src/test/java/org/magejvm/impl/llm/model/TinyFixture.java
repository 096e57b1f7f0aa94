package org.magejvm.impl.llm.model;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.magejvm.impl.llm.safetensors.TensorSource;
import org.magejvm.impl.llm.safetensors.TensorSources;

/** The committed tiny Qwen3 checkpoint (test resources under qwen3-tiny/) and its float64 reference logits. */
public final class TinyFixture {
  private TinyFixture() {}

  /** @return the directory holding config.json, model.safetensors and expected-logits.json */
  public static Path dir() {
    try {
      return Path.of(TinyFixture.class.getResource("/qwen3-tiny/config.json").toURI()).getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** @return the fixture's config */
  public static Qwen3Config config() {
    return Qwen3Config.fromFile(dir().resolve("config.json"));
  }

  /**
   * @param dtype the model's data type
   * @return the fixture model on the CPU
   */
  public static Qwen3Model model(DataType dtype) {
    // the production reader (memory-mapped safetensors), as a user's checkpoint would be read
    try (TensorSource src = TensorSources.openCheckpoint(dir())) {
      return Qwen3Model.load(src, config(), Device.cpu(), dtype);
    }
  }

  /** @return the reference input ids */
  public static int[] inputIds() {
    JsonArray a = expected().getAsJsonArray("input_ids");
    int[] ids = new int[a.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = a.get(i).getAsInt();
    }
    return ids;
  }

  /** @return the reference logits [position][token] */
  public static double[][] logits() {
    JsonArray rows = expected().getAsJsonArray("logits");
    double[][] out = new double[rows.size()][];
    for (int i = 0; i < out.length; i++) {
      JsonArray r = rows.get(i).getAsJsonArray();
      out[i] = new double[r.size()];
      for (int j = 0; j < out[i].length; j++) {
        out[i][j] = r.get(j).getAsDouble();
      }
    }
    return out;
  }

  private static JsonObject expected() {
    try {
      return JsonParser.parseString(
              Files.readString(dir().resolve("expected-logits.json"), StandardCharsets.UTF_8))
          .getAsJsonObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
