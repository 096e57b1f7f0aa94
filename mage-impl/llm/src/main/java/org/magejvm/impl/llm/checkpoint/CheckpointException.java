package org.magejvm.impl.llm.checkpoint;

import org.magejvm.api.annotation.Api;

/**
 * A checkpoint directory or file is malformed: a truncated file, an inconsistent header, a missing or unexpected
 * tensor, a wrong shape, an unknown dtype, or a config missing a field. The message names the file and, where there
 * is one, the tensor or field.
 *
 * <p>Thrown by the safetensors reader, the Qwen3 weight and config loaders and the tokenizer and chat-template
 * readers alike, so a host catches one type for "this directory is not a usable checkpoint".
 */
@Api(status = Api.Status.EXPERIMENTAL)
public class CheckpointException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what is wrong, naming the file and tensor or field */
  public CheckpointException(String message) {
    super(message);
  }

  /**
   * @param message what is wrong
   * @param cause the underlying error
   */
  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
