package org.magejvm.examples.quickstart;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.List;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.impl.llm.generate.TeacherForcing;
import org.magejvm.impl.llm.generate.TokenScores;
import org.magejvm.impl.llm.model.GradMode;
import org.magejvm.impl.llm.model.Qwen3Model;
import org.magejvm.impl.train.MageTrainer;

/**
 * Exact probabilities of given answers, by teacher forcing instead of sampling: the log-probability at temperature 1
 * that a model's answer to a user prompt (rendered by the policy's chat template) begins with a given text, tokenized
 * as the policy's tokenizer writes it.
 */
final class AnswerScores {

  /** Rows per forward pass. */
  private static final int CHUNK = 64;

  private AnswerScores() {}

  /**
   * @param policy the model
   * @param prompts user prompts
   * @param answers one answer per prompt
   * @return per prompt, the log-probability of its answer's tokens
   * @throws IllegalArgumentException when the lists differ in length
   */
  static double[] logProbs(DjlLanguagePolicy policy, List<String> prompts, List<String> answers) {
    if (prompts.size() != answers.size()) {
      throw new IllegalArgumentException(prompts.size() + " prompts but " + answers.size() + " answers");
    }
    Qwen3Model model = MageTrainer.modelOf(policy);
    List<int[]> p = new ArrayList<>(prompts.size());
    List<int[]> r = new ArrayList<>(prompts.size());
    for (int i = 0; i < prompts.size(); i++) {
      p.add(policy.tokenizer().encode(policy.renderPrompt(prompts.get(i))));
      r.add(policy.tokenizer().encode(answers.get(i)));
    }
    double[] out = new double[prompts.size()];
    TeacherForcing tf = new TeacherForcing(model);
    GradMode noGrad = GradMode.disabled();
    try {
      for (int start = 0; start < p.size(); start += CHUNK) {
        int end = Math.min(p.size(), start + CHUNK);
        try (NDManager manager = model.newManager();
            TokenScores scores = tf.score(manager, p.subList(start, end), r.subList(start, end), 1.0, false)) {
          float[] flat = scores.logProbs().toType(DataType.FLOAT32, false).toFloatArray();
          int width = (int) scores.logProbs().getShape().get(1);
          for (int row = start; row < end; row++) {
            double sum = 0;
            for (int j = 0; j < r.get(row).length; j++) {
              sum += flat[(row - start) * width + j];
            }
            out[row] = sum;
          }
        }
      }
    } finally {
      noGrad.close();
    }
    return out;
  }
}
