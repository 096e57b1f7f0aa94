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
    convert(src, dst, count, from, to, null, 0);
  }

  /**
   * Non-finite values seen while converting: how many and the flat index of the first (-1 when none). Not
   * thread-safe; one per load.
   */
  static final class Scan {
    long count;
    long first = -1;
    int firstBits;

    private void saw(long index, int bits) {
      if (count++ == 0) {
        first = index;
        firstBits = bits;
      }
    }
  }

  /**
   * Converts {@code count} elements and, when {@code scan} is not null, records the non-finite values of the
   * converted result in it, in the same pass.
   *
   * @param src the source bytes from position 0 (any byte order; read as little-endian)
   * @param dst the destination bytes from position 0 (any byte order; written in native order)
   * @param count number of elements
   * @param from the checkpoint dtype, F32, F16 or BF16
   * @param to FLOAT32 or FLOAT16
   * @param scan where to record non-finite values, or null not to look
   * @param base the flat index of the first element, for {@link Scan#first}
   */
  static void convert(ByteBuffer src, ByteBuffer dst, int count, SafetensorsDtype from, DataType to, Scan scan,
      long base) {
    ByteBuffer in = src.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer out = dst.duplicate().order(ByteOrder.nativeOrder());
    if (to == DataType.FLOAT32) {
      switch (from) {
        case F32:
          if (scan == null) {
            copy(in, out, count * 4, 4);
          } else {
            copyInts(in.asIntBuffer(), out.asIntBuffer(), count, scan, base);
          }
          return;
        case BF16:
          widen(in.asShortBuffer(), out.asIntBuffer(), count, false, scan, base);
          return;
        case F16:
          widen(in.asShortBuffer(), out.asIntBuffer(), count, true, scan, base);
          return;
        default:
          break;
      }
    } else if (to == DataType.FLOAT16) {
      switch (from) {
        case F16:
          if (scan == null) {
            copy(in, out, count * 2, 2);
          } else {
            copyShorts(in.asShortBuffer(), out.asShortBuffer(), count, scan, base);
          }
          return;
        case F32:
          narrowFloats(in.asIntBuffer(), out.asShortBuffer(), count, scan, base);
          return;
        case BF16:
          bf16ToHalf(in.asShortBuffer(), out.asShortBuffer(), count, scan, base);
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

  /**
   * Records the non-finite float32 bit patterns among {@code bits[0, k)}: a branch-free pass (a value is not finite
   * when its exponent bits are all ones, that is when {@code ~bits & 0x7F800000} is 0), then a second look only at a
   * chunk that holds one.
   */
  private static void scanFloats(int[] bits, int k, Scan scan, long base) {
    int least = Integer.MAX_VALUE;
    for (int i = 0; i < k; i++) {
      least = Math.min(least, ~bits[i] & 0x7F800000);
    }
    if (least == 0) {
      for (int i = 0; i < k; i++) {
        if ((bits[i] & 0x7F800000) == 0x7F800000) {
          scan.saw(base + i, bits[i]);
        }
      }
    }
  }

  /** Records the non-finite float16 bit patterns among {@code bits[0, k)}, as {@link #scanFloats} does. */
  private static void scanHalves(short[] bits, int k, Scan scan, long base) {
    int least = Integer.MAX_VALUE;
    for (int i = 0; i < k; i++) {
      least = Math.min(least, ~bits[i] & 0x7C00);
    }
    if (least == 0) {
      for (int i = 0; i < k; i++) {
        if ((bits[i] & 0x7C00) == 0x7C00) {
          scan.saw(base + i, HalfPrecision.halfToFloatBits(bits[i]));
        }
      }
    }
  }

  /** A bulk copy, chunk by chunk, each chunk scanned in the source right after it was copied (still in cache). */
  private static void copyInts(IntBuffer in, IntBuffer out, int count, Scan scan, long base) {
    for (int done = 0; done < count; done += CHUNK) {
      int k = Math.min(CHUNK, count - done);
      IntBuffer chunk = in.slice(done, k);
      out.put(done, chunk, 0, k);
      int least = Integer.MAX_VALUE;
      for (int i = 0; i < k; i++) {
        least = Math.min(least, ~chunk.get(i) & 0x7F800000);
      }
      if (least == 0) {
        for (int i = 0; i < k; i++) {
          int bits = chunk.get(i);
          if ((bits & 0x7F800000) == 0x7F800000) {
            scan.saw(base + done + i, bits);
          }
        }
      }
    }
  }

  private static void copyShorts(ShortBuffer in, ShortBuffer out, int count, Scan scan, long base) {
    int n = Math.min(count, CHUNK);
    short[] shorts = new short[n];
    for (int done = 0; done < count; done += n) {
      int k = Math.min(n, count - done);
      in.get(shorts, 0, k);
      scanHalves(shorts, k, scan, base + done);
      out.put(shorts, 0, k);
    }
  }

  private static void widen(ShortBuffer in, IntBuffer out, int count, boolean ieeeHalf, Scan scan, long base) {
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
      if (scan != null) {
        scanFloats(ints, k, scan, base + done);
      }
      out.put(ints, 0, k);
    }
  }

  private static void narrowFloats(IntBuffer in, ShortBuffer out, int count, Scan scan, long base) {
    int n = Math.min(count, CHUNK);
    int[] ints = new int[n];
    short[] shorts = new short[n];
    for (int done = 0; done < count; done += n) {
      int k = Math.min(n, count - done);
      in.get(ints, 0, k);
      for (int i = 0; i < k; i++) {
        shorts[i] = (short) HalfPrecision.floatBitsToHalf(ints[i]);
      }
      if (scan != null) {
        scanHalves(shorts, k, scan, base + done);
      }
      out.put(shorts, 0, k);
    }
  }

  private static void bf16ToHalf(ShortBuffer in, ShortBuffer out, int count, Scan scan, long base) {
    int n = Math.min(count, CHUNK);
    short[] src = new short[n];
    short[] dst = new short[n];
    for (int done = 0; done < count; done += n) {
      int k = Math.min(n, count - done);
      in.get(src, 0, k);
      for (int i = 0; i < k; i++) {
        dst[i] = (short) HalfPrecision.floatBitsToHalf((src[i] & 0xFFFF) << 16);
      }
      if (scan != null) {
        scanHalves(dst, k, scan, base + done);
      }
      out.put(dst, 0, k);
    }
  }
}
