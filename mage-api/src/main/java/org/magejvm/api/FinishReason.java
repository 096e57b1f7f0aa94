package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/** Why a generated response ended. */
@Api(status = Api.Status.STABLE)
public enum FinishReason {
  /** An end-of-turn or end-of-sequence token was produced (it is not part of the returned text). */
  STOP,
  /** The token limit was reached. */
  LENGTH
}
