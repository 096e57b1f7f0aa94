package org.magejvm.examples.cli;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mage presets}: the training presets, what each sets and why; with {@code --env} also every config key in
 * which each preset differs from {@code mage-reference} on that environment.
 */
@Command(name = "presets", mixinStandardHelpOptions = true,
    description = "List the training presets (mage, mage-reference, lamer, gigpo, grpo, react, reflexion): what each"
        + " sets and why. With --env ID, also the config keys in which each differs from mage-reference there"
        + " (`mage train --preset P --env ID --print-config` prints a whole config).")
final class PresetsCommand implements Callable<Integer>, Limits.OptionPhase {

  @Option(names = "--env", paramLabel = "ID", description = "Show each preset's differences on this environment.")
  String env;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    EnvironmentProvider provider = env == null ? null : EnvironmentRegistry.discover().require(env);
    Limits.endOfOptions();
    JsonObject reference = provider == null ? null
        : TrainingPreset.MAGE_REFERENCE.config(provider).toJsonObject();
    for (TrainingPreset p : TrainingPreset.values()) {
      out.printf("%-15s %-6s %s%n", p.id(), p.trains() ? "trains" : "eval", p.description());
      if (provider != null && p != TrainingPreset.MAGE_REFERENCE) {
        TrainingConfig c = p.config(provider);
        List<String> diff = new ArrayList<>();
        differences("", reference, c.toJsonObject(), diff);
        diff.remove("preset=" + p.id());
        out.printf("%-22s vs mage-reference: %s%n", "", diff.isEmpty() ? "(same)" : String.join(" ", diff));
      }
    }
    out.flush();
    return 0;
  }

  private static void differences(String path, JsonObject a, JsonObject b, List<String> out) {
    for (Map.Entry<String, JsonElement> e : b.entrySet()) {
      String key = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
      JsonElement was = a.get(e.getKey());
      JsonElement now = e.getValue();
      if (now.isJsonObject() && was != null && was.isJsonObject() && !key.equals("environment.options")) {
        differences(key, was.getAsJsonObject(), now.getAsJsonObject(), out);
      } else if (!now.equals(was)) {
        out.add(key + "=" + (now.isJsonPrimitive() ? now.getAsString() : now.toString()));
      }
    }
  }
}
