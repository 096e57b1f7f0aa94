package org.magejvm.impl.llm.text;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * GPT-2's byte-to-unicode table used by byte-level BPE: printable Latin-1 bytes stand for themselves, the other
 * 68 bytes are shifted to code points from U+0100 up (space becomes {@code Ġ}, newline {@code Ċ}).
 */
final class ByteLevel {

  /** The symbol of each byte value. */
  static final String[] SYMBOL = new String[256];
  /** The byte values in GPT-2's vocabulary order: printable bytes first, then the rest. */
  static final int[] ORDER = new int[256];

  static {
    List<Integer> bs = new ArrayList<>();
    for (int b = '!'; b <= '~'; b++) {
      bs.add(b);
    }
    for (int b = 0xA1; b <= 0xAC; b++) {
      bs.add(b);
    }
    for (int b = 0xAE; b <= 0xFF; b++) {
      bs.add(b);
    }
    int[] cp = new int[256];
    for (int b : bs) {
      cp[b] = b;
    }
    int next = 0;
    List<Integer> order = new ArrayList<>(bs);
    for (int b = 0; b < 256; b++) {
      if (!bs.contains(b)) {
        cp[b] = 256 + next++;
        order.add(b);
      }
    }
    for (int b = 0; b < 256; b++) {
      SYMBOL[b] = new String(Character.toChars(cp[b]));
      ORDER[b] = order.get(b);
    }
  }

  private ByteLevel() {}

  /** @return the symbols of the UTF-8 bytes of {@code text} */
  static List<String> symbols(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    List<String> out = new ArrayList<>(bytes.length);
    for (byte b : bytes) {
      out.add(SYMBOL[b & 0xFF]);
    }
    return out;
  }
}
