package org.magejvm.examples.cli;

import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.api.plugin.ProviderInfo;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mage envs}: lists every discovered environment provider with its version, jar, opponents and options. */
@Command(name = "envs", mixinStandardHelpOptions = true,
    description = "List every discovered environment provider: id, version, jar location, opponents, scripted"
        + " policies and the options its create() takes (--env-option KEY=VALUE).")
final class EnvsCommand implements Callable<Integer> {

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    PrintWriter out = spec.commandLine().getOut();
    List<EnvironmentProvider> providers = registry.all();
    if (json) {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (EnvironmentProvider p : providers) {
        ProviderInfo info = ProviderInfo.of(p);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", info.id());
        row.put("version", info.version());
        row.put("description", info.description());
        row.put("class", info.className());
        row.put("location", info.location());
        row.put("opponents", p.opponents().ids());
        row.put("policies", p.scriptedPolicies());
        row.put("options", p.options());
        rows.add(row);
      }
      out.println(new GsonBuilder().setPrettyPrinting().create().toJson(rows));
    } else {
      out.printf("%-18s %-10s %s%n", "ID", "VERSION", "LOCATION");
      for (EnvironmentProvider p : providers) {
        ProviderInfo info = ProviderInfo.of(p);
        out.printf("%-18s %-10s %s%n", info.id(), info.version(), info.location());
        if (!p.opponents().ids().isEmpty()) {
          out.printf("%-18s opponents: %s%n", "", String.join(", ", p.opponents().ids()));
        }
        out.printf("%-18s policies:  %s%n", "", String.join(", ", p.scriptedPolicies()));
        for (Map.Entry<String, String> o : p.options().entrySet()) {
          out.printf("%-18s option:    %s: %s%n", "", o.getKey(), o.getValue());
        }
      }
    }
    out.flush();
    return 0;
  }
}
