package org.magejvm.impl.llm.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ShortBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HalfPrecisionTest {

  private static NDManager manager;

  @BeforeAll
  static void start() {
    manager = NDManager.newBaseManager(Device.cpu(), "PyTorch");
  }

  @AfterAll
  static void stop() {
    manager.close();
  }

  @Test
  void knownHalfValues() {
    assertThat(roundTripHalf(0.1f)).isEqualTo(0.0999755859375f);
    assertThat(roundTripHalf(1f / 3)).isEqualTo(0.333251953125f);
    assertThat(roundTripHalf(65504f)).isEqualTo(65504f);
    assertThat(roundTripHalf(65519f)).isEqualTo(65504f);
    assertThat(roundTripHalf(65520f)).isEqualTo(Float.POSITIVE_INFINITY); // the tie rounds up to infinity
    assertThat(roundTripHalf(-1e6f)).isEqualTo(Float.NEGATIVE_INFINITY);
    assertThat(roundTripHalf(0x1p-24f)).isEqualTo(0x1p-24f); // smallest subnormal
    assertThat(roundTripHalf(0x1p-25f)).isEqualTo(0f); // tie between 0 and the smallest subnormal: even is 0
    assertThat(roundTripHalf(0x1.8p-25f)).isEqualTo(0x1p-24f);
    assertThat(roundTripHalf(1e-8f)).isEqualTo(0f);
    assertThat(Float.floatToRawIntBits(roundTripHalf(-0f))).isEqualTo(Float.floatToRawIntBits(-0f));
    assertThat(roundTripHalf(Float.NaN)).isNaN();
    assertThat(HalfPrecision.floatToHalf(1f)).isEqualTo((short) 0x3C00);
    assertThat(HalfPrecision.floatToHalf(-2f)).isEqualTo((short) 0xC000);
    assertThat(HalfPrecision.halfToFloat((short) 0x7BFF)).isEqualTo(65504f);
    assertThat(HalfPrecision.halfToFloat((short) 0x0001)).isEqualTo(0x1p-24f);
    assertThat(HalfPrecision.halfToFloat((short) 0x03FF)).isEqualTo(0x3FFp-24f);
    assertThat(HalfPrecision.halfToFloat((short) 0xFC00)).isEqualTo(Float.NEGATIVE_INFINITY);
    assertThat(HalfPrecision.halfToFloat((short) 0x7E00)).isNaN();
  }

  @Test
  void knownBf16Values() {
    assertThat(roundTripBf16(0.68884f)).isEqualTo(0.6875f);
    assertThat(HalfPrecision.floatToBf16(0.68884f)).isEqualTo((short) 0x3F30);
    assertThat(roundTripBf16(3.140625f)).isEqualTo(3.140625f); // representable: exact
    assertThat(roundTripBf16(1f + 0x1p-8f)).isEqualTo(1f); // tie: to even (down)
    assertThat(roundTripBf16(1f + 3 * 0x1p-8f)).isEqualTo(1f + 0x1p-6f); // tie: to even (up)
    assertThat(roundTripBf16(3.4e38f)).isEqualTo(Float.POSITIVE_INFINITY);
    assertThat(roundTripBf16(Float.NEGATIVE_INFINITY)).isEqualTo(Float.NEGATIVE_INFINITY);
    assertThat(roundTripBf16(Float.NaN)).isNaN();
    assertThat(roundTripBf16(Float.intBitsToFloat(0x7F800001))).isNaN(); // a NaN whose top bits look like inf
    assertThat(Float.floatToRawIntBits(roundTripBf16(-0f))).isEqualTo(Float.floatToRawIntBits(-0f));
    assertThat(HalfPrecision.bf16ToFloat((short) 0xC0A0)).isEqualTo(-5f);
  }

  @Test
  void narrowingPicksTheNearestValueWithTiesToEven() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 200_000; i++) {
      float x = Float.intBitsToFloat(random.nextInt());
      if (Float.isNaN(x)) {
        continue;
      }
      checkNearest(x, HalfPrecision.floatToHalf(x) & 0xFFFF, true);
      checkNearest(x, HalfPrecision.floatToBf16(x) & 0xFFFF, false);
      float small = (float) (random.nextDouble(-70000, 70000) * Math.pow(2, -random.nextInt(30)));
      checkNearest(small, HalfPrecision.floatToHalf(small) & 0xFFFF, true);
    }
  }

  /** The result r is the nearest finite 16-bit value to x (ties to an even pattern), or the right infinity. */
  private static void checkNearest(float x, int r, boolean half) {
    double value = widen(r, half);
    double max = half ? 65504 : 3.3895313892515355e38;
    double maxUlp = half ? 32 : Math.pow(2, 127 - 7);
    if (Math.abs(x) >= max + maxUlp / 2) {
      if (value != (x > 0 ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY)) {
        fail("overflow of " + x + " gave " + value);
      }
      return;
    }
    if (Double.isInfinite(value)) {
      fail(x + " gave infinity");
    }
    int sign = r & 0x8000;
    int magnitude = r & 0x7FFF;
    double error = Math.abs(value - x);
    for (int neighbour : new int[] {magnitude - 1, magnitude + 1}) {
      if (neighbour < 0) {
        continue;
      }
      double other = widen(sign | neighbour, half);
      if (Double.isInfinite(other)) {
        continue;
      }
      double otherError = Math.abs(other - x);
      if (error > otherError) {
        fail(x + " -> " + value + " but " + other + " is nearer");
      }
      if (error == otherError && value != other && (magnitude & 1) != 0) {
        fail("tie for " + x + " must go to the even pattern, got " + Integer.toHexString(r));
      }
    }
  }

  private static double widen(int bits, boolean half) {
    return half ? HalfPrecision.halfToFloat((short) bits) : HalfPrecision.bf16ToFloat((short) bits);
  }

  @Test
  void halfWideningMatchesPytorchForAllPatterns() {
    ByteBuffer buf = ByteBuffer.allocateDirect(65536 * 2).order(ByteOrder.nativeOrder());
    for (int h = 0; h < 65536; h++) {
      buf.putShort((short) h);
    }
    buf.rewind();
    try (NDManager m = manager.newSubManager();
        NDArray halves = m.create(buf, new Shape(65536), DataType.FLOAT16)) {
      float[] torch = halves.toType(DataType.FLOAT32, false).toFloatArray();
      for (int h = 0; h < 65536; h++) {
        float mine = HalfPrecision.halfToFloat((short) h);
        if (Float.isNaN(torch[h])) {
          assertThat(mine).as("pattern %04x", h).isNaN();
        } else {
          assertThat(Float.floatToRawIntBits(mine)).as("pattern %04x", h).isEqualTo(Float.floatToRawIntBits(torch[h]));
        }
      }
    }
  }

  @Test
  void halfNarrowingMatchesPytorch() {
    SplittableRandom random = new SplittableRandom(11);
    int n = 100_000;
    float[] values = new float[n];
    for (int i = 0; i < n; i++) {
      switch (i % 3) {
        case 0:
          values[i] = Float.intBitsToFloat(random.nextInt());
          break;
        case 1: // around the subnormal range
          values[i] = (float) (random.nextDouble(-1, 1) * Math.pow(2, -random.nextInt(10, 28)));
          break;
        default: // the normal range, including exact ties
          values[i] = HalfPrecision.halfToFloat((short) random.nextInt(0x7C00)) + (random.nextBoolean() ? 0 : 0x1p-11f);
          break;
      }
    }
    float[] specials = {0f, -0f, 65504f, 65519.99f, 65520f, 1e-8f, 0x1p-25f, 0x1p-24f, Float.MIN_VALUE,
        Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY};
    System.arraycopy(specials, 0, values, 0, specials.length);
    try (NDManager m = manager.newSubManager();
        NDArray floats = m.create(values)) {
      ShortBuffer torch = floats.toType(DataType.FLOAT16, false).toByteBuffer().asShortBuffer();
      for (int i = 0; i < n; i++) {
        short mine = HalfPrecision.floatToHalf(values[i]);
        if (Float.isNaN(values[i])) {
          assertThat(HalfPrecision.halfToFloat(mine)).isNaN();
          continue;
        }
        assertThat(mine).as("value %s (%08x)", values[i], Float.floatToRawIntBits(values[i]))
            .isEqualTo(torch.get(i));
      }
    }
  }

  /** Plain bit-level rounding to half precision: the reference the fast conversion must agree with. */
  private static int referenceFloatBitsToHalf(int bits) {
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
      int full = mantissa | 0x800000; // a subnormal half counts units of 2^-24: full >> (14 - e) of them
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
      result++;
    }
    return sign | result;
  }

  @Test
  void fastNarrowingAgreesWithBitLevelRounding() {
    // a stride through all float patterns, plus every pattern near the half range's edges
    for (long i = 0; i < (1L << 32); i += 4099) {
      checkAgainstReference((int) i);
    }
    for (int exponent : new int[] {0x66, 0x67, 0x70, 0x71, 0x8E, 0x8F}) {
      for (int mantissa = 0; mantissa < (1 << 23); mantissa += 7) {
        checkAgainstReference((exponent << 23) | mantissa);
        checkAgainstReference(0x80000000 | (exponent << 23) | mantissa);
      }
    }
  }

  @Test
  void fastNarrowingAgreesWithBitLevelRoundingOnAllInputs() {
    assumeTrue(Boolean.getBoolean("mage.test.exhaustive"), "opt-in (about 15 s): -Dmage.test.exhaustive=true");
    int i = 0;
    do {
      checkAgainstReference(i);
      i++;
    } while (i != 0);
  }

  private static void checkAgainstReference(int bits) {
    int fast = HalfPrecision.floatBitsToHalf(bits);
    int reference = referenceFloatBitsToHalf(bits);
    if (fast != reference) {
      fail("float bits " + Integer.toHexString(bits) + ": got " + Integer.toHexString(fast) + ", expected "
          + Integer.toHexString(reference));
    }
  }

  private static float roundTripHalf(float x) {
    return HalfPrecision.halfToFloat(HalfPrecision.floatToHalf(x));
  }

  private static float roundTripBf16(float x) {
    return HalfPrecision.bf16ToFloat(HalfPrecision.floatToBf16(x));
  }
}
