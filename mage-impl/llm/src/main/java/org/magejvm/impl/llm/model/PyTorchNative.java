package org.magejvm.impl.llm.model;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.engine.PtNDManager;
import ai.djl.pytorch.engine.PtSymbolBlock;
import ai.djl.pytorch.jni.IValue;
import ai.djl.pytorch.jni.IValueUtils;
import ai.djl.pytorch.jni.JniUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * The one place that calls DJL's PyTorch engine directly ({@code ai.djl.pytorch.jni}, an internal DJL package
 * whose API may change between DJL releases); {@code ArchitectureTest} keeps every other class of the library away
 * from {@code ai.djl.pytorch}. Everything here is something DJL's engine-neutral API cannot do.
 *
 * <p>Today that is PyTorch's thread-local grad mode, behind {@link GradMode}, resizing libtorch's intra-op thread
 * pool after the engine started, behind {@link LibtorchThreads}, libtorch's operator profiler, behind {@link
 * OperatorProfiler}, and running a TorchScript module, behind {@link ScriptedDecodeStep} and {@link FusedAttention}. DJL's API changes grad mode
 * only by opening a {@code GradientCollector}, which can switch recording on (and allows one collector in the whole
 * JVM at a time) but never off, so turning recording off for an inference call on an arbitrary thread needs the
 * engine's own switch.
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

  /** A TorchScript module loaded by {@link #loadScript}: a handle for {@link #runScript}. */
  static final class Script implements AutoCloseable {
    private final NDManager manager;
    private final PtSymbolBlock block;

    private Script(NDManager manager, PtSymbolBlock block) {
      this.manager = manager;
      this.block = block;
    }

    @Override
    public void close() {
      block.close();
      manager.close();
    }
  }

  /**
   * Loads a TorchScript archive (the zip that {@code torch.jit.save} writes) from memory.
   *
   * @param archive the archive's bytes
   * @return the module, to be closed
   * @throws IOException where libtorch cannot read it (its message is kept)
   */
  static Script loadScript(byte[] archive) throws IOException {
    NDManager manager = NDManager.newBaseManager(ai.djl.Device.cpu(), "PyTorch");
    try {
      PtSymbolBlock block = JniUtils.loadModule((PtNDManager) manager, new ByteArrayInputStream(archive), false,
          false);
      return new Script(manager, block);
    } catch (IOException | RuntimeException e) {
      manager.close();
      throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
  }

  /**
   * Runs a module's method that returns one tensor, without recording gradients and without the graph executor's
   * optimisations: the method runs exactly the operations its code names, as eager calls would, so no fuser (on a
   * GPU) changes their rounding. libtorch's switch for them is per thread and cannot be read through DJL; it is set
   * back to what DJL sets it to (the system property {@code ai.djl.pytorch.graph_optimizer}, true by default).
   *
   * @param script the module
   * @param method the method's name
   * @param out the manager that owns the result
   * @param args each an {@link NDArray}, an {@code NDArray[]} (a list of tensors), a {@link Long} or a {@link
   *     Boolean}, in the method's order
   * @return the tensor the method returned
   */
  static NDArray runScript(Script script, String method, NDManager out, Object... args) {
    IValue[] values = new IValue[args.length];
    try {
      for (int i = 0; i < args.length; i++) {
        values[i] = toIValue(args[i]);
      }
      JniUtils.setGraphExecutorOptimize(false);
      try (IValue result = IValueUtils.runMethod(script.block, method, values)) {
        return result.toTensor((PtNDManager) out);
      } finally {
        JniUtils.setGraphExecutorOptimize(
            Boolean.parseBoolean(System.getProperty("ai.djl.pytorch.graph_optimizer", "true")));
      }
    } finally {
      for (IValue v : values) {
        if (v != null) {
          v.close();
        }
      }
    }
  }

  /**
   * Runs a module's {@code forward} on tensors with autograd as the thread has it (recording when grad mode is on,
   * so gradients flow through the module's operations to its inputs), without the graph executor's optimisations.
   *
   * @param script the module
   * @param args the tensors, in the method's order; the first one's manager owns the result
   * @return the tensor the method returned
   */
  static NDArray runScriptWithAutograd(Script script, NDArray... args) {
    JniUtils.setGraphExecutorOptimize(false);
    try {
      return IValueUtils.forward(script.block, new NDList(args), true).singletonOrThrow();
    } finally {
      JniUtils.setGraphExecutorOptimize(
          Boolean.parseBoolean(System.getProperty("ai.djl.pytorch.graph_optimizer", "true")));
    }
  }

  private static IValue toIValue(Object arg) {
    if (arg instanceof PtNDArray a) {
      return IValue.from(a);
    } else if (arg instanceof NDArray[] list) {
      PtNDArray[] arrays = new PtNDArray[list.length];
      for (int i = 0; i < list.length; i++) {
        arrays[i] = (PtNDArray) list[i];
      }
      return IValue.listFrom(arrays);
    } else if (arg instanceof Long l) {
      return IValue.from(l.longValue());
    } else if (arg instanceof Boolean b) {
      return IValue.from(b.booleanValue());
    }
    throw new IllegalArgumentException("a TorchScript argument must be a PyTorch array, an array of them, a Long or a"
        + " Boolean, got " + (arg == null ? "null" : arg.getClass().getName()));
  }
}
