package org.magejvm.impl.llm.finetune;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The PEFT adapters for the tiny Qwen3 fixture made by src/test/python/make_peft_fixture.py (test resources under
 * peft-tiny/): {@code adapter/} (r=4, alpha=8, all seven projections) and {@code rslora/} (the same tensors with
 * use_rslora), each with float64 logits of the adapted model for TinyFixture's input ids.
 */
final class PeftFixture {
  private PeftFixture() {}

  /** @return the directory holding adapter/, rslora/ and the expected logits */
  static Path root() {
    try {
      return Path.of(PeftFixture.class.getResource("/peft-tiny/adapter/adapter_config.json").toURI())
          .getParent().getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** @return the plain LoRA adapter directory */
  static Path adapter() {
    return root().resolve("adapter");
  }

  /** @return the rsLoRA adapter directory */
  static Path rslora() {
    return root().resolve("rslora");
  }

  /**
   * @param variantDir {@link #adapter()} or {@link #rslora()}
   * @return the input ids and logits [position][token] the adapted model must produce
   */
  static double[][] logits(Path variantDir) {
    Path file = variantDir.equals(adapter()) ? root().resolve("expected-adapted-logits.json")
        : variantDir.resolve("expected-adapted-logits.json");
    JsonObject o;
    try {
      o = JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8)).getAsJsonObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    JsonArray rows = o.getAsJsonArray("logits");
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

  /**
   * @param variantDir {@link #adapter()} or {@link #rslora()}
   * @return the input ids the logits are for
   */
  static int[] inputIds(Path variantDir) {
    Path file = variantDir.equals(adapter()) ? root().resolve("expected-adapted-logits.json")
        : variantDir.resolve("expected-adapted-logits.json");
    try {
      JsonArray a = JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8)).getAsJsonObject()
          .getAsJsonArray("input_ids");
      int[] ids = new int[a.size()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = a.get(i).getAsInt();
      }
      return ids;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * @param got flattened (T*V) logits
   * @param want [T][V]
   * @return the largest absolute difference
   */
  static double maxAbsDiff(float[] got, double[][] want) {
    double max = 0;
    int v = want[0].length;
    for (int i = 0; i < want.length; i++) {
      for (int j = 0; j < v; j++) {
        max = Math.max(max, Math.abs(got[i * v + j] - want[i][j]));
      }
    }
    return max;
  }

  /**
   * @param a some values
   * @param b as many values
   * @return the largest absolute difference
   */
  static double maxAbsDiff(float[] a, float[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException(a.length + " vs " + b.length + " values");
    }
    double max = 0;
    for (int i = 0; i < a.length; i++) {
      max = Math.max(max, Math.abs(a[i] - b[i]));
    }
    return max;
  }
}
