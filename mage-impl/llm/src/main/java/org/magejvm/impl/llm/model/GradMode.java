package org.magejvm.impl.llm.model;

import org.magejvm.api.annotation.Api;

/**
 * Switches PyTorch's autograd recording on or off for the current thread and restores it afterwards.
 *
 * <p>PyTorch's grad mode is thread-local: DJL turns it off only on the thread that started the engine, so on any
 * other thread every operation on arrays that require gradients records a graph unless it is switched off.
 * Inference code brackets itself with {@code GradMode g = GradMode.disabled(); try {...} finally {g.close();}}
 * (a try-with-resources block works too but draws javac's unused-resource lint warning); training code runs inside a
 * DJL {@code GradientCollector}, which switches it on.
 *
 * <p>The switch itself is PyTorch's, reached through {@code PyTorchNative}, the library's only direct use of DJL's
 * PyTorch engine classes.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class GradMode implements AutoCloseable {
  private final boolean previous;

  private GradMode(boolean enabled) {
    previous = PyTorchNative.isGradMode();
    PyTorchNative.setGradMode(enabled);
  }

  /** @return a scope in which no autograd graph is recorded on this thread */
  public static GradMode disabled() {
    return new GradMode(false);
  }

  /** @return a scope in which autograd records on this thread */
  public static GradMode enabled() {
    return new GradMode(true);
  }

  /** @return whether autograd records on this thread now */
  public static boolean isEnabled() {
    return PyTorchNative.isGradMode();
  }

  /** Restores the mode that was in force when this scope was opened. */
  @Override
  public void close() {
    PyTorchNative.setGradMode(previous);
  }
}
