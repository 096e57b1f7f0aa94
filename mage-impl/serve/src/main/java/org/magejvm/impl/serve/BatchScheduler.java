package org.magejvm.impl.serve;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.magejvm.api.FinishReason;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.generate.GeneratedSequence;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.generate.TokenGenerator;
import org.magejvm.impl.llm.generate.TopLogProbs;
import org.magejvm.impl.llm.model.ProjectionAdapter;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.serve.Job.Delta;
import org.magejvm.impl.serve.Job.Done;
import org.magejvm.impl.serve.Job.Started;
import org.magejvm.impl.serve.Job.Top;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batching scheduler: the queue of waiting rows, the one generation thread that owns the model and generates
 * them in batches (running adapter changes between two batches), and the counters of {@link CompletionServer.Stats}.
 */
final class BatchScheduler {

  /** The server's log: what it writes is the same as before the server was split into classes. */
  private static final Logger LOG = LoggerFactory.getLogger(CompletionServer.class);

  private final DjlLanguagePolicy policy;
  private final String modelName;
  private final int maxBatch;
  private final long batchWindowNanos;
  private final int contextLength;
  /** The model whose adapter slot requests switch (with runtime LoRA), else null. */
  private final Qwen3Model loraModel;
  /** The adapter attached when the server started (served under the model name), or null. */
  private final ProjectionAdapter baseAdapter;
  private final Thread generation;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong rows = new AtomicLong();
  private final AtomicInteger largestBatch = new AtomicInteger();
  private final AtomicLong generationFailures = new AtomicLong();
  private final AtomicLong cancelledRows = new AtomicLong();
  private final AtomicLong generationNanos = new AtomicLong();
  private volatile boolean running = true;

  BatchScheduler(DjlLanguagePolicy policy, String modelName, int maxBatch, long batchWindowNanos, int contextLength,
      Qwen3Model loraModel, ProjectionAdapter baseAdapter) {
    this.policy = policy;
    this.modelName = modelName;
    this.maxBatch = maxBatch;
    this.batchWindowNanos = batchWindowNanos;
    this.contextLength = contextLength;
    this.loraModel = loraModel;
    this.baseAdapter = baseAdapter;
    this.generation = new Thread(this::generationLoop, "mage-serve-generation");
    generation.setDaemon(true);
  }

  /** Starts the generation thread. */
  void start() {
    generation.start();
  }

  /** Whether requests are still taken (not yet closing). */
  boolean isRunning() {
    return running;
  }

  /** @return the rows (and adapter changes) waiting for the generation thread */
  int queued() {
    return queue.size();
  }

  /** Whether the generation thread still runs. */
  boolean isAlive() {
    return generation.isAlive();
  }

  /** Refuses requests from now on; the generation thread ends after its batch once {@link #shutdown} is called. */
  void stopAccepting() {
    running = false;
  }

  /** Stops at once, when the server could not start. */
  void abort() {
    running = false;
    generation.interrupt();
  }

