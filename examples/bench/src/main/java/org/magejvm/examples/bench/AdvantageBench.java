package org.magejvm.examples.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.magejvm.api.AdvantageNormalizer;
import org.magejvm.api.Advantages;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.NormalizationMode;
import org.magejvm.api.OptimizerConfig;
import org.magejvm.api.Phase;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.gigpo.GigpoAdvantageNormalizer;
import org.magejvm.gigpo.GrpoAdvantageNormalizer;

/**
 * Times the GiGPO and GRPO advantage computation on one realistic training batch.
 *
 * <p>The batch (default 10,000 turns) has 16 episode groups of 8 meta-episodes each, every meta-episode three
 * episodes with a reflection turn between two episodes. Each group has one opponent and one seat. States are 7x7
 * Sokoban-like boards (49-character strings plus line breaks, a new string object per turn) produced by a random
 * walk from the group's start position over a small state space, so anchors repeat within and across meta-episodes
 * the way they do in practice. Every setting is warmed up and then timed over many calls; the median, 10th and 90th
 * percentile times per call are printed.
 *
 * <p>Usage: {@code AdvantageBench [turns] [repetitions]} (defaults 10000 and 300).
 */
public final class AdvantageBench {

  private static final int GROUPS = 16;
  private static final int META_EPISODES_PER_GROUP = 8;
  private static final int EPISODES = 3;
  private static final int SIDE = 7;
  private static final String[] OPPONENTS = {"mcts", "random", "minimax", "greedy"};

  private AdvantageBench() {}

