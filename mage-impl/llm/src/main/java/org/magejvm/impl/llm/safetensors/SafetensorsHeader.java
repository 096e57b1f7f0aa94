package org.magejvm.impl.llm.safetensors;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * The parsed and validated JSON header of one safetensors file. Parsing is strict: anything that could make a
 * later read go wrong (a bad type, a range outside the data section, overlapping tensors, a size that does not
 * match the shape) is rejected here with a {@link CheckpointException} naming the file and the tensor. As in the
 * reference implementation, the header must begin with <code>'{'</code>, and the tensors, sorted by offset, must
 * cover the data section exactly: contiguously from byte 0, the last one ending at the end of the file.
 */
final class SafetensorsHeader {

  /** The largest header we accept (the reference implementation uses the same bound). */
  static final long MAX_HEADER_BYTES = 100_000_000L;

  /** The reserved key holding the free-form string metadata. */
  static final String METADATA_KEY = "__metadata__";

  private static final Pattern INTEGER = Pattern.compile("-?[0-9]+");
  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  /**
   * One tensor's validated header entry.
   *
   * @param name tensor name
   * @param dtype element type
   * @param shape shape (not copied; never handed out)
   * @param begin first byte, relative to the data section
   * @param end one past the last byte, relative to the data section
   * @param elementCount product of the shape
   */
  record Entry(String name, SafetensorsDtype dtype, long[] shape, long begin, long end, long elementCount) {}

  private final Map<String, Entry> entries;
  private final Map<String, String> metadata;

  private SafetensorsHeader(Map<String, Entry> entries, Map<String, String> metadata) {
    this.entries = Collections.unmodifiableMap(entries);
    this.metadata = Collections.unmodifiableMap(metadata);
  }

  /** @return the entries by name, in header order */
  Map<String, Entry> entries() {
    return entries;
  }

  /** @return the {@code __metadata__} map, empty when there is none */
  Map<String, String> metadata() {
    return metadata;
  }

  /**
   * Decodes, parses and validates a header.
   *
   * @param headerBytes the header's bytes (UTF-8 JSON, possibly followed by space padding)
   * @param dataLength size of the data section that follows the header, in bytes
   * @param file the file, for messages
   * @return the header
   * @throws CheckpointException when anything is malformed
   */
  static SafetensorsHeader parse(byte[] headerBytes, long dataLength, String file) {
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(headerBytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new CheckpointException(file + ": header is not valid UTF-8", e);
    }
    Map<String, Entry> entries = new LinkedHashMap<>();
    Map<String, String> metadata = new LinkedHashMap<>();
    try (JsonReader reader = new JsonReader(new StringReader(text))) {
      reader.setStrictness(Strictness.STRICT);
      JsonToken first = reader.peek();
      if (first != JsonToken.BEGIN_OBJECT) {
        throw new CheckpointException(file + ": header must be a JSON object, found " + describe(first));
      }
      if (text.charAt(0) != '{') {
        // the reference implementation's InvalidHeaderStart: a header length that is off shifts the JSON too
        throw new CheckpointException(file + ": header must begin with '{' at byte 8, found "
            + (text.charAt(0) == ' ' ? "a space" : "character U+" + String.format("%04X", (int) text.charAt(0)))
            + " (is the header length in the first 8 bytes wrong?)");
      }
      reader.beginObject();
      boolean sawMetadata = false;
      while (reader.hasNext()) {
        String key = reader.nextName();
        if (METADATA_KEY.equals(key)) {
          if (sawMetadata) {
            throw new CheckpointException(file + ": header has two '" + METADATA_KEY + "' entries");
          }
          sawMetadata = true;
          readMetadata(reader, file, metadata);
        } else {
          if (entries.containsKey(key)) {
            throw new CheckpointException(file + ": tensor '" + key + "' appears twice in the header");
          }
          entries.put(key, readEntry(reader, file, key, dataLength));
        }
      }
      reader.endObject();
      JsonToken rest = reader.peek();
      if (rest != JsonToken.END_DOCUMENT) {
        throw new CheckpointException(
            file + ": header has content after its JSON object (" + describe(rest) + ")");
      }
    } catch (IOException | IllegalStateException | NumberFormatException e) {
      throw new CheckpointException(file + ": header is not valid JSON: " + jsonProblem(e), e);
    }
    checkContiguous(entries.values(), dataLength, file);
    return new SafetensorsHeader(entries, metadata);
  }