  /**
   * Interrupts the generation thread, waits (up to 5 minutes) for the batch being generated to finish, and answers
   * the requests still queued with 503.
   */
  void shutdown() {
    generation.interrupt();
    try {
      generation.join(TimeUnit.MINUTES.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Pending p; (p = queue.poll()) != null; ) {
      p.fail(HttpError.shuttingDown());
    }
  }

  /** @return counters of the generation calls so far */
  CompletionServer.Stats stats() {
    return new CompletionServer.Stats(batches.get(), rows.get(), largestBatch.get(), generationFailures.get(),
        generationNanos.get(), cancelledRows.get());
  }

  // ---------------------------------------------------------------- requests and their rows

  /**
   * Queues the request's {@code n} rows, choice {@code i} with seed {@link Qwen3Generator#rowSeed rowSeed(seed, i)}.
   */
  Job submit(Job.Prompt source, Ask ask) {
    if (!running) {
      throw HttpError.shuttingDown();
    }
    Job job = new Job(source, ask);
    List<Pending> rowsOfJob = new ArrayList<>(ask.n());
    for (int i = 0; i < ask.n(); i++) {
      rowsOfJob.add(new Pending(job, i, Qwen3Generator.rowSeed(ask.seed(), i), null));
    }
    queue.addAll(rowsOfJob);
    return job;
  }

  /**
   * A request's row waiting for generation, or (with {@code control}) an adapter change to run on the generation
   * thread between two batches, whose result is null.
   */
  private static final class Pending {
    final Job job;
    final int index;
    final long seed;
    final Runnable control;
    final CompletableFuture<Void> result = new CompletableFuture<>();
    int[] ids;

    Pending(Job job, int index, long seed, Runnable control) {
      this.job = job;
      this.index = index;
      this.seed = seed;
      this.control = control;
    }

    SamplingConfig sampling() {
      return job.ask.sampling();
    }

    LoraEndpoints.Served adapter() {
      return job.ask.adapter();
    }

    /** Whether {@code p} may share this row's generation call. */
    boolean batchesWith(Pending p) {
      return p.control == null && p.sampling().equals(sampling()) && p.adapter() == adapter();
    }

    /** Tells the waiting handler that this row (or adapter change) failed. */
    void fail(HttpError e) {
      if (control != null) {
        result.completeExceptionally(e);
      } else {
        job.events.add(e);
      }
    }
  }

  /** Runs an adapter change on the generation thread between two batches and waits for it. */
  void runControl(Runnable change) {
    if (!running) {
      throw HttpError.shuttingDown();
    }
    Pending p = new Pending(null, 0, 0, change);
    queue.add(p);
    try {
      p.result.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw HttpError.shuttingDown();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof HttpError) {
        throw (HttpError) e.getCause();
      }
      throw new HttpError(500, "server_error", null, null, "the adapter change failed: " + e.getCause());
    }
  }

  private static void runControl(Pending p) {
    try {
      p.control.run();
      p.result.complete(null);
    } catch (RuntimeException | Error e) {
      p.result.completeExceptionally(e);
    }
  }

  // ---------------------------------------------------------------- the generation thread

  private void generationLoop() {
    ArrayDeque<Pending> deferred = new ArrayDeque<>();
    while (running) {
      try {
        Pending first = deferred.isEmpty() ? queue.poll(100, TimeUnit.MILLISECONDS) : deferred.poll();
        if (first == null) {
          continue;
        }
        if (first.control != null) {
          runControl(first);
          continue;
        }
        List<Pending> batch = new ArrayList<>();
        batch.add(first);
        boolean control = false;
        for (var it = deferred.iterator(); it.hasNext() && batch.size() < maxBatch; ) {
          Pending p = it.next();
          if (p.control != null) {
            control = true;   // an adapter change waits: requests after it go in a later batch
            break;
          }
          if (first.batchesWith(p)) {
            batch.add(p);
            it.remove();
          }
        }
        long deadline = System.nanoTime() + batchWindowNanos;
        while (!control && batch.size() < maxBatch) {
          long left = deadline - System.nanoTime();
          Pending p = left <= 0 ? queue.poll() : queue.poll(left, TimeUnit.NANOSECONDS);
          if (p == null) {
            break;
          }
          if (first.batchesWith(p)) {
            batch.add(p);
          } else {
            deferred.add(p);
            control = p.control != null;
          }
        }
        generate(batch);
      } catch (InterruptedException e) {
        if (!running) {
          break;
        }
      } catch (RuntimeException | Error e) {
        // generate() answers its own failures; this is a bug in the loop itself: log it and keep serving
        LOG.error("the generation loop failed; going on", e);
      }
    }
    for (Pending p : deferred) {
      p.fail(HttpError.shuttingDown());
    }
    if (loraModel != null) {
      loraModel.setAdapter(baseAdapter);
    }
  }

  private void generate(List<Pending> batch) {
    long start = System.nanoTime();
    try {
      generateTimed(batch);
    } finally {
      generationNanos.addAndGet(System.nanoTime() - start);
    }
  }

