package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.impl.train.checkpoint.CheckpointManager;
import org.magejvm.impl.train.listen.MetricsFileListener;
import org.magejvm.impl.train.listen.MetricsHistory;
import org.magejvm.impl.train.listen.TrainingCharts;
import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code mage report RUN_DIR}: redraws a run's charts from its metrics file and prints a summary table. */
@Command(name = "report", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Redraw the charts of a training run (PNG and SVG in RUN_DIR/charts) and print a summary.")
final class ReportCommand implements Callable<Integer> {

  @Parameters(paramLabel = "RUN_DIR", description = "The run directory (holding metrics.jsonl).")
  Path runDir;

  @Option(names = "--no-charts", description = "Only print the summary.")
  boolean noCharts;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    Path metricsFile = runDir.resolve(MetricsFileListener.FILE_NAME);
    if (!Files.isRegularFile(metricsFile)) {
      throw new IllegalArgumentException(metricsFile + " does not exist; is " + runDir
          + " the --out directory of `mage train`?");
    }
    PrintWriter out = spec.commandLine().getOut();
    MetricsHistory history = MetricsHistory.read(metricsFile);
    out.print(history.summary());
    Path checkpoints = runDir.resolve(TrainingCheckpoint.CHECKPOINTS_DIR);
    Map<Integer, Path> all = TrainingCheckpoint.list(checkpoints);
    if (!all.isEmpty()) {
      out.println();
      out.println("checkpoints: " + all.keySet() + " in " + checkpoints);
      Path best = checkpoints.resolve(CheckpointManager.BEST_FILE);
      if (Files.isRegularFile(best)) {
        try {
          out.println("best: " + Files.readString(best).replaceAll("\\s+", " ").trim());
        } catch (java.io.IOException e) {
          out.println("best: unreadable (" + e.getMessage() + ")");
        }
      }
    }
    if (!noCharts) {
      List<Path> files = TrainingCharts.write(history, runDir.resolve(TrainingCharts.DIRECTORY));
      out.println();
      out.println(files.size() + " chart files written to " + runDir.resolve(TrainingCharts.DIRECTORY));
    }
    out.flush();
    return 0;
  }
}
