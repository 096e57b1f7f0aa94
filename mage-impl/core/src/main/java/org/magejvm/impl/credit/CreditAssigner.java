package org.magejvm.impl.credit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.MetaReturn;
import org.magejvm.api.ScoredTurn;
import org.magejvm.api.Turn;

/**
 * Credit assignment: turns the rewards of meta-episodes into a step return {@code G} and an episode score {@code s}
 * for every turn.
 *
 * <p>Notation: episodes {@code n = 0..N'-1} (those actually played), play turns {@code t = 0..L_n-1} with raw
 * rewards {@code r_(n,t)}, and {@code R_n = sum_t r_(n,t)}.
 *
 * <ul>
 *   <li>{@link MetaReturn#DIFFERENTIAL} (MAGE): {@code r'_n = R_n - R_(n-1)} with {@code R_(-1) = 0}; {@code G_(n,t)
 *       = gammaStep^(L_n-1-t) * (r'_n + gammaTraj * G_(n+1,0))}; play-turn score {@code s = r'_n}. Intermediate
 *       rewards count only through {@code R_n}.
 *   <li>{@link MetaReturn#CUMULATIVE} (LaMer): {@code G_(n,t) = r_(n,t) + gammaStep * G_(n,t+1)} inside an episode
 *       and {@code G_(n,L_n-1) = r_(n,L_n-1) + gammaTraj * G_(n+1,0)}; play-turn score {@code s = R_n}.
 *   <li>{@link MetaReturn#SINGLE_EPISODE} (upstream GiGPO): {@code G_(n,t) = sum_(k>=t) gammaStep^(k-t) r_(n,k)}
 *       within the episode, nothing from later episodes; play-turn score {@code s = R_n}.
 * </ul>
 *
 * <p>With {@link EpisodeScore#META_EPISODE} every turn, play and reflection, scores the whole meta-episode instead:
 * {@code sum_n r'_n} (differential), {@code sum_n R_n} (cumulative); single-episode scores are unchanged.
 *
 * <p>In every mode a reflection turn (which prepares episode n) takes {@code G_(n,0)}, with {@code G_(N',0) = 0}; its
 * score is 0 under {@link EpisodeScore#ATTEMPT}, as in the reference, and the meta-episode's under {@link
 * EpisodeScore#META_EPISODE}. Penalties then lower the score only, never {@code G}: {@code s -= invalidPenalty} for an invalid
 * turn, and {@code s -= lengthPenalty * min(1, (L - Lmax/2) / (Lmax - Lmax/2))} when the response has {@code L >
 * Lmax/2} tokens (policies without tokens have {@code L = 0}).
 */
@Api(status = Api.Status.STABLE)
public final class CreditAssigner {

  private final CreditConfig config;

