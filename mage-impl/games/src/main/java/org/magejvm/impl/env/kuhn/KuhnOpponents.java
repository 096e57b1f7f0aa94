package org.magejvm.impl.env.kuhn;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.magejvm.api.annotation.Api;

/**
 * The built-in Kuhn Poker opponents of the reference (its {@code kuhnpoker/envs.py}), plus a factory for custom ones.
 *
 * <p>The three archetypes look only at their own card and whether a bet has been made:
 *
 * <ul>
 *   <li>{@code conservative}: BET (bet or call) exactly with the King.
 *   <li>{@code aggressive}: with no bet made, always bet; facing a bet, fold the Jack and call with Queen or King.
 *   <li>{@code intermediate}: King always BET, Jack always PASS; the Queen bets when no bet is made and folds to one.
 * </ul>
 *
 * <p>{@code cfr} plays the most likely action of the average policy of {@link KuhnCfrSolver} after 1000 iterations
 * (ties to PASS), as the reference's evaluation opponent does; {@code cfr-mixed} samples that average policy.
 */
@Api(status = Api.Status.INTERNAL)
public final class KuhnOpponents {

  /** Id of the opponent that bets or calls only with the King. */
  public static final String CONSERVATIVE = "conservative";
  /** Id of the opponent that always bets when it can and calls with Queen or King. */
  public static final String AGGRESSIVE = "aggressive";
  /** Id of the opponent between the two: bets Queen and King, calls only with the King. */
  public static final String INTERMEDIATE = "intermediate";
  /** Id of the deterministic argmax of the 1000-iteration CFR average policy. */
  public static final String CFR = "cfr";
  /** Id of the opponent sampling the 1000-iteration CFR average policy. */
  public static final String CFR_MIXED = "cfr-mixed";

  private static final KuhnOpponent CONSERVATIVE_OPPONENT = of(CONSERVATIVE,
      "bets or calls only with the King", (card, history) -> card == KuhnCard.KING ? 1 : 0);
  private static final KuhnOpponent AGGRESSIVE_OPPONENT = of(AGGRESSIVE,
      "always bets when no bet is made; calls with Queen or King",
      (card, history) -> !KuhnRules.facingBet(history) || card != KuhnCard.JACK ? 1 : 0);
  private static final KuhnOpponent INTERMEDIATE_OPPONENT = of(INTERMEDIATE,
      "bets Queen and King; calls only with the King", KuhnOpponents::intermediateRule);
  private static final KuhnOpponent CFR_OPPONENT = lazy(CFR,
      "plays the most likely action of the CFR average policy (1000 iterations)",
      KuhnCfrSolver::referenceArgmaxPolicy);
  private static final KuhnOpponent CFR_MIXED_OPPONENT = lazy(CFR_MIXED,
      "samples the CFR average policy (1000 iterations)", KuhnCfrSolver::referenceAveragePolicy);

  private KuhnOpponents() {}

  private static double intermediateRule(KuhnCard card, String history) {
    switch (card) {
      case KING:
        return 1;
      case JACK:
        return 0;
      case QUEEN:
      default:
        return KuhnRules.facingBet(history) ? 0 : 1;
    }
  }

  /** @return the opponent that bets or calls only with the King */
  public static KuhnOpponent conservative() {
    return CONSERVATIVE_OPPONENT;
  }

  /** @return the opponent that always bets when no bet is made and calls with Queen or King */
  public static KuhnOpponent aggressive() {
    return AGGRESSIVE_OPPONENT;
  }

  /** @return the opponent that bets Queen and King and calls only with the King */
  public static KuhnOpponent intermediate() {
    return INTERMEDIATE_OPPONENT;
  }

  /** @return the deterministic argmax of the CFR average policy (the reference's evaluation opponent) */
  public static KuhnOpponent cfr() {
    return CFR_OPPONENT;
  }

  /** @return the opponent sampling the CFR average policy */
  public static KuhnOpponent cfrMixed() {
    return CFR_MIXED_OPPONENT;
  }

  /** @return every built-in opponent: the three archetypes, then {@code cfr} and {@code cfr-mixed} */
  public static List<KuhnOpponent> all() {
    return List.of(CONSERVATIVE_OPPONENT, AGGRESSIVE_OPPONENT, INTERMEDIATE_OPPONENT, CFR_OPPONENT,
        CFR_MIXED_OPPONENT);
  }

  /**
   * Looks up a built-in opponent.
   *
   * @param id one of the ids of {@link #all()}
   * @return the opponent
   * @throws IllegalArgumentException naming the known ids when the id is unknown
   */
  public static KuhnOpponent byId(String id) {
    for (KuhnOpponent o : all()) {
      if (o.id().equals(id)) {
        return o;
      }
    }
    throw new IllegalArgumentException("unknown Kuhn Poker opponent '" + id + "'; known opponents: "
        + List.of(CONSERVATIVE, AGGRESSIVE, INTERMEDIATE, CFR, CFR_MIXED));
  }

  /**
   * Creates an opponent that plays a strategy.
   *
   * @param id its id (anchors and metrics use it; it must be unique among the opponents in use)
   * @param description a one-line description
   * @param strategy its BET probabilities
   * @return the opponent
   */
  public static KuhnOpponent of(String id, String description, KuhnStrategy strategy) {
    Objects.requireNonNull(strategy, "strategy");
    return new StrategyOpponent(id, description, () -> strategy);
  }

  private static KuhnOpponent lazy(String id, String description, Supplier<KuhnStrategy> strategy) {
    return new StrategyOpponent(id, description, strategy);
  }

  /** An opponent backed by a strategy, fetched on each call (so a cached solve is only computed when used). */
  private static final class StrategyOpponent implements KuhnOpponent {
    private final String id;
    private final String description;
    private final Supplier<KuhnStrategy> strategy;

    StrategyOpponent(String id, String description, Supplier<KuhnStrategy> strategy) {
      this.id = Objects.requireNonNull(id, "id");
      if (id.isBlank()) {
        throw new IllegalArgumentException("a Kuhn Poker opponent needs a non-blank id");
      }
      this.description = description == null || description.isBlank() ? id : description;
      this.strategy = strategy;
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public String description() {
      return description;
    }

    @Override
    public double betProbability(KuhnCard card, String history) {
      KuhnRules.requireDecision(history);
      return strategy.get().betProbability(card, history);
    }

    @Override
    public String toString() {
      return "KuhnOpponent[" + id + "]";
    }
  }
}
