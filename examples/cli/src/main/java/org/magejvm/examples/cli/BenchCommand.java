package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
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
 * {@code mage bench NAME [ARGS...]}: runs one of the benchmark programs of {@code org.magejvm.examples.bench}, so
 * every figure in {@code docs/benchmarks.md} can be reproduced with the same tool.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Run a benchmark program and print its figures (see docs/benchmarks.md).")
final class BenchCommand implements Callable<Integer> {

  /** Benchmark names and the classes holding their main methods. */
  static final Map<String, String> BENCHMARKS = new LinkedHashMap<>();

  static {
    BENCHMARKS.put("tictactoe", "TicTacToeBench");
    BENCHMARKS.put("kuhn", "KuhnBench");
    BENCHMARKS.put("sokoban", "SokobanBench");
    BENCHMARKS.put("engine", "EngineBench");
    BENCHMARKS.put("advantage", "AdvantageBench");
    BENCHMARKS.put("safetensors", "SafetensorsBench");
    BENCHMARKS.put("tokenizer", "TokenizerBench");
    BENCHMARKS.put("kuhn-adaptation", "KuhnAdaptationExperiment");
    BENCHMARKS.put("kuhn-advantages", "KuhnAdvantageExperiment");
    BENCHMARKS.put("model", "ModelBench");
    BENCHMARKS.put("soak", "SoakBench");
    BENCHMARKS.put("memory", "MemoryBench");
    BENCHMARKS.put("update", "UpdateBench");
    BENCHMARKS.put("iteration", "IterationBench");
    BENCHMARKS.put("trainer-soak", "TrainerSoakBench");
    BENCHMARKS.put("fuzz", "FuzzBench");
    BENCHMARKS.put("serve", "ServeBench");
    BENCHMARKS.put("remote-env", "RemoteEnvBench");
    BENCHMARKS.put("prompt-reject", "PromptRejectBench");
  }

  @Parameters(index = "0", paramLabel = "NAME", description = "One of: ${COMPLETION-CANDIDATES}",
      completionCandidates = Names.class)
  String name;

  @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments passed to the benchmark program.")
  List<String> args = new ArrayList<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    String simpleName = BENCHMARKS.get(name);
    PrintWriter err = spec.commandLine().getErr();
    if (simpleName == null) {
      err.println("error: unknown benchmark '" + name + "'; known benchmarks: " + String.join(", ",
          BENCHMARKS.keySet()));
      return 2;
    }
    Class<?> type = Class.forName("org.magejvm.examples.bench." + simpleName);
    Method main = type.getMethod("main", String[].class);
    try {
      main.invoke(null, (Object) args.toArray(new String[0]));
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception) {
        throw (Exception) cause;
      }
      throw e;
    }
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
