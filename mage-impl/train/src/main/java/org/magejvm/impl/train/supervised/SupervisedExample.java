package org.magejvm.impl.train.supervised;

import java.util.Arrays;

/**
 * One assistant turn of a transcript, tokenized for supervised training: the prompt the policy would see before
 * answering and the response it should produce.
 *
 * @param transcript the transcript's index in the list given to the trainer
 * @param message the assistant message's index in the transcript
 * @param promptIds the chat-template rendering of the messages before the assistant turn, with the generation
 *     prompt, tokenized
 * @param responseIds the assistant content tokenized, followed by the end-of-turn stop token
 */
public record SupervisedExample(int transcript, int message, int[] promptIds, int[] responseIds) {

  /**
   * Validates and copies.
   *
   * @param transcript transcript index
   * @param message message index
   * @param promptIds prompt tokens
   * @param responseIds response tokens
   * @throws IllegalArgumentException when the prompt or the response is empty
   */
  public SupervisedExample {
    if (promptIds.length == 0 || responseIds.length == 0) {
      throw new IllegalArgumentException("transcript " + transcript + ", message " + message
          + ": the prompt and the response must not be empty");
    }
    promptIds = promptIds.clone();
    responseIds = responseIds.clone();
  }

  /** @return a copy of the prompt tokens */
  @Override
  public int[] promptIds() {
    return promptIds.clone();
  }

  /** @return a copy of the response tokens (the stop token last) */
  @Override
  public int[] responseIds() {
    return responseIds.clone();
  }

  /** @return the prompt and response lengths together */
  public int length() {
    return promptIds.length + responseIds.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SupervisedExample e && e.transcript == transcript && e.message == message
        && Arrays.equals(e.promptIds, promptIds) && Arrays.equals(e.responseIds, responseIds);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * (31 * transcript + message) + Arrays.hashCode(promptIds)) + Arrays.hashCode(responseIds);
  }

  @Override
  public String toString() {
    return "SupervisedExample[transcript " + transcript + ", message " + message + ", " + promptIds.length
        + " prompt + " + responseIds.length + " response tokens]";
  }
}
