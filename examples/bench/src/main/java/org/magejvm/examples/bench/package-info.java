/**
 * Benchmark programs. Each has a {@code main} method that measures one part of the library and prints its figures;
 * {@code docs/benchmarks.md} records the results and the commands that produced them.
 */
package org.magejvm.examples.bench;
