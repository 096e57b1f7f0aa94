package org.magejvm.examples.cli;


/** Sets libtorch's intra-op thread count for commands with a {@code --threads} option. */
final class LibtorchThreads {

  private LibtorchThreads() {}

  /**
   * Sets the number of threads libtorch uses inside one operation. Before the engine starts this is the system
   * property {@code ai.djl.pytorch.num_threads}; once it runs (always, after this call) the pool is resized directly.
   * The inter-op pool is left as the JVM options set it (it can only be set before the first parallel operation).
   *
   * @param threads the thread count, or null to leave the default (one per core, or what the JVM options say)
   * @throws IllegalArgumentException naming {@code --threads} when the count is below 1
   */
  static void apply(Integer threads) {
    if (threads == null) {
      return;
    }
    if (threads < 1) {
      throw new IllegalArgumentException("--threads must be >= 1, got " + threads);
    }
    org.magejvm.impl.llm.model.LibtorchThreads.set(threads);
  }
}
