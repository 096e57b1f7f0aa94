package org.magejvm.impl.llm.safetensors;

import org.magejvm.api.annotation.Api;

/**
 * What loading does with a tensor that holds NaN or infinite values (a checkpoint saved from a diverged run, or one
 * damaged on purpose). The check runs during the copy that loading does anyway (no extra pass over the file), and it
 * looks at the converted values, so a float32 weight too large for float16 counts as infinite when loading as
 * FLOAT16.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum NonFiniteCheck {
  /** Fail the load with a {@link org.magejvm.impl.llm.checkpoint.CheckpointException} naming file and tensor. */
  REFUSE,
  /** Load it, and log a warning naming file and tensor. */
  WARN,
  /** Do not look (the values load as they are). */
  ALLOW
}
