package org.magejvm.api;

import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * Something that answers prompts with text: a neural language model or a scripted player.
 *
 * <p>The rollout engine calls {@link #generate} once per step with the prompts of every meta-episode still active,
 * so implementations can batch. Results come back in request order, one per request.
 */
@Api(status = Api.Status.STABLE)
public interface LanguagePolicy extends AutoCloseable {

  /** @return a short name for logs and metrics */
  String name();

  /**
   * Answers a batch of prompts.
   *
   * @param requests the prompts, in order
   * @param sampling how to sample
   * @return one generation per request, in the same order
   * @throws PolicyRequestException when some requests cannot be answered at all (say a prompt beyond the model's
   *     context); it names them by index, and nothing was generated. The rollout engine then fails only their
   *     meta-episodes and asks again with the rest. Any other exception fails the whole call.
   */
  List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling);

  /** Releases native resources; the default does nothing. */
  @Override
  default void close() {}
}
