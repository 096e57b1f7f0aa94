package org.magejvm.impl.env.kuhn;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Episode;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.Turn;
import org.magejvm.spi.policy.ScriptedPolicy;

/**
 * A scripted Kuhn Poker player that thinks in <em>lines</em>: the sequence of its own actions in a hand. For its card
 * and seat it has a preference order over the possible lines ({@code BET}; {@code PASS, PASS}; {@code PASS, BET} as
 * player 0, {@code PASS} or {@code BET} as player 1).
 *
 * <ul>
 *   <li>The <b>fixed-line</b> player ({@link #fixed(long)}) always plays its first line, whatever happened in earlier
 *       attempts: a non-adaptive baseline.
 *   <li>The <b>adaptive</b> player ({@link #adaptive(long)}) reads the earlier attempts of its meta-episode from the
 *       request ({@link PolicyRequest#pastEpisodes()}), and after a lost attempt switches to the first line it has
 *       not yet tried. A line counts as tried when an earlier attempt's own actions are a prefix of it: against a
 *       deterministic opponent on a frozen deal, that attempt already showed how the line ends.
 * </ul>
 *
 * <p>Against the deterministic archetypes, the adaptive player tries every distinct line within three attempts, so
 * it wins a meta-episode exactly when the deal is winnable; it is the in-context adaptation MAGE trains a model
 * to perform, written by hand. Neither player looks at hidden information.
 */
@Api(status = Api.Status.INTERNAL)
public final class KuhnLinePolicy extends ScriptedPolicy {

  private static final String B = KuhnAction.BET.text();
  private static final String P = KuhnAction.PASS.text();

  private final boolean adaptive;

  private KuhnLinePolicy(String name, boolean adaptive, long seed) {
    super(name, seed);
    this.adaptive = adaptive;
  }

  /**
   * @param seed the seed of the generator (unused: the player is deterministic)
   * @return the adaptive player, named {@code adaptive}
   */
  public static KuhnLinePolicy adaptive(long seed) {
    return new KuhnLinePolicy("adaptive", true, seed);
  }

  /**
   * @param seed the seed of the generator (unused: the player is deterministic)
   * @return the non-adaptive player, named {@code fixed-line}
   */
  public static KuhnLinePolicy fixed(long seed) {
    return new KuhnLinePolicy("fixed-line", false, seed);
  }

  /**
   * The lines of a card and seat, most preferred first: a plausible first guess (bet the King, check-call the Queen,
   * check-fold the Jack), then the alternatives.
   *
   * @param card the agent's card
   * @param player the agent's player index
   * @return the lines, each a list of PASS/BET texts
   */
  static List<List<String>> lines(KuhnCard card, int player) {
    if (player == 1) {
      return card == KuhnCard.KING ? List.of(List.of(B), List.of(P)) : List.of(List.of(P), List.of(B));
    }
    switch (card) {
      case KING:
        return List.of(List.of(B), List.of(P, B), List.of(P, P));
      case QUEEN:
        return List.of(List.of(P, B), List.of(B), List.of(P, P));
      case JACK:
      default:
        return List.of(List.of(P, P), List.of(B), List.of(P, B));
    }
  }

  @Override
  protected String chooseAction(PolicyRequest request, Random random) {
    KuhnState state = KuhnState.of(request, name());
    List<String> prefix = ownActions(state.history(), state.agentPlayer());
    List<List<String>> tried = new ArrayList<>();
    if (adaptive) {
      for (Episode e : request.pastEpisodes()) {
        tried.add(playedLine(e));
      }
    }
    List<String> fallback = null;
    for (List<String> line : lines(state.agentCard(), state.agentPlayer())) {
      if (line.size() <= prefix.size() || !line.subList(0, prefix.size()).equals(prefix)) {
        continue;
      }
      if (fallback == null) {
        fallback = line;
      }
      if (!isTried(line, tried)) {
        return line.get(prefix.size());
      }
    }
    if (fallback == null) {
      throw new IllegalStateException("no line of " + name() + " continues " + prefix + " with "
          + state.agentCard() + " as player " + state.agentPlayer());
    }
    return fallback.get(prefix.size());
  }

  private static boolean isTried(List<String> line, List<List<String>> tried) {
    for (List<String> t : tried) {
      if (!t.isEmpty() && t.size() <= line.size() && line.subList(0, t.size()).equals(t)) {
        return true;
      }
    }
    return false;
  }

  /** The agent's valid actions of an episode, in order. */
  static List<String> playedLine(Episode episode) {
    List<String> line = new ArrayList<>();
    for (Turn t : episode.turns()) {
      if (t.valid()) {
        line.add(t.action());
      }
    }
    return line;
  }

  /** The agent's own actions in a betting history: player 0 acts at even positions, player 1 at odd ones. */
  private static List<String> ownActions(String history, int player) {
    List<String> own = new ArrayList<>();
    for (int i = player; i < history.length(); i += 2) {
      own.add(history.charAt(i) == 'b' ? B : P);
    }
    return own;
  }

  @Override
  protected String reflect(PolicyRequest request, Random random) {
    return adaptive
        ? "That line lost against this opponent on this deal; next attempt I will try a line I have not played."
        : "I will play the same line again.";
  }
}
