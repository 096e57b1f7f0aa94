package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code mage} command: lists environments, plays meta-episodes, trains, reports, inspects models.
 *
 * <p>Errors are one line each on standard error, {@code error: ...}: exit code 2 for a usage error (an unknown or
 * malformed option, a size outside its bounds or beyond what the model's context or the heap can hold, checked
 * before anything large is allocated by {@link Limits}, which prints every violated bound on a line of its own, or
 * an {@link IllegalArgumentException} a command or a builder throws while the command is still reading its options,
 * see {@link Limits.OptionPhase}), 1 for anything that fails at run time, including an {@link Error} such as
 * {@link OutOfMemoryError} that escapes a command. {@code --verbose} (on any command) adds the stack trace.
 */
@Command(
    name = "mage",
    mixinStandardHelpOptions = true,
    versionProvider = MageCli.Version.class,
    description = "MAGE meta-reinforcement learning for language-model agents, on the JVM.",
    subcommands = {QuickStartCommand.class, ExperimentCommand.class, EnvsCommand.class, PlayCommand.class,
        EnvServeCommand.class, PresetsCommand.class,
        TrainCommand.class, ReportCommand.class, GenerateCommand.class, LogitsCommand.class, BenchCommand.class,
        TranscriptsCommand.class, SftCommand.class, MemoryCommand.class, LoraCommand.class, ServeCommand.class,
        CommandLine.HelpCommand.class})
public final class MageCli implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Exit code of a usage error. */
  static final int USAGE = 2;
  /** Exit code of a run-time error. */
  static final int FAILURE = 1;

  @Option(names = "--verbose", scope = ScopeType.INHERIT,
      description = "On an error, print the stack trace after the one-line message.")
  boolean verbose;

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
    boolean verbose = Arrays.asList(args).contains("--verbose");
    CommandLine cl;
    try {
      cl = new CommandLine(new MageCli());
    } catch (RuntimeException e) {
      return report(new PrintWriter(System.err, true), e, verbose, FAILURE);
    }
    cl.setParameterExceptionHandler((ex, a) -> usage(ex.getCommandLine(), ex, verbose));
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) ->
        ex instanceof IllegalArgumentException && commandLine.getCommand() instanceof Limits.OptionPhase
            && !Limits.pastOptions()
            ? usage(commandLine, ex, verbose)
            : report(commandLine.getErr(), ex, verbose, FAILURE));
    Limits.startCommand();
    try {
      return cl.execute(args);
    } catch (Throwable t) {
      // what picocli does not catch: Errors such as OutOfMemoryError or StackOverflowError
      return report(cl.getErr(), t, verbose, FAILURE);
    }
  }

  /**
   * Prints a usage error: one {@code error:} line per line of its message (a {@link Limits} check lists every
   * violation), the last naming the command's help.
   */
  private static int usage(CommandLine commandLine, Exception ex, boolean verbose) {
    PrintWriter err = commandLine.getErr();
    String help = commandLine.getCommandSpec().qualifiedName();
    String m = ex.getMessage();
    String[] lines = ex instanceof CommandLine.ParameterException && m != null && !m.isBlank()
        ? m.strip().split("\n") : new String[] {oneLine(ex)};
    for (int i = 0; i < lines.length; i++) {
      err.println("error: " + lines[i].strip() + (i == lines.length - 1 ? " (see '" + help + " --help')" : ""));
    }
    if (verbose) {
      ex.printStackTrace(err);
    }
    err.flush();
    return USAGE;
  }

  private static int report(PrintWriter err, Throwable t, boolean verbose, int code) {
    try {
      err.println("error: " + oneLine(t));
      if (verbose) {
        t.printStackTrace(err);
      }
      err.flush();
    } catch (Throwable ignored) {
      // nothing more can be said (the heap may be gone); the exit code still tells
    }
    return code;
  }

  /**
   * @param t an error
   * @return its message's first line, or for errors without a useful message what they are
   */
  static String oneLine(Throwable t) {
    if (t instanceof OutOfMemoryError) {
      return "out of memory (" + t.getMessage() + "); ask for less (--meta-episodes, --max-new-tokens, --batch, "
          + "--ids) or give the JVM more heap with MAGE_JAVA_OPTS=-Xmx...";
    }
    if (t instanceof StackOverflowError) {
      return "stack overflow in " + frame(t) + "; rerun with --verbose for the stack";
    }
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return t.getClass().getName() + " at " + frame(t);
    }
    m = m.strip();
    int nl = m.indexOf('\n');
    String first = nl < 0 ? m : m.substring(0, nl).strip() + " (more with --verbose)";
    // exceptions whose message is only a type name (Gson's "JsonObject", say) say nothing on their own
    return first.matches("[A-Za-z_$.]+") && !first.contains(" ") ? t.getClass().getSimpleName() + ": " + first
        + " at " + frame(t) : first;
  }

  private static String frame(Throwable t) {
    StackTraceElement[] s = t.getStackTrace();
    return s.length == 0 ? "(unknown)" : s[0].getClassName() + "." + s[0].getMethodName();
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
