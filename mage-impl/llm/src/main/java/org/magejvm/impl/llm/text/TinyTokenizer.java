package org.magejvm.impl.llm.text;

import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * A small but real byte-level BPE tokenizer in Hugging Face format, for tests and the CPU quick start (which
 * cannot download Qwen3's 151k-token tokenizer).
 *
 * <p>Layout, mirroring Qwen3's {@code tokenizer.json}: ids 0 to 255 are the 256 byte symbols in GPT-2's
 * byte-to-unicode order (so {@code "!"} is id 0, as in Qwen3); then one id per learned merge; then the added tokens
 * {@code <|endoftext|>}, {@code <|im_start|>}, {@code <|im_end|>} (special) and {@code <think>}, {@code </think>}
 * (not special, as in Qwen3, so they survive decoding with special tokens skipped). Pre-tokenisation uses Qwen's
 * regex and byte-level mapping. Unlike Qwen3 there is no NFC normaliser, so every text round-trips exactly.
 *
 * <p>{@link #writeTo(Path)} writes {@code tokenizer.json} and a {@code tokenizer_config.json} that carries the Qwen3
 * chat template (or one given to the builder) with {@code eos_token = <|im_end|>}; {@link HfTokenizer#load(Path)}
 * loads the directory. Building is deterministic: the same corpus and settings give byte-identical files.
 */
public final class TinyTokenizer {

  /** The added tokens, in id order after the merges. */
  public static final List<String> ADDED_TOKENS =
      List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>");

  private final List<BpeTrainer.Merge> merges;
  private final Map<String, Integer> vocab;
  private final String chatTemplate;

  private TinyTokenizer(List<BpeTrainer.Merge> merges, String chatTemplate) {
    this.merges = List.copyOf(merges);
    this.chatTemplate = chatTemplate;
    Map<String, Integer> v = new LinkedHashMap<>();
    for (int i = 0; i < 256; i++) {
      v.put(ByteLevel.SYMBOL[ByteLevel.ORDER[i]], i);
    }
    for (BpeTrainer.Merge m : merges) {
      v.putIfAbsent(m.result(), v.size());
    }
    this.vocab = Collections.unmodifiableMap(v);
  }

  /** @return a builder; without a corpus the tokenizer has only byte tokens and the added tokens */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the number of ids: byte symbols, merged symbols and added tokens */
  public int vocabSize() {
    return vocab.size() + ADDED_TOKENS.size();
  }

  /** @return the number of merges learned */
  public int mergeCount() {
    return merges.size();
  }

  /**
   * @param token one of {@link #ADDED_TOKENS}
   * @return its id
   */
  public int addedTokenId(String token) {
    int i = ADDED_TOKENS.indexOf(token);
    if (i < 0) {
      throw new IllegalArgumentException("'" + token + "' is not one of " + ADDED_TOKENS);
    }
    return vocab.size() + i;
  }

  /** @return the text of {@code tokenizer.json} */
  public String tokenizerJson() {
    try {
      StringWriter sw = new StringWriter();
      JsonWriter w = new JsonWriter(sw);
      w.setIndent("  ");
      w.beginObject();
      w.name("version").value("1.0");
      w.name("truncation").nullValue();
      w.name("padding").nullValue();
      w.name("added_tokens").beginArray();
      for (int i = 0; i < ADDED_TOKENS.size(); i++) {
        String t = ADDED_TOKENS.get(i);
        w.beginObject();
        w.name("id").value(vocab.size() + i);
        w.name("content").value(t);
        w.name("single_word").value(false);
        w.name("lstrip").value(false);
        w.name("rstrip").value(false);
        w.name("normalized").value(false);
        w.name("special").value(isSpecial(t));
        w.endObject();
      }
      w.endArray();
      w.name("normalizer").nullValue();
      w.name("pre_tokenizer").beginObject();
      w.name("type").value("Sequence");
      w.name("pretokenizers").beginArray();
      w.beginObject();
      w.name("type").value("Split");
      w.name("pattern").beginObject().name("Regex").value(BpeTrainer.PRE_TOKENIZER_REGEX).endObject();
      w.name("behavior").value("Isolated");
      w.name("invert").value(false);
      w.endObject();
      byteLevel(w.beginObject()).endObject();
      w.endArray();
      w.endObject();
      byteLevel(w.name("post_processor").beginObject()).endObject();
      byteLevel(w.name("decoder").beginObject()).endObject();
      w.name("model").beginObject();
      w.name("type").value("BPE");
      w.name("dropout").nullValue();
      w.name("unk_token").nullValue();
      w.name("continuing_subword_prefix").value("");
      w.name("end_of_word_suffix").value("");
      w.name("fuse_unk").value(false);
      w.name("byte_fallback").value(false);
      w.name("ignore_merges").value(false);
      w.name("vocab").beginObject();
      for (Map.Entry<String, Integer> e : vocab.entrySet()) {
        w.name(e.getKey()).value(e.getValue());
      }
      w.endObject();
      w.name("merges").beginArray();
      for (BpeTrainer.Merge m : merges) {
        w.beginArray().value(m.left()).value(m.right()).endArray();
      }
      w.endArray();
      w.endObject();
      w.endObject();
      w.flush();
      return sw + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isSpecial(String token) {
    return !token.equals("<think>") && !token.equals("</think>");
  }

  private static JsonWriter byteLevel(JsonWriter w) throws IOException {
    w.name("type").value("ByteLevel");
    w.name("add_prefix_space").value(false);
    w.name("trim_offsets").value(false);
    w.name("use_regex").value(false);
    return w;
  }

  /** @return the text of {@code tokenizer_config.json}, in the shape of Qwen3's */
  public String tokenizerConfigJson() {
    try {
      StringWriter sw = new StringWriter();
      JsonWriter w = new JsonWriter(sw);
      w.setIndent("  ");
      w.beginObject();
      w.name("add_bos_token").value(false);
      w.name("add_prefix_space").value(false);
      w.name("added_tokens_decoder").beginObject();
      for (String t : ADDED_TOKENS) {
        w.name(Integer.toString(addedTokenId(t))).beginObject();
        w.name("content").value(t);
        w.name("lstrip").value(false);
        w.name("normalized").value(false);
        w.name("rstrip").value(false);
        w.name("single_word").value(false);
        w.name("special").value(isSpecial(t));
        w.endObject();
      }
      w.endObject();
      w.name("bos_token").nullValue();
      w.name("chat_template").value(chatTemplate);
      w.name("clean_up_tokenization_spaces").value(false);
      w.name("eos_token").value("<|im_end|>");
      w.name("errors").value("replace");
      w.name("model_max_length").value(32768);
      w.name("pad_token").value("<|endoftext|>");
      w.name("split_special_tokens").value(false);
      w.name("tokenizer_class").value("Qwen2Tokenizer");
      w.name("unk_token").nullValue();
      w.endObject();
      w.flush();
      return sw + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Writes {@code tokenizer.json} and {@code tokenizer_config.json} into a directory, creating it if needed.
   *
   * @param dir the directory
   * @throws CheckpointException when the files cannot be written
   */
  public void writeTo(Path dir) {
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve(HfTokenizer.FILE_NAME), tokenizerJson(), StandardCharsets.UTF_8);
      Files.writeString(dir.resolve(TokenizerConfig.FILE_NAME), tokenizerConfigJson(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CheckpointException("cannot write the tokenizer files into " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Builds a {@link TinyTokenizer}. */
  public static final class Builder {
    private String corpus = "";
    private int maxMerges = 256;
    private int minPairFrequency = 2;
    private String chatTemplate;

    private Builder() {}

    /**
     * @param text the text merges are learned from (special-token texts in it are ignored)
     * @return this builder
     */
    public Builder optCorpus(String text) {
      this.corpus = Objects.requireNonNull(text, "text");
      return this;
    }

    /**
     * @param n the most merges to learn (default 256; 0 gives a pure byte tokenizer)
     * @return this builder
     */
    public Builder optMaxMerges(int n) {
      this.maxMerges = n;
      return this;
    }

    /**
     * @param n stop learning when the most frequent pair occurs fewer times (default 2)
     * @return this builder
     */
    public Builder optMinPairFrequency(int n) {
      this.minPairFrequency = n;
      return this;
    }

    /**
     * @param template the Jinja chat template to store (default: the Qwen3 template)
     * @return this builder
     */
    public Builder optChatTemplate(String template) {
      this.chatTemplate = Objects.requireNonNull(template, "template");
      return this;
    }

    /** @return the tokenizer, after training on the corpus */
    public TinyTokenizer build() {
      if (maxMerges < 0) {
        throw new IllegalArgumentException("maxMerges must be >= 0, got " + maxMerges);
      }
      if (minPairFrequency < 1) {
        throw new IllegalArgumentException("minPairFrequency must be >= 1, got " + minPairFrequency);
      }
      List<BpeTrainer.Merge> merges = maxMerges == 0 || corpus.isEmpty() ? new ArrayList<>()
          : BpeTrainer.train(corpus, maxMerges, minPairFrequency, ADDED_TOKENS);
      return new TinyTokenizer(merges, chatTemplate != null ? chatTemplate : JinjaChatTemplate.qwen3Source());
    }
  }
}
