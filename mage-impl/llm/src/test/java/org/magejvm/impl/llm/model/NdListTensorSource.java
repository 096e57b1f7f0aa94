package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.magejvm.impl.llm.checkpoint.CheckpointException;
import org.magejvm.impl.llm.safetensors.TensorInfo;
import org.magejvm.impl.llm.safetensors.TensorSource;

/**
 * Test-only tensor source over DJL's own safetensors decoder (whole file through the heap, no BF16): enough for the
 * small F32 fixture and for hand-made sources in error tests. The production reader lives in the safetensors
 * package.
 */
final class NdListTensorSource implements TensorSource {
  private final NDManager manager;
  private final Map<String, NDArray> arrays;
  private final String file;
  private final boolean ownsManager;

  NdListTensorSource(NDManager manager, Map<String, NDArray> arrays, String file, boolean ownsManager) {
    this.manager = manager;
    this.arrays = new LinkedHashMap<>(arrays);
    this.file = file;
    this.ownsManager = ownsManager;
  }

  static NdListTensorSource read(Path path) {
    NDManager m = NDManager.newBaseManager(ai.djl.Device.cpu(), "PyTorch");
    try (InputStream in = Files.newInputStream(path)) {
      NDList list = NDList.decode(m, in);
      Map<String, NDArray> arrays = new LinkedHashMap<>();
      for (NDArray a : list) {
        arrays.put(a.getName(), a);
      }
      return new NdListTensorSource(m, arrays, path.getFileName().toString(), true);
    } catch (IOException e) {
      m.close();
      throw new UncheckedIOException(e);
    }
  }

  /** @return the arrays by name, to build modified sources from (owned by this source) */
  Map<String, NDArray> arrays() {
    return arrays;
  }

  NDManager manager() {
    return manager;
  }

  /** @return a source over a modified copy of the name map, sharing this source's arrays and manager */
  NdListTensorSource with(Map<String, NDArray> changed) {
    return new NdListTensorSource(manager, changed, file, false);
  }

  @Override
  public Set<String> names() {
    return arrays.keySet();
  }

  @Override
  public TensorInfo info(String name) {
    NDArray a = arrays.get(name);
    if (a == null) {
      throw new CheckpointException("no tensor " + name + " in " + file);
    }
    String dtype;
    switch (a.getDataType()) {
      case FLOAT32:
        dtype = "F32";
        break;
      case FLOAT16:
        dtype = "F16";
        break;
      case FLOAT64:
        dtype = "F64";
        break;
      case INT64:
        dtype = "I64";
        break;
      default:
        dtype = a.getDataType().toString();
    }
    return new TensorInfo(name, dtype, a.getShape().getShape(), file);
  }

  @Override
  public NDArray load(NDManager target, String name, DataType type) {
    info(name);
    // toType(same type, copy=true) would alias the decoded buffer; duplicate() really copies
    NDArray a = arrays.get(name);
    NDArray copy = a.getDataType() == type ? a.duplicate() : a.toType(type, true);
    copy.attach(target);
    return copy;
  }

  @Override
  public void close() {
    if (ownsManager) {
      manager.close();
    }
  }
}
