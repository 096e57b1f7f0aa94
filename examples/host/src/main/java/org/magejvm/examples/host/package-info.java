/**
 * An example host application, written the way a project outside this repository would write one, against the
 * library's {@code @Api} types only (ArchitectureTest keeps it so): its own game as a {@code ServiceLoader} plugin
 * ({@link org.magejvm.examples.host.HiddenDoorProvider}) and a program that makes a tiny model for it, warm-starts,
 * trains, saves, reloads and evaluates it ({@link org.magejvm.examples.host.HostExample}). docs/embedding.md walks
 * through the same steps.
 */
package org.magejvm.examples.host;
