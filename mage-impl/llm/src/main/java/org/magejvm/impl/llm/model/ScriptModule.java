package org.magejvm.impl.llm.model;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.slf4j.Logger;

/**
 * Loads this package's TorchScript modules ({@link ScriptedDecodeStep}, {@link FusedAttention}), whose code is a text
 * resource, through {@link PyTorchNative#loadScript}. The archive libtorch loads is built here, in memory, in the
 * format {@code torch.jit.save} writes for a module without parameters: the code as {@code code/__torch__.py}, the
 * module object as a pickle of a few opcodes ({@code data.pkl}), an empty constants table and the format version. No
 * Python and no file is involved. Where libtorch refuses it (a future libtorch that dropped the format), the module is
 * unavailable after one warning and its user falls back to the path it replaces.
 */
final class ScriptModule {
  /** An empty tuple, pickle protocol 2. */
  private static final byte[] EMPTY_CONSTANTS = {(byte) 0x80, 2, ')', '.'};

  private ScriptModule() {}

  /**
   * Reads a module's code, packs it and has libtorch load it; a failure is logged once, as a warning, and not
   * thrown. The module is never closed: its user keeps it for the life of the JVM.
   *
   * @param resource the code's class-path resource (an absolute name)
   * @param className the module's class in the code (an ASCII identifier)
   * @param folder the archive's top folder
   * @param log the user's logger
   * @param warning the warning's SLF4J format, whose one {@code {}} receives the failure's message
   * @return the module, or empty where the resource is missing or libtorch could not load it
   */
  static Optional<PyTorchNative.Script> load(String resource, String className, String folder, Logger log,
      String warning) {
    try {
      return Optional.of(PyTorchNative.loadScript(archive(className, folder, resource(resource))));
    } catch (IOException | RuntimeException e) {
      log.warn(warning, e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * @param name a class-path resource's absolute name
   * @return its text
   * @throws IllegalStateException when it is missing
   */
  static String resource(String name) {
    try (InputStream in = ScriptModule.class.getResourceAsStream(name)) {
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
}
