package org.magejvm.examples.bench;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.magejvm.impl.jinja.TemplateException;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.Qwen3Checkpoint;
import org.magejvm.impl.llm.TinyCheckpoint;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.generate.Qwen3Generator;
import org.magejvm.impl.llm.model.Qwen3Model;

/**
 * Mutates a valid checkpoint directory the ways a damaged or hostile download could differ from it (safetensors
 * header and body, {@code config.json}, {@code tokenizer.json}, the chat template of {@code tokenizer_config.json})
 * and probes what loading the result does (issue 12). The unit test and {@code mage bench fuzz} share it; it lives
 * in {@code mage-bench}, not in {@code mage-llm}'s jar, because no host needs it.
 *
 * <p>A probe loads the directory with {@link Qwen3Checkpoint#loadPolicy}, renders a chat prompt, encodes it and
 * computes the logits of its tokens. The acceptable outcomes are: it loads and the logits are finite, or it fails
 * with a {@link CheckpointException}, {@link TemplateException} or {@link IllegalArgumentException} whose message
 * names a file of the directory. Anything else (another exception, an {@link Error}, a message naming no file,
 * non-finite logits, a probe that runs past its time limit) is {@link Outcome.Kind#UNEXPECTED}.
 *
 * <p>Deterministic: the same source directory and the same {@link Random} seed give the same mutants.
 */
public final class CheckpointFuzzer {

  /** The files of a checkpoint directory a mutation can change. */
  public static final List<String> FILES = List.of("model.safetensors", "config.json", "tokenizer.json",
      "tokenizer_config.json");

  private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

  private final Path source;
  private final Map<String, byte[]> original;

