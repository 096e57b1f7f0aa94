package org.magejvm.examples.quickstart;

import java.util.List;
import java.util.Map;
import org.magejvm.api.Opponent;
import org.magejvm.api.Seat;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;

/** Text a tiny tokenizer learns its merges from: an environment's opening prompts in both styles and its actions. */
public final class PromptCorpus {

  private PromptCorpus() {}

  /**
   * @param provider the environment
   * @param seed the seed of the four deals or boards it opens
   * @return the corpus
   */
  public static String of(EnvironmentProvider provider, long seed) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      try (Environment env = provider.create(Map.of())) {
        Opponent opponent = provider.twoPlayer() && !provider.opponents().training().isEmpty()
            ? provider.opponents().training().get(0).opponent() : null;
        String obs = env.reset(Seeds.derive(seed, 8, i), opponent, i % 2 == 0 ? Seat.FIRST : Seat.SECOND);
        for (PromptStyle style : PromptStyle.values()) {
          sb.append(env.promptRenderer().renderPlay(new PromptContext(style, obs, 0, List.of(), List.of(), null)))
              .append('\n');
        }
        for (String a : env.legalActions()) {
          sb.append("<action>").append(a).append("</action>\n");
        }
      }
    }
    return sb.toString();
  }

  /**
   * The corpus of {@link #of} with a reflection answer added, for models that also write reflections ({@code mage
   * train --tiny} and the trainer soak).
   *
   * @param provider the environment
   * @param seed the seed of the four deals or boards it opens
   * @return the corpus
   */
  public static String withReflection(EnvironmentProvider provider, long seed) {
    return of(provider, seed) + "<remark>Next time I will play differently.</remark>\n";
  }
}
