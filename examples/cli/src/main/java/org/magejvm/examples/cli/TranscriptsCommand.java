package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.impl.llm.text.ChatMessage;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.Seating;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.rollout.WorkerFailure;
import org.magejvm.impl.train.supervised.Transcript;
import org.magejvm.impl.train.supervised.TranscriptWriter;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mage transcripts}: plays meta-episodes with scripted players through the rollout engine and writes every
 * turn as one chat transcript (a Hugging Face {@code messages} JSON line): the user message is the turn's prompt
 * exactly as the engine rendered it for the policy, the assistant message is the player's answer. The file is the
 * input of {@code mage sft}.
 *
 * <p>With several policies, which one answers is drawn uniformly at random for every turn ({@code --mix turn}, the
 * default) or once per meta-episode ({@code --mix meta-episode}), from the seed and the turn's position only (see
 * {@link ScriptedMixture}). Policy {@code i} of the list is seeded with {@code Seeds.derive(seed, POLICY, i)}, so a
 * single policy plays exactly as in {@code mage play} with the same seed.
 *
 * <p>Exit code 0 on success, 1 on an error or when some meta-episode's environment failed (the transcripts of the
 * others are written all the same).
 */
@Command(name = "transcripts", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Play meta-episodes with scripted players and write every turn as a chat transcript"
        + " (Hugging Face `messages` JSON lines) for `mage sft`.",
        "Each line holds one turn: the user message is the prompt exactly as the rollout engine rendered it, the"
            + " assistant message is the scripted player's answer."})
final class TranscriptsCommand implements Callable<Integer>, Limits.OptionPhase {

  @Option(names = "--env", required = true, paramLabel = "ID", description = "Environment id (see `mage envs`).")
  String env;

  @Option(names = "--policy", required = true, split = ",", paramLabel = "NAME",
      description = "Scripted policies of the environment (see `mage envs`). With several, each turn's answer comes"
          + " from one of them drawn uniformly at random (see --mix).")
  List<String> policies;

  @Option(names = "--mix", paramLabel = "turn|meta-episode", defaultValue = "turn",
      description = "With several policies: draw the answering policy for every turn (turn) or once per"
          + " meta-episode (meta-episode). The draw depends only on --seed and the turn's position, never on how"
          + " the game goes (default: ${DEFAULT-VALUE}).")
  String mix;

  @Option(names = "--opponent", paramLabel = "NAME",
      description = "The one opponent of every meta-episode (default: drawn per meta-episode from the environment's"
          + " training population).")
  String opponent;

  @Option(names = "--seat", paramLabel = "first|second|mixed",
      description = "The player's seat: first, second, mixed (half the meta-episodes second) or mixed:RATIO"
          + " (default: mixed for two-player games).")
  String seat;

  @Option(names = "--meta-episodes", paramLabel = "N", defaultValue = "32",
      description = "Meta-episodes to play (default: ${DEFAULT-VALUE}).")
  int metaEpisodes;

  @Option(names = "--episodes", paramLabel = "K",
      description = "Episodes per meta-episode (default: the environment's).")
  Integer episodes;

  @Option(names = {"--context", "--context-mode"}, paramLabel = "MODE", defaultValue = "reflection_only",
      description = "What play prompts show of earlier episodes: reflection_only, history_and_reflection,"
          + " history_only or none; the reflecting modes add reflection turns (default: ${DEFAULT-VALUE}).")
  String contextMode;

  @Option(names = "--prompt-style", paramLabel = "compact|verbose", defaultValue = "verbose",
      description = "Prompt style (default: ${DEFAULT-VALUE}).")
  String promptStyle;

  @Option(names = "--no-early-stop", description = "Keep playing after a won episode.")
  boolean noEarlyStop;

  @Option(names = "--env-option", paramLabel = "KEY=VALUE", description = "An environment option (repeatable).")
  Map<String, String> envOptions = new LinkedHashMap<>();