  private void generateTimed(List<Pending> batch) {
    LoraEndpoints.Served adapter = batch.get(0).adapter();
    if (adapter != null && adapter.unloaded) {
      HttpError gone = new HttpError(404, "not_found_error", "model", "model_not_found", "the lora adapter '"
          + adapter.name + "' was unloaded before this request was generated");
      batch.forEach(p -> p.fail(gone));
      return;
    }
    if (loraModel != null) {
      loraModel.setAdapter(adapter == null ? baseAdapter : adapter.adapter);
    }
    String served = adapter == null ? modelName : adapter.name;
    List<Pending> ready = new ArrayList<>(batch.size());
    int limit = policy.promptLimit();
    for (Pending p : batch) {
      if (p.job.cancelled) {
        cancelledRows.incrementAndGet();
        continue;
      }
      try {
        int[] ids = p.job.prompt();
        if (ids.length == 0) {
          throw HttpError.badRequest("prompt", "invalid_value", "the prompt encodes to no tokens");
        }
        if (ids.length > contextLength) {
          throw HttpError.badRequest("prompt", "context_length_exceeded",
              Qwen3Config.promptTooLong(String.valueOf(ids.length), contextLength));
        }
        if (ids.length > limit) {
          throw HttpError.badRequest("prompt", "context_length_exceeded", "the prompt is " + ids.length
              + " tokens, more than this server's prompt limit of " + limit + " tokens");
        }
        if ((long) ids.length + p.sampling().maxNewTokens() > contextLength) {
          throw HttpError.badRequest("max_tokens", "context_length_exceeded", "this model's maximum context length"
              + " is " + contextLength + " tokens; the prompt is " + ids.length + " tokens and max_tokens "
              + p.sampling().maxNewTokens());
        }
        p.ids = ids;
        ready.add(p);
      } catch (HttpError e) {
        p.fail(e);
      } catch (RuntimeException e) {
        p.fail(HttpError.badRequest("prompt", "invalid_value", "the prompt could not be prepared: "
            + e.getMessage()));
      }
    }
    if (ready.isEmpty()) {
      return;
    }
    List<int[]> prompts = new ArrayList<>(ready.size());
    long[] rowSeeds = new long[ready.size()];
    RowText[] texts = new RowText[ready.size()];
    List<List<TopLogProbs>> rowTops = new ArrayList<>(ready.size());
    boolean follow = false;
    int topK = 0;
    for (int i = 0; i < ready.size(); i++) {
      Pending p = ready.get(i);
      topK = Math.max(topK, p.job.ask.topLogprobs());
      rowTops.add(new ArrayList<>());
      prompts.add(p.ids);
      rowSeeds[i] = p.seed;
      p.job.events.add(new Started(p.index, p.ids, served));
      if (p.job.followsText()) {
        texts[i] = new RowText(ids -> policy.tokenizer().decodeGenerated(ids, true), policy.stopTokenIds(),
            p.job.ask.stops(), p.job.ask.includeStop());
        follow = true;
      }
    }
    batches.incrementAndGet();
    rows.addAndGet(ready.size());
    largestBatch.accumulateAndGet(ready.size(), Math::max);
    List<GeneratedSequence> out;
    try {
      TokenGenerator.TokenListener listener = !follow ? null : new TokenGenerator.TokenListener() {
        @Override
        public boolean onToken(int row, int token, float logProb) {
          return onToken(row, token, logProb, null);
        }

        @Override
        public boolean onToken(int row, int token, float logProb, TopLogProbs top) {
          rowTops.get(row).add(top);
          return follow(ready.get(row), texts[row], rowTops.get(row), token, logProb);
        }
      };
      out = topK > 0
          ? policy.generator().generate(prompts, ready.get(0).sampling(), policy.stopTokenIds(), rowSeeds, listener,
              topK)
          : follow
          ? policy.generator().generate(prompts, ready.get(0).sampling(), policy.stopTokenIds(), rowSeeds, listener)
          : policy.generator().generate(prompts, ready.get(0).sampling(), policy.stopTokenIds(), rowSeeds);
      if (out == null || out.size() != ready.size()) {
        throw new IllegalStateException("the generator returned " + (out == null ? "null" : out.size())
            + " sequences for " + ready.size() + " prompts");
      }
    } catch (RuntimeException | Error e) {
      generationFailures.incrementAndGet();
      LOG.error("generation of a batch of {} failed; answering 500 and going on", ready.size(), e);
      HttpError err = new HttpError(500, "server_error", null, "generation_failed", "generation failed: " + e);
      ready.forEach(p -> p.fail(err));
      return;
    }
    for (int i = 0; i < ready.size(); i++) {
      Pending p = ready.get(i);
      if (p.job.cancelled) {
        continue;
      }
      try {
        p.job.events.add(texts[i] == null ? done(p, out.get(i), served) : done(p, out.get(i), texts[i], served));
      } catch (RuntimeException e) {
        p.fail(new HttpError(500, "server_error", null, "decode_failed", "decoding the response failed: " + e));
      }
    }
  }

