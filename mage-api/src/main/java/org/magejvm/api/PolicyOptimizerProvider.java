package org.magejvm.api;

import org.magejvm.api.annotation.Api;
import org.magejvm.api.plugin.Provider;

/**
 * Creates {@link PolicyOptimizer}s; found through {@link java.util.ServiceLoader} (declare the class in
 * {@code META-INF/services/org.magejvm.api.PolicyOptimizerProvider}) or registered programmatically with a
 * {@link org.magejvm.api.plugin.ProviderRegistry}.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public interface PolicyOptimizerProvider extends Provider {

  /**
   * Creates an optimizer.
   *
   * @param config the configuration
   * @return the optimizer
   */
  PolicyOptimizer create(OptimizerConfig config);
}