  /** @param config discounts, return kind and penalties */
  public CreditAssigner(CreditConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  /** @return the configuration */
  public CreditConfig config() {
    return config;
  }

  /**
   * Scores every turn of a batch.
   *
   * @param metaEpisodes the meta-episodes
   * @return one scored turn per turn, meta-episode by meta-episode, in turn order
   * @throws IllegalArgumentException if a meta-episode's turns are out of order (see {@link #assign(MetaEpisode)})
   */
  public List<ScoredTurn> assign(List<MetaEpisode> metaEpisodes) {
    int n = 0;
    for (MetaEpisode m : metaEpisodes) {
      n += m.turns().size();
    }
    List<ScoredTurn> out = new ArrayList<>(n);
    for (MetaEpisode m : metaEpisodes) {
      out.addAll(assign(m));
    }
    return out;
  }

  /**
   * Scores the turns of one meta-episode.
   *
   * @param m the meta-episode
   * @return one scored turn per turn, in turn order
   * @throws IllegalArgumentException if play turns' episode indices are not 0, 1, ... in order, or a reflection
   *     turn prepares an episode that has no play turn
   */
  public List<ScoredTurn> assign(MetaEpisode m) {
    Layout layout = Layout.of(m);
    double[] g = stepReturns(m, layout);
    double[] s = rawScores(m, layout);
    List<Turn> turns = m.turns();
    List<ScoredTurn> out = new ArrayList<>(turns.size());
    for (int i = 0; i < turns.size(); i++) {
      Turn t = turns.get(i);
      out.add(new ScoredTurn(t, m.groupId(), m.seat(), g[i], s[i] - penalty(t)));
    }
    return out;
  }

  /**
   * The step returns {@code G} of a meta-episode's turns.
   *
   * @param m the meta-episode
   * @return {@code G} for each turn, indexed like {@code m.turns()}
   */
  public double[] stepReturns(MetaEpisode m) {
    return stepReturns(m, Layout.of(m));
  }

  private double[] stepReturns(MetaEpisode m, Layout layout) {
    List<Turn> turns = m.turns();
    double[] g = new double[turns.size()];
    double[] firstG = new double[layout.episodes + 1];
    for (int n = layout.episodes - 1; n >= 0; n--) {
      int[] pos = layout.positions.get(n);
      int last = pos.length - 1;
      double next = config.metaReturn() == MetaReturn.SINGLE_EPISODE ? 0 : config.gammaTraj() * firstG[n + 1];
      if (config.metaReturn() == MetaReturn.DIFFERENTIAL) {
        double value = layout.differential(n) + next;
        for (int t = last; t >= 0; t--) {
          g[pos[t]] = value;
          value *= config.gammaStep();
        }
      } else {
        double value = turns.get(pos[last]).reward() + next;
        g[pos[last]] = value;
        for (int t = last - 1; t >= 0; t--) {
          value = turns.get(pos[t]).reward() + config.gammaStep() * value;
          g[pos[t]] = value;
        }
      }
      firstG[n] = g[pos[0]];
    }
    for (int i = 0; i < turns.size(); i++) {
      Turn t = turns.get(i);
      if (t.isReflection()) {
        g[i] = firstG[t.episodeIndex()];
      }
    }
    return g;
  }

  /**
   * The episode scores {@code s} of a meta-episode's turns before penalties.
   *
   * @param m the meta-episode
   * @return {@code s} for each turn, indexed like {@code m.turns()}
   */
  public double[] rawScores(MetaEpisode m) {
    return rawScores(m, Layout.of(m));
  }

  private double[] rawScores(MetaEpisode m, Layout layout) {
    List<Turn> turns = m.turns();
    double[] s = new double[turns.size()];
    double whole = 0;
    for (int n = 0; n < layout.episodes; n++) {
      whole += config.metaReturn() == MetaReturn.DIFFERENTIAL ? layout.differential(n) : layout.totals[n];
    }
    boolean wholeScore = config.episodeScore() == EpisodeScore.META_EPISODE
        && config.metaReturn() != MetaReturn.SINGLE_EPISODE;
    for (int i = 0; i < turns.size(); i++) {
      Turn t = turns.get(i);
      if (wholeScore) {
        s[i] = whole; // every turn of the meta-episode, reflections included
      } else if (!t.isReflection()) {
        int n = t.episodeIndex();
        s[i] = config.metaReturn() == MetaReturn.DIFFERENTIAL ? layout.differential(n) : layout.totals[n];
      }
    }
    return s;
  }

  /**
   * The penalty subtracted from a turn's episode score.
   *
   * @param t the turn
   * @return the invalid-action penalty (if invalid) plus the length penalty
   */
  public double penalty(Turn t) {
    return (t.valid() ? 0 : config.invalidPenalty()) + lengthPenalty(t.responseLength());
  }

  /**
   * The overlong-response penalty.
   *
   * @param tokens the response's token count
   * @return {@code lengthPenalty * min(1, (tokens - Lmax/2) / (Lmax - Lmax/2))} above {@code Lmax/2}, else 0
   */
  public double lengthPenalty(int tokens) {
    double max = config.maxResponseTokens();
    double half = max / 2.0;
    if (config.lengthPenalty() == 0 || tokens <= half) {
      return 0;
    }
    return config.lengthPenalty() * Math.min(1.0, (tokens - half) / (max - half));
  }

  /** Where each episode's play turns sit in the turn list, and the episodes' reward totals. */
  private static final class Layout {
    final int episodes;
    final List<int[]> positions;
    final double[] totals;

    private Layout(List<int[]> positions, double[] totals) {
      this.episodes = positions.size();
      this.positions = positions;
      this.totals = totals;
    }

    double differential(int n) {
      return totals[n] - (n > 0 ? totals[n - 1] : 0);
    }

    static Layout of(MetaEpisode m) {
      List<Turn> turns = m.turns();
      List<List<Integer>> byEpisode = new ArrayList<>();
      for (int i = 0; i < turns.size(); i++) {
        Turn t = turns.get(i);
        if (t.isReflection()) {
          continue;
        }
        int n = t.episodeIndex();
        if (n == byEpisode.size()) {
          byEpisode.add(new ArrayList<>());
        } else if (n != byEpisode.size() - 1) {
          throw new IllegalArgumentException("meta-episode " + m.groupId() + "/" + m.indexInGroup() + ": play turn "
              + i + " belongs to episode " + n + ", but play turns must run through episodes 0, 1, 2, ... in"
              + " order (expected episode " + Math.max(0, byEpisode.size() - 1) + " or " + byEpisode.size() + ")");
        }
        byEpisode.get(n).add(i);
      }
      List<int[]> positions = new ArrayList<>(byEpisode.size());
      double[] totals = new double[byEpisode.size()];
      for (int n = 0; n < byEpisode.size(); n++) {
        List<Integer> p = byEpisode.get(n);
        int[] a = new int[p.size()];
        for (int j = 0; j < a.length; j++) {
          a[j] = p.get(j);
          totals[n] += turns.get(a[j]).reward();
        }
        positions.add(a);
      }
      for (int i = 0; i < turns.size(); i++) {
        Turn t = turns.get(i);
        if (t.isReflection() && t.episodeIndex() >= byEpisode.size()) {
          throw new IllegalArgumentException("meta-episode " + m.groupId() + "/" + m.indexInGroup()
              + ": reflection turn " + i + " prepares episode " + t.episodeIndex() + ", which has no play turn");
        }
      }
      return new Layout(positions, totals);
    }
  }
}
