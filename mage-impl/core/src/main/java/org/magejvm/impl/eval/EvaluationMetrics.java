package org.magejvm.impl.eval;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.TreeMap;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Turn;

/**
 * Evaluation metrics of a set of meta-episodes (the reference's validation metrics plus response statistics).
 *
 * <p>{@link #toMap()} flattens them under stable keys, in this order (k = 0..N-1):
 *
 * <pre>
 * meta_episodes, episodes,
 * success_rate[k], draw_rate[k], success_and_draw_rate[k], independent_success_rate[k], independent_draw_rate[k],
 * score[k], attempt_reached[k], per_attempt_success[k], per_attempt_score[k],
 * OPPONENT/meta_episodes and OPPONENT/&lt;each rate key above&gt;[k]   (per opponent id, sorted; two-player games)
 * play_turns, reflection_turns, invalid_action_rate, reflection_invalid_rate,
 * response_chars_mean, response_tokens_mean (only when the policy reported tokens), truncated_response_rate
 * </pre>
 *
 * <p>For example {@code success_rate[0]} or {@code cfr/success_rate[2]}. The rates are defined in {@link
 * OutcomeRates}: {@code success_rate[k]} is the paper's cumulative success rate (Pass@k+1), {@code
 * per_attempt_success[k]} the win rate of attempt k among the meta-episodes that reached it (what rises from attempt
 * to attempt only when the player learns from its earlier attempts); a per-attempt key is left out for an attempt no
 * meta-episode reached. {@code invalid_action_rate} counts play turns only; {@code reflection_invalid_rate} is the
 * share of reflection turns without a {@code <remark>} (0 when there were none). Response lengths average over every
 * turn, play and reflection; {@code truncated_response_rate} is the share of responses that hit the token limit.
 *
 * @param overall the rates over all meta-episodes
 * @param byOpponent the rates per opponent id, sorted by id; empty for single-player games
 * @param playTurns the number of play turns
 * @param reflectionTurns the number of reflection turns
 * @param invalidActionRate the share of play turns with an invalid action
 * @param reflectionInvalidRate the share of reflection turns without a remark
 * @param meanResponseChars the mean response length in characters
 * @param meanResponseTokens the mean response length in tokens, when the policy reported tokens
 * @param truncatedResponseRate the share of responses cut at the token limit
 */
