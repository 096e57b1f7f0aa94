package org.magejvm.examples.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import org.magejvm.examples.cli.LabPrograms;

/** The benchmark programs {@code mage bench NAME} runs, by name. */
public final class BenchPrograms implements LabPrograms {

  /** Creates the list (ServiceLoader). */
  public BenchPrograms() {}

  @Override
  public Map<String, Main> programs() {
    Map<String, Main> p = new LinkedHashMap<>();
    p.put("tictactoe", TicTacToeBench::main);
    p.put("kuhn", KuhnBench::main);
    p.put("sokoban", SokobanBench::main);
    p.put("engine", EngineBench::main);
    p.put("advantage", AdvantageBench::main);
    p.put("safetensors", SafetensorsBench::main);
    p.put("tokenizer", TokenizerBench::main);
    p.put("model", ModelBench::main);
    p.put("soak", SoakBench::main);
    p.put("memory", MemoryBench::main);
    p.put("update", UpdateBench::main);
    p.put("iteration", IterationBench::main);
    p.put("trainer-soak", TrainerSoakBench::main);
    p.put("fuzz", FuzzBench::main);
    p.put("serve", ServeBench::main);
    p.put("remote-env", RemoteEnvBench::main);
    p.put("prompt-reject", PromptRejectBench::main);
    return p;
  }
}
