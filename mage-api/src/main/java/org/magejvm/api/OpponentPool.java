package org.magejvm.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import org.magejvm.api.annotation.Api;

/**
 * The population of opponents used for population-based training, and the held-out opponents kept for evaluation.
 *
 * <p>The rollout engine samples one training opponent per episode group, weighted, and keeps it for every
 * meta-episode of the group (opponent-stationary groups). Held-out opponents are never sampled for training.
 * Immutable; a host adds its own opponents with {@link #toBuilder()}.
 */
@Api(status = Api.Status.STABLE)
public final class OpponentPool {

  /**
   * A training opponent and its sampling weight.
   *
   * @param opponent the opponent
   * @param weight its relative weight, positive
   */
  public record Entry(Opponent opponent, double weight) {
    /**
     * Validates.
     *
     * @param opponent the opponent
     * @param weight the weight
     */
    public Entry {
      Objects.requireNonNull(opponent, "opponent");
      if (!(weight > 0) || Double.isInfinite(weight)) {
        throw new IllegalArgumentException(
            "weight of opponent '" + opponent.id() + "' must be positive and finite, got " + weight);
      }
    }
  }

  private final ImmutableList<Entry> training;
  private final ImmutableList<Opponent> heldOut;
  private final ImmutableMap<String, Opponent> byId;
  private final double totalWeight;

  private OpponentPool(List<Entry> training, List<Opponent> heldOut) {
    this.training = ImmutableList.copyOf(training);
    this.heldOut = ImmutableList.copyOf(heldOut);
    Map<String, Opponent> ids = new LinkedHashMap<>();
    double total = 0;
    for (Entry e : this.training) {
      putUnique(ids, e.opponent());
      total += e.weight();
    }
    for (Opponent o : this.heldOut) {
      putUnique(ids, o);
    }
    this.byId = ImmutableMap.copyOf(ids);
    this.totalWeight = total;
  }

  private static void putUnique(Map<String, Opponent> ids, Opponent o) {
    Opponent prev = ids.putIfAbsent(o.id(), o);
    if (prev != null) {
      throw new IllegalArgumentException("opponent id '" + o.id() + "' appears twice in the pool ("
          + prev.getClass().getName() + " and " + o.getClass().getName() + ")");
    }
  }

  /** @return the weighted training opponents */
  public List<Entry> training() {
    return training;
  }

  /** @return the held-out evaluation opponents */
  public List<Opponent> heldOut() {
    return heldOut;
  }

  /** @return whether the pool has no training opponents */
  public boolean isEmpty() {
    return training.isEmpty();
  }

  /**
   * Draws one training opponent with probability proportional to its weight.
   *
   * @param random the generator
   * @return the opponent
   * @throws IllegalStateException if the pool has no training opponents
   */
  public Opponent sample(Random random) {
    if (training.isEmpty()) {
      throw new IllegalStateException("the opponent pool has no training opponents to sample from");
    }
    double u = random.nextDouble() * totalWeight;
    for (Entry e : training) {
      u -= e.weight();
      if (u < 0) {
        return e.opponent();
      }
    }
    return training.get(training.size() - 1).opponent();
  }

  /**
   * Looks an opponent up among the training and held-out ones.
   *
   * @param id the opponent id
   * @return the opponent, if present
   */
  public Optional<Opponent> find(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  /**
   * Looks an opponent up, failing with the list of known ids.
   *
   * @param id the opponent id
   * @return the opponent
   * @throws IllegalArgumentException naming the known ids when there is none with this id
   */
  public Opponent require(String id) {
    Opponent o = byId.get(id);
    if (o == null) {
      throw new IllegalArgumentException("unknown opponent '" + id + "'; known opponents: " + byId.keySet());
    }
    return o;
  }

  /** @return all opponent ids, training ones first */
  public List<String> ids() {
    return ImmutableList.copyOf(byId.keySet());
  }

  /** @return a builder holding this pool's entries, to add to */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.training.addAll(training);
    b.heldOut.addAll(heldOut);
    return b;
  }

  /** @return an empty builder */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("OpponentPool[training=");
    for (int i = 0; i < training.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(training.get(i).opponent().id()).append(':')
          .append(training.get(i).weight());
    }
    sb.append("; heldOut=");
    for (int i = 0; i < heldOut.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(heldOut.get(i).id());
    }
    return sb.append(']').toString();
  }

  /** Builds an {@link OpponentPool}. */
  public static final class Builder {
    private final List<Entry> training = new ArrayList<>();
    private final List<Opponent> heldOut = new ArrayList<>();

    private Builder() {}

    /**
     * Adds a training opponent.
     *
     * @param opponent the opponent
     * @param weight its relative sampling weight, positive
     * @return this builder
     */
    public Builder addOpponent(Opponent opponent, double weight) {
      training.add(new Entry(opponent, weight));
      return this;
    }

    /**
     * Adds an opponent used only for evaluation.
     *
     * @param opponent the opponent
     * @return this builder
     */
    public Builder addHeldOut(Opponent opponent) {
      heldOut.add(Objects.requireNonNull(opponent, "opponent"));
      return this;
    }

    /**
     * @return the pool
     * @throws IllegalArgumentException if two opponents share an id
     */
    public OpponentPool build() {
      return new OpponentPool(training, heldOut);
    }
  }
}