  /**
   * @param source a valid checkpoint directory (for example one written by {@link TinyCheckpoint})
   * @throws UncheckedIOException when its files cannot be read
   */
  public CheckpointFuzzer(Path source) {
    this.source = Objects.requireNonNull(source, "source");
    Map<String, byte[]> files = new java.util.LinkedHashMap<>();
    for (String f : FILES) {
      try {
        files.put(f, Files.readAllBytes(source.resolve(f)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + source.resolve(f), e);
      }
    }
    this.original = files;
  }

  /** @return the valid directory the mutants are made from */
  public Path source() {
    return source;
  }

  /**
   * One mutant: what was changed, in which file.
   *
   * @param file the file that was changed
   * @param description what was done to it
   */
  public record Mutation(String file, String description) {
    @Override
    public String toString() {
      return file + ": " + description;
    }
  }

  /**
   * What probing a mutant gave.
   *
   * @param kind loaded, refused or unexpected
   * @param detail the exception type for a refusal, what went wrong for an unexpected outcome, empty when loaded
   * @param message the exception message, or empty
   * @param error the throwable, or null
   * @param millis how long the probe took
   */
  public record Outcome(Kind kind, String detail, String message, Throwable error, long millis) {

    /** The classes of outcome. */
    public enum Kind {
      /** Loaded, and the logits of the rendered prompt are finite. */
      LOADED,
      /** Refused with a typed exception naming a file of the directory. */
      REFUSED,
      /** Anything else: the case the fuzzing looks for. */
      UNEXPECTED
    }

    /** @return a one-line summary */
    @Override
    public String toString() {
      return kind + (detail.isEmpty() ? "" : " " + detail) + (message.isEmpty() ? "" : ": " + message);
    }
  }

  /**
   * Writes one mutant of the source directory into {@code target} (created if needed; the four files are
   * replaced).
   *
   * @param target the directory to write
   * @param random the random source choosing the mutation
   * @return what was changed
   * @throws UncheckedIOException when the files cannot be written
   */
  public Mutation mutate(Path target, Random random) {
    try {
      Files.createDirectories(target);
      for (Map.Entry<String, byte[]> e : original.entrySet()) {
        Files.write(target.resolve(e.getKey()), e.getValue());
      }
      int which = random.nextInt(100);
      Mutation m;
      if (which < 35) {
        m = mutateSafetensors(target, random);
      } else if (which < 55) {
        m = mutateConfig(target, random);
      } else if (which < 75) {
        m = mutateTokenizer(target, random);
      } else {
        m = mutateTemplate(target, random);
      }
      return m;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the mutant " + target, e);
    }
  }

  /**
   * Loads a directory, renders a prompt, encodes it and computes its logits, within a time limit.
   *
   * @param dir the directory
   * @param limit the longest a probe may take; past it the outcome is unexpected (the probing thread is a daemon
   *     and is left running)
   * @return the outcome
   */
  public static Outcome probe(Path dir, Duration limit) {
    ExecutorService pool = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "checkpoint-fuzz-probe");
      t.setDaemon(true);
      return t;
    });
    long start = System.nanoTime();
    try {
      Future<String> f = pool.submit(() -> probeNow(dir));
      String problem;
      try {
        problem = f.get(limit.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        f.cancel(true);
        return new Outcome(Outcome.Kind.UNEXPECTED, "timeout", "ran past " + limit.toMillis() + " ms", null,
            millisSince(start));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Outcome(Outcome.Kind.UNEXPECTED, "interrupted", "", e, millisSince(start));
      } catch (ExecutionException e) {
        return classify(dir, e.getCause(), millisSince(start));
      }
      if (problem != null) {
        return new Outcome(Outcome.Kind.UNEXPECTED, "non-finite logits", problem, null, millisSince(start));
      }
      return new Outcome(Outcome.Kind.LOADED, "", "", null, millisSince(start));
    } finally {
      pool.shutdownNow();
    }
  }

  private static long millisSince(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }

  private static String probeNow(Path dir) {
    try (DjlLanguagePolicy policy = Qwen3Checkpoint.loadPolicy(dir, Qwen3Checkpoint.Options.cpu())) {
      String text = policy.renderPrompt("Play <action>(1, 2)</action>");
      int[] ids = policy.tokenizer().encode(text);
      if (ids.length == 0) {
        return null;
      }
      int[] head = Arrays.copyOf(ids, Math.min(ids.length, 32));
      Qwen3Model model = ((Qwen3Generator) policy.generator()).model();
      try (NDManager manager = model.newManager()) {
        NDArray logits = model.logits(manager, head);
        float[] values = logits.toType(ai.djl.ndarray.types.DataType.FLOAT32, false).toFloatArray();
        for (int i = 0; i < values.length; i++) {
          if (!Float.isFinite(values[i])) {
            return "logit " + i + " is " + values[i];
          }
        }
      }
      return null;
    }
  }

  private static Outcome classify(Path dir, Throwable t, long millis) {
    String message = String.valueOf(t.getMessage());
    String type = t.getClass().getSimpleName();
    boolean typed = t instanceof CheckpointException || t instanceof TemplateException
        || t instanceof IllegalArgumentException;
    if (!typed) {
      return new Outcome(Outcome.Kind.UNEXPECTED, type, message, t, millis);
    }
    boolean namesFile = message.contains(dir.toString());
    for (String f : FILES) {
      namesFile |= message.contains(f);
    }
    if (!namesFile) {
      return new Outcome(Outcome.Kind.UNEXPECTED, type + " naming no file", message, t, millis);
    }
    return new Outcome(Outcome.Kind.REFUSED, type, message, t, millis);
  }

  // ---------------------------------------------------------------- safetensors

  private Mutation mutateSafetensors(Path dir, Random r) throws IOException {
    byte[] bytes = original.get("model.safetensors");
    long headerLength = ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    int dataStart = (int) (8 + headerLength);
    JsonObject header = JsonParser.parseString(new String(bytes, 8, (int) headerLength, StandardCharsets.UTF_8))
        .getAsJsonObject();
    List<String> tensors = new ArrayList<>();
    for (String k : header.keySet()) {
      if (!k.equals("__metadata__")) {
        tensors.add(k);
      }
    }
    String tensor = tensors.get(r.nextInt(tensors.size()));
    JsonObject info = header.getAsJsonObject(tensor);
    byte[] body = Arrays.copyOfRange(bytes, dataStart, bytes.length);
    Path file = dir.resolve("model.safetensors");
    String f = "model.safetensors";
    switch (r.nextInt(12)) {
      case 0 -> {
        int cut = r.nextInt(bytes.length);
        Files.write(file, Arrays.copyOf(bytes, cut));
        return new Mutation(f, "truncated to " + cut + " bytes");
      }
      case 1 -> {
        long[] deltas = {-8, -2, -1, 1, 2, 8, bytes.length, -headerLength, 1L << 40, -1L - headerLength};
        long d = deltas[r.nextInt(deltas.length)];
        byte[] copy = bytes.clone();
        ByteBuffer.wrap(copy, 0, 8).order(ByteOrder.LITTLE_ENDIAN).putLong(headerLength + d);
        Files.write(file, copy);
        return new Mutation(f, "header length " + headerLength + " + " + d);
      }
      case 2 -> {
        byte[] copy = bytes.clone();
        int at = 8 + r.nextInt((int) headerLength);
        copy[at] = (byte) r.nextInt(256);
        Files.write(file, copy);
        return new Mutation(f, "header byte " + at + " set to " + (copy[at] & 0xff));
      }
      case 3 -> {
        String[] dtypes = {"F16", "BF16", "F64", "I8", "U8", "I64", "BOOL", "F8_E4M3", "X9", ""};
        String d = dtypes[r.nextInt(dtypes.length)];
        info.addProperty("dtype", d);
        writeSafetensors(file, header, body);
        return new Mutation(f, tensor + " dtype " + d);
      }
      case 4 -> {
        JsonArray shape = info.getAsJsonArray("shape");
        long[] values = {0, 1, -1, 3, 1L << 31, 1L << 62};
        JsonArray s = shape.deepCopy();
        int dim = s.size() == 0 ? 0 : r.nextInt(s.size());
        long v = r.nextBoolean() && s.size() > 0 ? s.get(dim).getAsLong() + (r.nextBoolean() ? 1 : -1)
            : values[r.nextInt(values.length)];
        if (s.size() == 0) {
          s.add(v);
        } else if (r.nextInt(4) == 0) {
          s.add(v);
        } else {
          s.set(dim, new JsonPrimitive(v));
        }
        info.add("shape", s);
        writeSafetensors(file, header, body);
        return new Mutation(f, tensor + " shape " + s);
      }
      case 5 -> {
        JsonArray offsets = info.getAsJsonArray("data_offsets");
        long begin = offsets.get(0).getAsLong();
        long end = offsets.get(1).getAsLong();
        long[][] choices = {{begin + 4, end + 4}, {begin - 4, end - 4}, {end, begin}, {begin, end + 4},
            {begin, begin}, {0, end - begin}, {begin, 1L << 40}, {-4, end}};
        long[] c = choices[r.nextInt(choices.length)];
        JsonArray o = new JsonArray();
        o.add(c[0]);
        o.add(c[1]);
        info.add("data_offsets", o);
        writeSafetensors(file, header, body);
        return new Mutation(f, tensor + " data_offsets " + o);
      }
      case 6 -> {
        header.remove(tensor);
        writeSafetensors(file, header, body);
        return new Mutation(f, tensor + " removed from the header");
      }
      case 7 -> {
        byte[] extra = new byte[1 + r.nextInt(64)];
        r.nextBytes(extra);
        byte[] copy = Arrays.copyOf(bytes, bytes.length + extra.length);
        System.arraycopy(extra, 0, copy, bytes.length, extra.length);
        Files.write(file, copy);
        return new Mutation(f, extra.length + " trailing bytes");
      }
      case 8 -> {
        String[] headers = {"{}", "[]", "", "null", "{\"a\":1}", "{\"__metadata__\":{}}"};
        String h = headers[r.nextInt(headers.length)];
        writeRaw(file, h.getBytes(StandardCharsets.UTF_8), r.nextBoolean() ? body : new byte[0]);
        return new Mutation(f, "header '" + h + "'");
      }
      case 9 -> {
        long begin = info.getAsJsonArray("data_offsets").get(0).getAsLong();
        long end = info.getAsJsonArray("data_offsets").get(1).getAsLong();
        int elements = (int) ((end - begin) / 4);
        int at = (int) begin + 4 * r.nextInt(Math.max(1, elements));
        float v = r.nextBoolean() ? Float.NaN : (r.nextBoolean() ? Float.POSITIVE_INFINITY : 1e30f);
        ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).putFloat(at, v);
        writeSafetensors(file, header, body);
        return new Mutation(f, tensor + " value at byte " + at + " set to " + v);
      }
      case 10 -> {
        byte[] copy = bytes.clone();
        int flips = 1 + r.nextInt(8);
        for (int i = 0; i < flips; i++) {
          int at = dataStart + r.nextInt(body.length);
          copy[at] ^= (byte) (1 << r.nextInt(8));
        }
        Files.write(file, copy);
        return new Mutation(f, flips + " bit flips in the data section");
      }
      default -> {
        JsonObject moved = header.remove(tensor).getAsJsonObject();
        String name = r.nextBoolean() ? tensor + ".x" : tensor.replace("layers.", "layers.9");
        header.add(name, moved);
        writeSafetensors(file, header, body);
        return new Mutation(f, tensor + " renamed " + name);
      }
    }
  }

  private static void writeSafetensors(Path file, JsonObject header, byte[] body) throws IOException {
    writeRaw(file, GSON.toJson(header).getBytes(StandardCharsets.UTF_8), body);
  }

  private static void writeRaw(Path file, byte[] header, byte[] body) throws IOException {
    int padded = (header.length + 7) / 8 * 8;
    ByteBuffer out = ByteBuffer.allocate(8 + padded + body.length).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(padded);
    out.put(header);
    for (int i = header.length; i < padded; i++) {
      out.put((byte) ' ');
    }
    out.put(body);
    Files.write(file, out.array());
  }

  // ---------------------------------------------------------------- JSON values

  private static JsonElement oddValue(Random r, JsonElement was) {
    switch (r.nextInt(12)) {
      case 0: return new JsonPrimitive(0);
      case 1: return new JsonPrimitive(-1);
      case 2: return new JsonPrimitive(1_000_000_000L);
      case 3: return new JsonPrimitive(1L << 31);
      case 4: return new JsonPrimitive("64");
      case 5: return JsonNull.INSTANCE;
      case 6: return new JsonPrimitive(1.5);
      case 7: return new JsonArray();
      case 8: return new JsonObject();
      case 9: return new JsonPrimitive(true);
      case 10: return new JsonPrimitive(1e300);
      default:
        if (was != null && was.isJsonPrimitive() && was.getAsJsonPrimitive().isNumber()) {
          return new JsonPrimitive(was.getAsLong() + (r.nextBoolean() ? 1 : -1));
        }
        return new JsonPrimitive("garbage");
    }
  }

  private static JsonObject readJson(Path file) throws IOException {
    return JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8)).getAsJsonObject();
  }

  private static void writeJson(Path file, JsonObject o) throws IOException {
    Files.writeString(file, GSON.toJson(o), StandardCharsets.UTF_8);
  }

  private static Mutation truncateOrFlip(Path file, String name, byte[] bytes, Random r) throws IOException {
    if (r.nextBoolean()) {
      int cut = r.nextInt(bytes.length);
      Files.write(file, Arrays.copyOf(bytes, cut));
      return new Mutation(name, "truncated to " + cut + " bytes");
    }
    byte[] copy = bytes.clone();
    int at = r.nextInt(copy.length);
    copy[at] = (byte) r.nextInt(256);
    Files.write(file, copy);
    return new Mutation(name, "byte " + at + " set to " + (copy[at] & 0xff));
  }

  // ---------------------------------------------------------------- config.json

  private Mutation mutateConfig(Path dir, Random r) throws IOException {
    String f = "config.json";
    Path file = dir.resolve(f);
    JsonObject config = readJson(file);
    List<String> keys = new ArrayList<>(config.keySet());
    String key = keys.get(r.nextInt(keys.size()));
    switch (r.nextInt(6)) {
      case 0 -> {
        config.remove(key);
        writeJson(file, config);
        return new Mutation(f, "without " + key);
      }
      case 1, 2 -> {
        JsonElement v = oddValue(r, config.get(key));
        config.add(key, v);
        writeJson(file, config);
        return new Mutation(f, key + " = " + v);
      }
      case 3 -> {
        String[] types = {"llama", "qwen2", "", "gpt2"};
        String t = types[r.nextInt(types.length)];
        config.addProperty("model_type", t);
        writeJson(file, config);
        return new Mutation(f, "model_type " + t);
      }
      case 4 -> {
        String text = GSON.toJson(config);
        String dup = "{\"" + key + "\": " + oddValue(r, config.get(key)) + ", " + text.substring(1);
        Files.writeString(file, dup, StandardCharsets.UTF_8);
        return new Mutation(f, "duplicate key " + key);
      }
      default -> {
        return truncateOrFlip(file, f, original.get(f), r);
      }
    }
  }

  // ---------------------------------------------------------------- tokenizer.json

  private Mutation mutateTokenizer(Path dir, Random r) throws IOException {
    String f = "tokenizer.json";
    Path file = dir.resolve(f);
    JsonObject tok = readJson(file);
    JsonObject model = tok.getAsJsonObject("model");
    switch (r.nextInt(9)) {
      case 0 -> {
        JsonObject vocab = model.getAsJsonObject("vocab");
        JsonObject word = new JsonObject();
        word.addProperty("type", "WordLevel");
        word.add("vocab", vocab);
        word.addProperty("unk_token", r.nextBoolean() ? "<unk>" : "\u0000missing");
        tok.add("model", word);
        writeJson(file, tok);
        return new Mutation(f, "WordLevel model with unk_token missing from its vocab");
      }
      case 1 -> {
        model.add("unk_token", oddValue(r, null));
        writeJson(file, tok);
        return new Mutation(f, "model.unk_token = " + model.get("unk_token"));
      }
      case 2 -> {
        JsonObject vocab = model.getAsJsonObject("vocab");
        List<String> words = new ArrayList<>(vocab.keySet());
        int drop = 1 + r.nextInt(Math.min(50, words.size()));
        for (int i = 0; i < drop; i++) {
          vocab.remove(words.get(r.nextInt(words.size())));
        }
        writeJson(file, tok);
        return new Mutation(f, "up to " + drop + " vocab entries removed");
      }
      case 3 -> {
        JsonObject vocab = model.getAsJsonObject("vocab");
        List<String> words = new ArrayList<>(vocab.keySet());
        String w = words.get(r.nextInt(words.size()));
        long[] ids = {-1, 1_000_000, Integer.MAX_VALUE, 0};
        long id = ids[r.nextInt(ids.length)];
        vocab.addProperty(w, id);
        writeJson(file, tok);
        return new Mutation(f, "vocab id of a token set to " + id);
      }
      case 4 -> {
        byte[] map = new byte[r.nextInt(64)];
        r.nextBytes(map);
        String charsmap = switch (r.nextInt(3)) {
          case 0 -> "!!not base64!!";
          case 1 -> Base64.getEncoder().encodeToString(map);
          default -> Base64.getEncoder().encodeToString(new byte[] {(byte) 0xff, (byte) 0xff, 0, 0, 1, 2});
        };
        JsonObject pre = new JsonObject();
        pre.addProperty("type", "Precompiled");
        pre.addProperty("precompiled_charsmap", charsmap);
        if (r.nextBoolean()) {
          JsonObject seq = new JsonObject();
          seq.addProperty("type", "Sequence");
          JsonArray list = new JsonArray();
          list.add(pre);
          seq.add("normalizers", list);
          tok.add("normalizer", seq);
        } else {
          tok.add("normalizer", pre);
        }
        writeJson(file, tok);
        return new Mutation(f, "Precompiled normalizer with charsmap " + charsmap);
      }
      case 5 -> {
        JsonArray added = tok.getAsJsonArray("added_tokens");
        JsonObject t = new JsonObject();
        long id = r.nextBoolean() ? 100_000 : model.getAsJsonObject("vocab").size() + 50L;
        t.addProperty("id", id);
        t.addProperty("content", "<|fuzz|>");
        t.addProperty("single_word", false);
        t.addProperty("lstrip", false);
        t.addProperty("rstrip", false);
        t.addProperty("normalized", false);
        t.addProperty("special", true);
        added.add(t);
        writeJson(file, tok);
        return new Mutation(f, "added token with id " + id);
      }
      case 6 -> {
        String[] types = {"WordPiece", "Unigram", "Nope", ""};
        String t = types[r.nextInt(types.length)];
        model.addProperty("type", t);
        writeJson(file, tok);
        return new Mutation(f, "model.type " + t);
      }
      case 7 -> {
        JsonArray merges = model.getAsJsonArray("merges");
        if (merges != null && merges.size() > 0) {
          merges.set(r.nextInt(merges.size()), r.nextBoolean() ? new JsonPrimitive("zz qq") : new JsonPrimitive(7));
        }
        writeJson(file, tok);
        return new Mutation(f, "a merge replaced");
      }
      default -> {
        return truncateOrFlip(file, f, original.get(f), r);
      }
    }
  }

  // ---------------------------------------------------------------- chat template

  private static final String[] TEMPLATES = {
    "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
    "{{ 'x' * 2000000000 }}",
    "{{ 'x' * 4294967297 }}",
    "{% set s = 'ab' %}{% for i in range(64) %}{% set s = s ~ s %}{% endfor %}{{ s }}",
    "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
    "{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}{{ a() }}{% endmacro %}{{ a() }}",
    "{{ raise_exception('refused by the template') }}",
    "{{ 1 / 0 }}",
    "{{ undefined_thing.field.other }}",
    "{{ messages[0]['content'] | nosuchfilter }}",
    "{% for m in messages %}{{ m.content }",
    "{% if %}",
    "{{ [1] * 1000000000 }}",
    "{{ 2 ** 100000000 }}",
    "{% for m in messages %}{% endif %}",
  };

  private Mutation mutateTemplate(Path dir, Random r) throws IOException {
    String f = "tokenizer_config.json";
    Path file = dir.resolve(f);
    JsonObject cfg = readJson(file);
    String template = cfg.has("chat_template") && cfg.get("chat_template").isJsonPrimitive()
        ? cfg.get("chat_template").getAsString() : "";
    switch (r.nextInt(8)) {
      case 0, 1 -> {
        String t = TEMPLATES[r.nextInt(TEMPLATES.length)];
        cfg.addProperty("chat_template", t);
        writeJson(file, cfg);
        return new Mutation(f, "chat_template " + t);
      }
      case 2 -> {
        int depth = 200 + r.nextInt(20_000);
        String open = r.nextBoolean() ? "(" : "[";
        String close = open.equals("(") ? ")" : "]";
        cfg.addProperty("chat_template", "{{ " + open.repeat(depth) + "1" + close.repeat(depth) + " }}");
        writeJson(file, cfg);
        return new Mutation(f, "chat_template nested " + depth + " deep with " + open);
      }
      case 3 -> {
        int depth = 200 + r.nextInt(5_000);
        cfg.addProperty("chat_template", "{% if true %}".repeat(depth) + "x" + "{% endif %}".repeat(depth));
        writeJson(file, cfg);
        return new Mutation(f, "chat_template with " + depth + " nested ifs");
      }
      case 4 -> {
        int a = r.nextInt(Math.max(1, template.length()));
        int b = a + r.nextInt(Math.max(1, template.length() - a));
        String t = template.substring(0, a) + template.substring(b);
        cfg.addProperty("chat_template", t);
        writeJson(file, cfg);
        return new Mutation(f, "chat_template without characters " + a + ".." + b);
      }
      case 5 -> {
        String[] pieces = {"{%", "%}", "{{", "}}", "{#", "for", "if", "endfor", "endif", "macro", "set", "(", ")",
            "[", "]", "messages", "|", "~", "'", "\"", "loop", "in", " ", "x", "-", "1"};
        StringBuilder sb = new StringBuilder();
        int n = 1 + r.nextInt(40);
        for (int i = 0; i < n; i++) {
          sb.append(pieces[r.nextInt(pieces.length)]);
        }
        cfg.addProperty("chat_template", sb.toString());
        writeJson(file, cfg);
        return new Mutation(f, "chat_template " + sb);
      }
      case 6 -> {
        JsonArray list = new JsonArray();
        JsonObject entry = new JsonObject();
        entry.addProperty("name", "default");
        entry.add("template", r.nextBoolean() ? new JsonPrimitive(3) : new JsonArray());
        list.add(entry);
        list.add(r.nextBoolean() ? new JsonPrimitive("x") : JsonNull.INSTANCE);
        cfg.add("chat_template", r.nextBoolean() ? list : oddValue(r, null));
        writeJson(file, cfg);
        return new Mutation(f, "chat_template = " + cfg.get("chat_template"));
      }
      default -> {
        return truncateOrFlip(file, f, original.get(f), r);
      }
    }
  }

  /**
   * Deletes a mutant directory's files (the ones {@link #mutate} writes) and the directory.
   *
   * @param dir the directory
   */
  public static void delete(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.deleteIfExists(p);
      }
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
