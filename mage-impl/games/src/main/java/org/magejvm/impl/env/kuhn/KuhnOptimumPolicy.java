package org.magejvm.impl.env.kuhn;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Episode;
import org.magejvm.api.PolicyRequest;
import org.magejvm.spi.policy.ScriptedPolicy;

/**
 * A scripted Kuhn Poker player that plays {@link KuhnObjectiveOptimum}: the best player for MAGE's training objective
 * against the reference pool. It reads its earlier attempts from the request ({@link PolicyRequest#pastEpisodes()})
 * and never looks at hidden information; evaluated on the same deals as a model, it shows what training could reach at
 * best.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class KuhnOptimumPolicy extends ScriptedPolicy {

  private static final KuhnObjectiveOptimum REFERENCE = KuhnObjectiveOptimum.reference();

  private final KuhnObjectiveOptimum optimum;

  /**
   * @param name the policy's name
   * @param optimum the optimum it plays
   * @param seed the seed of the generator (unused: the player is deterministic)
   */
  public KuhnOptimumPolicy(String name, KuhnObjectiveOptimum optimum, long seed) {
    super(name, seed);
    this.optimum = Objects.requireNonNull(optimum, "optimum");
  }

  /**
   * @param seed the seed of the generator (unused)
   * @return the optimum of the reference's training ({@link KuhnObjectiveOptimum#reference()}), named {@code
   *     objective-optimum}
   */
  public static KuhnOptimumPolicy reference(long seed) {
    return new KuhnOptimumPolicy(KuhnPokerProvider.OPTIMUM_POLICY, REFERENCE, seed);
  }

  @Override
  protected String chooseAction(PolicyRequest request, Random random) {
    KuhnState state = KuhnState.of(request, name());
    return optimum.action(state.agentCard(), state.agentPlayer(), earlierLines(request), state.history()).text();
  }

  /**
   * The agent's own valid actions in each earlier attempt of a request's meta-episode, the form {@link
   * KuhnObjectiveOptimum#action} reads.
   *
   * @param request a play request
   * @return one line per earlier attempt, in order
   */
  public static List<List<KuhnAction>> earlierLines(PolicyRequest request) {
    List<List<KuhnAction>> lines = new ArrayList<>();
    for (Episode e : request.pastEpisodes()) {
      List<KuhnAction> line = new ArrayList<>();
      for (String a : KuhnLinePolicy.playedLine(e)) {
        line.add(a.equals(KuhnAction.BET.text()) ? KuhnAction.BET : KuhnAction.PASS);
      }
      lines.add(line);
    }
    return lines;
  }

  @Override
  protected String reflect(PolicyRequest request, Random random) {
    return "That line lost on this deal; next attempt I play the line the training objective values most given what"
        + " the lost attempts showed.";
  }
}
