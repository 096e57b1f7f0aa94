package org.magejvm.impl.train.warmstart;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.magejvm.api.Episode;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Turn;
import org.magejvm.api.annotation.Api;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.Tags;

/**
 * A non-adaptive scripted player for a warm start: per turn, with probability {@code repeatShare} (from the second
 * attempt on) the action the previous attempt took at the same turn, whatever that attempt's outcome (when still
 * legal); otherwise the fixed line's action with probability 1/2, else a uniformly random legal action. It reads the
 * earlier attempts' moves but never their outcomes, so it cannot teach a model to change a losing line.
 */
@Api(status = Api.Status.EXPERIMENTAL)
public final class MixedScriptedPolicy implements LanguagePolicy {
  private final LanguagePolicy fixed;
  private final LanguagePolicy random;
  private final Random coin;
  private final double copy;
  private final String fixedName;

  /**
   * @param provider the environment, whose scripted players {@code fixedLine} and {@code random} are mixed
   * @param fixedLine the scripted player of the fixed line (it must not read earlier attempts)
   * @param seed the seed: the fixed line's; {@code random}'s is {@code seed + 1} and the coin's {@code seed + 2}
   * @param repeatShare the share of later attempts' turns that repeat the previous attempt's action, in [0, 1]
   */
  public MixedScriptedPolicy(EnvironmentProvider provider, String fixedLine, long seed, double repeatShare) {
    fixed = provider.scriptedPolicy(fixedLine, seed);
    fixedName = fixedLine;
    random = provider.scriptedPolicy("random", seed + 1);
    coin = new Random(seed + 2);
    this.copy = repeatShare;
  }

  @Override
  public String name() {
    return fixedName + "+random";
  }

  @Override
  public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
    List<Generation> result = new ArrayList<>(requests.size());
    for (PolicyRequest r : requests) {
      if (copy > 0 && coin.nextDouble() < copy) {
        String again = previousAttempt(r);
        if (again != null) {
          result.add(Generation.ofText("<action>" + again + "</action>"));
          continue;
        }
      }
      LanguagePolicy p = coin.nextBoolean() ? fixed : random;
      result.add(p.generate(List.of(r), sampling).get(0));
    }
    return result;
  }

  /**
   * The action the previous attempt took at this point of the game, or null: the turn's action text when it is a
   * legal action, else its answer's {@code <action>} block (games whose history text carries what the action
   * revealed, such as Goalkeeper's {@code dove 3, shot 5}, record the answer there).
   */
  private static String previousAttempt(PolicyRequest r) {
    if (r.pastEpisodes().isEmpty()) {
      return null;
    }
    Episode last = r.pastEpisodes().get(r.pastEpisodes().size() - 1);
    List<String> played = new ArrayList<>();
    for (Turn t : last.turns()) {
      if (t.valid()) {
        String action = t.action();
        if (!r.legalActions().contains(action)) {
          action = Tags.first(t.response(), "action").map(String::strip).orElse(action);
        }
        played.add(action);
      }
    }
    int own = r.turnIndex();
    return own < played.size() && r.legalActions().contains(played.get(own)) ? played.get(own) : null;
  }

  @Override
  public void close() {
    fixed.close();
    random.close();
  }
}
