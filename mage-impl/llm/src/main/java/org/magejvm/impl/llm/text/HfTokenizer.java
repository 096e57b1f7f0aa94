package org.magejvm.impl.llm.text;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * A checkpoint's Hugging Face tokenizer ({@code tokenizer.json}), run by DJL's binding of the Rust
 * {@code tokenizers} library.
 *
 * <p>It is configured for chat models: no truncation (DJL would otherwise cut every text to 512 tokens), no
 * padding, and no automatically added special tokens (a chat template writes them into the text, as
 * {@code transformers}' {@code apply_chat_template} does). Special-token texts inside the input are matched as
 * tokens. Nothing is downloaded; set {@code DJL_OFFLINE=true} (or {@code -Dai.djl.offline=true}) so that DJL also
 * skips its usage report. On a CUDA machine DJL would pick (and try to download) a CUDA build of the native
 * tokenizer library; unless {@code RUST_FLAVOR} is already set (environment or system property), {@link #load}
 * sets the system property {@code RUST_FLAVOR=cpu} so the CPU build inside the DJL jar is used.
 *
 * <p>Encoding and decoding are thread-safe. The tokenizer holds native memory: {@link #close()} it when done.
 */
public final class HfTokenizer implements AutoCloseable {

  /** The file name inside a checkpoint directory. */
  public static final String FILE_NAME = "tokenizer.json";
  private static final String RUST_FLAVOR = "RUST_FLAVOR";

  private final Path file;
  private final HuggingFaceTokenizer tokenizer;
  private final int vocabSize;
  private final List<AddedToken> addedTokens;
  private final Map<String, AddedToken> addedByContent;
  private final Map<Integer, AddedToken> addedById;
  /** Characters of input text one token covers at most, or 0 when no such bound is known. */
  private final int maxCharsPerToken;

  private HfTokenizer(Path file, HuggingFaceTokenizer tokenizer, int vocabSize, List<AddedToken> addedTokens,
      int maxCharsPerToken) {
    this.file = file;
    this.maxCharsPerToken = maxCharsPerToken;
    this.tokenizer = tokenizer;
    this.vocabSize = vocabSize;
    this.addedTokens = Collections.unmodifiableList(addedTokens);
    Map<String, AddedToken> byContent = new HashMap<>();
    Map<Integer, AddedToken> byId = new HashMap<>();
    for (AddedToken t : addedTokens) {
      byContent.put(t.content(), t);
      byId.put(t.id(), t);
    }
    this.addedByContent = byContent;
    this.addedById = byId;
  }

  /**
   * Loads a tokenizer.
   *
   * @param path a checkpoint directory (its {@code tokenizer.json} is read) or a {@code tokenizer.json} file
   * @return the tokenizer
   * @throws CheckpointException when the file is missing, not valid JSON, or not a tokenizer the library accepts
   */
  public static HfTokenizer load(Path path) {
    Objects.requireNonNull(path, "path");
    Path file = Files.isDirectory(path) ? path.resolve(FILE_NAME) : path;
    if (!Files.isRegularFile(file)) {
      throw org.magejvm.impl.llm.checkpoint.CheckpointFiles.notFound(file, FILE_NAME + " not found: " + file);
    }
    Header header = readHeader(file);
    if (System.getenv(RUST_FLAVOR) == null && System.getProperty(RUST_FLAVOR) == null) {
      System.setProperty(RUST_FLAVOR, "cpu");
    }
    HuggingFaceTokenizer tok;
    try {
      tok = HuggingFaceTokenizer.newInstance(file,
          Map.of("truncation", "false", "padding", "false", "addSpecialTokens", "false"));
    } catch (IOException e) {
      throw new CheckpointException("cannot read " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new CheckpointException(file + " was rejected by the tokenizers library: " + e.getMessage(), e);
    }
    return new HfTokenizer(file, tok, header.vocabSize, header.addedTokens, header.maxCharsPerToken());
  }

  /**
   * What the streaming pass over tokenizer.json collects: vocabulary size, added tokens, and what bounds the text one
   * token can cover.
   */
  private static final class Header {
    int vocabSize;
    List<AddedToken> addedTokens = new ArrayList<>();
    /** UTF-8 bytes of the longest vocabulary entry of a BPE model without fused unknowns, else 0 (no bound). */
    int maxVocabBytes;
    /** How many times fewer characters the normalizer may leave (1: none; 4: Unicode normal forms); 0: no bound. */
    int normalizerShrink = 1;

    /**
     * A token covers at most {@code maxVocabBytes} bytes of normalized text (a vocabulary entry's UTF-8 length is at
     * least the bytes it stands for: byte-level characters, {@code ▁} for a space, {@code <0xAB>} for a byte), or an
     * added token's content; every UTF-16 character of the input is at least one byte; a normal form leaves at least
     * a quarter of the characters (composition merges at most a few code points into one).
     */
    int maxCharsPerToken() {
      if (maxVocabBytes <= 0 || normalizerShrink <= 0) {
        return 0;
      }
      long most = maxVocabBytes;
      for (AddedToken t : addedTokens) {
        most = Math.max(most, t.content().getBytes(StandardCharsets.UTF_8).length);
      }
      return (int) Math.min(Integer.MAX_VALUE, most * normalizerShrink);
    }
  }

  /**
   * A lower bound on the number of tokens a text encodes to, found without tokenizing it: its length divided by the
   * most characters one token can cover. Zero when this tokenizer gives no such bound (a model other than BPE, fused
   * unknown tokens, a normalizer that may shorten the text by more than a Unicode normal form does).
   *
   * @param text a text
   * @return at most {@code encode(text).length}
   */
  public long minTokens(CharSequence text) {
    return maxCharsPerToken <= 0 ? 0 : text.length() / maxCharsPerToken;
  }

  /** @return the most input characters one token covers, or 0 when no bound is known (see {@link #minTokens}) */
  public int maxCharsPerToken() {
    return maxCharsPerToken;
  }

  /**
   * Streams through tokenizer.json (Qwen3's is 11 MB) to find the added tokens and the largest token id, checking
   * the JSON syntax on the way.
   */
  private static Header readHeader(Path file) {
    Header h = new Header();
    int maxId = -1;
    boolean sawModel = false;
    try (BufferedReader br = Files.newBufferedReader(file, StandardCharsets.UTF_8);
        JsonReader r = new JsonReader(br)) {
      r.beginObject();
      while (r.hasNext()) {
        String key = r.nextName();
        if (key.equals("added_tokens") && r.peek() == JsonToken.BEGIN_ARRAY) {
          r.beginArray();
          while (r.hasNext()) {
            AddedToken t = readAddedToken(r, file);
            h.addedTokens.add(t);
            maxId = Math.max(maxId, t.id());
          }
          r.endArray();
        } else if (key.equals("model") && r.peek() == JsonToken.BEGIN_OBJECT) {
          sawModel = true;
          maxId = Math.max(maxId, readModelMaxId(r, file, h));
        } else if (key.equals("normalizer")) {
          // what the native library would panic on (aborting the JVM) is refused here, before it sees the file
          com.google.gson.JsonElement n = com.google.gson.JsonParser.parseReader(r);
          NativeTokenizerGuard.checkNormalizer(file, n);
          h.normalizerShrink = normalizerShrink(n);
        } else {
          r.skipValue();
        }
      }
      r.endObject();
      if (r.peek() != JsonToken.END_DOCUMENT) {
        throw new CheckpointException(file + " has content after the top-level JSON object");
      }
    } catch (NoSuchFileException e) {
      throw new CheckpointException(FILE_NAME + " not found: " + file);
    } catch (java.nio.file.AccessDeniedException e) {
      throw org.magejvm.impl.llm.checkpoint.CheckpointFiles.permissionDenied(file, e);
    } catch (IOException | IllegalStateException | NumberFormatException | com.google.gson.JsonParseException e) {
      throw new CheckpointException(file + " is not a valid tokenizer.json: " + e.getMessage(), e);
    }
    if (!sawModel) {
      throw new CheckpointException(file + " has no 'model' object");
    }
    if (maxId < 0) {
      throw new CheckpointException(file + " defines no tokens");
    }
    h.vocabSize = maxId + 1;
    return h;
  }

  /**
   * How many times fewer characters a normalizer may leave: 1 for none, 4 for Unicode normal forms and lower-casing
   * (alone or in a sequence), 0 (unknown) for anything else, such as a replacement or stripping.
   */
  static int normalizerShrink(com.google.gson.JsonElement n) {
    if (n == null || n.isJsonNull()) {
      return 1;
    }
    if (!n.isJsonObject() || !n.getAsJsonObject().has("type")) {
      return 0;
    }
    com.google.gson.JsonObject o = n.getAsJsonObject();
    String type = o.get("type").isJsonPrimitive() ? o.get("type").getAsString() : "";
    switch (type) {
      case "NFC":
      case "NFD":
      case "NFKC":
      case "NFKD":
      case "Lowercase":
        return 4;
      case "Sequence":
        int most = 1;
        if (!o.has("normalizers") || !o.get("normalizers").isJsonArray()) {
          return 0;
        }
        for (com.google.gson.JsonElement e : o.getAsJsonArray("normalizers")) {
          int s = normalizerShrink(e);
          if (s == 0) {
            return 0;
          }
          most = Math.max(most, s);
        }
        return most == 1 ? 1 : 4;
      default:
        return 0;
    }
  }

  private static AddedToken readAddedToken(JsonReader r, Path file) throws IOException {
    Integer id = null;
    String content = null;
    boolean special = false;
    r.beginObject();
    while (r.hasNext()) {
      switch (r.nextName()) {
        case "id":
          id = r.nextInt();
          break;
        case "content":
          content = r.nextString();
          break;
        case "special":
          special = r.nextBoolean();
          break;
        default:
          r.skipValue();
      }
    }
    r.endObject();
    if (id == null || content == null || id < 0) {
      throw new CheckpointException(file + ": an entry of 'added_tokens' lacks a valid 'id' or 'content'");
    }
    checkId(id, content, "added_tokens", file);
    return new AddedToken(id, content, special);
  }

  /**
   * The largest token id accepted: 2^24 - 1. Real vocabularies stay far below (Qwen3's has 151,669 ids); a larger id
   * would need an embedding matrix of that many rows, and {@code id + 1} must not overflow.
   */
  static final int MAX_TOKEN_ID = (1 << 24) - 1;

  private static int checkId(int id, String token, String where, Path file) {
    if (id < 0 || id > MAX_TOKEN_ID) {
      String shown = token.length() <= 40 ? token : token.substring(0, 37) + "...";
      throw new CheckpointException(file + ": token '" + shown + "' in '" + where + "' has id " + id
          + ", outside [0, " + MAX_TOKEN_ID + "]; this tokenizer.json is damaged or not a Hugging Face tokenizer");
    }
    return id;
  }

  /** The largest id in model.vocab: an object of token to id (BPE, WordPiece, WordLevel) or a list (Unigram). */
  private static int readModelMaxId(JsonReader r, Path file, Header h) throws IOException {
    int maxId = -1;
    String type = null;
    String unkToken = null;
    boolean unkPresent = false;
    boolean fuseUnk = false;
    int maxBytes = 0;
    java.util.Set<String> vocab = null;
    r.beginObject();
    while (r.hasNext()) {
      String key = r.nextName();
      if (key.equals("type") && r.peek() == JsonToken.STRING) {
        type = r.nextString();
      } else if (key.equals("unk_token")) {
        unkPresent = true;
        if (r.peek() == JsonToken.STRING) {
          unkToken = r.nextString();
        } else {
          r.skipValue();
        }
      } else if (key.equals("fuse_unk") && r.peek() == JsonToken.BOOLEAN) {
        fuseUnk = r.nextBoolean();
      } else if (!key.equals("vocab")) {
        r.skipValue();
      } else if (r.peek() == JsonToken.BEGIN_OBJECT) {
        vocab = new java.util.HashSet<>();
        r.beginObject();
        while (r.hasNext()) {
          String token = r.nextName();
          vocab.add(token);
          maxBytes = Math.max(maxBytes, utf8Length(token));
          maxId = Math.max(maxId, checkId(r.nextInt(), token, "model.vocab", file));
        }
        r.endObject();
      } else if (r.peek() == JsonToken.BEGIN_ARRAY) {
        r.beginArray();
        while (r.hasNext()) {
          r.skipValue();
          maxId++;
        }
        r.endArray();
      } else {
        throw new CheckpointException(file + ": 'model.vocab' must be an object or a list");
      }
    }
    r.endObject();
    NativeTokenizerGuard.checkModel(file, type, unkToken, unkPresent, vocab);
    // an unknown character becomes one unknown token (at most 2 UTF-16 characters) unless unknowns are fused
    h.maxVocabBytes = "BPE".equals(type) && !fuseUnk && maxBytes > 0 ? Math.max(maxBytes, 4) : 0;
    return maxId;
  }

  private static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
    }
    return n;
  }

  /** @return the tokenizer.json file this was loaded from */
  public Path file() {
    return file;
  }

  /**
   * The number of token ids the tokenizer can produce: the largest id in the vocabulary or added tokens, plus one.
   * A model's embedding table may be larger (Qwen3 pads 151,669 to 151,936).
   *
   * @return the vocabulary size
   */
  public int vocabSize() {
    return vocabSize;
  }

  /** @return the added tokens ({@code <|im_start|>}, {@code <think>}, ...), in file order */
  public List<AddedToken> addedTokens() {
    return addedTokens;
  }

  /**
   * @param content the token text, for example {@code <|im_end|>}
   * @return its id, or empty when it is not an added token of this tokenizer
   */
  public OptionalInt addedTokenId(String content) {
    AddedToken t = addedByContent.get(content);
    return t == null ? OptionalInt.empty() : OptionalInt.of(t.id());
  }

  /**
   * @param content the token text, for example {@code <|im_end|>}
   * @return its id
   * @throws IllegalArgumentException when it is not an added token of this tokenizer
   */
  public int requireAddedTokenId(String content) {
    return addedTokenId(content).orElseThrow(() -> new IllegalArgumentException(
        "'" + content + "' is not an added token of " + file));
  }

  /**
   * @param id a token id
   * @return whether it is an added token marked special (dropped when decoding with special tokens skipped)
   */
  public boolean isSpecial(int id) {
    AddedToken t = addedById.get(id);
    return t != null && t.special();
  }

  /**
   * Encodes text; special-token texts in it become their tokens. Nothing is added, truncated or padded.
   *
   * @param text the text
   * @return the token ids
   */
  public int[] encode(String text) {
    Objects.requireNonNull(text, "text");
    return toInts(tokenizer.encode(text, false, false).getIds());
  }

  /**
   * Encodes several texts at once (the native library may use several threads).
   *
   * @param texts the texts
   * @return the token ids of each text, in order
   */
  public List<int[]> encodeBatch(List<String> texts) {
    if (texts.isEmpty()) {
      return List.of();
    }
    Encoding[] encodings = tokenizer.batchEncode(texts, false, false);
    List<int[]> out = new ArrayList<>(encodings.length);
    for (Encoding e : encodings) {
      out.add(toInts(e.getIds()));
    }
    return out;
  }

  private static int[] toInts(long[] ids) {
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = Math.toIntExact(ids[i]);
    }
    return out;
  }

  /**
   * Decodes token ids to text.
   *
   * @param ids the token ids
   * @param skipSpecialTokens whether to drop added tokens marked special (like {@code <|im_end|>})
   * @return the text
   * @throws IllegalArgumentException when an id is outside {@code [0, vocabSize)}
   */
  public String decode(int[] ids, boolean skipSpecialTokens) {
    long[] l = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] < 0 || ids[i] >= vocabSize) {
        throw new IllegalArgumentException("token id " + ids[i] + " at position " + i + " is outside the vocabulary"
            + " [0, " + vocabSize + ") of " + file);
      }
      l[i] = ids[i];
    }
    return tokenizer.decode(l, skipSpecialTokens);
  }

  /**
   * Decodes token ids a model generated: as {@link #decode}, except that ids at or above {@link #vocabSize()} decode
   * to nothing (Hugging Face's tokenizers skip ids they hold no token for in the same way). A checkpoint's embedding
   * often has more rows than its tokenizer has tokens (Qwen3: 151,936 rows for 151,669 tokens), and a model may
   * sample those rows, an untrained or random one often; its answer is then the text of its other tokens, not an
   * error that stops a rollout.
   *
   * @param ids the generated token ids
   * @param skipSpecialTokens whether to drop added tokens marked special (like {@code <|im_end|>})
   * @return the text
   * @throws IllegalArgumentException when an id is negative
   */
  public String decodeGenerated(int[] ids, boolean skipSpecialTokens) {
    int kept = 0;
    int[] known = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] < 0) {
        throw new IllegalArgumentException("token id " + ids[i] + " at position " + i + " is negative");
      }
      if (ids[i] < vocabSize) {
        known[kept++] = ids[i];
      }
    }
    return decode(kept == ids.length ? known : Arrays.copyOf(known, kept), skipSpecialTokens);
  }

  /** Frees the native tokenizer; further use fails. */
  @Override
  public void close() {
    tokenizer.close();
  }
}
