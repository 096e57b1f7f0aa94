package org.magejvm.impl.llm.safetensors;

/**
 * Bit-exact conversions between 32-bit floats and the two 16-bit float formats found in checkpoints: IEEE half
 * precision (F16) and bfloat16 (BF16). Narrowing rounds to nearest, ties to even; overflow gives infinity; NaN stays
 * NaN. Widening is exact. 16-bit values travel as {@code short} bit patterns.
 */
public final class HalfPrecision {

  /** Every F16 bit pattern widened to F32 bits: a 256 KiB table that makes bulk widening a lookup. */
  private static final int[] HALF_TO_FLOAT_BITS = buildHalfTable();

  private HalfPrecision() {}

  /**
   * Widens an IEEE half-precision value (exact, including subnormals, infinities and NaN payloads).
   *
   * @param half the 16-bit pattern
   * @return the same value as a float
   */
  public static float halfToFloat(short half) {
    return Float.intBitsToFloat(HALF_TO_FLOAT_BITS[half & 0xFFFF]);
  }

  /**
   * Widens an IEEE half-precision value to the bits of the equal float.
   *
   * @param half the 16-bit pattern in the low bits (upper bits ignored)
   * @return the float's bits
   */
  static int halfToFloatBits(int half) {
    return HALF_TO_FLOAT_BITS[half & 0xFFFF];
  }

  /**
   * Narrows a float to IEEE half precision, rounding to nearest with ties to even. Values beyond the largest half
   * (65504) round to infinity, tiny values to subnormals or signed zero; every NaN becomes the quiet NaN 0x7E00 with
   * the sign kept.
   *
   * @param value the float
   * @return the 16-bit pattern
   */
  public static short floatToHalf(float value) {
    return (short) floatBitsToHalf(Float.floatToRawIntBits(value));
  }

  /**
   * Narrows float bits to IEEE half-precision bits (see {@link #floatToHalf}).
   *
   * @param bits the float's bits
   * @return the 16-bit pattern in the low bits
   */
  static int floatBitsToHalf(int bits) {
    // The float unit does the rounding, without branches: the two scalings of |f| turn everything too large for
    // half precision into infinity, and adding a power of two picked from f's exponent moves the bits a half keeps
    // to the bottom of the float mantissa, so the addition itself rounds them to nearest-even (subnormals too).
    // This is the method of the FP16 library, which PyTorch also uses; it agrees with plain bit-level rounding on
    // all 2^32 inputs (HalfPrecisionTest compares them) and is several times faster.
    int shifted = bits << 1;
    int bias = shifted & 0xFF000000;
    if (Integer.compareUnsigned(bias, 0x71000000) < 0) {
      bias = 0x71000000;
    }
    float base = (Math.abs(Float.intBitsToFloat(bits)) * 0x1.0p+112f) * 0x1.0p-110f;
    base += Float.intBitsToFloat((bias >>> 1) + 0x07800000);
    int rounded = Float.floatToRawIntBits(base);
    int magnitude = ((rounded >>> 13) & 0x7C00) + (rounded & 0x0FFF);
    if (Integer.compareUnsigned(shifted, 0xFF000000) > 0) {
      magnitude = 0x7E00; // NaN
    }
    return ((bits >>> 16) & 0x8000) | magnitude;
  }

  /**
   * Widens a bfloat16 value (exact: bfloat16 is the upper half of a float).
   *
   * @param bf16 the 16-bit pattern
   * @return the same value as a float
   */
  public static float bf16ToFloat(short bf16) {
    return Float.intBitsToFloat((bf16 & 0xFFFF) << 16);
  }

  /**
   * Narrows a float to bfloat16, rounding to nearest with ties to even; overflow gives infinity and NaN stays a
   * (quiet) NaN with its sign.
   *
   * @param value the float
   * @return the 16-bit pattern
   */
  public static short floatToBf16(float value) {
    return (short) floatBitsToBf16(Float.floatToRawIntBits(value));
  }

  /**
   * Narrows float bits to bfloat16 bits (see {@link #floatToBf16}).
   *
   * @param bits the float's bits
   * @return the 16-bit pattern in the low bits
   */
  static int floatBitsToBf16(int bits) {
    if ((bits & 0x7FFFFFFF) > 0x7F800000) {
      return ((bits >>> 16) | 0x0040) & 0xFFFF;
    }
    int rounding = 0x7FFF + ((bits >>> 16) & 1);
    return ((bits + rounding) >>> 16) & 0xFFFF;
  }

  private static int[] buildHalfTable() {
    int[] table = new int[1 << 16];
    for (int h = 0; h < table.length; h++) {
      int sign = (h & 0x8000) << 16;
      int exponent = (h >>> 10) & 0x1F;
      int mantissa = h & 0x3FF;
      int bits;
      if (exponent == 0x1F) {
        bits = sign | 0x7F800000 | (mantissa << 13);
      } else if (exponent == 0) {
        // zero or subnormal: mantissa * 2^-24, exact in float
        bits = sign | Float.floatToRawIntBits(mantissa * 0x1p-24f);
      } else {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
      }
      table[h] = bits;
    }
    return table;
  }
}
