package org.magejvm.impl.llm.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A decoding step of {@link Qwen3Model} (every layer and the final norm, one new slot per row, a KV cache) run as
 * one TorchScript call instead of some 600 calls from Java, each of which costs DJL a native call and a Java array.
 * The step's code is the text resource {@code decode_step.torchscript}, which mirrors {@code Qwen3Model.layer}
 * operation for operation, so both compute the same values to the bit ({@code ScriptedDecodeStepTest} checks that on
 * every dtype the CPU runs).
 *
 * <p>The archive libtorch loads is built here, in memory, in the format {@code torch.jit.save} writes: the code as
 * {@code code/__torch__.py}, the module object as a pickle of a few opcodes ({@code data.pkl}), an empty constants
 * table and the format version. No Python and no file is involved. Where libtorch refuses it (a future libtorch that dropped
 * the format), the step is unavailable and the model decodes from Java as before, after one warning.
 */
final class ScriptedDecodeStep {

  private static final Logger LOG = LoggerFactory.getLogger(ScriptedDecodeStep.class);
  private static final String RESOURCE = "/org/magejvm/impl/llm/model/decode_step.torchscript";
  /** An empty tuple, pickle protocol 2. */
  private static final byte[] EMPTY_CONSTANTS = {(byte) 0x80, 2, ')', '.'};

  /** Steps run through the script in this JVM (tests check that the scripted path ran, not the Java one). */
  private static final AtomicLong RUNS = new AtomicLong();

  private final PyTorchNative.Script script;

  private ScriptedDecodeStep(PyTorchNative.Script script) {
    this.script = script;
  }

  /** The one module of this JVM, loaded on first use. */
  private static final class Holder {
    static final Optional<ScriptedDecodeStep> INSTANCE = load();
  }

  /** @return the step, or empty where libtorch could not load it (logged once) */
  static Optional<ScriptedDecodeStep> instance() {
    return Holder.INSTANCE;
  }

  private static Optional<ScriptedDecodeStep> load() {
    try {
      return Optional.of(new ScriptedDecodeStep(PyTorchNative.loadScript(archive(code()))));
    } catch (IOException | RuntimeException e) {
      LOG.warn("libtorch could not load the scripted decoding step; decoding runs from Java ({})", e.getMessage());
      return Optional.empty();
    }
  }

  /** @return the TorchScript code of the step */
  static String code() {
    return resource(RESOURCE);
  }

  /**
   * @param name a class-path resource's absolute name
   * @return its text
   * @throws IllegalStateException when it is missing
   */
  static String resource(String name) {
    try (InputStream in = ScriptedDecodeStep.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the resource " + name + " is missing from the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + name, e);
    }
  }

  /**
   * Packs TorchScript code into an archive such as {@code torch.jit.save} writes for a module without parameters.
   *
   * @param code the source of class {@code DecodeStep}
   * @return the archive's bytes (a zip of stored entries under {@code decode_step/})
   */
  static byte[] archive(String code) throws IOException {
    return archive("DecodeStep", "decode_step", code);
  }

  /**
   * Packs TorchScript code into an archive such as {@code torch.jit.save} writes for a module without parameters.
   *
   * @param className the module's class in the code (an ASCII identifier)
   * @param folder the archive's top folder
   * @param code the source of the class
   * @return the archive's bytes (a zip of stored entries under {@code folder/})
   */
  static byte[] archive(String className, String folder, String code) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
      zip.setMethod(ZipOutputStream.STORED);
      entry(zip, folder + "/data.pkl", pickle(className));
      entry(zip, folder + "/code/__torch__.py", code.getBytes(StandardCharsets.UTF_8));
      entry(zip, folder + "/constants.pkl", EMPTY_CONSTANTS);
      entry(zip, folder + "/version", "3\n".getBytes(StandardCharsets.US_ASCII));
    }
    return bytes.toByteArray();
  }

  private static void entry(ZipOutputStream zip, String name, byte[] data) throws IOException {
    ZipEntry e = new ZipEntry(name);
    CRC32 crc = new CRC32();
    crc.update(data);
    e.setSize(data.length);
    e.setCompressedSize(data.length);
    e.setCrc(crc.getValue());
    e.setTime(315532800000L); // 1980-01-01, as torch.jit.save leaves it: the same bytes on every run
    zip.putNextEntry(e);
    zip.write(data);
    zip.closeEntry();
  }

  /** {@code __torch__.CLASS} with {@code training = False}, as pickle protocol 2. */
  private static byte[] pickle(String className) {
    ByteArrayOutputStream p = new ByteArrayOutputStream();
    p.write(0x80); // PROTO 2
    p.write(2);
    p.writeBytes(("c__torch__\n" + className + "\n").getBytes(StandardCharsets.US_ASCII)); // GLOBAL
    p.writeBytes(new byte[] {')', (byte) 0x81, '}'}); // EMPTY_TUPLE, NEWOBJ, EMPTY_DICT
    p.write('X'); // BINUNICODE "training"
    p.writeBytes(new byte[] {8, 0, 0, 0});
    p.writeBytes("training".getBytes(StandardCharsets.US_ASCII));
    p.writeBytes(new byte[] {(byte) 0x89, 's', 'b', '.'}); // NEWFALSE, SETITEM, BUILD, STOP
    return p.toByteArray();
  }

  /** @return the steps run through the script in this JVM so far */
  static long runs() {
    return RUNS.get();
  }

  /**
   * @param type an array type
   * @return PyTorch's scalar type code for it, or -1 where the step does not run on it
   */
  static int scalarType(DataType type) {
    switch (type) {
      case FLOAT16:
        return 5;
      case FLOAT32:
        return 6;
      case FLOAT64:
        return 7;
      case BFLOAT16:
        return 15;
      default:
        return -1;
    }
  }

  /**
   * Runs every layer and the final norm for one new slot per row.
   *
   * @param out the manager that owns the result
   * @param h (B, 1, D) embedded tokens in the norm type
   * @param weights per layer the eleven arrays of {@code decode_step.torchscript}, then the final norm
   * @param keys the cache's keys, one array per layer, written at slot {@code length}
   * @param values the cache's values
   * @param cos (B, 1, 1, hd) rotary cosines
   * @param sin (B, 1, 1, hd) rotary sines
   * @param rotate the (hd, hd) rotate-half matrix
   * @param bias the (B, 1, 1, 1, S) mask, or null
   * @param constants eps, -1/2 and the query scale
   * @param length the slots filled before this step
   * @param config the model's configuration
   * @param dtype the weights' type
   * @param normType the norms' type
   * @return (B, 1, D) the final norm's output
   */
  NDArray run(NDManager out, NDArray h, NDArray[] weights, NDArray[] keys, NDArray[] values, NDArray cos,
      NDArray sin, NDArray rotate, NDArray bias, NDArray[] constants, int length, Qwen3Config config,
      DataType dtype, DataType normType) {
    RUNS.incrementAndGet();
    return PyTorchNative.runScript(script, "forward", out, h, weights, keys, values, cos, sin, rotate,
        bias == null ? constants[0] : bias, bias != null, constants[0], constants[1], constants[2], (long) length,
        (long) config.numAttentionHeads(), (long) config.numKeyValueHeads(), (long) config.headDim(),
        config.qkNorm(), (long) scalarType(dtype), (long) scalarType(normType));
  }
}
