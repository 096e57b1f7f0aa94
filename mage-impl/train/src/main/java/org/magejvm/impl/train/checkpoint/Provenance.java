package org.magejvm.impl.train.checkpoint;

import ai.djl.engine.Engine;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Properties;

/** Where and with what a checkpoint was written: library, JVM, DJL, libtorch, OS, threads, time. */
final class Provenance {
  private Provenance() {}

  /** @return this library's version, from the filtered {@code mage-version.properties} */
  static String libraryVersion() {
    try (InputStream in = Provenance.class.getResourceAsStream("mage-version.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        String v = p.getProperty("version", "");
        if (!v.isEmpty() && !v.startsWith("${")) {
          return v;
        }
      }
    } catch (IOException e) {
      // fall through to the manifest
    }
    String v = Provenance.class.getPackage().getImplementationVersion();
    return v == null ? "unknown" : v;
  }

  /** @return the provenance object written into {@code trainer-state.json} */
  static JsonObject describe() {
    JsonObject o = new JsonObject();
    o.addProperty("library_version", libraryVersion());
    o.addProperty("java_version", System.getProperty("java.version"));
    o.addProperty("java_vendor", System.getProperty("java.vendor"));
    o.addProperty("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    o.addProperty("djl_version", Engine.getDjlVersion());
    String engineName = "PyTorch";
    String engineVersion = "unknown";
    try {
      Engine engine = Engine.getEngine(engineName);
      engineVersion = engine.getVersion();
    } catch (RuntimeException e) {
      engineVersion = "unavailable: " + e.getMessage();
    }
    o.addProperty("engine", engineName);
    o.addProperty("libtorch_version", engineVersion);
    o.addProperty("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
        + System.getProperty("os.arch"));
    o.addProperty("available_processors", Runtime.getRuntime().availableProcessors());
    o.add("threads", threads());
    o.addProperty("timestamp", Instant.now().toString());
    return o;
  }

  /**
   * The libtorch thread settings as the engine reads them (system properties; absent means libtorch's default, one
   * thread per core). An exact resume needs the same values.
   *
   * @return {@code {"num_threads": ..., "num_interop_threads": ...}} with nulls for unset properties
   */
  static JsonObject threads() {
    JsonObject t = new JsonObject();
    t.addProperty("num_threads", System.getProperty("ai.djl.pytorch.num_threads"));
    t.addProperty("num_interop_threads", System.getProperty("ai.djl.pytorch.num_interop_threads"));
    return t;
  }
}
