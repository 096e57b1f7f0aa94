package org.magejvm.api;

/** Why a generated response ended. */
public enum FinishReason {
  /** An end-of-turn or end-of-sequence token was produced (it is not part of the returned text). */
  STOP,
  /** The token limit was reached. */
  LENGTH
}
