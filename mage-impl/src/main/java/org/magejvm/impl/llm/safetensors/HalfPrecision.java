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
    int sign = (bits >>> 16) & 0x8000;
    int exponent = (bits >>> 23) & 0xFF;
    int mantissa = bits & 0x7FFFFF;
    if (exponent == 0xFF) {
      return mantissa == 0 ? sign | 0x7C00 : sign | 0x7E00;
    }
    int e = exponent - 127 + 15;
    if (e >= 0x1F) {
      return sign | 0x7C00;
    }
    if (e <= 0) {
      if (e < -10) {
        return sign;
      }
      // subnormal half: the value is full * 2^(e - 14 - 24 + 24), i.e. full >> (14 - e) units of 2^-24
      int full = mantissa | 0x800000;
      int shift = 14 - e;
      int result = full >>> shift;
      int rest = full & ((1 << shift) - 1);
      int halfway = 1 << (shift - 1);
      if (rest > halfway || (rest == halfway && (result & 1) != 0)) {
        result++;
      }
      return sign | result;
    }
    int result = (e << 10) | (mantissa >>> 13);
    int rest = mantissa & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (result & 1) != 0)) {
      result++; // a carry out of the mantissa correctly bumps the exponent, up to infinity
    }
    return sign | result;
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
