package org.magejvm.api;

/** The two kinds of policy call inside a meta-episode. */
public enum Phase {
  /** The policy chooses an action in the environment. */
  PLAY,
  /** Between two episodes, the policy writes a reflection on the episode it just lost or drew. */
  REFLECT
}
