package org.magejvm.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.magejvm.impl.llm.text.ChatMessage;
import org.magejvm.impl.llm.text.ChatTemplate;
import org.magejvm.impl.llm.text.ChatTemplates;
import org.magejvm.impl.llm.text.HfTokenizer;
import org.magejvm.impl.llm.text.TinyTokenizer;

/**
 * Measures tokenizer and chat-template speed: single-text encode throughput, batched encode throughput, decode
 * throughput, and chat-template renders per second.
 *
 * <p>Usage: {@code TokenizerBench [tokenizerDir]}. Without an argument it builds the tiny tokenizer (300 merges)
 * in a temporary directory; with one it loads that checkpoint directory (for example Qwen3's tokenizer files).
 * Run with {@code -Dai.djl.offline=true}.
 */
public final class TokenizerBench {

  private TokenizerBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args optional tokenizer directory
   * @throws IOException when the temporary directory cannot be written
   */
  public static void main(String[] args) throws IOException {
    Path dir;
    if (args.length > 0) {
      dir = Path.of(args[0]);
    } else {
      dir = Files.createTempDirectory("tiny-tokenizer");
      TinyTokenizer.builder().optCorpus(sampleText(2)).optMaxMerges(300).build().writeTo(dir);
    }
    String text = sampleText(20);
    try (HfTokenizer tok = HfTokenizer.load(dir)) {
      ChatTemplate template = ChatTemplates.forCheckpoint(dir);
      System.out.printf("tokenizer: %s (vocab %d), text of %d chars -> %d tokens%n", dir, tok.vocabSize(),
          text.length(), tok.encode(text).length);
      for (int round = 0; round < 2; round++) {
        String label = round == 0 ? "warm-up" : "measured";
        long tokens = 0;
        long t0 = System.nanoTime();
        int reps = 200;
        for (int i = 0; i < reps; i++) {
          tokens += tok.encode(text).length;
        }
        double encodeS = (System.nanoTime() - t0) / 1e9;
        List<String> batch = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          batch.add(text + " #" + i);
        }
        long batchTokens = 0;
        t0 = System.nanoTime();
        for (int i = 0; i < reps / 16; i++) {
          for (int[] ids : tok.encodeBatch(batch)) {
            batchTokens += ids.length;
          }
        }
        double batchS = (System.nanoTime() - t0) / 1e9;
        int[] ids = tok.encode(text);
        t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
          tok.decode(ids, true);
        }
        double decodeS = (System.nanoTime() - t0) / 1e9;
        List<ChatMessage> msgs = List.of(ChatMessage.user(text));
        t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
          template.render(msgs, true);
        }
        double renderS = (System.nanoTime() - t0) / 1e9;
        System.out.printf("%s: encode %.0f tokens/s (1 text at a time), encodeBatch(16) %.0f tokens/s, "
            + "decode %.0f tokens/s, chat template %.0f renders/s (%s)%n", label, tokens / encodeS,
            batchTokens / batchS, (double) ids.length * reps / decodeS, reps / renderS,
            template.getClass().getSimpleName());
      }
    }
  }

  private static String sampleText(int paragraphs) {
    String p = "You are playing Tic-Tac-Toe as X against an opponent. The board is:\n A B C\n1 . X .\n2 . O .\n"
        + "3 . . .\nThink about the opponent's habits from your earlier episodes, then answer with your move "
        + "inside <action></action> tags, for example <action>C3</action>. Reflection: on trial #1 the opponent "
        + "blocked the diagonal, so I should build two threats at once. Überlegung: 先手を取る 😀.\n";
    return p.repeat(paragraphs);
  }
}
