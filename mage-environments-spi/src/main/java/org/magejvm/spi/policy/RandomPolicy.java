package org.magejvm.spi.policy;

import java.util.List;
import java.util.Random;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.PolicyRequest;

/** Answers every play request with an action drawn uniformly from the request's legal actions. */
@Api(status = Api.Status.STABLE)
public final class RandomPolicy extends ScriptedPolicy {

  /** @param seed the seed of the policy's generator */
  public RandomPolicy(long seed) {
    super("random", seed);
  }

  @Override
  protected String chooseAction(PolicyRequest request, Random random) {
    List<String> legal = request.legalActions();
    if (legal.isEmpty()) {
      throw new IllegalArgumentException(
          "the random policy needs the legal actions, but the request for worker '" + request.workerKey()
              + "' (episode " + request.episodeIndex() + ", turn " + request.turnIndex() + ") has none");
    }
    return legal.get(random.nextInt(legal.size()));
  }
}
