package org.magejvm.impl.serve;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.magejvm.impl.llm.finetune.LoraAdapter;
import org.magejvm.impl.llm.finetune.PeftAdapters;
import org.magejvm.impl.llm.model.ProjectionAdapter;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * vLLM's runtime LoRA endpoints ({@code POST /v1/load_lora_adapter}, {@code POST /v1/unload_lora_adapter}) and the
 * adapters they loaded; each change runs on the generation thread between two batches.
 */
final class LoraEndpoints {

  /** The server's log: what it writes is the same as before the server was split into classes. */
  private static final Logger LOG = LoggerFactory.getLogger(CompletionServer.class);

  private final boolean enabled;
  private final int maxAdapters;
  private final String modelName;
  /** The model whose adapter slot requests switch (with runtime LoRA), else null. */
  private final Qwen3Model loraModel;
  /** The adapter attached when the server started (served under the model name), or null. */
  private final ProjectionAdapter baseAdapter;
  private final BatchScheduler scheduler;
  /** Adapters loaded at runtime, by name; written only on the generation thread. */
  private final Map<String, Served> adapters = new ConcurrentHashMap<>();

  LoraEndpoints(boolean enabled, int maxAdapters, String modelName, Qwen3Model loraModel,
      ProjectionAdapter baseAdapter, BatchScheduler scheduler) {
    this.enabled = enabled;
    this.maxAdapters = maxAdapters;
    this.modelName = modelName;
    this.loraModel = loraModel;
    this.baseAdapter = baseAdapter;
    this.scheduler = scheduler;
  }

  /** An adapter loaded at runtime. */
  static final class Served {
    final String name;
    final String path;
    final LoraAdapter adapter;
    volatile boolean unloaded;

    Served(String name, String path, LoraAdapter adapter) {
      this.name = name;
      this.path = path;
      this.adapter = adapter;
    }
  }

  /** Whether runtime LoRA loading is on (else the endpoints answer 404). */
  boolean enabled() {
    return enabled;
  }

  /** @return the adapter loaded under {@code name}, or null */
  Served get(String name) {
    return adapters.get(name);
  }

  boolean isEmpty() {
    return adapters.isEmpty();
  }

  /** @return the names of the adapters loaded, sorted */
  SortedSet<String> names() {
    return new TreeSet<>(adapters.keySet());
  }

  /** @return the adapters loaded */
  Collection<Served> loaded() {
    return adapters.values();
  }

  /** Detaches and closes every adapter loaded (once the generation thread has ended). */
  void closeAll() {
    if (loraModel != null) {
      loraModel.setAdapter(baseAdapter);
    }
    adapters.values().forEach(a -> a.adapter.close());
    adapters.clear();
  }

  /** {@code POST /v1/load_lora_adapter}: loads an adapter and returns the plain-text success line. */
  String load(JsonObject o) {
    String name = optionalString(o, "lora_name");
    String path = optionalString(o, "lora_path");
    if (name == null || name.isEmpty() || path == null || path.isEmpty()) {
      throw HttpError.badRequest(name == null || name.isEmpty() ? "lora_name" : "lora_path", "missing_field",
          "Both 'lora_name' and 'lora_path' must be provided.");
    }
    if (name.equals(modelName)) {
      throw HttpError.badRequest("lora_name", "invalid_value", "the lora adapter name '" + name + "' is the served"
          + " model's name; choose another");
    }
    Path dir;
    try {
      dir = Path.of(path);
    } catch (InvalidPathException e) {
      throw HttpError.badRequest("lora_path", "invalid_value", "'lora_path' is not a valid path: " + e.getMessage());
    }
    scheduler.runControl(() -> {
      if (adapters.containsKey(name)) {
        throw HttpError.badRequest("lora_name", "invalid_value", "The lora adapter '" + name + "' has already been"
            + " loaded.");
      }
      if (adapters.size() >= maxAdapters) {
        throw HttpError.badRequest("lora_name", "invalid_value", "this server holds at most " + maxAdapters
            + " adapters; unload one of " + names() + " first");
      }
      if (!Files.isDirectory(dir)) {
        throw new HttpError(404, "not_found_error", "lora_path", "adapter_not_found", "No adapter found at '" + path
            + "': " + (Files.exists(dir) ? "not a directory" : "no such directory on this server"));
      }
      LoraAdapter adapter;
      try {
        adapter = PeftAdapters.load(dir, loraModel);
        adapter.checkCompatible(loraModel.config(), loraModel.dtype(), loraModel.device());
      } catch (RuntimeException e) {
        throw HttpError.badRequest("lora_path", "invalid_adapter", "cannot load the lora adapter '" + name
            + "' from " + path + ": " + e.getMessage());
      }
      adapters.put(name, new Served(name, path, adapter));
      LOG.info("loaded LoRA adapter '{}' from {}", name, path);
    });
    return "Success: LoRA adapter '" + name + "' added successfully.";
  }

  /** {@code POST /v1/unload_lora_adapter}: unloads an adapter and returns the plain-text success line. */
  String unload(JsonObject o) {
    String name = optionalString(o, "lora_name");
    if (name == null || name.isEmpty()) {
      throw HttpError.badRequest("lora_name", "missing_field", "'lora_name' must be provided.");
    }
    scheduler.runControl(() -> {
      Served s = adapters.remove(name);
      if (s == null) {
        throw new HttpError(404, "not_found_error", "lora_name", "adapter_not_found", "The lora adapter '" + name
            + "' cannot be found.");
      }
      s.unloaded = true;
      if (loraModel.adapter().orElse(null) == s.adapter) {
        loraModel.setAdapter(baseAdapter);
      }
      s.adapter.close();
      LOG.info("unloaded LoRA adapter '{}'", name);
    });
    return "Success: LoRA adapter '" + name + "' removed successfully.";
  }

  private static String optionalString(JsonObject o, String field) {
    JsonElement e = Fields.present(o, field);
    return e == null ? null : Fields.string(e, field);
  }
}
