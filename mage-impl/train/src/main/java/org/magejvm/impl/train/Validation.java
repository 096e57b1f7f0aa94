package org.magejvm.impl.train;

import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.rollout.RolloutConfig;

/**
 * A validation set of a {@link MageTrainer}.
 *
 * <p>The metrics of the set named {@code ""} (the training population) are reported as {@code val/KEY} and, per
 * opponent, {@code val/OPPONENT/KEY}. Those of a set with any other name {@code NAME} are reported as {@code
 * val/NAME/KEY} (the set's totals; such a set is meant to face one fixed opponent). A held-out opponent's set
 * ({@link #heldOut}) is named {@code heldout/OPPONENT}, so its metrics are {@code val/heldout/OPPONENT/KEY}: they
 * never overwrite the population's {@code val/OPPONENT/KEY} when the opponent is also in the training pool
 * (Tic-Tac-Toe's {@code mcts-100}). {@code KEY} is a metric name as {@code mage play --json} writes it ({@code
 * success_rate[2]}, ...).
 *
 * @param name {@code ""} for the population, else a label unique among the trainer's validation sets
 * @param config the evaluation rollout (its sampling should be the evaluation sampling)
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record Validation(String name, RolloutConfig config) {

  /** The name prefix of held-out opponents' sets ({@link #heldOut}). */
  public static final String HELD_OUT = "heldout";

  /**
   * Validates.
   *
   * @param name label
   * @param config rollout
   */
  public Validation {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(config, "config");
  }

  /**
   * The validation set of a held-out opponent, named {@code heldout/OPPONENT}: its metrics are {@code
   * val/heldout/OPPONENT/KEY}.
   *
   * @param opponent the opponent's id
   * @param config the evaluation rollout against that opponent alone
   * @return the set
   */
  public static Validation heldOut(String opponent, RolloutConfig config) {
    if (Objects.requireNonNull(opponent, "opponent").isEmpty()) {
      throw new IllegalArgumentException("the held-out opponent's id is empty");
    }
    return new Validation(HELD_OUT + "/" + opponent, config);
  }
}
