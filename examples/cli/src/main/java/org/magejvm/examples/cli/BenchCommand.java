package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code mage bench NAME [ARGS...]}: runs one of the lab's programs, the benchmarks of {@code mage-bench} ({@code
 * org.magejvm.examples.bench}) and the experiments of {@code mage-research} ({@code org.magejvm.examples.research}),
 * so every figure in {@code docs/benchmarks.md} and {@code docs/results.md} can be reproduced with the same tool. The
 * tool does not depend on those modules: they register their programs as {@link LabPrograms}, found on the class
 * path, where the {@code mage} launcher puts their jars.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Run a benchmark program and print its figures (see docs/benchmarks.md).")
final class BenchCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "NAME", description = "One of: ${COMPLETION-CANDIDATES}",
      completionCandidates = Names.class)
  String name;

  @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments passed to the benchmark program.")
  List<String> args = new ArrayList<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Map<String, LabPrograms.Main> programs = LabPrograms.discover();
    PrintWriter err = spec.commandLine().getErr();
    if (programs.isEmpty()) {
      throw new IllegalStateException("no benchmark program is on the class path: they live in"
          + " examples/bench/target/mage-bench.jar and examples/research/target/mage-research.jar, which the `mage`"
          + " launcher adds when they are built (mvn -B -q package -DskipTests)");
    }
    LabPrograms.Main main = programs.get(name);
    if (main == null) {
      err.println("error: unknown benchmark '" + name + "'; known benchmarks: " + String.join(", ",
          programs.keySet()));
      return 2;
    }
    main.main(args.toArray(new String[0]));
    return 0;
  }

  /** The benchmark names on the class path, for help output. */
  static final class Names extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Names() {
      super(LabPrograms.discover().keySet());
    }
  }
}