@Api(status = Api.Status.STABLE)
public record EvaluationMetrics(
    OutcomeRates overall,
    Map<String, OutcomeRates> byOpponent,
    int playTurns,
    int reflectionTurns,
    double invalidActionRate,
    double reflectionInvalidRate,
    double meanResponseChars,
    OptionalDouble meanResponseTokens,
    double truncatedResponseRate) {

  /**
   * Validates and copies.
   *
   * @param overall overall rates
   * @param byOpponent per-opponent rates
   * @param playTurns play turns
   * @param reflectionTurns reflection turns
   * @param invalidActionRate invalid-action rate
   * @param reflectionInvalidRate reflection invalid rate
   * @param meanResponseChars mean characters
   * @param meanResponseTokens mean tokens
   * @param truncatedResponseRate truncated share
   */
  public EvaluationMetrics {
    Objects.requireNonNull(overall, "overall");
    byOpponent = ImmutableMap.copyOf(new TreeMap<>(byOpponent));
    Objects.requireNonNull(meanResponseTokens, "meanResponseTokens");
  }

  /**
   * Measures meta-episodes.
   *
   * @param metaEpisodes the meta-episodes, at least one
   * @param episodes N, the episodes each meta-episode was configured with
   * @return the metrics
   * @throws IllegalArgumentException if the list is empty or a meta-episode does not fit N
   */
  public static EvaluationMetrics of(List<MetaEpisode> metaEpisodes, int episodes) {
    OutcomeRates overall = OutcomeRates.of(metaEpisodes, episodes);
    Map<String, List<MetaEpisode>> groups = new TreeMap<>();
    for (MetaEpisode m : metaEpisodes) {
      if (!m.opponentId().isEmpty()) {
        groups.computeIfAbsent(m.opponentId(), k -> new ArrayList<>()).add(m);
      }
    }
    Map<String, OutcomeRates> byOpponent = new TreeMap<>();
    groups.forEach((id, list) -> byOpponent.put(id, OutcomeRates.of(list, episodes)));
    int play = 0;
    int reflect = 0;
    int invalidPlay = 0;
    int invalidReflect = 0;
    long chars = 0;
    long tokens = 0;
    int truncated = 0;
    boolean tokensKnown = false;
    for (MetaEpisode m : metaEpisodes) {
      for (Turn t : m.turns()) {
        if (t.isReflection()) {
          reflect++;
          invalidReflect += t.valid() ? 0 : 1;
        } else {
          play++;
          invalidPlay += t.valid() ? 0 : 1;
        }
        chars += t.response().length();
        tokens += t.responseLength();
        tokensKnown |= t.responseLength() > 0 || t.promptTokenIds().length > 0;
        truncated += t.responseTruncated() ? 1 : 0;
      }
    }
    int all = play + reflect;
    return new EvaluationMetrics(overall, byOpponent, play, reflect, ratio(invalidPlay, play),
        ratio(invalidReflect, reflect), ratio(chars, all),
        tokensKnown ? OptionalDouble.of(ratio(tokens, all)) : OptionalDouble.empty(), ratio(truncated, all));
  }

  private static double ratio(double num, int den) {
    return den == 0 ? 0 : num / den;
  }

  /** @return N, the episodes per meta-episode */
  public int episodes() {
    return overall.episodes();
  }

  /** @return the number of meta-episodes measured */
  public int metaEpisodes() {
    return overall.metaEpisodes();
  }

  /**
   * The metrics under their stable keys (see the class comment), in a fixed order; values are {@link Integer} or
   * {@link Double}.
   *
   * @return an insertion-ordered map, ready for JSON
   */
  public Map<String, Number> toMap() {
    Map<String, Number> map = new LinkedHashMap<>();
    map.put("meta_episodes", overall.metaEpisodes());
    map.put("episodes", overall.episodes());
    putRates(map, "", overall);
    byOpponent.forEach((id, rates) -> {
      map.put(id + "/meta_episodes", rates.metaEpisodes());
      putRates(map, id + "/", rates);
    });
    map.put("play_turns", playTurns);
    map.put("reflection_turns", reflectionTurns);
    map.put("invalid_action_rate", invalidActionRate);
    map.put("reflection_invalid_rate", reflectionInvalidRate);
    map.put("response_chars_mean", meanResponseChars);
    if (meanResponseTokens.isPresent()) {
      map.put("response_tokens_mean", meanResponseTokens.getAsDouble());
    }
    map.put("truncated_response_rate", truncatedResponseRate);
    return map;
  }

  private static void putRates(Map<String, Number> map, String prefix, OutcomeRates r) {
    putList(map, prefix + "success_rate", r.successRate());
    putList(map, prefix + "draw_rate", r.drawRate());
    putList(map, prefix + "success_and_draw_rate", r.successAndDrawRate());
    putList(map, prefix + "independent_success_rate", r.independentSuccessRate());
    putList(map, prefix + "independent_draw_rate", r.independentDrawRate());
    putList(map, prefix + "score", r.score());
    putList(map, prefix + "attempt_reached", r.reached());
    putList(map, prefix + "per_attempt_success", r.perAttemptSuccess());
    putList(map, prefix + "per_attempt_score", r.perAttemptScore());
  }

  private static void putList(Map<String, Number> map, String key, List<Double> values) {
    for (int k = 0; k < values.size(); k++) {
      if (!values.get(k).isNaN()) { // a per-attempt rate of an attempt no meta-episode reached is left out
        map.put(key + "[" + k + "]", values.get(k));
      }
    }
  }
}
