package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code mage bench NAME [ARGS...]}: runs one of the benchmark programs of {@code mage-bench} ({@code
 * org.magejvm.examples.bench}) or one of the experiments of {@code mage-research} ({@code
 * org.magejvm.examples.research}), so every figure in {@code docs/benchmarks.md} and {@code docs/results.md} can be
 * reproduced with the same tool. The tool does not depend on those modules: it finds the program by its class name on
 * the class path, where the {@code mage} launcher puts their jars.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Run a benchmark program and print its figures (see docs/benchmarks.md).")
final class BenchCommand implements Callable<Integer> {

  private static final String BENCH = "org.magejvm.examples.bench.";
  private static final String RESEARCH = "org.magejvm.examples.research.";

  /** Benchmark names and the fully qualified names of the classes holding their main methods. */
  static final Map<String, String> BENCHMARKS = new LinkedHashMap<>();

  static {
    BENCHMARKS.put("tictactoe", BENCH + "TicTacToeBench");
    BENCHMARKS.put("kuhn", BENCH + "KuhnBench");
    BENCHMARKS.put("sokoban", BENCH + "SokobanBench");
    BENCHMARKS.put("engine", BENCH + "EngineBench");
    BENCHMARKS.put("advantage", BENCH + "AdvantageBench");
    BENCHMARKS.put("safetensors", BENCH + "SafetensorsBench");
    BENCHMARKS.put("tokenizer", BENCH + "TokenizerBench");
    BENCHMARKS.put("kuhn-adaptation", RESEARCH + "KuhnAdaptationExperiment");
    BENCHMARKS.put("kuhn-advantages", RESEARCH + "KuhnAdvantageExperiment");
    BENCHMARKS.put("kuhn-probe", RESEARCH + "KuhnProbe");
    BENCHMARKS.put("ttt-ceilings", RESEARCH + "TicTacToeCeilingsReport");
    BENCHMARKS.put("model", BENCH + "ModelBench");
    BENCHMARKS.put("soak", BENCH + "SoakBench");
    BENCHMARKS.put("memory", BENCH + "MemoryBench");
    BENCHMARKS.put("update", BENCH + "UpdateBench");
    BENCHMARKS.put("iteration", BENCH + "IterationBench");
    BENCHMARKS.put("trainer-soak", BENCH + "TrainerSoakBench");
    BENCHMARKS.put("fuzz", BENCH + "FuzzBench");
    BENCHMARKS.put("serve", BENCH + "ServeBench");
    BENCHMARKS.put("remote-env", BENCH + "RemoteEnvBench");
    BENCHMARKS.put("prompt-reject", BENCH + "PromptRejectBench");
  }

  @Parameters(index = "0", paramLabel = "NAME", description = "One of: ${COMPLETION-CANDIDATES}",
      completionCandidates = Names.class)
  String name;

  @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments passed to the benchmark program.")
  List<String> args = new ArrayList<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    String className = BENCHMARKS.get(name);
    PrintWriter err = spec.commandLine().getErr();
    if (className == null) {
      err.println("error: unknown benchmark '" + name + "'; known benchmarks: " + String.join(", ",
          BENCHMARKS.keySet()));
      return 2;
    }
    Class<?> type = ClassPathPrograms.load(className);
    Method main = type.getMethod("main", String[].class);
    ClassPathPrograms.invoke(main, null, (Object) args.toArray(new String[0]));
    return 0;
  }

  /** The benchmark names, for help output. */
  static final class Names extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    Names() {
      super(BENCHMARKS.keySet());
    }
  }
}
