package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every program {@code mage bench} names is found, with mage-bench and mage-research on the class path as the launcher
 * puts them: a program that goes missing from a module's list fails here, not at a user's command line.
 */
class BenchCommandTest {

  @Test
  void everyBenchmarkNameIsRegisteredAndTheComparisonIsFound() {
    assertThat(LabPrograms.discover().keySet()).containsExactlyInAnyOrderElementsOf(List.of(
        "tictactoe", "kuhn", "sokoban", "engine", "advantage", "safetensors", "tokenizer", "model", "soak", "memory",
        "update", "iteration", "trainer-soak", "fuzz", "serve", "remote-env", "prompt-reject",
        "kuhn-adaptation", "kuhn-advantages", "kuhn-probe", "ttt-ceilings"));
    assertThat(MethodsComparison.find()).isNotNull();
    assertThat(new BenchCommand.Names()).hasSize(21);
  }
}
