package org.magejvm.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.AnchorScope;
import org.magejvm.api.Episode;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Turn;
import org.magejvm.impl.eval.MethodPreset;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.EnvironmentRegistry;

class KuhnRecipeTest {

  private static final EnvironmentRegistry REGISTRY = EnvironmentRegistry.discover();

  private static KuhnRecipe recipe(Path dir, double repeat) {
    KuhnRecipe.Settings s = new KuhnRecipe.Settings(dir, 64, 0, 1, 4, 5e-4, 0.1, 512, 1, 3)
        .withAblation(repeat, AnchorScope.PROMPT, 25);
    return new KuhnRecipe(REGISTRY, s, new PrintWriter(Writer.nullWriter()));
  }

  private static List<MetaEpisode> play(KuhnRecipe recipe, double repeat) {
    RolloutConfig config = recipe.rollout(MethodPreset.MAGE, 16).optGroupSize(4).optSeed(5).build();
    try (KuhnRecipe.MixedScripted player = new KuhnRecipe.MixedScripted(
        REGISTRY.require(KuhnRecipe.ENVIRONMENT), 7, repeat)) {
      return new MetaEpisodeRunner(REGISTRY).run(config, player).metaEpisodes();
    }
  }

  private static List<String> actions(Episode e) {
    List<String> out = new ArrayList<>();
    for (Turn t : e.turns()) {
      out.add(t.action());
    }
    return out;
  }

  /** Counts, over every later attempt, the turns that repeat the previous attempt's action at the same point. */
  private static int[] repeats(List<MetaEpisode> metaEpisodes) {
    int repeated = 0;
    int comparable = 0;
    for (MetaEpisode m : metaEpisodes) {
      for (int k = 1; k < m.episodes().size(); k++) {
        List<String> before = actions(m.episodes().get(k - 1));
        List<String> now = actions(m.episodes().get(k));
        for (int i = 0; i < Math.min(before.size(), now.size()); i++) {
          // a turn whose earlier moves differ from the previous attempt's sees another betting state
          if (!now.subList(0, i).equals(before.subList(0, i))) {
            break;
          }
          comparable++;
          repeated += now.get(i).equals(before.get(i)) ? 1 : 0;
        }
      }
    }
    return new int[] {repeated, comparable};
  }

  @Test
  void theWarmStartPlayerRepeatsThePreviousAttemptWhateverItsOutcome(@TempDir Path dir) {
    int[] always = repeats(play(recipe(dir, 1.0), 1.0));
    assertThat(always[1]).isGreaterThan(50);
    assertThat(always[0]).isEqualTo(always[1]);
    int[] never = repeats(play(recipe(dir, 0.0), 0.0));
    assertThat(never[1]).isGreaterThan(50);
    assertThat(never[0]).isLessThan(never[1]);
  }

  @Test
  void aCachedWarmStartMadeWithOtherSettingsIsRefused(@TempDir Path dir) throws Exception {
    Path warm = Files.createDirectories(dir.resolve("warm-start"));
    Files.writeString(warm.resolve("model.safetensors"), "");
    Files.writeString(warm.resolve("warm-start-settings.txt"), "examples=64 repeat_share=0.0 seed=3\n");
    assertThatThrownBy(() -> recipe(dir, 0.5).warmStart())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("repeat_share=0.0")
        .hasMessageContaining("repeat_share=0.5");
    assertThat(recipe(dir, 0.0).warmStart()).isEqualTo(warm);
  }

  @Test
  void settingsRejectImpossibleValues(@TempDir Path dir) {
    assertThatThrownBy(() -> recipe(dir, 1.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("repeat share");
    KuhnRecipe.Settings s = new KuhnRecipe.Settings(dir, 64, 0, 1, 4, 5e-4, 0.1, 512, 1, 3);
    assertThat(s.repeatShare()).isEqualTo(KuhnRecipe.DEFAULT_REPEAT_SHARE);
    assertThat(s.anchors()).isEqualTo(AnchorScope.PROMPT);
    assertThatThrownBy(() -> s.withAblation(0.5, AnchorScope.GLOBAL, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid-action penalty");
  }
}
