package org.magejvm.examples.research;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.magejvm.api.MetaEpisode;
import org.magejvm.examples.quickstart.GameRecipe;
import org.magejvm.examples.quickstart.KuhnPolicyProbe;
import org.magejvm.examples.quickstart.KuhnQuickStart;
import org.magejvm.examples.quickstart.RecipeSettings;
import org.magejvm.impl.llm.DjlLanguagePolicy;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * Probes saved models from the command line with the quick start's {@link KuhnPolicyProbe}: {@code ./mage bench
 * kuhn-probe MODEL_DIR...} prints P(BET) per first-attempt state and the three summary figures for each model, on
 * the prompts of the quick start's probe (seed 1).
 */
public final class KuhnProbe {
  private KuhnProbe() {}

  /**
   * Probes each model directory.
   *
   * @param args model directories (Hugging Face layout, for example a quick start's {@code trained} or {@code
   *     warm-start})
   */
  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true);
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    GameRecipe recipe = new GameRecipe(registry,
        RecipeSettings.builder(Path.of("."), GameRecipe.quickStartConfig(
            registry.require(GameRecipe.KUHN.environment()), 1))
            .optWarmStartExamples(1).optEvalMetaEpisodes(1).build(), out);
    List<MetaEpisode> games = recipe.probeMetaEpisodes(KuhnQuickStart.PROBE_META_EPISODES);
    for (String dir : args) {
      try (DjlLanguagePolicy policy = recipe.load(Path.of(dir))) {
        KuhnPolicyProbe.Result r = KuhnPolicyProbe.probe(policy, games);
        out.println(dir);
        r.firstAttempt().forEach((k, v) -> out.printf(Locale.ROOT, "  %-34s %.3f%n", k, v));
        out.printf(Locale.ROOT, "  spread %.3f  history shift %.3f  repeat %.3f  (%d later prompts)%n",
            r.spread(), r.historyShift(), r.repeatProbability(), r.laterPrompts());
      }
    }
  }
}
