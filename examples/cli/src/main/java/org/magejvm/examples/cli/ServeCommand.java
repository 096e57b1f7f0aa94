package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.serve.CompletionServer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code mage serve}: a checkpoint on an OpenAI-compatible HTTP API, until the process is stopped. */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Serve a Qwen3 checkpoint directory (optionally with a PEFT LoRA adapter) on OpenAI-compatible"
        + " POST /v1/completions and /v1/chat/completions, with the sampled token ids and log-probabilities,"
        + " GET /v1/models and GET /health, until stopped (Ctrl-C). Concurrent requests are batched into one"
        + " generation call. See docs/serving.md."})
final class ServeCommand implements Callable<Integer> {

  /** Called with the running server (tests stop it through this). */
  static volatile Consumer<CompletionServer> onStart = s -> { };

  @Option(names = "--model", required = true, paramLabel = "DIR",
      description = "Hugging Face checkpoint directory (config, safetensors, tokenizer).")
  Path model;

  @Option(names = "--adapter", paramLabel = "DIR",
      description = "A PEFT LoRA adapter directory to attach (as saved by mage lora --out).")
  Path adapter;

  @Option(names = "--host", paramLabel = "H", defaultValue = "127.0.0.1",
      description = "Address to bind (default: ${DEFAULT-VALUE}; 0.0.0.0 serves every interface: give --api-key"
          + " then).")
  String host;

  @Option(names = "--port", paramLabel = "N", defaultValue = "8000",
      description = "Port (default: ${DEFAULT-VALUE}; 0 picks a free one and prints it).")
  int port;

  @Option(names = "--served-model-name", paramLabel = "NAME",
      description = "The model name requests use (default: the checkpoint directory's name).")
  String servedModelName;

  @Option(names = "--max-batch", paramLabel = "N", defaultValue = "32",
      description = "Most requests in one generation call (default: ${DEFAULT-VALUE}).")
  int maxBatch;

  @Option(names = "--batch-window-ms", paramLabel = "MS", defaultValue = "5",
      description = "How long to wait for more requests after the first of a batch (default: ${DEFAULT-VALUE}).")
  int batchWindowMs;

  @Option(names = "--max-body-bytes", paramLabel = "N", defaultValue = "1048576",
      description = "Largest request body; larger ones get 413 (default: ${DEFAULT-VALUE}).")
  long maxBodyBytes;

  @Option(names = "--max-prompt-tokens", paramLabel = "N",
      defaultValue = "" + DjlLanguagePolicy.DEFAULT_MAX_PROMPT_TOKENS,
      description = "Longest prompt; longer ones get 400 context_length_exceeded (default: ${DEFAULT-VALUE}).")
  int maxPromptTokens;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "0",
      description = "Seed of the stream that seeds requests sent without one (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--enable-lora",
      description = "Serve vLLM's POST /v1/load_lora_adapter and /v1/unload_lora_adapter: requests naming a loaded"
          + " adapter as their model generate with it (as vLLM with --enable-lora and"
          + " VLLM_ALLOW_RUNTIME_LORA_UPDATING=True).")
  boolean enableLora;

  @Option(names = "--max-loras", paramLabel = "N", defaultValue = "8",
      description = "With --enable-lora: most adapters loaded at once (default: ${DEFAULT-VALUE}).")
  int maxLoras;

  @Option(names = "--no-thinking", description = "Render chat requests with enable_thinking=false.")
  boolean noThinking;

  @Option(names = "--threads", paramLabel = "T", description = "libtorch threads (default: one per core).")
  Integer threads;

  @Mixin ModelOptions modelOptions;

  @Mixin HttpLimitOptions httpLimits;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    Limits.range(spec, "--port", port, 0, 65535, "the largest TCP port");
    Limits.range(spec, "--max-batch", maxBatch, 1, 4096, "a sane bound");
    Limits.range(spec, "--batch-window-ms", batchWindowMs, 0, 10_000, "ten seconds");
    Limits.range(spec, "--max-body-bytes", maxBodyBytes, 1024, 1L << 30, "1 GiB");
    Limits.range(spec, "--max-loras", maxLoras, 1, 1024, "a sane bound");
    int context = Limits.modelConfig(model).maxPositionEmbeddings();
    Limits.range(spec, "--max-prompt-tokens", maxPromptTokens, 1, context,
        "the model's context, max_position_embeddings in " + model.resolve("config.json"));
    if (adapter != null && !Files.isDirectory(adapter)) {
      throw new IllegalArgumentException("--adapter " + adapter + (Files.exists(adapter) ? " is not a directory"
          : " does not exist"));
    }
    boolean loopback;
    try {
      loopback = InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw Limits.usage(spec, "--host: unknown host '" + host + "'");
    }
    org.magejvm.impl.http.HttpLimits limits = httpLimits.toLimits(spec, maxBodyBytes);
    String apiKey = httpLimits.apiKey(spec);
    LibtorchThreads.apply(threads);
    Qwen3Checkpoint.Options options = modelOptions.toOptions(seed, !noThinking)
        .withPromptLimit(maxPromptTokens, DjlLanguagePolicy.PromptOverflow.FAIL);
    DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(model, options, adapter);
    CompletionServer.Builder b = CompletionServer.builder().setPolicy(policy, true).optHost(host).optPort(port)
        .optMaxBatch(maxBatch).optBatchWindow(Duration.ofMillis(batchWindowMs)).optMaxBodyBytes(maxBodyBytes)
        .optHttpLimits(limits).optApiKey(apiKey).optSeed(seed).optEnableLora(enableLora).optMaxAdapters(maxLoras);
    if (servedModelName != null) {
      b.optModelName(servedModelName);
    }
    CompletionServer server;
    try {
      server = b.start();
    } catch (RuntimeException e) {
      policy.close();
      throw e;
    }
    Thread hook = new Thread(server::close, "mage-serve-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    PrintWriter out = spec.commandLine().getOut();
    out.println("serving '" + server.modelName() + "' (" + model + (adapter == null ? "" : " with adapter "
        + adapter) + ") on " + server.baseUrl() + ": POST /v1/completions, POST /v1/chat/completions,"
        + " GET /v1/models, GET /health" + (enableLora ? ", POST /v1/load_lora_adapter, POST"
        + " /v1/unload_lora_adapter" : "") + "; Ctrl-C stops");
    out.flush();
    if (!loopback && apiKey == null) {
      spec.commandLine().getErr().println("warning: listening on " + host + " without an API key (--api-key): anyone who"
          + " can reach this port can generate with the model");
      spec.commandLine().getErr().flush();
    }
    onStart.accept(server);
    try {
      server.awaitClose();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it closes the server
      }
      server.close();
    }
    CompletionServer.Stats s = server.stats();
    out.printf(java.util.Locale.ROOT, "stopped after %d generation calls, %d requests (mean batch %.2f, largest"
        + " %d, %d failed calls)%n", s.batches(), s.rows(), s.meanBatch(), s.largestBatch(),
        s.generationFailures());
    out.flush();
    return 0;
  }
}
