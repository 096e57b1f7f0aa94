package org.magejvm.impl.llm.generate;

import org.magejvm.api.annotation.Api;

/**
 * Whether a part of a training pass keeps its activations for the backward pass or computes them again there
 * ({@link TeacherForcing}): recomputation trades time (about one more forward pass of that part) for memory.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public enum Recompute {
  /** Keep the activations (the fastest pass). */
  OFF,
  /** Recompute them in the backward pass. */
  ON,
  /**
   * Recompute where the activations the part would keep reach {@link TeacherForcing#RECOMPUTE_FROM_BYTES}, keep
   * them below (where the memory saved is small and the time is not).
   */
  AUTO
}
