package org.magejvm.examples.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code mage} command: lists environments, plays meta-episodes, trains, reports, inspects models. */
@Command(
    name = "mage",
    mixinStandardHelpOptions = true,
    versionProvider = MageCli.Version.class,
    description = "MAGE meta-reinforcement learning for language-model agents, on the JVM.",
    subcommands = {QuickStartCommand.class, ExperimentCommand.class, EnvsCommand.class, PlayCommand.class,
        TrainCommand.class, ReportCommand.class, GenerateCommand.class, LogitsCommand.class, BenchCommand.class,
        TranscriptsCommand.class, SftCommand.class, MemoryCommand.class, LoraCommand.class,
        CommandLine.HelpCommand.class})
public final class MageCli implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * Runs the tool.
   *
   * @param args command-line arguments
   */
  public static void main(String[] args) {
    System.exit(run(args));
  }

  /**
   * Runs the tool without exiting the JVM (for tests and embedding).
   *
   * @param args command-line arguments
   * @return the exit code
   */
  public static int run(String... args) {
    CommandLine cl = new CommandLine(new MageCli());
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      commandLine.getErr().println("error: " + ex.getMessage());
      return 1;
    });
    return cl.execute(args);
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return 0;
  }

  /** Reports the library version from the jar manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = MageCli.class.getPackage().getImplementationVersion();
      return new String[] {"mage " + (v == null ? "(development build)" : v)};
    }
  }
}