  @Option(names = "--include-invalid",
      description = "Also write turns whose answer the environment rejected (left out by default, and counted).")
  boolean includeInvalid;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "Base seed (default: 0).")
  long seed;

  @Option(names = "--out", required = true, paramLabel = "FILE.jsonl",
      description = "The JSON-lines file to write (replaced atomically).")
  Path out;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * @param registry where the environment is found
   * @return the rollout this command plays
   * @throws IllegalArgumentException naming the option when a value is unknown or out of range
   */
  RolloutConfig rolloutConfig(EnvironmentRegistry registry) {
    EnvironmentProvider provider = registry.require(env);
    Limits.of(spec).count("--meta-episodes", metaEpisodes, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .count("--episodes", episodes, 1, Limits.MAX_EPISODES, Limits.SANE).check();
    RolloutConfig.Builder b = RolloutConfig.builder()
        .setEnvironmentId(env)
        .optEnvironmentOptions(envOptions)
        .optTasks(metaEpisodes)
        .optGroupSize(1)
        .optContextMode(PlayCommand.parseContextMode(contextMode))
        .optPromptStyle(PlayCommand.parsePromptStyle(promptStyle))
        .optEarlyStop(!noEarlyStop)
        .optSeed(seed);
    if (episodes != null) {
      if (episodes < 1) {
        throw new IllegalArgumentException("--episodes must be >= 1, got " + episodes);
      }
      b.optEpisodes(episodes);
    }
    if (opponent != null) {
      if (!provider.twoPlayer()) {
        throw new IllegalArgumentException("environment '" + env + "' is single-player and has no opponents");
      }
      provider.opponents().require(opponent);
      b.optFixedOpponent(opponent);
    }
    if (seat != null) {
      b.optSeating(Seating.parse(seat));
    } else {
      b.optSeating(provider.twoPlayer() ? Seating.mixed(0.5) : Seating.of(Seat.FIRST));
    }
    return b.build();
  }

  /**
   * @param registry where the environment is found
   * @return the (mixture of) scripted policies this command plays with
   * @throws IllegalArgumentException naming the known policies when one is unknown
   */
  LanguagePolicy policy(EnvironmentRegistry registry) {
    EnvironmentProvider provider = registry.require(env);
    ScriptedMixture.Mode mode = ScriptedMixture.Mode.parse(mix);
    List<LanguagePolicy> list = new ArrayList<>();
    for (int i = 0; i < policies.size(); i++) {
      String name = policies.get(i).trim();
      if (!provider.scriptedPolicies().contains(name)) {
        list.forEach(LanguagePolicy::close);
        throw new IllegalArgumentException("unknown policy '" + name + "' for environment '" + env
            + "'; known policies: " + String.join(", ", provider.scriptedPolicies()));
      }
      list.add(provider.scriptedPolicy(name, Seeds.derive(seed, Seeds.POLICY, i)));
    }
    return list.size() == 1 ? list.get(0) : new ScriptedMixture(list, mode, Seeds.derive(seed, Seeds.POLICY, -1));
  }

  @Override
  public Integer call() {
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    RolloutConfig config = rolloutConfig(registry);
    LanguagePolicy p = policy(registry); // an unknown --policy is a usage error, like a bad option value
    Limits.endOfOptions();
    RolloutResult result;
    try (p) {
      result = new MetaEpisodeRunner(registry).run(config, p);
    }
    List<Transcript> transcripts = new ArrayList<>();
    int play = 0;
    int reflect = 0;
    int invalid = 0;
    for (MetaEpisode m : result.metaEpisodes()) {
      for (Turn t : m.turns()) {
        if (!t.valid() && !includeInvalid) {
          invalid++;
          continue;
        }
        transcripts.add(Transcript.of(ChatMessage.user(t.prompt()), ChatMessage.assistant(t.response())));
        if (t.isReflection()) {
          reflect++;
        } else {
          play++;
        }
      }
    }
    TranscriptWriter.write(out, transcripts);
    PrintWriter o = spec.commandLine().getOut();
    o.printf(Locale.ROOT, "wrote %d transcripts (%d play turns, %d reflections) from %d meta-episodes of %s to %s%n",
        transcripts.size(), play, reflect, result.metaEpisodes().size(), env, out);
    if (invalid > 0) {
      o.printf(Locale.ROOT, "left out %d turns with an invalid answer (--include-invalid keeps them)%n", invalid);
    }
    o.flush();
    PrintWriter err = spec.commandLine().getErr();
    for (WorkerFailure f : result.failures()) {
      err.println("warning: " + f.describe());
    }
    err.flush();
    return result.complete() ? 0 : 1;
  }
}
