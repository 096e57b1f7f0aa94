package org.magejvm.impl.llm.safetensors;

import ai.djl.ndarray.types.DataType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.ShortBuffer;

/**
 * Bulk element conversion from checkpoint bytes (little-endian, as the format prescribes) into array memory (native
 * byte order), working through small scratch arrays so the inner loops stay simple and fast.
 */
final class Conversions {

  /** Elements converted per scratch round. */
  private static final int CHUNK = 8192;

  private static final boolean NATIVE_LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

  private Conversions() {}

  /**
   * Converts {@code count} elements.
   *
   * @param src the source bytes from position 0 (any byte order; read as little-endian)
   * @param dst the destination bytes from position 0 (any byte order; written in native order)
   * @param count number of elements
   * @param from the checkpoint dtype, F32, F16 or BF16
   * @param to FLOAT32 or FLOAT16
   */
  static void convert(ByteBuffer src, ByteBuffer dst, int count, SafetensorsDtype from, DataType to) {
    ByteBuffer in = src.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer out = dst.duplicate().order(ByteOrder.nativeOrder());
    if (to == DataType.FLOAT32) {
      switch (from) {
        case F32:
          copy(in, out, count * 4, 4);
          return;
        case BF16:
          widen(in.asShortBuffer(), out.asIntBuffer(), count, false);
          return;
        case F16:
          widen(in.asShortBuffer(), out.asIntBuffer(), count, true);
          return;
        default:
          break;
      }
    } else if (to == DataType.FLOAT16) {
      switch (from) {
        case F16:
          copy(in, out, count * 2, 2);
          return;
        case F32:
          narrowFloats(in.asIntBuffer(), out.asShortBuffer(), count);
          return;
        case BF16:
          bf16ToHalf(in.asShortBuffer(), out.asShortBuffer(), count);
          return;
        default:
          break;
      }
    }
    throw new IllegalArgumentException("no conversion from " + from + " to " + to);
  }

  private static void copy(ByteBuffer in, ByteBuffer out, int bytes, int elementSize) {
    ByteBuffer s = in.slice(0, bytes);
    ByteBuffer d = out.slice(0, bytes);
    if (NATIVE_LITTLE) {
      d.put(s);
    } else if (elementSize == 4) {
      d.order(ByteOrder.nativeOrder()).asIntBuffer().put(s.order(ByteOrder.LITTLE_ENDIAN).asIntBuffer());
    } else {
      d.order(ByteOrder.nativeOrder()).asShortBuffer().put(s.order(ByteOrder.LITTLE_ENDIAN).asShortBuffer());
    }
  }

  private static void widen(ShortBuffer in, IntBuffer out, int count, boolean ieeeHalf) {
    int n = Math.min(count, CHUNK);
    short[] shorts = new short[n];
    int[] ints = new int[n];
    for (int done = 0; done < count; done += n) {
      int k = Math.min(n, count - done);
      in.get(shorts, 0, k);
      if (ieeeHalf) {
        for (int i = 0; i < k; i++) {
          ints[i] = HalfPrecision.halfToFloatBits(shorts[i]);
        }
      } else {
        for (int i = 0; i < k; i++) {
          ints[i] = (shorts[i] & 0xFFFF) << 16;
        }
      }
      out.put(ints, 0, k);
    }
  }

  private static void narrowFloats(IntBuffer in, ShortBuffer out, int count) {
    int n = Math.min(count, CHUNK);
    int[] ints = new int[n];
    short[] shorts = new short[n];
    for (int done = 0; done < count; done += n) {
      int k = Math.min(n, count - done);
      in.get(ints, 0, k);
      for (int i = 0; i < k; i++) {
        shorts[i] = (short) HalfPrecision.floatBitsToHalf(ints[i]);
      }
      out.put(shorts, 0, k);
    }
  }

  private static void bf16ToHalf(ShortBuffer in, ShortBuffer out, int count) {
    int n = Math.min(count, CHUNK);
    short[] src = new short[n];
    short[] dst = new short[n];
    for (int done = 0; done < count; done += n) {
      int k = Math.min(n, count - done);
      in.get(src, 0, k);
      for (int i = 0; i < k; i++) {
        dst[i] = (short) HalfPrecision.floatBitsToHalf((src[i] & 0xFFFF) << 16);
      }
      out.put(dst, 0, k);
    }
  }
}
