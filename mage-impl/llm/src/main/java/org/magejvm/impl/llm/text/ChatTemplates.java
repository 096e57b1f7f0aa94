package org.magejvm.impl.llm.text;

import java.nio.file.Path;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.jinja.TemplateException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Chooses the chat template of a checkpoint. */
public final class ChatTemplates {

  private static final Logger LOG = LoggerFactory.getLogger(ChatTemplates.class);

  private ChatTemplates() {}

  /**
   * The checkpoint's own Jinja template when its config has one; otherwise the built-in Qwen3 ChatML renderer
   * ({@link Qwen3ChatTemplate}), which is logged.
   *
   * @param config the checkpoint's tokenizer config
   * @return the template
   * @throws CheckpointException when the checkpoint's template uses syntax the interpreter does not support
   */
  public static ChatTemplate fromConfig(TokenizerConfig config) {
    if (config.chatTemplate().isEmpty()) {
      LOG.info("{} has no chat_template; using the built-in Qwen3 ChatML renderer", config.file());
      return Qwen3ChatTemplate.builtIn();
    }
    try {
      return JinjaChatTemplate.of(config.chatTemplate().get(), config.specialTokenVariables(),
          config.file() + " chat_template");
    } catch (TemplateException e) {
      throw new CheckpointException("the chat template of " + config.file() + " cannot be used: "
          + e.getMessage(), e);
    }
  }

  /**
   * Loads the tokenizer config of a checkpoint directory and chooses its template, see
   * {@link #fromConfig(TokenizerConfig)}.
   *
   * @param checkpointDir the checkpoint directory
   * @return the template
   * @throws CheckpointException when {@code tokenizer_config.json} is missing or malformed
   */
  public static ChatTemplate forCheckpoint(Path checkpointDir) {
    return fromConfig(TokenizerConfig.load(checkpointDir));
  }
}
