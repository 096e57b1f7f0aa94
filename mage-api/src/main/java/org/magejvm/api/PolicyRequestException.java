package org.magejvm.api;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import org.magejvm.api.annotation.Api;

/**
 * Thrown by {@link LanguagePolicy#generate} when some requests of a batch cannot be answered at all (for example a
 * prompt longer than the model's context), before anything was generated. It names each rejected request by its
 * index in the batch, so the caller can fail just those and ask again with the others; the rollout engine does so,
 * failing only the meta-episodes whose prompts were rejected.
 *
 * <p>A policy should check every request of the batch before throwing, so that one call names all rejected ones.
 */
@Api(status = Api.Status.STABLE)
public class PolicyRequestException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** Index in the batch to why that request was rejected; never empty. */
  private final TreeMap<Integer, String> rejected;

  /**
   * @param rejected for each rejected request, its index in the batch and why it was rejected (one line naming the
   *     limit); not empty
   */
  public PolicyRequestException(Map<Integer, String> rejected) {
    super(message(rejected));
    this.rejected = new TreeMap<>(rejected);
  }

  private static String message(Map<Integer, String> rejected) {
    Objects.requireNonNull(rejected, "rejected");
    if (rejected.isEmpty()) {
      throw new IllegalArgumentException("a PolicyRequestException must name at least one rejected request");
    }
    Map.Entry<Integer, String> first = new TreeMap<>(rejected).firstEntry();
    return rejected.size() == 1 ? first.getValue()
        : rejected.size() + " requests rejected; the first: " + first.getValue();
  }

  /** @return each rejected request's index in the batch, with why it was rejected, by index */
  public SortedMap<Integer, String> rejected() {
    return Collections.unmodifiableSortedMap(rejected);
  }
}
