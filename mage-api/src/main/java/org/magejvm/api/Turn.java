package org.magejvm.api;

import java.util.Arrays;
import java.util.Objects;
import org.magejvm.api.annotation.Api;

/**
 * One call of the policy inside a meta-episode, with everything training needs: the prompt and response (as text
 * and, for token-level policies, as token ids with per-token log-probabilities), the environment's reward and
 * verdict, and the anchor key for step grouping.
 *
 * <p>Arrays are copied on the way in and on the way out, so a turn is immutable. Build one with {@link #builder()}.
 *
 * @param phase play or reflect
 * @param episodeIndex the 0-based episode this turn belongs to; a reflection turn written after episode k-1 has
 *     index k (it belongs to the episode it prepares)
 * @param turnIndex the 0-based index of the turn inside its episode; 0 for reflection turns
 * @param prompt the full prompt text given to the policy
 * @param response the policy's response text
 * @param promptTokenIds the prompt's token ids after chat formatting; empty when the policy has no tokens
 * @param responseTokenIds the response's token ids; empty when the policy has no tokens
 * @param logProbs the log-probability of each response token under the sampling model; empty when unknown
 * @param action the canonical action as rendered in histories (for reflections, the reflection text); empty when
 *     nothing could be parsed
 * @param reward the raw environment reward of this turn (0 for reflection turns)
 * @param valid whether the action (or the reflection's tag) was valid
 * @param anchor the step-group anchor: state before the action plus opponent id
 * @param opponentId the opponent's id, empty for single-player environments
 * @param done whether the episode ended with this turn
 * @param won whether the agent won the episode with this turn
 * @param draw whether the episode ended in a draw with this turn
 * @param score the environment's episode score after this turn (Tic-Tac-Toe +1/0/-1, Kuhn chips)
 * @param responseTruncated whether the response hit the token limit before a stop token
 */
