package org.magejvm.api;

import org.magejvm.api.annotation.Api;

/** How an episode ended. */
@Api(status = Api.Status.STABLE)
public enum Outcome {
  /** The agent won. */
  WON,
  /** The game ended without a winner. */
  DRAW,
  /** The agent lost (or, in a single-player task, the episode ended unsolved). */
  LOST,
  /** The turn limit was reached before the game ended. */
  TRUNCATED
}
