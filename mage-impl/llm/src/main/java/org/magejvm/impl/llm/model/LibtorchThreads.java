package org.magejvm.impl.llm.model;

import ai.djl.engine.Engine;
import org.magejvm.api.annotation.Api;

/** Sets libtorch's intra-op thread count, before or after the engine has started. */
@Api(status = Api.Status.EXPERIMENTAL)
public final class LibtorchThreads {

  private LibtorchThreads() {}

  /**
   * Sets the number of threads libtorch uses inside one operation. Before the engine starts this is the system
   * property {@code ai.djl.pytorch.num_threads}; once it runs (always, after this call) the pool is resized directly.
   * The inter-op pool is left as the JVM options set it (it can only be set before the first parallel operation).
   *
   * @param threads the thread count
   * @throws IllegalArgumentException when the count is below 1
   */
  public static void set(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("the libtorch thread count must be >= 1, got " + threads);
    }
    System.setProperty("ai.djl.pytorch.num_threads", String.valueOf(threads));
    Engine.getEngine("PyTorch");
    PyTorchNative.setNumThreads(threads);
  }
}
