package org.magejvm.examples.plugin;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Opponent;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.api.plugin.ProviderInfo;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;

/**
 * Registers the Rock-Paper-Scissors provider by hand, without {@link java.util.ServiceLoader}, and plays one episode
 * with a scripted policy by calling {@code reset} and {@code step} directly, printing every prompt and answer.
 *
 * <p>This is what the rollout engine does for each meta-episode, minus batching, reflections and restarts; it is
 * also a quick way to look at a new game's prompts and observations.
 *
 * <pre>{@code
 * java -cp 'examples/rock-paper-scissors/target/mage-example-rps-0.1.0-SNAPSHOT.jar:examples/cli/target/lib/*' \
 *     org.magejvm.examples.plugin.RegisterProgrammatically [opponent] [policy] [seed]
 * }</pre>
 *
 * <p>The defaults are opponent {@code cycle}, policy {@code counter} and seed 42 (the policy's seed is derived from it
 * with {@link #policySeed(long)}).
 */
public final class RegisterProgrammatically {

  private RegisterProgrammatically() {}

  /**
   * Runs the example.
   *
   * @param args optional: the opponent id, the scripted policy name, the seed
   */
  public static void main(String[] args) {
    if (args.length > 3) {
      throw new IllegalArgumentException("expected at most 3 arguments (opponent, policy, seed), got "
          + args.length);
    }
    String opponentId = args.length > 0 ? args[0] : RpsOpponent.Builtin.CYCLE.id();
    String policyName = args.length > 1 ? args[1] : RpsProvider.COUNTER_POLICY;
    long seed = args.length > 2 ? parseSeed(args[2]) : 42L;

    // A host application that does not use META-INF/services registers its providers itself.
    EnvironmentRegistry registry = EnvironmentRegistry.empty().register(new RpsProvider());
    for (ProviderInfo info : registry.describe()) {
      System.out.println("registered " + info.id() + " " + info.version() + " (" + info.className() + ")");
    }
    playOneEpisode(registry.require(RpsProvider.ID), opponentId, policyName, seed, policySeed(seed), System.out);
  }

  /**
   * Plays one episode against one opponent, printing each compact prompt, the policy's answer and the result.
   *
   * @param provider the game
   * @param opponentId an opponent of the provider's pool (training or held out)
   * @param policyName one of the provider's scripted policies
   * @param seed the task seed
   * @param policySeed the scripted policy's seed
   * @param out where to print the transcript
   * @return the step results in order
   * @throws IllegalArgumentException naming the known ids when the opponent or the policy is unknown
   */
  public static List<StepResult> playOneEpisode(
      EnvironmentProvider provider, String opponentId, String policyName, long seed, long policySeed,
      PrintStream out) {
    Opponent opponent = provider.opponents().require(opponentId);
    SamplingConfig sampling = SamplingConfig.evaluation(provider.defaults().maxResponseTokens());
    List<StepResult> results = new ArrayList<>();
    try (Environment env = provider.create(Map.of());
        LanguagePolicy policy = provider.scriptedPolicy(policyName, policySeed)) {
      String start = env.reset(seed, opponent, Seat.FIRST);
      out.println("playing " + provider.id() + " against " + opponent.id() + " with the " + policy.name()
          + " policy, seed " + seed);
      List<HistoryStep> shown = new ArrayList<>();
      int maxTurns = provider.defaults().maxTurns();
      for (int turn = 0; turn < maxTurns && !env.isDone(); turn++) {
        // The rollout engine builds the same context; it also adds earlier episodes and reflections.
        PromptContext context = new PromptContext(PromptStyle.COMPACT, start, 0, List.of(), shown, null);
        String prompt = env.promptRenderer().renderPlay(context);
        PolicyRequest request = new PolicyRequest(prompt, Phase.PLAY, "example", 0, turn, env.legalActions(),
            env.state(), List.of());
        Generation answer = policy.generate(List.of(request), sampling).get(0);
        StepResult result = env.step(answer.text());
        results.add(result);
        // Only the latest step carries its observation (the engine's window is configurable): this game's
        // observation already lists every earlier round.
        if (!shown.isEmpty()) {
          shown.set(shown.size() - 1, shown.get(shown.size() - 1).withoutObservation());
        }
        shown.add(new HistoryStep(turn + 1, result.action(), result.actionValid(), result.observation()));

        out.println();
        out.println("--- turn " + (turn + 1) + " prompt ---");
        out.println(prompt);
        out.println("--- answer: " + answer.text());
        out.println(result.actionValid() ? result.observation() : "invalid: " + result.message());
      }
      out.println();
      out.println(env.isDone()
          ? "episode over: reward " + results.get(results.size() - 1).reward() + ", score "
              + results.get(results.size() - 1).score()
          : "episode cut off after " + maxTurns + " turns");
    }
    return results;
  }

  /**
   * Derives a scripted policy's seed from a task seed. The two must differ and be unrelated: with the task's own
   * seed the policy would replay the opponent's random draws, and {@link java.util.Random}'s first draws for nearby
   * seeds are correlated, so the seed is scrambled.
   *
   * @param taskSeed the task seed
   * @return the policy seed
   */
  public static long policySeed(long taskSeed) {
    return new SplittableRandom(taskSeed).nextLong();
  }

  private static long parseSeed(String text) {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("the seed must be a whole number, got '" + text + "'", e);
    }
  }
}
