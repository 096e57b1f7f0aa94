package org.magejvm.impl.llm.safetensors;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The element types a safetensors header may name, with their sizes in bytes. Only {@link #F32}, {@link #F16} and
 * {@link #BF16} can be loaded as DJL arrays; the others are recognised so that a checkpoint holding them still opens,
 * and loading one of them fails with a clear message.
 */
public enum SafetensorsDtype {
  /** 64-bit IEEE float. */
  F64(8),
  /** 32-bit IEEE float. */
  F32(4),
  /** 16-bit IEEE float (half precision). */
  F16(2),
  /** bfloat16: the upper 16 bits of a 32-bit float. */
  BF16(2),
  /** 64-bit signed integer. */
  I64(8),
  /** 32-bit signed integer. */
  I32(4),
  /** 16-bit signed integer. */
  I16(2),
  /** 8-bit signed integer. */
  I8(1),
  /** 8-bit unsigned integer. */
  U8(1),
  /** Boolean, one byte per element. */
  BOOL(1),
  /** 16-bit unsigned integer. */
  U16(2),
  /** 32-bit unsigned integer. */
  U32(4),
  /** 64-bit unsigned integer. */
  U64(8),
  /** 8-bit float with 4 exponent and 3 mantissa bits. */
  F8_E4M3(1),
  /** 8-bit float with 5 exponent and 2 mantissa bits. */
  F8_E5M2(1),
  /** 8-bit power-of-two scale (exponent only). */
  F8_E8M0(1);

  private static final String KNOWN =
      Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", "));

  private final int byteSize;

  SafetensorsDtype(int byteSize) {
    this.byteSize = byteSize;
  }

  /** @return the size of one element in bytes */
  public int byteSize() {
    return byteSize;
  }

  /** @return whether {@link TensorSource#load} can convert this type to FLOAT32 or FLOAT16 */
  public boolean isLoadable() {
    return this == F32 || this == F16 || this == BF16;
  }

  /**
   * @param name a dtype string as written in a header, for example {@code BF16} (case-sensitive, as in the format)
   * @return the dtype, or empty when the string names none
   */
  public static Optional<SafetensorsDtype> parse(String name) {
    for (SafetensorsDtype d : values()) {
      if (d.name().equals(name)) {
        return Optional.of(d);
      }
    }
    return Optional.empty();
  }

  /** @return the names of all known dtypes, comma-separated, for messages */
  static String knownNames() {
    return KNOWN;
  }
}
