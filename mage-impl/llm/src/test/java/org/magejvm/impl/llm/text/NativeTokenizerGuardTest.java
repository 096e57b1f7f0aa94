package org.magejvm.impl.llm.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * The tokenizer.json inputs on which the native tokenizers library panics (aborting the JVM, issue 12) are refused in
 * Java first. The refusals are tested through {@link HfTokenizer#load}, which validates before the native library
 * sees the file; should validation ever miss one, this test would abort the test JVM, loudly.
 */
class NativeTokenizerGuardTest {

  @TempDir Path dir;

  private Path write(String model, String normalizer) throws IOException {
    Path f = dir.resolve("tokenizer.json");
    Files.writeString(f, "{\"version\": \"1.0\", \"truncation\": null, \"padding\": null, \"added_tokens\": [], "
        + "\"normalizer\": " + normalizer + ", \"pre_tokenizer\": {\"type\": \"Whitespace\"}, "
        + "\"post_processor\": null, \"decoder\": null, \"model\": " + model + "}");
    return f;
  }

  private static final String WORD_LEVEL = "{\"type\": \"WordLevel\", \"vocab\": {\"a\": 0, \"b\": 1, \"<unk>\": 2}, "
      + "\"unk_token\": \"<unk>\"}";

  @Test
  void wordLevelUnkTokenMissingFromTheVocabularyIsRefused() throws IOException {
    Path f = write("{\"type\": \"WordLevel\", \"vocab\": {\"a\": 0, \"b\": 1}, \"unk_token\": \"<unk>\"}", "null");
    assertThatThrownBy(() -> HfTokenizer.load(f)).isInstanceOf(CheckpointException.class)
        .hasMessageContaining(f.toString()).hasMessageContaining("'model.unk_token'")
        .hasMessageContaining("'<unk>', which is not in 'model.vocab'");
    // absent: the library's default <unk> must be in the vocabulary too
    Path g = write("{\"type\": \"WordLevel\", \"vocab\": {\"a\": 0}}", "null");
    assertThatThrownBy(() -> HfTokenizer.load(g)).hasMessageContaining("'<unk>', which is not in");
    Path h = write("{\"type\": \"WordLevel\", \"vocab\": {\"a\": 0}, \"unk_token\": null}", "null");
    assertThatThrownBy(() -> HfTokenizer.load(h)).hasMessageContaining("'model.unk_token'")
        .hasMessageContaining("is null");
    // present: loads and maps unknown words to it
    try (HfTokenizer tok = HfTokenizer.load(write(WORD_LEVEL, "null"))) {
      assertThat(tok.encode("a b zzz")).containsExactly(0, 1, 2);
    }
  }

  /**
   * A hand-built charsmap mapping 'A' to "a": darts-clone units (root offset 1; the node for 'A' at 1 ^ 0x41 with a
   * leaf whose value unit at 128 points to byte 0 of the string table), then the table "a\0".
   */
  static byte[] charsmapAtoLowerA() {
    int[] units = new int[256];
    units[0] = 1 << 10; // offset 1
    units[64] = (192 << 10) | (1 << 8) | 0x41; // label 'A', has a leaf, offset 64 ^ 128
    units[128] = (1 << 31); // leaf value 0
    ByteBuffer b = ByteBuffer.allocate(4 + 4 * units.length + 2).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(4 * units.length);
    for (int u : units) {
      b.putInt(u);
    }
    b.put((byte) 'a').put((byte) 0);
    return b.array();
  }

  private static String precompiled(byte[] charsmap) {
    return "{\"type\": \"Precompiled\", \"precompiled_charsmap\": \"" + Base64.getEncoder().encodeToString(charsmap)
        + "\"}";
  }

  @Test
  void aValidCharsmapPassesAndWorks() throws IOException {
    byte[] ok = charsmapAtoLowerA();
    assertThatCode(() -> NativeTokenizerGuard.checkCharsmap(dir, "normalizer.precompiled_charsmap",
        Base64.getEncoder().encodeToString(ok))).doesNotThrowAnyException();
    try (HfTokenizer tok = HfTokenizer.load(write(WORD_LEVEL, precompiled(ok)))) {
      assertThat(tok.encode("A b")).containsExactly(0, 1);
    }
    // inside a Sequence
    try (HfTokenizer tok = HfTokenizer.load(write(WORD_LEVEL,
        "{\"type\": \"Sequence\", \"normalizers\": [" + precompiled(ok) + "]}"))) {
      assertThat(tok.encode("A")).containsExactly(0);
    }
  }

  @Test
  void garbageOrTruncatedCharsmapsAreRefused() throws IOException {
    byte[] ok = charsmapAtoLowerA();
    // every truncation
    for (int n = 0; n < ok.length; n++) {
      Path f = write(WORD_LEVEL, precompiled(Arrays.copyOf(ok, n)));
      if (n == ok.length - 1) {
        // only the table's terminating NUL is gone: still safe ("a" ends at the end of the data)
        HfTokenizer.load(f).close();
        continue;
      }
      assertThatThrownBy(() -> HfTokenizer.load(f)).as("cut to %d bytes", n)
          .isInstanceOf(CheckpointException.class).hasMessageContaining(f.toString())
          .hasMessageContaining("'normalizer.precompiled_charsmap'");
    }
    // not base64, and not a string
    Path f = write(WORD_LEVEL, "{\"type\": \"Precompiled\", \"precompiled_charsmap\": \"@@@ not base64\"}");
    assertThatThrownBy(() -> HfTokenizer.load(f)).hasMessageContaining("not valid base64");
    Path g = write(WORD_LEVEL, "{\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"Precompiled\", "
        + "\"precompiled_charsmap\": 7}]}");
    assertThatThrownBy(() -> HfTokenizer.load(g))
        .hasMessageContaining("'normalizer.normalizers[0].precompiled_charsmap' must be a base64 string");
    // a leaf pointing beyond the string table, a node whose children lie outside the trie
    byte[] badLeaf = ok.clone();
    ByteBuffer.wrap(badLeaf).order(ByteOrder.LITTLE_ENDIAN).putInt(4 + 4 * 128, (1 << 31) | 5);
    assertThatThrownBy(() -> HfTokenizer.load(write(WORD_LEVEL, precompiled(badLeaf))))
        .hasMessageContaining("maps a character to byte 5 of a 2-byte string table");
    byte[] badNode = ok.clone();
    ByteBuffer.wrap(badNode).order(ByteOrder.LITTLE_ENDIAN).putInt(4, 4096 << 10);
    assertThatThrownBy(() -> HfTokenizer.load(write(WORD_LEVEL, precompiled(badNode))))
        .hasMessageContaining("children lie outside");
    byte[] notUtf8 = ok.clone();
    notUtf8[notUtf8.length - 2] = (byte) 0xC3;
    assertThatThrownBy(() -> HfTokenizer.load(write(WORD_LEVEL, precompiled(notUtf8))))
        .hasMessageContaining("not UTF-8");
  }

  @Test
  void randomCharsmapsAreRefusedOrSafe() {
    // the validator never throws anything but a CheckpointException; random bytes essentially never pass
    SplittableRandom random = new SplittableRandom(12);
    int passed = 0;
    for (int i = 0; i < 2000; i++) {
      byte[] bytes = new byte[random.nextInt(0, 2000)];
      for (int j = 0; j < bytes.length; j++) {
        bytes[j] = (byte) random.nextInt(256);
      }
      if (random.nextBoolean() && bytes.length >= 4) {
        // a plausible trie size, so the walk itself is exercised
        int size = (bytes.length - 4) / 4 * 4;
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(0, size);
      }
      try {
        NativeTokenizerGuard.checkCharsmap(dir, "normalizer.precompiled_charsmap",
            Base64.getEncoder().encodeToString(bytes));
        passed++;
      } catch (CheckpointException expected) {
        assertThat(expected.getMessage()).contains("normalizer.precompiled_charsmap");
      }
    }
    assertThat(passed).isLessThan(20);
  }
}
