package org.magejvm.impl.llm.model;

import ai.djl.engine.Engine;
import ai.djl.pytorch.jni.JniUtils;

/**
 * The one place that calls DJL's PyTorch engine directly ({@code ai.djl.pytorch.jni}, an internal DJL package
 * whose API may change between DJL releases); {@code ArchitectureTest} keeps every other class of the library away
 * from {@code ai.djl.pytorch}. Everything here is something DJL's engine-neutral API cannot do.
 *
 * <p>Today that is PyTorch's thread-local grad mode, behind {@link GradMode}, and resizing libtorch's intra-op thread
 * pool after the engine started, behind {@link LibtorchThreads}. DJL's API changes grad mode only by opening a
 * {@code GradientCollector}, which can switch recording on (and allows one collector in the whole JVM at a time) but
 * never off, so turning recording off for an inference call on an arbitrary thread needs the engine's own switch.
 * Another engine would bring its own class like this one.
 */
final class PyTorchNative {

  private PyTorchNative() {}

  /** @return whether PyTorch records an autograd graph on the current thread */
  static boolean isGradMode() {
    return JniUtils.isGradMode();
  }

  /** @param enabled whether PyTorch should record an autograd graph on the current thread */
  static void setGradMode(boolean enabled) {
    JniUtils.setGradMode(enabled);
  }

  /** Starts libtorch's operator profiler (CPU operators, without shapes or memory). */
  static void startProfile() {
    Engine.getEngine("PyTorch"); // loads the native library on a first call
    JniUtils.startProfile(false, false, false);
  }

  /** @param file where libtorch's profiler writes what it recorded since {@link #startProfile}, as a Chrome trace */
  static void stopProfile(String file) {
    JniUtils.stopProfile(file);
  }

  /** @param threads the number of threads libtorch uses inside one operation */
  static void setNumThreads(int threads) {
    JniUtils.setNumThreads(threads);
  }
}