  /** Gson's parse error without its advice to parse leniently and its trouble-shooting link. */
  static String jsonProblem(Exception e) {
    String message = String.valueOf(e.getMessage());
    int link = message.indexOf("\nSee https://");
    if (link >= 0) {
      message = message.substring(0, link);
    }
    return message.replace("Use JsonReader.setStrictness(Strictness.LENIENT) to accept malformed JSON", "malformed JSON")
        .trim();
  }

  private static void readMetadata(JsonReader reader, String file, Map<String, String> out)
      throws IOException {
    JsonToken token = reader.peek();
    if (token == JsonToken.NULL) {
      reader.nextNull();
      return;
    }
    if (token != JsonToken.BEGIN_OBJECT) {
      throw new CheckpointException(
          file + ": '" + METADATA_KEY + "' must be an object of strings, found " + describe(token));
    }
    reader.beginObject();
    while (reader.hasNext()) {
      String key = reader.nextName();
      JsonToken value = reader.peek();
      if (value != JsonToken.STRING) {
        throw new CheckpointException(file + ": '" + METADATA_KEY + "' entry '" + key
            + "' must be a string, found " + describe(value));
      }
      if (out.put(key, reader.nextString()) != null) {
        throw new CheckpointException(
            file + ": '" + METADATA_KEY + "' has the key '" + key + "' twice");
      }
    }
    reader.endObject();
  }

  private static Entry readEntry(JsonReader reader, String file, String name, long dataLength)
      throws IOException {
    String where = file + ": tensor '" + name + "': ";
    JsonToken token = reader.peek();
    if (token != JsonToken.BEGIN_OBJECT) {
      throw new CheckpointException(where + "entry must be a JSON object, found " + describe(token));
    }
    String dtypeName = null;
    long[] shape = null;
    long[] offsets = null;
    reader.beginObject();
    while (reader.hasNext()) {
      String field = reader.nextName();
      switch (field) {
        case "dtype":
          if (dtypeName != null) {
            throw new CheckpointException(where + "field 'dtype' appears twice");
          }
          JsonToken t = reader.peek();
          if (t != JsonToken.STRING) {
            throw new CheckpointException(where + "field 'dtype' must be a string, found " + describe(t));
          }
          dtypeName = reader.nextString();
          break;
        case "shape":
          if (shape != null) {
            throw new CheckpointException(where + "field 'shape' appears twice");
          }
          shape = readIntegers(reader, where, "shape");
          break;
        case "data_offsets":
          if (offsets != null) {
            throw new CheckpointException(where + "field 'data_offsets' appears twice");
          }
          offsets = readIntegers(reader, where, "data_offsets");
          if (offsets.length != 2) {
            throw new CheckpointException(where + "field 'data_offsets' must hold exactly 2 integers [begin, end], "
                + "found " + offsets.length + ": " + Arrays.toString(offsets));
          }
          break;
        default:
          reader.skipValue(); // unknown fields are ignored, as the reference implementation does
          break;
      }
    }
    reader.endObject();
    if (dtypeName == null) {
      throw new CheckpointException(where + "missing field 'dtype'");
    }
    if (shape == null) {
      throw new CheckpointException(where + "missing field 'shape'");
    }
    if (offsets == null) {
      throw new CheckpointException(where + "missing field 'data_offsets'");
    }
    final String dtypeText = dtypeName;
    SafetensorsDtype dtype = SafetensorsDtype.parse(dtypeName).orElseThrow(() -> new CheckpointException(
        where + "unknown dtype '" + dtypeText + "' (known: " + SafetensorsDtype.knownNames() + ")"));
    boolean zero = false;
    for (long d : shape) {
      if (d < 0) {
        throw new CheckpointException(
            where + "negative dimension " + d + " in shape " + Arrays.toString(shape));
      }
      zero |= d == 0;
    }
    long count = 1;
    long bytes;
    try {
      if (zero) {
        count = 0;
      } else {
        for (long d : shape) {
          count = Math.multiplyExact(count, d);
        }
      }
      bytes = Math.multiplyExact(count, (long) dtype.byteSize());
    } catch (ArithmeticException e) {
      throw new CheckpointException(where + "shape " + Arrays.toString(shape) + " of " + dtype
          + " has more elements (or bytes) than fit in a 64-bit long", e);
    }
    long begin = offsets[0];
    long end = offsets[1];
    String range = "data_offsets [" + begin + ", " + end + "]";
    if (begin < 0 || end < 0) {
      throw new CheckpointException(where + range + " are negative");
    }
    if (begin > end) {
      throw new CheckpointException(where + range + " are reversed (begin > end)");
    }
    if (end > dataLength) {
      throw new CheckpointException(where + range + " end beyond the data section, which holds "
          + dataLength + " bytes");
    }
    if (end - begin != bytes) {
      throw new CheckpointException(where + range + " span " + (end - begin) + " bytes, but shape "
          + Arrays.toString(shape) + " of " + dtype + " needs " + bytes + " bytes (" + count + " elements x "
          + dtype.byteSize() + " bytes)");
    }
    return new Entry(name, dtype, shape, begin, end, count);
  }

