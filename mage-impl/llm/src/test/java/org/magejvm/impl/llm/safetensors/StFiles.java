package org.magejvm.impl.llm.safetensors;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Hand-made safetensors files for tests: any header text, any declared length, any data. */
final class StFiles {

  private StFiles() {}

  /** Writes length prefix + header + data, with the true header length. */
  static Path raw(Path dir, String name, String header, byte[] data) throws IOException {
    byte[] h = header.getBytes(StandardCharsets.UTF_8);
    return rawBytes(dir, name, h.length, h, data);
  }

  /** Writes a declared header length (which may lie), the header bytes and the data. */
  static Path rawBytes(Path dir, String name, long declaredLength, byte[] header, byte[] data)
      throws IOException {
    ByteBuffer b = ByteBuffer.allocate(8 + header.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(declaredLength).put(header).put(data);
    Path p = dir.resolve(name);
    Files.write(p, b.array());
    return p;
  }

  /** Little-endian F32 bytes. */
  static byte[] f32(float... values) {
    ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      b.putFloat(v);
    }
    return b.array();
  }

  /** Little-endian 16-bit patterns. */
  static byte[] shorts(short... values) {
    ByteBuffer b = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
    for (short v : values) {
      b.putShort(v);
    }
    return b.array();
  }

  /** A header entry's JSON. */
  static String entry(String name, String dtype, String shape, long begin, long end) {
    return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + begin + ","
        + end + "]}";
  }
}
