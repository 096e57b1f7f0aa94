package org.magejvm.impl.llm.model;

/** Tests outside the package read how often the fused attention kernel ran. */
public final class FusedAttentionRuns {
  private FusedAttentionRuns() {}

  /** @return the fused kernel's calls in this JVM so far */
  public static long count() {
    return FusedAttention.runs();
  }
}
