/**
 * Benchmark programs, in {@code mage-bench} (examples/bench), which no module of {@code mage-all} and not the tool
 * itself depends on. Each has a {@code main} method that measures one part of the library and prints its figures;
 * {@code mage bench NAME} finds it by class name when the launcher puts the jar on the class path, and {@code
 * docs/benchmarks.md} records the results and the commands that produced them. {@link
 * org.magejvm.examples.bench.CheckpointFuzzer}, the checkpoint mutator of {@code mage bench fuzz} and {@code
 * CheckpointFuzzTest}, lives here too.
 */
package org.magejvm.examples.bench;
