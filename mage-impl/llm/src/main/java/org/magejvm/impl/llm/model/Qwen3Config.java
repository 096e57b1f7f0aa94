package org.magejvm.impl.llm.model;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalInt;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * The architecture hyper-parameters of a Qwen3-family decoder, as found in a Hugging Face {@code config.json}.
 *
 * <p>Three model types are understood. {@code qwen3} ({@code Qwen3ForCausalLM}) has an RMSNorm over each attention
 * head's queries and keys and, when {@code attention_bias} is set, biases on all four attention projections.
 * {@code qwen2} ({@code Qwen2ForCausalLM}) has no q/k norm and always has biases on the q, k and v projections but
 * not on the output projection. {@code llama} ({@code LlamaForCausalLM}) has no q/k norm and biases on all four
 * projections only when {@code attention_bias} is set. Rope scaling, sliding windows, MLP biases and activations
 * other than SiLU are rejected rather than silently ignored.
 *
 * <p>Defaults for absent optional fields follow the Hugging Face classes, with one exception asked for by this
 * project: an absent {@code head_dim} means {@code hidden_size / num_attention_heads} for every model type
 * (Hugging Face's {@code Qwen3Config} would use 128; a checkpoint that disagrees fails the weight-shape check).
 *
 * @param modelType {@code qwen3}, {@code qwen2} or {@code llama}
 * @param vocabSize rows of the embedding and of the output head
 * @param hiddenSize the residual stream width
 * @param intermediateSize the SwiGLU hidden width
 * @param numHiddenLayers the number of decoder layers
 * @param numAttentionHeads query heads
 * @param numKeyValueHeads key/value heads (grouped-query attention); divides {@code numAttentionHeads}
 * @param headDim the width of one head (even, for rotary embeddings)
 * @param rmsNormEps the epsilon inside every RMSNorm
 * @param ropeTheta the rotary embedding base
 * @param tieWordEmbeddings whether the output head reuses the embedding matrix
 * @param maxPositionEmbeddings the context length the model was trained for (informational; not enforced)
 * @param bosTokenId the beginning-of-sequence token, if the config names one
 * @param eosTokenIds the end-of-sequence tokens (possibly empty)
 * @param qkNorm whether each head's queries and keys pass an RMSNorm before the rotary embedding
 * @param attentionBias whether the q, k and v projections have biases
 * @param outputBias whether the attention output projection has a bias
 */
public record Qwen3Config(
    String modelType,
    int vocabSize,
    int hiddenSize,
    int intermediateSize,
    int numHiddenLayers,
    int numAttentionHeads,
    int numKeyValueHeads,
    int headDim,
    double rmsNormEps,
    double ropeTheta,
    boolean tieWordEmbeddings,
    int maxPositionEmbeddings,
    OptionalInt bosTokenId,
    List<Integer> eosTokenIds,
    boolean qkNorm,
    boolean attentionBias,
    boolean outputBias) {

  /** The file name used in messages when a config is parsed from a string. */
  public static final String FILE_NAME = "config.json";

  /**
   * The smallest {@code rope_theta} accepted. The rotary frequencies are {@code rope_theta^(-2i/head_dim)}: at or
   * above 1 they fall from 1 with the dimension, as every published model's do (Qwen3 uses 1e6, Llama 5e5, older
   * models 1e4); below 1 they grow, and a base such as 1e-300 overflows them to infinity, so the first forward pass
   * is NaN. Such a config is refused at load, naming {@code config.json} and the field.
   */
  public static final double MIN_ROPE_THETA = 1.0;

  /**
   * Validates the values.
   *
   * @param modelType model type
   * @param vocabSize vocabulary size
   * @param hiddenSize hidden size
   * @param intermediateSize MLP width
   * @param numHiddenLayers layers
   * @param numAttentionHeads query heads
   * @param numKeyValueHeads key/value heads
   * @param headDim head width
   * @param rmsNormEps norm epsilon
   * @param ropeTheta rotary base
   * @param tieWordEmbeddings tied output head
   * @param maxPositionEmbeddings trained context length
   * @param bosTokenId begin token
   * @param eosTokenIds end tokens
   * @param qkNorm per-head q/k norm
   * @param attentionBias q/k/v biases
   * @param outputBias output projection bias
   * @throws IllegalArgumentException naming the {@code config.json} field that is out of range
   */
  public Qwen3Config {
    Objects.requireNonNull(modelType, "modelType");
    Objects.requireNonNull(bosTokenId, "bosTokenId");
    eosTokenIds = List.copyOf(eosTokenIds);
    positive("vocab_size", vocabSize);
    positive("hidden_size", hiddenSize);
    positive("intermediate_size", intermediateSize);
    positive("num_hidden_layers", numHiddenLayers);
    positive("num_attention_heads", numAttentionHeads);
    positive("num_key_value_heads", numKeyValueHeads);
    positive("head_dim", headDim);
    positive("max_position_embeddings", maxPositionEmbeddings);
    if (numAttentionHeads % numKeyValueHeads != 0) {
      throw new IllegalArgumentException(
          "num_attention_heads (" + numAttentionHeads + ") must be divisible by num_key_value_heads ("
              + numKeyValueHeads + ")");
    }
    if (headDim % 2 != 0) {
      throw new IllegalArgumentException("head_dim must be even for rotary embeddings, got " + headDim);
    }
    if (!(rmsNormEps > 0) || Double.isInfinite(rmsNormEps)) {
      throw new IllegalArgumentException("rms_norm_eps must be finite and > 0, got " + rmsNormEps);
    }
    if (!(ropeTheta >= MIN_ROPE_THETA) || Double.isInfinite(ropeTheta)) {
      throw new IllegalArgumentException("rope_theta must be finite and >= " + MIN_ROPE_THETA + ", got " + ropeTheta
          + " (below 1 the rotary frequencies theta^(-2i/d) grow with i instead of falling, and a tiny base such as"
          + " 1e-300 overflows them to infinity; real models use 1e4 to 1e6)");
    }
    if (bosTokenId.isPresent() && bosTokenId.getAsInt() < 0) {
      throw new IllegalArgumentException("bos_token_id must be >= 0, got " + bosTokenId.getAsInt());
    }
    for (Integer eos : eosTokenIds) {
      if (eos < 0) {
        throw new IllegalArgumentException("eos_token_id must be >= 0, got " + eos);
      }
    }
  }

  private static void positive(String field, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(field + " must be > 0, got " + value);
    }
  }

  /**
   * The one check every path applies to a prompt before anything is allocated for it ({@code mage generate} before the
   * weights load, {@code mage logits}, {@code mage serve}'s requests, {@link
   * org.magejvm.impl.llm.generate.Qwen3Generator} as a backstop; a {@code DjlLanguagePolicy} applies its prompt
   * limit, at most this context, per request).
   *
   * @param promptTokens the prompt's length in tokens
   * @throws IllegalArgumentException with {@link #promptTooLong} when the prompt is longer than the context
   */
  public void checkPromptLength(long promptTokens) {
    if (promptTokens > maxPositionEmbeddings) {
      throw new IllegalArgumentException(promptTooLong(String.valueOf(promptTokens), maxPositionEmbeddings));
    }
  }

  /**
   * The one-line message of a prompt beyond the model's context.
   *
   * @param length the prompt's length as shown, such as {@code "600"} or {@code "at least 600"}
   * @param context the model's context in tokens
   * @return "the prompt is LENGTH tokens, more than the model's context of CONTEXT tokens (max_position_embeddings in
   *     config.json)"
   */
  public static String promptTooLong(String length, int context) {
    return "the prompt is " + length + " tokens, more than the model's context of " + context
        + " tokens (max_position_embeddings in config.json)";
  }

  /**
   * The one-line message of a prompt that its length in characters alone proves beyond the model's context.
   *
   * @param leastTokens the fewest tokens the prompt can take
   * @param characters its length in characters
   * @param context the model's context in tokens
   * @return "the prompt is at least N tokens (C characters), more than the model's context of CONTEXT tokens
   *     (max_position_embeddings in config.json)"
   */
  public static String promptTooLong(long leastTokens, int characters, int context) {
    return "the prompt is at least " + leastTokens + " tokens (" + characters + " characters), more than the model's"
        + " context of " + context + " tokens (max_position_embeddings in config.json)";
  }

  /** @return query heads per key/value head */
  public int groupSize() {
    return numAttentionHeads / numKeyValueHeads;
  }

  /** @return the number of parameters (the tied output head counted once) */
  public long parameterCount() {
    long d = hiddenSize;
    long q = (long) numAttentionHeads * headDim;
    long kv = (long) numKeyValueHeads * headDim;
    long perLayer = 2 * d // the two norms
        + d * q + 2 * d * kv + q * d // projections
        + 3 * d * intermediateSize;
    if (attentionBias) {
      perLayer += q + 2 * kv;
    }
    if (outputBias) {
      perLayer += d;
    }
    if (qkNorm) {
      perLayer += 2L * headDim;
    }
    long embed = (long) vocabSize * d;
    return embed + (tieWordEmbeddings ? 0 : embed) + d + numHiddenLayers * perLayer;
  }

  /**
   * Reads {@code config.json}.
   *
   * @param file the path of a {@code config.json}, or of a checkpoint directory holding one
   * @return the config
   * @throws CheckpointException naming the file and the field when it is unreadable, malformed or unsupported
   */
  public static Qwen3Config fromFile(Path file) {
    Path f = Files.isDirectory(file) ? file.resolve(FILE_NAME) : file;
    return fromJson(org.magejvm.impl.llm.checkpoint.CheckpointFiles.readSmallText(f), f.toString());
  }

  /**
   * Parses the text of a {@code config.json}.
   *
   * @param json the JSON text
   * @param source the file name to use in messages
   * @return the config
   * @throws CheckpointException naming the source and the field when it is malformed or unsupported
   */
  public static Qwen3Config fromJson(String json, String source) {
    JsonElement root;
    try {
      root = JsonParser.parseString(json);
    } catch (JsonParseException e) {
      throw new CheckpointException(source + " is not valid JSON: " + e.getMessage(), e);
    }
    if (!root.isJsonObject()) {
      throw new CheckpointException(source + " must hold a JSON object, got " + abbreviate(root));
    }
    org.magejvm.impl.llm.checkpoint.CheckpointFiles.requireNoDuplicateKeys(json, source);
    Fields f = new Fields(root.getAsJsonObject(), source);
    String type = f.modelType();
    int hidden = f.requiredInt("hidden_size");
    int heads = f.requiredInt("num_attention_heads");
    OptionalInt headDim = f.optionalInt("head_dim");
    if (headDim.isEmpty() && heads > 0 && hidden % heads != 0) {
      throw new CheckpointException(
          source + ": head_dim is absent and hidden_size (" + hidden + ") is not divisible by"
              + " num_attention_heads (" + heads + ")");
    }
    f.requireAbsentOrValue("hidden_act", "silu");
    f.requireFalse("use_sliding_window");
    f.requireFalse("mlp_bias");
    double ropeTheta = f.ropeTheta();
    boolean attentionBias = f.optionalBoolean("attention_bias", false);
    boolean qkNorm = type.equals("qwen3");
    boolean qkvBias = type.equals("qwen2") || attentionBias;
    boolean outBias = !type.equals("qwen2") && attentionBias;
    try {
      return new Qwen3Config(
          type,
          f.requiredInt("vocab_size"),
          hidden,
          f.requiredInt("intermediate_size"),
          f.requiredInt("num_hidden_layers"),
          heads,
          f.optionalInt("num_key_value_heads").orElse(heads),
          headDim.orElse(heads > 0 ? hidden / heads : 0),
          f.optionalDouble("rms_norm_eps", 1e-6),
          ropeTheta,
          f.optionalBoolean("tie_word_embeddings", false),
          f.optionalInt("max_position_embeddings").orElse(type.equals("llama") ? 2048 : 32768),
          f.optionalInt("bos_token_id"),
          f.eosTokenIds(),
          qkNorm,
          qkvBias,
          outBias);
    } catch (IllegalArgumentException e) {
      throw new CheckpointException(source + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes this config as a Hugging Face {@code config.json} that {@link #fromJson} reads back unchanged.
   *
   * @return pretty-printed JSON
   * @throws IllegalStateException when the q/k-norm and bias switches are not the ones the model type implies
   *     (Hugging Face configs cannot express other combinations)
   */
  public String toJson() {
    boolean impliedQkv = modelType.equals("qwen2") || attentionBias;
    boolean impliedOut = !modelType.equals("qwen2") && attentionBias;
    if (qkNorm != modelType.equals("qwen3") || attentionBias != impliedQkv || outputBias != impliedOut) {
      throw new IllegalStateException(
          "this " + modelType + " config (qkNorm=" + qkNorm + ", attentionBias=" + attentionBias
              + ", outputBias=" + outputBias + ") cannot be written as a Hugging Face config.json");
    }
    JsonObject o = new JsonObject();
    JsonArray arch = new JsonArray();
    arch.add(architectureOf(modelType));
    o.add("architectures", arch);
    o.addProperty("model_type", modelType);
    o.addProperty("vocab_size", vocabSize);
    o.addProperty("hidden_size", hiddenSize);
    o.addProperty("intermediate_size", intermediateSize);
    o.addProperty("num_hidden_layers", numHiddenLayers);
    o.addProperty("num_attention_heads", numAttentionHeads);
    o.addProperty("num_key_value_heads", numKeyValueHeads);
    o.addProperty("head_dim", headDim);
    o.addProperty("rms_norm_eps", rmsNormEps);
    o.addProperty("rope_theta", ropeTheta);
    o.addProperty("max_position_embeddings", maxPositionEmbeddings);
    o.addProperty("tie_word_embeddings", tieWordEmbeddings);
    if (!modelType.equals("qwen2")) {
      o.addProperty("attention_bias", attentionBias);
    }
    o.addProperty("hidden_act", "silu");
    o.addProperty("torch_dtype", "float32");
    if (bosTokenId.isPresent()) {
      o.addProperty("bos_token_id", bosTokenId.getAsInt());
    }
    if (eosTokenIds.size() == 1) {
      o.addProperty("eos_token_id", eosTokenIds.get(0));
    } else if (!eosTokenIds.isEmpty()) {
      JsonArray eos = new JsonArray();
      eosTokenIds.forEach(eos::add);
      o.add("eos_token_id", eos);
    }
    return new GsonBuilder().setPrettyPrinting().create().toJson(o);
  }

  private static String architectureOf(String type) {
    switch (type) {
      case "qwen3":
        return "Qwen3ForCausalLM";
      case "qwen2":
        return "Qwen2ForCausalLM";
      case "llama":
        return "LlamaForCausalLM";
      default:
        throw new IllegalStateException(type);
    }
  }

  private static String abbreviate(JsonElement e) {
    String s = String.valueOf(e);
    return s.length() > 60 ? s.substring(0, 57) + "..." : s;
  }

  /** @return a builder for a Qwen3 config (q/k norm on, no biases, untied head, theta 1e6) */
  public static Builder builder() {
    return new Builder();
  }

  /** Typed access to the JSON object with messages that name the file and field. */
  private static final class Fields {
    private final JsonObject o;
    private final String source;

    Fields(JsonObject o, String source) {
      this.o = o;
      this.source = source;
    }

    private JsonElement get(String name) {
      JsonElement e = o.get(name);
      return e == null || e.isJsonNull() ? null : e;
    }

    private CheckpointException wrongType(String name, String expected, JsonElement got) {
      return new CheckpointException(
          source + ": field " + name + " must be " + expected + ", got " + abbreviate(got));
    }

    int requiredInt(String name) {
      OptionalInt v = optionalInt(name);
      if (v.isEmpty()) {
        throw new CheckpointException(source + ": required field " + name + " is missing");
      }
      return v.getAsInt();
    }

    OptionalInt optionalInt(String name) {
      JsonElement e = get(name);
      return e == null ? OptionalInt.empty() : OptionalInt.of(asInt(name, e));
    }

    private int asInt(String name, JsonElement e) {
      if (!(e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber())) {
        throw wrongType(name, "an integer", e);
      }
      try {
        return new BigDecimal(e.getAsJsonPrimitive().getAsString()).intValueExact();
      } catch (ArithmeticException | NumberFormatException ex) {
        throw wrongType(name, "an integer", e);
      }
    }

    double optionalDouble(String name, double dflt) {
      JsonElement e = get(name);
      return e == null ? dflt : asDouble(name, e);
    }

    private double asDouble(String name, JsonElement e) {
      if (!(e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber())) {
        throw wrongType(name, "a number", e);
      }
      return e.getAsDouble();
    }

    boolean optionalBoolean(String name, boolean dflt) {
      JsonElement e = get(name);
      if (e == null) {
        return dflt;
      }
      if (!(e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean())) {
        throw wrongType(name, "true or false", e);
      }
      return e.getAsBoolean();
    }

    void requireFalse(String name) {
      if (optionalBoolean(name, false)) {
        throw new CheckpointException(source + ": " + name + "=true is not supported");
      }
    }

    void requireAbsentOrValue(String name, String value) {
      JsonElement e = get(name);
      if (e == null) {
        return;
      }
      if (!(e.isJsonPrimitive() && e.getAsJsonPrimitive().isString())) {
        throw wrongType(name, "a string", e);
      }
      if (!e.getAsString().equals(value)) {
        throw new CheckpointException(
            source + ": " + name + "=" + e.getAsString() + " is not supported (only " + value + ")");
      }
    }

    String modelType() {
      String type = null;
      JsonElement t = get("model_type");
      if (t != null) {
        if (!(t.isJsonPrimitive() && t.getAsJsonPrimitive().isString())) {
          throw wrongType("model_type", "a string", t);
        }
        type = t.getAsString();
        if (!List.of("qwen3", "qwen2", "llama").contains(type)) {
          throw new CheckpointException(
              source + ": model_type " + type + " is not supported (supported: qwen3, qwen2, llama)");
        }
      }
      JsonElement a = get("architectures");
      if (a != null) {
        if (!a.isJsonArray()) {
          throw wrongType("architectures", "a list of class names", a);
        }
        List<String> names = new ArrayList<>();
        for (JsonElement n : a.getAsJsonArray()) {
          if (!(n.isJsonPrimitive() && n.getAsJsonPrimitive().isString())) {
            throw wrongType("architectures", "a list of class names", a);
          }
          names.add(n.getAsString());
        }
        String fromArch = null;
        for (String n : names) {
          String cand = n.toLowerCase(Locale.ROOT).replace("forcausallm", "");
          if (n.endsWith("ForCausalLM") && List.of("qwen3", "qwen2", "llama").contains(cand)) {
            fromArch = cand;
          }
        }
        if (fromArch == null) {
          throw new CheckpointException(
              source + ": architectures " + names + " names no supported model (supported:"
                  + " Qwen3ForCausalLM, Qwen2ForCausalLM, LlamaForCausalLM)");
        }
        if (type != null && !type.equals(fromArch)) {
          throw new CheckpointException(
              source + ": model_type " + type + " does not match architectures " + names);
        }
        type = fromArch;
      }
      if (type == null) {
        String run = o.has("preset") && o.has("rollout")
            ? "; it is a mage training config, so its directory is a run directory, not a model: load the model the"
                + " run saved (the quick start's trained/), or a checkpoint's weights/ (RUN/checkpoints/iter-N/weights)"
            : "";
        throw new CheckpointException(
            source + ": required field model_type is missing (and there is no architectures list)" + run);
      }
      return type;
    }

    double ropeTheta() {
      checkRopeType("rope_scaling", get("rope_scaling"));
      JsonElement params = get("rope_parameters");
      checkRopeType("rope_parameters", params);
      JsonElement top = get("rope_theta");
      if (top != null) {
        return asDouble("rope_theta", top);
      }
      if (params != null && params.getAsJsonObject().has("rope_theta")) {
        JsonElement inner = params.getAsJsonObject().get("rope_theta");
        if (inner != null && !inner.isJsonNull()) {
          return asDouble("rope_parameters.rope_theta", inner);
        }
      }
      return 10000.0;
    }

    private void checkRopeType(String name, JsonElement e) {
      if (e == null) {
        return;
      }
      if (!e.isJsonObject()) {
        throw wrongType(name, "an object", e);
      }
      JsonObject r = e.getAsJsonObject();
      JsonElement kind = r.has("rope_type") ? r.get("rope_type") : r.get("type");
      if (kind == null || kind.isJsonNull()) {
        if (name.equals("rope_scaling")) {
          throw new CheckpointException(source + ": " + name + " without a rope_type is not supported");
        }
        return;
      }
      if (!(kind instanceof JsonPrimitive) || !kind.getAsString().equals("default")) {
        throw new CheckpointException(
            source + ": " + name + " of type " + kind + " is not supported (only plain rotary embeddings)");
      }
    }

    List<Integer> eosTokenIds() {
      JsonElement e = get("eos_token_id");
      List<Integer> ids = new ArrayList<>();
      if (e == null) {
        return ids;
      }
      if (e.isJsonArray()) {
        for (JsonElement x : e.getAsJsonArray()) {
          if (x == null || x instanceof JsonNull) {
            throw wrongType("eos_token_id", "an integer or a list of integers", e);
          }
          ids.add(asInt("eos_token_id", x));
        }
      } else {
        ids.add(asInt("eos_token_id", e));
      }
      return ids;
    }
  }

  /** Builds a {@link Qwen3Config} programmatically (tests, benchmarks, the built-in tiny model). */
  public static final class Builder {
    private String modelType = "qwen3";
    private int vocabSize;
    private int hiddenSize;
    private int intermediateSize;
    private int numHiddenLayers;
    private int numAttentionHeads;
    private int numKeyValueHeads;
    private int headDim;
    private double rmsNormEps = 1e-6;
    private double ropeTheta = 1_000_000;
    private boolean tieWordEmbeddings;
    private int maxPositionEmbeddings = 32768;
    private OptionalInt bosTokenId = OptionalInt.empty();
    private List<Integer> eosTokenIds = new ArrayList<>();
    private Boolean qkNorm;
    private boolean attentionBias;
    private boolean outputBias;

    private Builder() {}

    /**
     * @param v vocabulary size
     * @return this builder
     */
    public Builder setVocabSize(int v) {
      vocabSize = v;
      return this;
    }

    /**
     * @param v hidden size
     * @return this builder
     */
    public Builder setHiddenSize(int v) {
      hiddenSize = v;
      return this;
    }

    /**
     * @param v MLP width
     * @return this builder
     */
    public Builder setIntermediateSize(int v) {
      intermediateSize = v;
      return this;
    }

    /**
     * @param v number of layers
     * @return this builder
     */
    public Builder setNumHiddenLayers(int v) {
      numHiddenLayers = v;
      return this;
    }

    /**
     * @param v query heads
     * @return this builder
     */
    public Builder setNumAttentionHeads(int v) {
      numAttentionHeads = v;
      return this;
    }

    /**
     * @param v key/value heads (default: the query heads)
     * @return this builder
     */
    public Builder optNumKeyValueHeads(int v) {
      numKeyValueHeads = v;
      return this;
    }

    /**
     * @param v head width (default: hidden size / heads)
     * @return this builder
     */
    public Builder optHeadDim(int v) {
      headDim = v;
      return this;
    }

    /**
     * @param v norm epsilon (default 1e-6)
     * @return this builder
     */
    public Builder optRmsNormEps(double v) {
      rmsNormEps = v;
      return this;
    }

    /**
     * @param v rotary base (default 1e6, as in Qwen3 checkpoints)
     * @return this builder
     */
    public Builder optRopeTheta(double v) {
      ropeTheta = v;
      return this;
    }

    /**
     * @param v whether the output head is the embedding (default false)
     * @return this builder
     */
    public Builder optTieWordEmbeddings(boolean v) {
      tieWordEmbeddings = v;
      return this;
    }

    /**
     * @param v trained context length (default 32768)
     * @return this builder
     */
    public Builder optMaxPositionEmbeddings(int v) {
      maxPositionEmbeddings = v;
      return this;
    }

    /**
     * @param v begin-of-sequence token
     * @return this builder
     */
    public Builder optBosTokenId(int v) {
      bosTokenId = OptionalInt.of(v);
      return this;
    }

    /**
     * @param v an end-of-sequence token
     * @return this builder
     */
    public Builder addEosTokenId(int v) {
      eosTokenIds.add(v);
      return this;
    }

    /**
     * @param v {@code qwen3} (default), {@code qwen2} or {@code llama}; sets the q/k-norm default accordingly
     * @return this builder
     */
    public Builder optModelType(String v) {
      modelType = v;
      return this;
    }

    /**
     * @param v per-head q/k norm (default: on for qwen3 only)
     * @return this builder
     */
    public Builder optQkNorm(boolean v) {
      qkNorm = v;
      return this;
    }

    /**
     * @param v biases on the q, k and v projections (default false)
     * @return this builder
     */
    public Builder optAttentionBias(boolean v) {
      attentionBias = v;
      return this;
    }

    /**
     * @param v bias on the attention output projection (default false)
     * @return this builder
     */
    public Builder optOutputBias(boolean v) {
      outputBias = v;
      return this;
    }

    /**
     * @return the validated config
     * @throws IllegalArgumentException naming the field that is out of range
     */
    public Qwen3Config build() {
      if (!List.of("qwen3", "qwen2", "llama").contains(modelType)) {
        throw new IllegalArgumentException("model_type must be qwen3, qwen2 or llama, got " + modelType);
      }
      int kv = numKeyValueHeads == 0 ? numAttentionHeads : numKeyValueHeads;
      int hd = headDim != 0 ? headDim : numAttentionHeads > 0 ? hiddenSize / numAttentionHeads : 0;
      return new Qwen3Config(
          modelType, vocabSize, hiddenSize, intermediateSize, numHiddenLayers, numAttentionHeads, kv, hd,
          rmsNormEps, ropeTheta, tieWordEmbeddings, maxPositionEmbeddings, bosTokenId, eosTokenIds,
          qkNorm != null ? qkNorm : modelType.equals("qwen3"), attentionBias, outputBias);
    }
  }
}
