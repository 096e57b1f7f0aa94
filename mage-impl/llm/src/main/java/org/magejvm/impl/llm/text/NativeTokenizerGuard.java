package org.magejvm.impl.llm.text;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.BitSet;
import java.util.Deque;
import java.util.Set;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * Checks, in Java, the parts of a {@code tokenizer.json} on which the native Hugging Face tokenizers library panics
 * instead of returning an error. A Rust panic in the native library aborts the whole JVM (exit 134), so these
 * inputs must never reach it:
 *
 * <ul>
 *   <li>a {@code WordLevel} model whose {@code unk_token} (default {@code <unk>}) is not in its vocabulary;
 *   <li>a {@code Precompiled} normalizer whose {@code precompiled_charsmap} is not valid base64, is truncated, or
 *       holds a trie that would index outside itself or its string table, or strings that are not UTF-8.
 * </ul>
 *
 * <p>The charsmap is checked by walking every node of its double-array trie that normalization can reach and
 * requiring every index normalization would compute to lie inside the arrays, which is what the native code assumes
 * without checking.
 */
final class NativeTokenizerGuard {

  private NativeTokenizerGuard() {}

  /**
   * Checks a WordLevel model's unknown token.
   *
   * @param file the tokenizer.json, for messages
   * @param type the model's {@code type}, or null
   * @param unkToken the model's {@code unk_token} (null when absent)
   * @param unkTokenPresent whether the field was present (a JSON null counts as present)
   * @param vocab the vocabulary's tokens, or null when it was not an object
   */
  static void checkModel(Path file, String type, String unkToken, boolean unkTokenPresent, Set<String> vocab) {
    if (!"WordLevel".equals(type)) {
      return;
    }
    String unk = unkTokenPresent ? unkToken : "<unk>";
    if (unk == null) {
      throw new CheckpointException(file + ": field 'model.unk_token' of the WordLevel model is null; it must name "
          + "a token of 'model.vocab' (the native tokenizer would abort the process)");
    }
    if (vocab == null || !vocab.contains(unk)) {
      throw new CheckpointException(file + ": field 'model.unk_token' of the WordLevel model is '" + unk
          + "', which is not in 'model.vocab' (the native tokenizer would abort the process)");
    }
  }

  /**
   * Checks a normalizer and, for a {@code Sequence}, the normalizers in it.
   *
   * @param file the tokenizer.json, for messages
   * @param normalizer the {@code normalizer} value
   */
  static void checkNormalizer(Path file, JsonElement normalizer) {
    checkNormalizer(file, normalizer, "normalizer", 0);
  }

  private static void checkNormalizer(Path file, JsonElement n, String where, int depth) {
    if (n == null || n.isJsonNull() || !n.isJsonObject()) {
      return; // the library reports anything else as an ordinary error
    }
    if (depth > 32) {
      throw new CheckpointException(file + ": field '" + where + "' nests Sequence normalizers more than 32 deep");
    }
    JsonObject o = n.getAsJsonObject();
    String type = string(o.get("type"));
    if ("Sequence".equals(type) && o.get("normalizers") != null && o.get("normalizers").isJsonArray()) {
      JsonArray items = o.getAsJsonArray("normalizers");
      for (int i = 0; i < items.size(); i++) {
        checkNormalizer(file, items.get(i), where + ".normalizers[" + i + "]", depth + 1);
      }
    } else if ("Precompiled".equals(type)) {
      JsonElement map = o.get("precompiled_charsmap");
      if (map == null || map.isJsonNull()) {
        return;
      }
      String text = string(map);
      if (text == null) {
        throw new CheckpointException(file + ": field '" + where + ".precompiled_charsmap' must be a base64 string");
      }
      checkCharsmap(file, where + ".precompiled_charsmap", text);
    }
  }

  /**
   * Checks a precompiled charsmap.
   *
   * @param file the tokenizer.json, for messages
   * @param field the field's path, for messages
   * @param base64 the field's value
   */
  static void checkCharsmap(Path file, String field, String base64) {
    String where = file + ": field '" + field + "'";
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new CheckpointException(where + " is not valid base64: " + e.getMessage(), e);
    }
    if (bytes.length < 4) {
      throw new CheckpointException(where + " is " + bytes.length + " bytes long, too short to hold the trie size"
          + " (the native tokenizer would abort the process)");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    long trieBytes = Integer.toUnsignedLong(b.getInt(0));
    if (trieBytes % 4 != 0 || trieBytes == 0 || 4 + trieBytes > bytes.length) {
      throw new CheckpointException(where + " declares a trie of " + trieBytes + " bytes, but " + (bytes.length - 4)
          + " bytes follow the size (truncated or garbage; the native tokenizer would abort the process)");
    }
    int units = (int) (trieBytes / 4);
    int[] array = new int[units];
    for (int i = 0; i < units; i++) {
      array[i] = b.getInt(4 + 4 * i);
    }
    int blobStart = (int) (4 + trieBytes);
    int blobLength = bytes.length - blobStart;
    // walk every node normalization can reach; every index it computes must be inside the array
    BitSet seen = new BitSet(units);
    Deque<Integer> todo = new ArrayDeque<>();
    todo.add(0);
    seen.set(0);
    while (!todo.isEmpty()) {
      int pos = todo.poll();
      long base = pos ^ offset(array[pos]);
      if ((base | 0xFF) >= units) {
        throw new CheckpointException(where + " holds a trie node (unit " + pos + ") whose children lie outside the "
            + units + "-unit trie (garbage; the native tokenizer would abort the process)");
      }
      for (int c = 1; c < 256; c++) {
        int child = (int) (base ^ c);
        int unit = array[child];
        if (label(unit) != c) {
          continue;
        }
        long next = child ^ offset(unit);
        if (hasLeaf(unit)) {
          if (next >= units) {
            throw new CheckpointException(where + " holds a trie leaf outside the trie (garbage; the native "
                + "tokenizer would abort the process)");
          }
          int value = array[(int) next] & 0x7FFFFFFF;
          checkNormalized(where, bytes, blobStart, blobLength, value);
        }
        if (!seen.get(child)) {
          seen.set(child);
          todo.add(child);
        }
      }
    }
  }

  private static void checkNormalized(String where, byte[] bytes, int blobStart, int blobLength, int value) {
    if (value >= blobLength) {
      throw new CheckpointException(where + " maps a character to byte " + value + " of a " + blobLength
          + "-byte string table (truncated or garbage; the native tokenizer would abort the process)");
    }
    int end = blobStart + value;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, blobStart + value, end - blobStart - value));
    } catch (CharacterCodingException e) {
      throw new CheckpointException(where + " maps a character to bytes that are not UTF-8 (garbage; the native "
          + "tokenizer would abort the process)", e);
    }
  }

  // darts-clone's unit layout, as the native library reads it
  private static long offset(int unit) {
    return Integer.toUnsignedLong(unit >>> 10) << ((unit & (1 << 9)) >>> 6);
  }

  private static int label(int unit) {
    return unit & ((1 << 31) | 0xFF);
  }

  private static boolean hasLeaf(int unit) {
    return ((unit >>> 8) & 1) == 1;
  }

  private static String string(JsonElement e) {
    return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() ? e.getAsString() : null;
  }
}
