package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/** The two kinds of policy call inside a meta-episode. */
@Api(status = Api.Status.STABLE)
public enum Phase {
  /** The policy chooses an action in the environment. */
  PLAY,
  /** Between two episodes, the policy writes a reflection on the episode it just lost or drew. */
  REFLECT
}