  private static long[] readIntegers(JsonReader reader, String where, String field) throws IOException {
    JsonToken token = reader.peek();
    if (token != JsonToken.BEGIN_ARRAY) {
      throw new CheckpointException(
          where + "field '" + field + "' must be an array of integers, found " + describe(token));
    }
    List<Long> values = new ArrayList<>();
    reader.beginArray();
    while (reader.hasNext()) {
      JsonToken t = reader.peek();
      if (t != JsonToken.NUMBER) {
        throw new CheckpointException(where + "field '" + field + "' element " + values.size()
            + " must be an integer, found " + describe(t));
      }
      String text = reader.nextString();
      if (!INTEGER.matcher(text).matches()) {
        throw new CheckpointException(where + "field '" + field + "' element " + values.size()
            + " must be an integer, found " + text);
      }
      BigInteger value = new BigInteger(text);
      if (value.compareTo(LONG_MIN) < 0 || value.compareTo(LONG_MAX) > 0) {
        throw new CheckpointException(where + "field '" + field + "' element " + values.size()
            + " is out of the 64-bit range: " + text);
      }
      values.add(value.longValue());
    }
    reader.endArray();
    long[] out = new long[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }

  /**
   * The reference implementation's layout rule: sorted by {@code data_offsets}, each tensor begins where the previous
   * one ended (the first at 0), and the last one ends exactly at the end of the data section. A gap, an overlap or
   * unused bytes at the end is refused: such a file is most often one whose header length is off, so that every
   * tensor would be read shifted. The messages follow the reference's {@code InvalidOffset} and {@code
   * MetadataIncompleteBuffer} errors.
   */
  private static void checkContiguous(Iterable<Entry> entries, long dataLength, String file) {
    List<Entry> sorted = new ArrayList<>();
    for (Entry e : entries) {
      sorted.add(e);
    }
    sorted.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end));
    long expected = 0;
    Entry previous = null;
    for (Entry e : sorted) {
      if (e.begin() != expected) {
        String relation;
        if (previous == null) {
          relation = "the first tensor (by offset) must begin at 0";
        } else if (e.begin() < expected) {
          relation = "it overlaps tensor '" + previous.name() + "' (bytes " + previous.begin() + ".." + previous.end()
              + ")";
        } else {
          relation = "it leaves " + (e.begin() - expected) + " unused bytes after tensor '" + previous.name()
              + "' (bytes " + previous.begin() + ".." + previous.end() + ")";
        }
        throw new CheckpointException(file + ": tensor '" + e.name() + "': data_offsets [" + e.begin() + ", "
            + e.end() + "] do not continue the data section at byte " + expected + ": " + relation
            + " (tensors must cover the data section contiguously; invalid offset)");
      }
      expected = e.end();
      previous = e;
    }
    if (expected != dataLength) {
      throw new CheckpointException(file + ": the tensors cover " + expected + " bytes but the data section holds "
          + dataLength + " (the last tensor must end at the end of the file; is the header length in the first 8 "
          + "bytes wrong, or the file padded or truncated? metadata incomplete buffer)");
    }
  }

  private static String describe(JsonToken token) {
    switch (token) {
      case BEGIN_ARRAY:
        return "an array";
      case BEGIN_OBJECT:
        return "an object";
      case STRING:
        return "a string";
      case NUMBER:
        return "a number";
      case BOOLEAN:
        return "a boolean";
      case NULL:
        return "null";
      case END_DOCUMENT:
        return "the end of the text";
      default:
        return token.toString();
    }
  }
}
