package org.magejvm.spi.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;

/**
 * Base class of scripted policies. For a play request it answers {@code <action>A</action>} with the action chosen
 * by {@link #chooseAction}; for a reflection request it answers {@code <remark>R</remark>} with {@link #reflect}.
 *
 * <p>The policy owns one random generator seeded at construction; since the rollout engine calls it in a fixed
 * order, the same seed reproduces the same answers. Not thread-safe.
 */
@Api(status = Api.Status.STABLE)
public abstract class ScriptedPolicy implements LanguagePolicy {

  private final String name;
  private final Random random;

  /**
   * @param name the policy's name
   * @param seed the seed of its random generator
   */
  protected ScriptedPolicy(String name, long seed) {
    this.name = name;
    this.random = new Random(seed);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
    List<Generation> out = new ArrayList<>(requests.size());
    for (PolicyRequest r : requests) {
      String text = r.phase() == Phase.REFLECT
          ? "<remark>" + reflect(r, random) + "</remark>"
          : "<action>" + chooseAction(r, random) + "</action>";
      out.add(Generation.ofText(text));
    }
    return out;
  }

  /**
   * Chooses the action for a play request.
   *
   * @param request the request, with legal actions and the environment's state object
   * @param random the policy's generator
   * @return the action text to put inside the action tags
   */
  protected abstract String chooseAction(PolicyRequest request, Random random);

  /**
   * Writes the reflection for a reflect request.
   *
   * @param request the request
   * @param random the policy's generator
   * @return the reflection text to put inside the remark tags
   */
  protected String reflect(PolicyRequest request, Random random) {
    return "Attempt " + (request.episodeIndex()) + " did not succeed; I will try a different line.";
  }
}
