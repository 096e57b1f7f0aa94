package org.magejvm.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.magejvm.api.FinishReason;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;

/**
 * Wraps a policy: records every call (requests and sampling) and, optionally, adds fake token ids (one per
 * character), log-probabilities and a length finish reason when the text reaches {@code maxNewTokens}.
 */
public final class RecordingPolicy implements LanguagePolicy {

  private final LanguagePolicy inner;
  private final boolean tokens;
  /** The requests of each call. */
  public final List<List<PolicyRequest>> calls = new ArrayList<>();
  /** The sampling of each call. */
  public final List<SamplingConfig> samplings = new ArrayList<>();

  /**
   * @param inner the policy that answers
   * @param tokens whether to add fake tokens
   */
  public RecordingPolicy(LanguagePolicy inner, boolean tokens) {
    this.inner = inner;
    this.tokens = tokens;
  }

  @Override
  public String name() {
    return "recording(" + inner.name() + ")";
  }

  @Override
  public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
    calls.add(List.copyOf(requests));
    samplings.add(sampling);
    List<Generation> out = inner.generate(requests, sampling);
    if (!tokens) {
      return out;
    }
    List<Generation> withTokens = new ArrayList<>();
    for (int i = 0; i < out.size(); i++) {
      String text = out.get(i).text();
      int[] prompt = new int[] {requests.get(i).prompt().length(), 1, 2};
      int[] ids = text.chars().toArray();
      float[] lp = new float[ids.length];
      Arrays.fill(lp, -0.25f);
      FinishReason reason = ids.length >= sampling.maxNewTokens() ? FinishReason.LENGTH : FinishReason.STOP;
      withTokens.add(new Generation(text, prompt, ids, lp, reason));
    }
    return withTokens;
  }

  /** @return the batch size of each call */
  public List<Integer> batchSizes() {
    List<Integer> out = new ArrayList<>();
    for (List<PolicyRequest> c : calls) {
      out.add(c.size());
    }
    return out;
  }
}