  /** The generation listener of a followed row: finds stop strings, hands out streamed parts, drops cancelled rows. */
  private boolean follow(Pending p, RowText text, List<TopLogProbs> tops, int token, float logProb) {
    if (text == null) {
      return true;
    }
    if (p.job.cancelled) {
      cancelledRows.incrementAndGet();
      return false;
    }
    try {
      boolean goOn = text.add(token, logProb);
      if (goOn && p.job.ask.stream()) {
        RowText.Part part = text.next(false);
        if (!part.isEmpty()) {
          p.job.events.add(delta(p, text, tops, part));
        }
      }
      return goOn;
    } catch (RuntimeException e) {
      // a decoding failure ends this row only; done() reports it
      LOG.warn("following the text of a row failed; ending the row", e);
      return false;
    }
  }

  private Delta delta(Pending p, RowText text, List<TopLogProbs> tops, RowText.Part part) {
    int[] ids = text.ids(part.fromToken(), part.toToken());
    return new Delta(p.index, part.text(), ids, text.logProbs(part.fromToken(), part.toToken()), tokenTexts(ids),
        tops(p, tops, part.fromToken(), part.toToken()));
  }

  /** The row's alternatives {@code [from, to)} cut to what its request asked for, decoded; null when none. */
  private Top[] tops(Pending p, List<TopLogProbs> all, int from, int to) {
    int k = p.job.ask.topLogprobs();
    if (k == 0) {
      return null;
    }
    if (all.size() < to) {
      throw new IllegalStateException("the generator gave alternatives for " + all.size() + " tokens of row "
          + p.index + ", not " + to);
    }
    Top[] out = new Top[to - from];
    for (int i = from; i < to; i++) {
      TopLogProbs t = all.get(i);
      if (t == null) {
        throw new IllegalStateException("the generator gave no alternatives for token " + i + " of row " + p.index);
      }
      t = t.first(k);
      int[] ids = t.tokenIds();
      out[i - from] = new Top(ids, t.logProbs(), tokenTexts(ids));
    }
    return out;
  }

  private String[] tokenTexts(int[] ids) {
    String[] texts = new String[ids.length];
    for (int j = 0; j < ids.length; j++) {
      texts[j] = policy.tokenizer().decodeGenerated(new int[] {ids[j]}, false);
    }
    return texts;
  }

  /** The answer of a row generated without following its text: the whole sequence. */
  private Done done(Pending p, GeneratedSequence s, String served) {
    int[] ids = s.tokenIds();
    return new Done(p.index, policy.tokenizer().decodeGenerated(s.contentTokenIds(), true), p.ids, ids, s.logProbs(),
        tokenTexts(ids), tops(p, s.topLogProbs(), 0, ids.length), s.finishReason(), null, served);
  }

  /**
   * The answer of a followed row: the text and tokens {@link RowText} kept, finish reason {@code stop} after a stop
   * string; a streamed row first gets its last part.
   */
  private Done done(Pending p, GeneratedSequence s, RowText text, String served) {
    if (text.count() != s.length()) {
      throw new IllegalStateException("the generator told " + text.count() + " tokens of row " + p.index
          + " but returned " + s.length());
    }
    if (p.job.ask.stream()) {
      RowText.Part part = text.next(true);
      if (!part.isEmpty()) {
        p.job.events.add(delta(p, text, s.topLogProbs(), part));
      }
    }
    int kept = text.kept();
    int[] ids = text.ids(0, kept);
    FinishReason finish = text.stopReason() != null ? FinishReason.STOP : s.finishReason();
    return new Done(p.index, text.answer(), p.ids, ids, text.logProbs(0, kept), tokenTexts(ids),
        tops(p, s.topLogProbs(), 0, kept), finish, text.stopReason(), served);
  }
}
