package org.magejvm.impl.llm.text;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.magejvm.impl.llm.checkpoint.CheckpointException;

/**
 * Works out which token ids end a generated response.
 *
 * <p>In order, without duplicates: the chat template's end-of-turn token (ChatML's {@code <|im_end|>}); the
 * {@code eos_token} of {@code tokenizer_config.json}; the {@code eos_token_id} (an id or a list) of
 * {@code config.json} and of {@code generation_config.json}, each when the file exists. For Qwen3 instruct
 * checkpoints that is {@code <|im_end|>} (151645) and {@code <|endoftext|>} (151643).
 */
public final class StopTokens {

  private StopTokens() {}

  /**
   * @param checkpointDir the checkpoint directory ({@code config.json} and {@code generation_config.json} are
   *     optional)
   * @param tokenizer the checkpoint's tokenizer
   * @param config its tokenizer config
   * @param template its chat template
   * @return the stop token ids, in the order above
   * @throws CheckpointException when a named token is not in the tokenizer, an id is outside the vocabulary, a
   *     file is malformed, or no stop token is found at all
   */
  public static Set<Integer> resolve(Path checkpointDir, HfTokenizer tokenizer, TokenizerConfig config,
      ChatTemplate template) {
    Set<Integer> ids = new LinkedHashSet<>();
    template.endOfTurnToken().ifPresent(t -> tokenizer.addedTokenId(t).ifPresent(ids::add));
    config.eosToken().ifPresent(t -> ids.add(tokenizer.addedTokenId(t).orElseThrow(() -> new CheckpointException(
        config.file() + ": eos_token '" + t + "' is not an added token of " + tokenizer.file()))));
    for (String name : List.of("config.json", "generation_config.json")) {
      Path file = checkpointDir.resolve(name);
      JsonFiles.readOptionalObject(file).ifPresent(o -> addIds(o, file, tokenizer, ids));
    }
    if (ids.isEmpty()) {
      throw new CheckpointException("no stop token found for " + checkpointDir + ": the chat template names no "
          + "known end-of-turn token and no eos_token / eos_token_id is set");
    }
    return Collections.unmodifiableSet(ids);
  }

  private static void addIds(JsonObject o, Path file, HfTokenizer tokenizer, Set<Integer> ids) {
    for (int id : JsonFiles.idsField(o, "eos_token_id", file)) {
      if (id >= tokenizer.vocabSize()) {
        throw new CheckpointException(file + ": eos_token_id " + id + " is outside the tokenizer's vocabulary [0, "
            + tokenizer.vocabSize() + ")");
      }
      ids.add(id);
    }
  }
}
