package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/** How a group's values are turned into advantages. */
@Api(status = Api.Status.STABLE)
public enum NormalizationMode {
  /** {@code A = x - mean(group)} (the reference default). */
  MEAN_NORM,
  /** {@code A = (x - mean(group)) / (std(group) + epsilon)} with the unbiased standard deviation. */
  MEAN_STD_NORM
}
