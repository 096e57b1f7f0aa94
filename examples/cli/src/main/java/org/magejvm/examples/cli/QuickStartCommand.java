package org.magejvm.examples.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.magejvm.examples.quickstart.QuickStart;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mage quickstart}: the CPU quick start (see {@link QuickStart}). */
@Command(name = "quickstart", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Write a tiny Qwen3 checkpoint, load it, play a MAGE batch of Tic-Tac-Toe on the CPU,"
        + " compute GiGPO advantages, and compare with scripted players.")
final class QuickStartCommand implements Callable<Integer> {

  @Option(names = "--work-dir", paramLabel = "DIR", defaultValue = "mage-quickstart",
      description = "Where the tiny checkpoint is written (default: ${DEFAULT-VALUE}).")
  Path workDir;

  @Option(names = "--tasks", paramLabel = "B", defaultValue = "4", description = "Task groups (default: 4).")
  int tasks;

  @Option(names = "--group-size", paramLabel = "G", defaultValue = "4",
      description = "Meta-episodes per group (default: 4).")
  int groupSize;

  @Option(names = "--max-new-tokens", paramLabel = "N", defaultValue = "24",
      description = "Tokens per response of the tiny model (default: 24).")
  int maxNewTokens;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "Base seed (default: 0).")
  long seed;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    java.io.PrintWriter out = spec.commandLine().getOut();
    new QuickStart(EnvironmentRegistry.discover(), out)
        .run(new QuickStart.Settings(workDir, tasks, groupSize, maxNewTokens, seed));
    out.flush();
    return 0;
  }
}
