package org.magejvm.impl.llm.text;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * The parts of a checkpoint's {@code tokenizer_config.json} the policy uses: the chat template and the special
 * token strings.
 *
 * @param file the file read
 * @param chatTemplate the Jinja chat template, if the checkpoint has one
 * @param eosToken the end-of-sequence token text
 * @param bosToken the beginning-of-sequence token text
 * @param padToken the padding token text
 * @param unkToken the unknown token text
 */
public record TokenizerConfig(
    Path file,
    Optional<String> chatTemplate,
    Optional<String> eosToken,
    Optional<String> bosToken,
    Optional<String> padToken,
    Optional<String> unkToken) {

  /** The file name inside a checkpoint directory. */
  public static final String FILE_NAME = "tokenizer_config.json";
  /** Newer {@code transformers} versions save the chat template beside the config in this file. */
  public static final String TEMPLATE_FILE_NAME = "chat_template.jinja";

  /**
   * Validates.
   *
   * @param file file
   * @param chatTemplate chat template
   * @param eosToken eos
   * @param bosToken bos
   * @param padToken pad
   * @param unkToken unk
   */
  public TokenizerConfig {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(chatTemplate, "chatTemplate");
    Objects.requireNonNull(eosToken, "eosToken");
    Objects.requireNonNull(bosToken, "bosToken");
    Objects.requireNonNull(padToken, "padToken");
    Objects.requireNonNull(unkToken, "unkToken");
  }

  /**
   * Loads {@code tokenizer_config.json} from a checkpoint directory. A {@code chat_template.jinja} file beside it,
   * when present, takes precedence over the config's {@code chat_template} field (as in {@code transformers}).
   *
   * @param checkpointDir the checkpoint directory
   * @return the config
   * @throws CheckpointException when the file is missing or malformed, naming the file and field
   */
  public static TokenizerConfig load(Path checkpointDir) {
    TokenizerConfig config = read(checkpointDir.resolve(FILE_NAME));
    Path jinja = checkpointDir.resolve(TEMPLATE_FILE_NAME);
    if (Files.isRegularFile(jinja)) {
      String template = org.magejvm.impl.llm.checkpoint.CheckpointFiles.readSmallText(jinja);
      return new TokenizerConfig(config.file, Optional.of(template), config.eosToken, config.bosToken,
          config.padToken, config.unkToken);
    }
    return config;
  }

  /**
   * Reads one {@code tokenizer_config.json} file.
   *
   * @param file the file
   * @return the config
   * @throws CheckpointException when the file is missing or malformed, naming the file and field
   */
  public static TokenizerConfig read(Path file) {
    JsonObject o = JsonFiles.readObject(file);
    return new TokenizerConfig(file, chatTemplate(o, file), JsonFiles.tokenField(o, "eos_token", file),
        JsonFiles.tokenField(o, "bos_token", file), JsonFiles.tokenField(o, "pad_token", file),
        JsonFiles.tokenField(o, "unk_token", file));
  }

  private static boolean isString(JsonElement e) {
    return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString();
  }

  private static String abbreviate(JsonElement e) {
    return abbreviate(e.toString());
  }

  private static Optional<String> chatTemplate(JsonObject o, Path file) {
    JsonElement e = o.get("chat_template");
    if (e == null || e.isJsonNull()) {
      return Optional.empty();
    }
    if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isString()) {
      return Optional.of(e.getAsString());
    }
    if (e.isJsonArray()) {
      // the multi-template form: [{"name": "default", "template": "..."}, {"name": "tool_use", ...}]
      List<String> names = new ArrayList<>();
      for (JsonElement item : e.getAsJsonArray()) {
        if (!item.isJsonObject() || !isString(item.getAsJsonObject().get("name"))
            || !isString(item.getAsJsonObject().get("template"))) {
          throw new CheckpointException(file + ": field 'chat_template' is a list whose entries must be objects "
              + "with string fields 'name' and 'template'; entry " + names.size() + " is " + abbreviate(item));
        }
        String name = item.getAsJsonObject().get("name").getAsString();
        names.add(name);
        if (name.equals("default")) {
          return Optional.of(item.getAsJsonObject().get("template").getAsString());
        }
      }
      throw new CheckpointException(file + ": field 'chat_template' lists templates " + names
          + " but none is named 'default'");
    }
    throw new CheckpointException(file + ": field 'chat_template' must be a string or a list of named templates");
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  /**
   * The special-token variables {@code transformers} passes to chat templates ({@code bos_token},
   * {@code eos_token}, {@code pad_token}, {@code unk_token}); absent tokens are left out, so they are undefined in
   * the template.
   *
   * @return the variables
   */
  public Map<String, String> specialTokenVariables() {
    Map<String, String> m = new LinkedHashMap<>();
    bosToken.ifPresent(t -> m.put("bos_token", t));
    eosToken.ifPresent(t -> m.put("eos_token", t));
    unkToken.ifPresent(t -> m.put("unk_token", t));
    padToken.ifPresent(t -> m.put("pad_token", t));
    return m;
  }
}
