package org.magejvm.impl.rollout;

import org.magejvm.api.annotation.Api;

/**
 * An {@link Error} or a checked exception that an environment plugin (or an opponent it consulted) threw, wrapped so
 * that {@link WorkerFailure#error()} stays a {@link RuntimeException}. {@link #getCause()} is exactly what was
 * thrown: an {@link AssertionError}, a {@link StackOverflowError}, an {@link java.io.IOException} thrown without
 * declaring it (as Kotlin and Lombok's {@code @SneakyThrows} do), and so on.
 *
 * <p>Errors that leave the JVM unusable ({@link VirtualMachineError}s such as {@link OutOfMemoryError} and {@link
 * InternalError}, except {@link StackOverflowError}, whose stack is unwound by the time it is caught) are never
 * wrapped: the rollout engine rethrows them.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class PluginError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param call the plugin call that threw, for example {@code step()}
   * @param thrown what it threw
   */
  public PluginError(String call, Throwable thrown) {
    super(call + " threw " + thrown, thrown);
  }

  /**
   * Whether a throwable leaves the JVM unusable, so that no caller should go on: a {@link VirtualMachineError} other
   * than {@link StackOverflowError}.
   *
   * @param t the throwable
   * @return true for {@link OutOfMemoryError}, {@link InternalError}, {@link UnknownError} and their kind
   */
  public static boolean isFatal(Throwable t) {
    return t instanceof VirtualMachineError && !(t instanceof StackOverflowError);
  }
}
