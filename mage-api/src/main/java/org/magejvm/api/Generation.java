package org.magejvm.api;

import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * A policy's answer to one {@link PolicyRequest}.
 *
 * <p>Token-level policies fill the token ids and log-probabilities; scripted policies leave them empty. The arrays
 * are copied on the way in; treat the returned arrays as read-only.
 *
 * @param text the response text, special tokens removed
 * @param promptTokenIds the prompt's token ids after chat formatting, or empty
 * @param responseTokenIds the sampled token ids, ending with the stop token when one ended the response (training
 *     learns when to stop from it), or empty
 * @param logProbs for each sampled token, its log-probability under the model at the sampling temperature, or empty
 * @param finishReason why the response ended
 */
@Api(status = Api.Status.STABLE)
public record Generation(
    String text, int[] promptTokenIds, int[] responseTokenIds, float[] logProbs, FinishReason finishReason) {

  /**
   * Validates and copies.
   *
   * @param text text
   * @param promptTokenIds prompt ids
   * @param responseTokenIds response ids
   * @param logProbs log-probs
   * @param finishReason finish reason
   */
  public Generation {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(finishReason, "finishReason");
    promptTokenIds = promptTokenIds == null ? new int[0] : promptTokenIds.clone();
    responseTokenIds = responseTokenIds == null ? new int[0] : responseTokenIds.clone();
    logProbs = logProbs == null ? new float[0] : logProbs.clone();
    if (logProbs.length != 0 && logProbs.length != responseTokenIds.length) {
      throw new IllegalArgumentException(
          "logProbs has " + logProbs.length + " entries for " + responseTokenIds.length + " response tokens");
    }
  }

  /**
   * A text-only generation (scripted policies).
   *
   * @param text the response text
   * @return the generation, finished by a stop
   */
  public static Generation ofText(String text) {
    return new Generation(text, null, null, null, FinishReason.STOP);
  }
}
