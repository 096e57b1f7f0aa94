package org.magejvm.examples.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What one in-process run of the {@code mage} tool printed.
 *
 * @param code the exit code
 * @param out standard output
 * @param err standard error
 */
record CliRun(int code, String out, String err) {

  /** @return standard output parsed as a JSON object */
  JsonObject json() {
    return JsonParser.parseString(out).getAsJsonObject();
  }

  /**
   * @param key a metric key
   * @return its value in the JSON output's metrics
   */
  double metric(String key) {
    return json().getAsJsonObject("metrics").get(key).getAsDouble();
  }

  /**
   * Runs the tool in this JVM, capturing both streams.
   *
   * @param args the command line
   * @return what it printed and returned
   */
  static CliRun of(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int code = MageCli.run(args);
      return new CliRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }
}
