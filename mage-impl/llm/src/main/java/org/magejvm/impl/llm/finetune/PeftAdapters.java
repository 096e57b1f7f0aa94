package org.magejvm.impl.llm.finetune;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.magejvm.api.util.AtomicFiles;
import org.magejvm.impl.llm.model.Projection;
import org.magejvm.impl.llm.model.Qwen3Config;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.NonFiniteCheck;
import org.magejvm.impl.llm.safetensors.SafetensorsDtype;
import org.magejvm.impl.llm.safetensors.SafetensorsFile;
import org.magejvm.impl.llm.safetensors.SafetensorsWriter;
import org.magejvm.impl.llm.safetensors.TensorInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and writes LoRA adapters in the directory layout of Hugging Face PEFT ({@code PeftModel.save_pretrained} /
 * {@code PeftModel.from_pretrained}) for a {@code Qwen3ForCausalLM} base model: {@value #CONFIG_FILE} and
 * {@value #WEIGHTS_FILE}, with tensors named {@code base_model.model.model.layers.N.self_attn.q_proj.lora_A.weight}
 * and so on, and {@code {"format": "pt"}} as the safetensors metadata.
 *
 * <p>Only what this project computes is accepted when loading: a plain LoRA adapter ({@code peft_type} LORA, task
 * {@code CAUSAL_LM}) on any of the seven decoder projections, with one rank and one alpha for all of them. Anything
 * else PEFT can express (biases, DoRA, {@code modules_to_save}, per-layer ranks or alphas, layer selections,
 * regular-expression targets, initialisations that change the base weights, ...) fails with a
 * {@link CheckpointException} naming the file and the field, rather than loading into a model that would compute
 * something different from PEFT's.
 */
public final class PeftAdapters {
  private static final Logger LOG = LoggerFactory.getLogger(PeftAdapters.class);

  /** The adapter's configuration file. */
  public static final String CONFIG_FILE = "adapter_config.json";
  /** The adapter's weights file. */
  public static final String WEIGHTS_FILE = "adapter_model.safetensors";
  /** The PEFT release whose {@value #CONFIG_FILE} layout {@link #save} writes. */
  public static final String PEFT_VERSION = "0.18.1";
  /** The pickle weights file older PEFT versions write (not readable here). */
  public static final String PICKLE_WEIGHTS_FILE = "adapter_model.bin";

  /** Initialisations after which the adapter is relative to modified base weights. */
  private static final List<String> BASE_CHANGING_INITS = List.of("pissa", "olora", "loftq", "corda");

  private PeftAdapters() {}

  /**
   * Writes an adapter as PEFT does: {@value #CONFIG_FILE} (keys sorted, two-space indent) and {@value #WEIGHTS_FILE}
   * (A and B as F32; a FLOAT64 adapter is narrowed to float32). Existing files of those names are replaced.
   *
   * @param adapter the adapter
   * @param dir the directory (created if needed)
   * @throws CheckpointException when a file cannot be written
   */
  public static void save(LoraAdapter adapter, Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new CheckpointException("cannot create the adapter directory " + dir + ": " + e.getMessage(), e);
    }
    try (NDManager tmp = NDManager.newBaseManager(adapter.device(), "PyTorch")) {
      SafetensorsWriter writer = new SafetensorsWriter();
      for (Map.Entry<String, NDArray> e : adapter.trainableParameters().entrySet()) {
        NDArray a = e.getValue();
        if (a.getDataType() != DataType.FLOAT32) {
          a = a.toType(DataType.FLOAT32, false);
          a.attach(tmp);
        }
        writer.add(e.getKey(), a, SafetensorsDtype.F32);
      }
      writer.write(dir.resolve(WEIGHTS_FILE));
    } catch (UncheckedIOException e) {
      throw new CheckpointException(e.getMessage(), e);
    }
    writeText(dir.resolve(CONFIG_FILE), configJson(adapter.config()));
  }

  /**
   * The {@value #CONFIG_FILE} PEFT writes for a config: the 36 keys of PEFT {@value #PEFT_VERSION}'s
   * {@code LoraConfig} (PEFT 0.13 and later drop keys they do not know, with a warning, and fill in keys that are
   * missing; older versions refuse the newer keys), keys sorted, two-space indent, no trailing newline, as
   * {@code json.dumps(d, indent=2, sort_keys=True)}. The target modules are listed in the model's module order
   * (PEFT writes them in an arbitrary set order).
   *
   * @param config the LoRA hyper-parameters
   * @return the JSON text
   */
  public static String configJson(LoraConfig config) {
    Map<String, JsonElement> m = new TreeMap<>();
    m.put("alora_invocation_tokens", JsonNull.INSTANCE);
    m.put("alpha_pattern", new JsonObject());
    m.put("arrow_config", JsonNull.INSTANCE);
    m.put("auto_mapping", JsonNull.INSTANCE);
    m.put("base_model_name_or_path", config.baseModelNameOrPath().<JsonElement>map(JsonPrimitive::new)
        .orElse(JsonNull.INSTANCE));
    m.put("bias", new JsonPrimitive("none"));
    m.put("corda_config", JsonNull.INSTANCE);
    m.put("ensure_weight_tying", new JsonPrimitive(false));
    m.put("eva_config", JsonNull.INSTANCE);
    m.put("exclude_modules", JsonNull.INSTANCE);
    m.put("fan_in_fan_out", new JsonPrimitive(false));
    m.put("inference_mode", new JsonPrimitive(true));
    m.put("init_lora_weights", new JsonPrimitive(config.initLoraWeights()));
    m.put("layer_replication", JsonNull.INSTANCE);
    m.put("layers_pattern", JsonNull.INSTANCE);
    m.put("layers_to_transform", JsonNull.INSTANCE);
    m.put("loftq_config", new JsonObject());
    m.put("lora_alpha", number(config.alpha()));
    m.put("lora_bias", new JsonPrimitive(false));
    m.put("lora_dropout", new JsonPrimitive(config.dropout()));
    m.put("megatron_config", JsonNull.INSTANCE);
    m.put("megatron_core", new JsonPrimitive("megatron.core"));
    m.put("modules_to_save", JsonNull.INSTANCE);
    m.put("peft_type", new JsonPrimitive("LORA"));
    m.put("peft_version", new JsonPrimitive(PEFT_VERSION));
    m.put("qalora_group_size", new JsonPrimitive(16));
    m.put("r", new JsonPrimitive(config.rank()));
    m.put("rank_pattern", new JsonObject());
    m.put("revision", JsonNull.INSTANCE);
    JsonArray targets = new JsonArray();
    config.targetModules().stream().map(Projection::moduleName).forEach(targets::add);
    m.put("target_modules", targets);
    m.put("target_parameters", JsonNull.INSTANCE);
    m.put("task_type", new JsonPrimitive("CAUSAL_LM"));
    m.put("trainable_token_indices", JsonNull.INSTANCE);
    m.put("use_dora", new JsonPrimitive(false));
    m.put("use_qalora", new JsonPrimitive(false));
    m.put("use_rslora", new JsonPrimitive(config.useRslora()));
    JsonObject o = new JsonObject();
    m.forEach(o::add);
    return new GsonBuilder().setPrettyPrinting().serializeNulls().disableHtmlEscaping().create().toJson(o);
  }

  /** An integral value as an integer (PEFT's {@code lora_alpha} is usually an int), anything else as a double. */
  private static JsonPrimitive number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? new JsonPrimitive((long) v) : new JsonPrimitive(v);
  }

  private static void writeText(Path file, String text) {
    try {
      AtomicFiles.writeString(file, text);
    } catch (IOException e) {
      throw new CheckpointException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads and checks an adapter directory's {@value #CONFIG_FILE}.
   *
   * @param dir the adapter directory
   * @return the LoRA hyper-parameters
   * @throws CheckpointException naming the file and field when the file is missing, malformed, not a LoRA
   *     adapter, or uses an option this project does not implement
   */
  public static LoraConfig readConfig(Path dir) {
    requireDirectory(dir);
    Path file = dir.resolve(CONFIG_FILE);
    if (!Files.isRegularFile(file)) {
      throw new CheckpointException("adapter directory " + dir + " has no " + CONFIG_FILE
          + " (a PEFT adapter directory holds " + CONFIG_FILE + " and " + WEIGHTS_FILE + ")");
    }
    JsonObject o;
    try {
      JsonElement root = JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8));
      if (!root.isJsonObject()) {
        throw new CheckpointException(file + " must hold a JSON object at the top level");
      }
      o = root.getAsJsonObject();
    } catch (IOException e) {
      throw new CheckpointException("cannot read " + file + ": " + e.getMessage(), e);
    } catch (JsonParseException e) {
      throw new CheckpointException(file + " is not valid JSON: " + e.getMessage(), e);
    }
    return parseConfig(o, file);
  }

  private static LoraConfig parseConfig(JsonObject o, Path file) {
    String peftType = string(o, "peft_type", file);
    if (peftType == null) {
      throw new CheckpointException(file + ": field 'peft_type' is missing");
    }
    if (!peftType.equals("LORA")) {
      throw new CheckpointException(file + ": field 'peft_type' is " + peftType
          + "; only LORA adapters are supported");
    }
    String task = string(o, "task_type", file);
    if (task != null && !task.equals("CAUSAL_LM")) {
      throw new CheckpointException(file + ": field 'task_type' is " + task + "; only CAUSAL_LM adapters are "
          + "supported");
    }
    String bias = string(o, "bias", file);
    if (bias != null && !bias.equals("none")) {
      throw new CheckpointException(file + ": field 'bias' is '" + bias + "'; only bias \"none\" is supported "
          + "(the adapter would train the base model's biases)");
    }
    refuseTrue(o, "use_dora", file, "DoRA adapters are not supported");
    refuseTrue(o, "lora_bias", file, "LoRA biases on lora_B are not supported");
    refuseTrue(o, "use_qalora", file, "QA-LoRA adapters are not supported");
    refuseSet(o, "modules_to_save", file, "modules_to_save (fully trained copies of base modules) is not supported");
    refuseSet(o, "layers_to_transform", file, "adapting only some layers is not supported");
    refuseSet(o, "rank_pattern", file, "per-module ranks are not supported");
    refuseSet(o, "alpha_pattern", file, "per-module alphas are not supported");
    refuseSet(o, "layer_replication", file, "layer replication is not supported");
    refuseSet(o, "exclude_modules", file, "exclude_modules is not supported");
    refuseSet(o, "trainable_token_indices", file, "trainable token embeddings are not supported");
    refuseSet(o, "target_parameters", file, "adapting parameters (rather than modules) is not supported");
    refuseSet(o, "alora_invocation_tokens", file, "activated LoRA (aLoRA) is not supported");
    refuseSet(o, "arrow_config", file, "Arrow adapter routing is not supported");
    refuseSet(o, "lora_ga_config", file, "LoRA-GA is not supported");
    refuseTrue(o, "use_bdlora", file, "block-diagonal LoRA is not supported");
    JsonElement init = o.get("init_lora_weights");
    boolean initZeroB = true;
    if (init != null && !init.isJsonNull()) {
      if (init.isJsonPrimitive() && init.getAsJsonPrimitive().isBoolean()) {
        initZeroB = init.getAsBoolean();
      } else if (init.isJsonPrimitive() && init.getAsJsonPrimitive().isString()) {
        String how = init.getAsString().toLowerCase(Locale.ROOT);
        for (String changing : BASE_CHANGING_INITS) {
          if (how.startsWith(changing)) {
            throw new CheckpointException(file + ": field 'init_lora_weights' is '" + init.getAsString()
                + "': such an adapter is relative to modified base weights; convert it to a plain LoRA adapter "
                + "with PEFT first");
          }
        }
        // gaussian, eva, ...: only how the adapter started, the saved weights are all that matters now
      } else {
        throw new CheckpointException(file + ": field 'init_lora_weights' must be a boolean or a string, got "
            + init);
      }
    }
    if (Boolean.TRUE.equals(bool(o, "fan_in_fan_out", file))) {
      // PEFT itself resets it for torch.nn.Linear layers, with a warning
      LOG.warn("{}: fan_in_fan_out=true is ignored for the Linear projections of a Qwen3 model (as PEFT does)", file);
    }
    Integer r = integer(o, "r", file);
    if (r == null) {
      throw new CheckpointException(file + ": field 'r' is missing");
    }
    Double alpha = dbl(o, "lora_alpha", file);
    Double dropout = dbl(o, "lora_dropout", file);
    Boolean rslora = bool(o, "use_rslora", file);
    Set<Projection> targets = targets(o, file);
    String base = string(o, "base_model_name_or_path", file);
    try {
      return new LoraConfig(r, alpha == null ? LoraConfig.DEFAULT_ALPHA : alpha, dropout == null ? 0 : dropout,
          targets, Boolean.TRUE.equals(rslora), initZeroB, java.util.Optional.ofNullable(base));
    } catch (IllegalArgumentException e) {
      throw new CheckpointException(file + ": " + e.getMessage(), e);
    }
  }

  private static Set<Projection> targets(JsonObject o, Path file) {
    JsonElement t = o.get("target_modules");
    if (t == null || t.isJsonNull()) {
      throw new CheckpointException(file + ": field 'target_modules' is missing (PEFT fills it in before saving)");
    }
    if (t.isJsonPrimitive() && t.getAsJsonPrimitive().isString()) {
      if (t.getAsString().equals("all-linear")) {
        return EnumSet.allOf(Projection.class);
      }
      throw new CheckpointException(file + ": field 'target_modules' is the regular expression '" + t.getAsString()
          + "'; only a list of module names (" + Projection.moduleNames() + ") or \"all-linear\" is supported");
    }
    if (!t.isJsonArray()) {
      throw new CheckpointException(file + ": field 'target_modules' must be a list of module names, got " + t);
    }
    Set<Projection> out = EnumSet.noneOf(Projection.class);
    for (JsonElement e : t.getAsJsonArray()) {
      if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
        throw new CheckpointException(file + ": field 'target_modules' must hold strings, got " + e);
      }
      String name = e.getAsString();
      out.add(Projection.fromModuleName(name).orElseThrow(() -> new CheckpointException(file
          + ": field 'target_modules' names the unknown target module '" + name + "'; a Qwen3 adapter may target "
          + Projection.moduleNames())));
    }
    if (out.isEmpty()) {
      throw new CheckpointException(file + ": field 'target_modules' is empty");
    }
    return out;
  }

  private static void refuseTrue(JsonObject o, String field, Path file, String why) {
    if (Boolean.TRUE.equals(bool(o, field, file))) {
      throw new CheckpointException(file + ": field '" + field + "' is true: " + why);
    }
  }

  /** Fails when the field holds anything but null, an empty object, an empty list or an empty string. */
  private static void refuseSet(JsonObject o, String field, Path file, String why) {
    JsonElement e = o.get(field);
    boolean empty = e == null || e.isJsonNull()
        || (e.isJsonObject() && e.getAsJsonObject().size() == 0)
        || (e.isJsonArray() && e.getAsJsonArray().size() == 0)
        || (e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() && e.getAsString().isEmpty());
    if (!empty) {
      throw new CheckpointException(file + ": field '" + field + "' is " + e + ": " + why);
    }
  }

  private static String string(JsonObject o, String field, Path file) {
    JsonElement e = o.get(field);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
      throw new CheckpointException(file + ": field '" + field + "' must be a string, got " + e);
    }
    return e.getAsString();
  }

  private static Boolean bool(JsonObject o, String field, Path file) {
    JsonElement e = o.get(field);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isBoolean()) {
      throw new CheckpointException(file + ": field '" + field + "' must be true or false, got " + e);
    }
    return e.getAsBoolean();
  }

  private static Double dbl(JsonObject o, String field, Path file) {
    JsonElement e = o.get(field);
    if (e == null || e.isJsonNull()) {
      return null;
    }
    if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
      throw new CheckpointException(file + ": field '" + field + "' must be a number, got " + e);
    }
    return e.getAsDouble();
  }

  private static Integer integer(JsonObject o, String field, Path file) {
    Double d = dbl(o, field, file);
    if (d == null) {
      return null;
    }
    if (d != Math.rint(d) || Math.abs(d) > Integer.MAX_VALUE) {
      throw new CheckpointException(file + ": field '" + field + "' must be an integer, got " + o.get(field));
    }
    return d.intValue();
  }

  /**
   * Loads an adapter for a model (not attached: call {@code model.setAdapter(adapter)}), with dropout seed 0.
   *
   * @param dir the adapter directory
   * @param model the base model
   * @return the adapter, owning a new manager on the model's device
   * @throws CheckpointException naming the file and field or tensor when the directory is incomplete, malformed,
   *     uses an unsupported option, or does not fit the model
   */
  public static LoraAdapter load(Path dir, Qwen3Model model) {
    return load(dir, model.config(), model.dtype(), model.device(), 0);
  }

  /**
   * Loads an adapter for a model of the given architecture, weight type and device.
   *
   * @param dir the adapter directory
   * @param modelConfig the base model's architecture
   * @param modelDtype the base model's weight type (the adapter loads as FLOAT64 for FLOAT64, FLOAT32 otherwise)
   * @param device the base model's device
   * @param seed the seed of the adapter's dropout masks, should it be trained further
   * @return the adapter, owning a new manager on {@code device}
   * @throws CheckpointException naming the file and field or tensor when the directory is incomplete, malformed,
   *     uses an unsupported option, or does not fit the model
   */
  public static LoraAdapter load(Path dir, Qwen3Config modelConfig, DataType modelDtype, Device device, long seed) {
    LoraConfig config = readConfig(dir);
    Path weights = dir.resolve(WEIGHTS_FILE);
    if (!Files.isRegularFile(weights)) {
      throw new CheckpointException("adapter directory " + dir + " has no " + WEIGHTS_FILE
          + (Files.exists(dir.resolve(PICKLE_WEIGHTS_FILE)) ? " (it has " + PICKLE_WEIGHTS_FILE
              + ", PyTorch's pickle format, which is not read here: save the adapter with safe_serialization=True)"
              : ""));
    }
    DataType dtype = LoraAdapter.adapterDtype(modelDtype);
    try (SafetensorsFile file = SafetensorsFile.open(weights)) {
      Map<String, long[]> expected = expectedShapes(modelConfig, config);
      validate(file, expected, weights, config.rank());
      NDManager manager = NDManager.newBaseManager(device, "PyTorch");
      try {
        Map<String, NDArray> named = new LinkedHashMap<>();
        for (String name : expected.keySet()) {
          NDArray a = file.load(manager, name, DataType.FLOAT32, NonFiniteCheck.REFUSE);
          if (dtype != DataType.FLOAT32) {
            NDArray wide = a.toType(dtype, false);
            a.close();
            a = wide;
          }
          named.put(name, a);
        }
        return LoraAdapter.fromArrays(modelConfig, dtype, manager, config, named, seed);
      } catch (RuntimeException e) {
        manager.close();
        throw e;
      }
    }
  }

  /**
   * The tensors an adapter with this config has for a model of this architecture.
   *
   * @param modelConfig the base model's architecture
   * @param config the LoRA hyper-parameters
   * @return PEFT tensor name to shape, in the model's module order
   */
  public static Map<String, long[]> expectedShapes(Qwen3Config modelConfig, LoraConfig config) {
    Map<String, long[]> m = new LinkedHashMap<>();
    for (int l = 0; l < modelConfig.numHiddenLayers(); l++) {
      for (Projection p : config.targetModules()) {
        m.put(LoraAdapter.loraAName(l, p), new long[] {config.rank(), p.inFeatures(modelConfig)});
        m.put(LoraAdapter.loraBName(l, p), new long[] {p.outFeatures(modelConfig), config.rank()});
      }
    }
    return m;
  }

  private static void validate(SafetensorsFile file, Map<String, long[]> expected, Path path, int rank) {
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, long[]> e : expected.entrySet()) {
      if (!file.names().contains(e.getKey())) {
        missing.add(e.getKey());
        continue;
      }
      TensorInfo info = file.info(e.getKey());
      if (!Arrays.equals(info.shape(), e.getValue())) {
        throw new CheckpointException(path + ": tensor " + e.getKey() + " has shape " + Arrays.toString(info.shape())
            + " but r=" + rank + " in " + CONFIG_FILE + " and the base model's config imply "
            + Arrays.toString(e.getValue()));
      }
      if (SafetensorsDtype.parse(info.dtype()).map(d -> !d.isLoadable()).orElse(true)) {
        throw new CheckpointException(path + ": tensor " + e.getKey() + " has dtype " + info.dtype()
            + "; LoRA matrices must be F32, F16 or BF16");
      }
    }
    List<String> unexpected = new ArrayList<>();
    for (String n : new TreeSet<>(file.names())) {
      if (!expected.containsKey(n)) {
        unexpected.add(n);
      }
    }
    if (!missing.isEmpty() || !unexpected.isEmpty()) {
      StringBuilder msg = new StringBuilder(path.toString()).append(": ");
      if (!missing.isEmpty()) {
        msg.append("lacks ").append(missing.size()).append(" tensor(s) that ").append(CONFIG_FILE)
            .append(" and the base model imply: ").append(abbreviate(missing));
      }
      if (!unexpected.isEmpty()) {
        msg.append(missing.isEmpty() ? "" : "; ").append("holds ").append(unexpected.size())
            .append(" unexpected tensor(s) (not a LoRA matrix of a target module of a layer of this model): ")
            .append(abbreviate(unexpected));
      }
      throw new CheckpointException(msg.toString());
    }
  }

  private static String abbreviate(List<String> items) {
    int shown = Math.min(items.size(), 6);
    String s = String.join(", ", items.subList(0, shown));
    return items.size() > shown ? s + ", ... (" + (items.size() - shown) + " more)" : s;
  }

  private static void requireDirectory(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new CheckpointException("adapter directory " + dir + (Files.exists(dir) ? " is not a directory"
          : " does not exist"));
    }
  }
}
