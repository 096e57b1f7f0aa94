package org.magejvm.impl.serve;

import java.util.concurrent.LinkedBlockingQueue;
import org.magejvm.api.FinishReason;

/**
 * One request on its way through the generation thread: its rows send what happens to them to {@link #events}
 * ({@link Started}, {@link Delta} for streamed requests, {@link Done}, or an {@link HttpError}), which the
 * request's handler thread reads.
 */
final class Job {
  final Prompt source;
  final Ask ask;
  final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
  /** Set when the handler stopped listening (its client went away, or one row failed); its rows are dropped. */
  volatile boolean cancelled;
  /** The prompt's ids once a row has prepared them (generation thread only). */
  int[] promptIds;

  Job(Prompt source, Ask ask) {
    this.source = source;
    this.ask = ask;
  }

  /** The prompt's ids, computed once on the generation thread for all the rows. */
  int[] prompt() {
    if (promptIds == null) {
      promptIds = source.ids();
    }
    return promptIds;
  }

  /** Whether the generation thread follows the rows' text token by token. */
  boolean followsText() {
    return ask.stream() || !ask.stops().isEmpty();
  }

  void cancel() {
    cancelled = true;
  }

  /** @return the next event, waiting for it; 503 when the server shuts down meanwhile */
  Object next() {
    try {
      return events.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel();
      throw HttpError.shuttingDown();
    }
  }

  /** @return every row's answer, by choice index; throws the first row's failure */
  Done[] awaitAll() {
    Done[] out = new Done[ask.n()];
    for (int left = ask.n(); left > 0; ) {
      Object e = next();
      if (e instanceof HttpError) {
        cancel();
        throw (HttpError) e;
      }
      if (e instanceof Done) {
        Done d = (Done) e;
        out[d.index()] = d;
        left--;
      }
    }
    return out;
  }

  /** Produces a request's prompt token ids; runs on the generation thread (tokenizer and template included). */
  interface Prompt {
    int[] ids();
  }

  /** A row was taken into a batch: its prompt was accepted. */
  record Started(int index, int[] promptIds, String model) {}

  /** A streamed row's next part: text and the tokens whose text it completes (with their alternatives, or null). */
  record Delta(int index, String text, int[] tokenIds, float[] logProbs, String[] tokenTexts, Top[] tops) {}

  /** One token's alternatives as sent: ids, log-probabilities (largest first) and decoded texts. */
  record Top(int[] ids, float[] logProbs, String[] texts) {}

  /**
   * A row's answer.
   *
   * @param index the choice index
   * @param tokenIds the tokens kept (see {@link RowText} for a stop string)
   * @param tops each token's alternatives, or null when none were asked for
   * @param stopReason the stop string that ended it, or null
   */
  record Done(int index, String text, int[] promptIds, int[] tokenIds, float[] logProbs, String[] tokenTexts,
      Top[] tops, FinishReason finish, String stopReason, String model) {}
}
