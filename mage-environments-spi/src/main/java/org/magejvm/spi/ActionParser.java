package org.magejvm.spi;

import org.magejvm.api.annotation.Api;

/**
 * Reads a game action out of a policy's free-form response. Implementations never throw on bad text: they return
 * {@link ParsedAction#failure(String, String)} instead, and they stay linear in the length of the text.
 *
 * @param <A> the game's action type
 */
@FunctionalInterface
@Api(status = Api.Status.STABLE)
public interface ActionParser<A> {

  /**
   * Parses a response.
   *
   * @param response the policy's full response text
   * @return the parsed action or a failure
   */
  ParsedAction<A> parse(String response);
}