  /**
   * Runs the benchmark.
   *
   * @param args optional number of turns and number of timed repetitions
   */
  public static void main(String[] args) {
    int turns = args.length > 0 ? parsePositive("turns", args[0]) : 10_000;
    int reps = args.length > 1 ? parsePositive("repetitions", args[1]) : 300;
    if (args.length > 2) {
      throw new IllegalArgumentException("expected at most 2 arguments (turns, repetitions), got " + args.length);
    }
    List<ScoredTurn> batch = batch(turns, 20260304L);

    System.out.printf(Locale.ROOT, "AdvantageBench: %d turns, %d groups x %d meta-episodes x %d episodes, "
        + "%d timed calls per setting (Java %s, %d processors)%n", batch.size(), GROUPS, META_EPISODES_PER_GROUP,
        EPISODES, reps, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
    OptimizerConfig defaults = OptimizerConfig.defaults();
    OptimizerConfig stdPerEpisode = defaults.toBuilder()
        .optNormalization(NormalizationMode.MEAN_STD_NORM)
        .optAnchorScope(AnchorScope.PER_EPISODE)
        .build();
    time("GiGPO mean_norm, global anchors", new GigpoAdvantageNormalizer(defaults), batch, reps);
    time("GiGPO mean_std_norm, per-episode", new GigpoAdvantageNormalizer(stdPerEpisode), batch, reps);
    time("GRPO mean_norm", new GrpoAdvantageNormalizer(defaults), batch, reps);
  }

  private static int parsePositive(String name, String text) {
    try {
      int v = Integer.parseInt(text.trim());
      if (v < 1) {
        throw new IllegalArgumentException(name + " must be >= 1, got " + v);
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a positive integer, got '" + text + "'", e);
    }
  }

  private static void time(String label, AdvantageNormalizer normalizer, List<ScoredTurn> batch, int reps) {
    double sink = 0;
    long warmUntil = System.nanoTime() + 2_000_000_000L;
    int warm = 0;
    while (warm < 200 || System.nanoTime() < warmUntil) {
      sink += normalizer.compute(batch).values()[warm % batch.size()];
      warm++;
    }
    long[] nanos = new long[reps];
    Advantages last = null;
    for (int r = 0; r < reps; r++) {
      long t0 = System.nanoTime();
      last = normalizer.compute(batch);
      nanos[r] = System.nanoTime() - t0;
      sink += last.values()[r % batch.size()];
    }
    Arrays.sort(nanos);
    System.out.printf(Locale.ROOT,
        "%-34s median %.3f ms/call (p10 %.3f, p90 %.3f; %d warm-up calls); %d step groups, mean size %.2f%s%n",
        label, nanos[reps / 2] / 1e6, nanos[reps / 10] / 1e6, nanos[(reps * 9) / 10] / 1e6, warm,
        last.stepGroupCount(), last.meanStepGroupSize(), Double.isFinite(sink) ? "" : " (non-finite)");
  }

  /**
   * Builds the batch: turns are spread evenly over the meta-episodes; each meta-episode has two reflection turns
   * and its play turns split over three episodes.
   */
  private static List<ScoredTurn> batch(int turns, long seed) {
    int metaEpisodes = GROUPS * META_EPISODES_PER_GROUP;
    if (turns < metaEpisodes * (2 * EPISODES - 1)) {
      throw new IllegalArgumentException("turns must be at least " + metaEpisodes * (2 * EPISODES - 1)
          + " (one play turn per episode and the reflections), got " + turns);
    }
    Random random = new Random(seed);
    List<ScoredTurn> out = new ArrayList<>(turns);
    for (int m = 0; m < metaEpisodes; m++) {
      int group = m / META_EPISODES_PER_GROUP;
      String groupId = "task-" + group;
      String opponent = OPPONENTS[group % OPPONENTS.length];
      Seat seat = group % 2 == 0 ? Seat.FIRST : Seat.SECOND;
      Random startRandom = new Random(seed + group);
      int start = (1 + startRandom.nextInt(SIDE - 2)) * SIDE + 1 + startRandom.nextInt(SIDE - 2);
      int total = turns / metaEpisodes + (m < turns % metaEpisodes ? 1 : 0);
      int play = total - (EPISODES - 1);
      double previousReturn = 0;
      for (int e = 0; e < EPISODES; e++) {
        int length = play / EPISODES + (e < play % EPISODES ? 1 : 0);
        double episodeReturn = random.nextInt(3) * 10 - 10;
        double score = episodeReturn - previousReturn;
        previousReturn = episodeReturn;
        if (e > 0) {
          Turn reflection = Turn.builder()
              .setPhase(Phase.REFLECT).setEpisodeIndex(e).setTurnIndex(0)
              .setPrompt("reflect").setResponse("<remark>...</remark>")
              .setAnchor(AnchorKey.reflection(opponent)).optOpponentId(opponent).build();
          out.add(new ScoredTurn(reflection, groupId, seat, random.nextGaussian() * 5, 0.0));
        }
        int position = start;
        for (int t = 0; t < length; t++) {
          boolean valid = random.nextInt(10) != 0;
          Turn turn = Turn.builder()
              .setEpisodeIndex(e).setTurnIndex(t)
              .setPrompt("play").setResponse("<action>up</action>")
              .optValid(valid)
              .setAnchor(new AnchorKey(render(position), opponent)).optOpponentId(opponent).build();
          double g = score * Math.pow(0.95, length - 1 - t) + random.nextGaussian();
          out.add(new ScoredTurn(turn, groupId, seat, g, valid ? score : score - 0.5));
          position = step(position, random);
        }
      }
    }
    return out;
  }

  /** A random walk on the board's interior, biased to stay near where it is. */
  private static int step(int position, Random random) {
    int row = position / SIDE;
    int col = position % SIDE;
    switch (random.nextInt(5)) {
      case 0:
        row = Math.max(1, row - 1);
        break;
      case 1:
        row = Math.min(SIDE - 2, row + 1);
        break;
      case 2:
        col = Math.max(1, col - 1);
        break;
      case 3:
        col = Math.min(SIDE - 2, col + 1);
        break;
      default:
        break;
    }
    return row * SIDE + col;
  }

  /** A new string per call, as an environment renders it. */
  private static String render(int position) {
    StringBuilder b = new StringBuilder(SIDE * (SIDE + 1));
    for (int r = 0; r < SIDE; r++) {
      for (int c = 0; c < SIDE; c++) {
        boolean wall = r == 0 || c == 0 || r == SIDE - 1 || c == SIDE - 1;
        b.append(r * SIDE + c == position ? 'P' : wall ? '#' : (r == 3 && c == 3) ? '.' : '_');
      }
      b.append('\n');
    }
    return b.toString();
  }
}