@Api(status = Api.Status.STABLE)
public record Turn(
    Phase phase,
    int episodeIndex,
    int turnIndex,
    String prompt,
    String response,
    int[] promptTokenIds,
    int[] responseTokenIds,
    float[] logProbs,
    String action,
    double reward,
    boolean valid,
    AnchorKey anchor,
    String opponentId,
    boolean done,
    boolean won,
    boolean draw,
    double score,
    boolean responseTruncated) {

  /**
   * Validates and copies.
   *
   * @param phase play or reflect
   * @param episodeIndex the episode index
   * @param turnIndex the turn index
   * @param prompt the prompt
   * @param response the response
   * @param promptTokenIds prompt token ids
   * @param responseTokenIds response token ids
   * @param logProbs per-token log-probs
   * @param action canonical action text
   * @param reward raw reward
   * @param valid validity
   * @param anchor anchor key
   * @param opponentId opponent id
   * @param done episode ended
   * @param won agent won
   * @param draw draw
   * @param score episode score
   * @param responseTruncated response truncated
   */
  public Turn {
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(anchor, "anchor");
    Objects.requireNonNull(opponentId, "opponentId");
    action = action == null ? "" : action;
    promptTokenIds = promptTokenIds == null ? new int[0] : promptTokenIds.clone();
    responseTokenIds = responseTokenIds == null ? new int[0] : responseTokenIds.clone();
    logProbs = logProbs == null ? new float[0] : logProbs.clone();
    if (episodeIndex < 0 || turnIndex < 0) {
      throw new IllegalArgumentException(
          "episodeIndex and turnIndex must be >= 0, got " + episodeIndex + " and " + turnIndex);
    }
    if (logProbs.length != 0 && logProbs.length != responseTokenIds.length) {
      throw new IllegalArgumentException(
          "logProbs has " + logProbs.length + " entries but the response has " + responseTokenIds.length
              + " tokens");
    }
    if (!Double.isFinite(reward)) {
      throw new IllegalArgumentException("reward must be finite, got " + reward);
    }
    if (!Double.isFinite(score)) {
      throw new IllegalArgumentException("score must be finite, got " + score);
    }
  }

  /** @return a copy of the prompt token ids */
  @Override
  public int[] promptTokenIds() {
    return promptTokenIds.clone();
  }

  /** @return a copy of the response token ids */
  @Override
  public int[] responseTokenIds() {
    return responseTokenIds.clone();
  }

  /** @return a copy of the per-token log-probabilities */
  @Override
  public float[] logProbs() {
    return logProbs.clone();
  }

  /** @return the number of response tokens (0 when the policy has no tokens) */
  public int responseLength() {
    return responseTokenIds.length;
  }

  /** @return whether this is a reflection turn */
  public boolean isReflection() {
    return phase == Phase.REFLECT;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Turn)) {
      return false;
    }
    Turn t = (Turn) o;
    return phase == t.phase
        && episodeIndex == t.episodeIndex
        && turnIndex == t.turnIndex
        && Double.compare(reward, t.reward) == 0
        && valid == t.valid
        && done == t.done
        && won == t.won
        && draw == t.draw
        && Double.compare(score, t.score) == 0
        && responseTruncated == t.responseTruncated
        && prompt.equals(t.prompt)
        && response.equals(t.response)
        && Arrays.equals(promptTokenIds, t.promptTokenIds)
        && Arrays.equals(responseTokenIds, t.responseTokenIds)
        && Arrays.equals(logProbs, t.logProbs)
        && action.equals(t.action)
        && anchor.equals(t.anchor)
        && opponentId.equals(t.opponentId);
  }

  @Override
  public int hashCode() {
    int h = Objects.hash(phase, episodeIndex, turnIndex, prompt, response, action, reward, valid, anchor,
        opponentId, done, won, draw, score, responseTruncated);
    h = 31 * h + Arrays.hashCode(promptTokenIds);
    h = 31 * h + Arrays.hashCode(responseTokenIds);
    return 31 * h + Arrays.hashCode(logProbs);
  }

  @Override
  public String toString() {
    return "Turn[" + phase + " ep=" + episodeIndex + " t=" + turnIndex + " action='" + action + "' reward=" + reward
        + " valid=" + valid + " done=" + done + " won=" + won + " draw=" + draw + " opponent=" + opponentId
        + " responseTokens=" + responseTokenIds.length + "]";
  }

  /** @return a builder with play phase and indices 0; prompt, response and anchor must still be set */
  public static Builder builder() {
    return new Builder();
  }

  /** @return a builder preset with this turn's values */
  public Builder toBuilder() {
    return new Builder()
        .setPhase(phase)
        .setEpisodeIndex(episodeIndex)
        .setTurnIndex(turnIndex)
        .setPrompt(prompt)
        .setResponse(response)
        .optPromptTokenIds(promptTokenIds)
        .optResponseTokenIds(responseTokenIds)
        .optLogProbs(logProbs)
        .optAction(action)
        .optReward(reward)
        .optValid(valid)
        .setAnchor(anchor)
        .optOpponentId(opponentId)
        .optDone(done)
        .optWon(won)
        .optDraw(draw)
        .optScore(score)
        .optResponseTruncated(responseTruncated);
  }

  /** Builds a {@link Turn}; {@code set*} for the required parts, {@code opt*} for the rest. */
  public static final class Builder {
    private Phase phase = Phase.PLAY;
    private int episodeIndex;
    private int turnIndex;
    private String prompt;
    private String response;
    private int[] promptTokenIds;
    private int[] responseTokenIds;
    private float[] logProbs;
    private String action = "";
    private double reward;
    private boolean valid = true;
    private AnchorKey anchor;
    private String opponentId = "";
    private boolean done;
    private boolean won;
    private boolean draw;
    private double score;
    private boolean responseTruncated;

    private Builder() {}

    /**
     * @param v the phase
     * @return this builder
     */
    public Builder setPhase(Phase v) {
      phase = v;
      return this;
    }

    /**
     * @param v the episode index
     * @return this builder
     */
    public Builder setEpisodeIndex(int v) {
      episodeIndex = v;
      return this;
    }

    /**
     * @param v the turn index
     * @return this builder
     */
    public Builder setTurnIndex(int v) {
      turnIndex = v;
      return this;
    }

    /**
     * @param v the prompt text
     * @return this builder
     */
    public Builder setPrompt(String v) {
      prompt = v;
      return this;
    }

    /**
     * @param v the response text
     * @return this builder
     */
    public Builder setResponse(String v) {
      response = v;
      return this;
    }

    /**
     * @param v the anchor key
     * @return this builder
     */
    public Builder setAnchor(AnchorKey v) {
      anchor = v;
      return this;
    }

    /**
     * @param v prompt token ids
     * @return this builder
     */
    public Builder optPromptTokenIds(int[] v) {
      promptTokenIds = v;
      return this;
    }

    /**
     * @param v response token ids
     * @return this builder
     */
    public Builder optResponseTokenIds(int[] v) {
      responseTokenIds = v;
      return this;
    }

    /**
     * @param v per-token log-probs
     * @return this builder
     */
    public Builder optLogProbs(float[] v) {
      logProbs = v;
      return this;
    }

    /**
     * @param v canonical action text
     * @return this builder
     */
    public Builder optAction(String v) {
      action = v;
      return this;
    }

    /**
     * @param v raw reward
     * @return this builder
     */
    public Builder optReward(double v) {
      reward = v;
      return this;
    }

    /**
     * @param v validity
     * @return this builder
     */
    public Builder optValid(boolean v) {
      valid = v;
      return this;
    }

    /**
     * @param v opponent id
     * @return this builder
     */
    public Builder optOpponentId(String v) {
      opponentId = v;
      return this;
    }

    /**
     * @param v episode ended
     * @return this builder
     */
    public Builder optDone(boolean v) {
      done = v;
      return this;
    }

    /**
     * @param v agent won
     * @return this builder
     */
    public Builder optWon(boolean v) {
      won = v;
      return this;
    }

    /**
     * @param v draw
     * @return this builder
     */
    public Builder optDraw(boolean v) {
      draw = v;
      return this;
    }

    /**
     * @param v episode score
     * @return this builder
     */
    public Builder optScore(double v) {
      score = v;
      return this;
    }

    /**
     * @param v whether the response hit the token limit
     * @return this builder
     */
    public Builder optResponseTruncated(boolean v) {
      responseTruncated = v;
      return this;
    }

    /** @return the validated turn */
    public Turn build() {
      return new Turn(phase, episodeIndex, turnIndex, prompt, response, promptTokenIds, responseTokenIds, logProbs,
          action, reward, valid, anchor, opponentId, done, won, draw, score, responseTruncated);
    }
  }
}
