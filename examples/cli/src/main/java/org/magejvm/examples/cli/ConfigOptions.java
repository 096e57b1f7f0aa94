package org.magejvm.examples.cli;

import java.util.ArrayList;
import java.util.List;
import org.magejvm.api.ConfigException;
import org.magejvm.impl.train.TrainingConfig;
import picocli.CommandLine.Option;

/** {@code --set KEY=VALUE} and {@code --print-config} for commands that train from a {@link TrainingConfig}. */
final class ConfigOptions {

  @Option(names = "--set", paramLabel = "KEY=VALUE",
      description = "Change any training config key (repeatable), e.g. --set credit.gamma_traj=0.6"
          + " --set environment.options.reward=win-loss; `mage presets` and docs/configuration.md list the keys.")
  List<String> sets = new ArrayList<>();

  @Option(names = "--print-config", description = "Print the resolved training config as JSON and exit.")
  boolean printConfig;

  /**
   * @param base the command's config before the --set changes
   * @return the config with every --set applied, in order
   * @throws ConfigException naming the --set and the key
   */
  TrainingConfig apply(TrainingConfig base) {
    TrainingConfig.Builder b = base.toBuilder();
    for (String s : sets) {
      try {
        b.set(s);
      } catch (ConfigException e) {
        throw e.in("--set " + s);
      }
    }
    try {
      return b.build();
    } catch (ConfigException e) {
      throw e.in("--set");
    }
  }
}
