package org.magejvm.impl.train;

import org.magejvm.impl.train.checkpoint.TrainingCheckpoint;
import org.magejvm.impl.train.listen.MetricsFileListener;
import java.nio.file.Path;
import java.util.List;

/**
 * The child process of {@link KillAndResumeTest}: trains the {@link TinyRun} with the anchor check on ({@link
 * TinyRun#withAnchors}) in a run directory, with a checkpoint after every iteration and {@code metrics.jsonl}, up to a
 * given iteration count; with {@code resume} it first
 * continues from the latest checkpoint of the directory.
 *
 * <p>Arguments: {@code RUN_DIR ITERATIONS fresh|resume}.
 */
public final class ResumeChild {
  private ResumeChild() {}

  /**
   * @param args run directory, iteration count, mode
   */
  public static void main(String[] args) {
    Path runDir = Path.of(args[0]);
    int iterations = Integer.parseInt(args[1]);
    boolean resume = args[2].equals("resume");
    Path model = TinyRun.writeModel(runDir.resolve("tiny-model"));
    try (MetricsFileListener metrics = new MetricsFileListener(runDir);
        TinyRun run = new TinyRun(runDir, model, 1, 0, List.of(metrics), TinyRun::withAnchors)) {
      if (resume) {
        TrainingCheckpoint cp = TrainingCheckpoint.open(TrainingCheckpoint.locate(runDir));
        run.trainer.resume(cp);
        System.out.println("resumed-from " + cp.iteration());
      }
      System.out.println("training to " + iterations);
      run.trainer.fit(iterations);
      System.out.println("done " + run.trainer.iteration());
    }
    System.exit(0);
  }
}
