package org.magejvm.examples.cli;

import com.google.gson.GsonBuilder;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.magejvm.api.ContextMode;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Seat;
import org.magejvm.impl.agentgym.AlfWorldProvider;
import org.magejvm.impl.agentgym.RemoteEnvironmentProvider;
import org.magejvm.impl.agentgym.RemoteSettings;
import org.magejvm.impl.agentgym.WebShopProvider;
import org.magejvm.impl.eval.Evaluation;
import org.magejvm.impl.eval.EvaluationConfig;
import org.magejvm.impl.eval.EvaluationMetrics;
import org.magejvm.impl.eval.Evaluator;
import org.magejvm.impl.train.TrainingPreset;
import org.magejvm.impl.eval.OutcomeRates;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.Seeds;
import org.magejvm.impl.rollout.WorkerFailure;
import org.magejvm.impl.train.TrainingConfig;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.PromptStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mage play}: plays M meta-episodes of an environment with one of its scripted policies and prints the
 * evaluation metrics, as a table or (with {@code --json}) as a JSON object {@code {"settings": {...}, "metrics":
 * {...}, "failures": [...]}} whose metrics use the keys of {@link EvaluationMetrics#toMap()}.
 *
 * <p>The scripted policy's seed is derived from {@code --seed} (see {@link Seeds#POLICY}). Exit code 0 on success,
 * 1 on an error or when some meta-episode's environment failed (the metrics then cover the others).
 */
@Command(name = "play", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Play meta-episodes with a scripted policy or a Qwen3 checkpoint and print the metrics.")
final class PlayCommand implements Callable<Integer>, Limits.OptionPhase {

  @Option(names = "--env", required = true, paramLabel = "ID", description = "Environment id (see `mage envs`).")
  String env;

  @Option(names = "--opponent", paramLabel = "NAME",
      description = "Opponent id (default: the environment's evaluation opponent).")
  String opponent;

  @Option(names = "--seat", paramLabel = "first|second",
      description = "The agent's seat (default: the environment's evaluation seat).")
  String seat;

  @Option(names = "--policy", paramLabel = "NAME", defaultValue = "random",
      description = "Scripted policy of the environment (default: ${DEFAULT-VALUE}).")
  String policy;

  @Option(names = "--model", paramLabel = "DIR",
      description = "Play with a Qwen3 checkpoint directory instead of a scripted policy.")
  java.nio.file.Path model;

  @CommandLine.Mixin SamplingOptions sampling;

  @CommandLine.Mixin ModelOptions modelOptions;

  @Option(names = "--meta-episodes", paramLabel = "M", defaultValue = "32",
      description = "Number of independent meta-episodes (default: ${DEFAULT-VALUE}).")
  int metaEpisodes;

  @Option(names = "--episodes", paramLabel = "N",
      description = "Episodes per meta-episode (default: the preset's or the environment's).")
  Integer episodes;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "Base seed (default: 0).")
  long seed;

  @Option(names = "--context-mode", paramLabel = "MODE",
      description = "reflection_only, history_and_reflection, history_only or none"
          + " (default: the preset's, else reflection_only).")
  String contextMode;

  @Option(names = "--prompt-style", paramLabel = "verbose|compact",
      description = "Prompt style (default: the --config's, else verbose).")
  String promptStyle;

  @Option(names = "--config", paramLabel = "FILE",
      description = "A run's training config (the config.json that mage train and mage quickstart write): play as the"
          + " run trained, in its context mode, prompt style, attempts, turn limit and environment options, unless an"
          + " option here says otherwise; --env must be its environment.")
  java.nio.file.Path trainingConfig;

  @Option(names = "--reflection-control", paramLabel = "own|removed|shuffled", defaultValue = "own",
      description = "What later attempts are shown of the reflections written before them: their own (the default),"
          + " none (removed), or another meta-episode's (shuffled): the controls of a reflecting run.")
  String reflectionControl;

  @Option(names = "--preset", paramLabel = "NAME",
      description = "Evaluate as a method would be: react, reflexion, grpo, gigpo, lamer or mage.")
  String preset;

  @Option(names = "--max-turns", paramLabel = "T", description = "Play turns per episode (default: the env's).")
  Integer maxTurns;

  @Option(names = "--step-timeout", paramLabel = "SECONDS",
      description = "Fail a meta-episode whose environment call (reset, step, render) takes longer than this; the"
          + " others go on (default: no limit).")
  Double stepTimeout;

  @Option(names = "--no-early-stop", description = "Keep playing after a won episode.")
  boolean noEarlyStop;

  @Option(names = "--env-option", paramLabel = "KEY=VALUE", description = "An environment option (repeatable).")
  Map<String, String> envOptions = new LinkedHashMap<>();

  @Option(names = "--env-url", paramLabel = "URL",
      description = "Base URL of the environment server: for agentgym-remote (a `mage env-serve`), agentgym-webshop"
          + " or agentgym-alfworld (an AgentGym server).")
  String envUrl;

  @Option(names = "--remote-env", paramLabel = "ID",
      description = "With --env agentgym-remote: the environment to play on the server (default: the one it"
          + " serves).")
  String remoteEnv;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    Limits limits = Limits.of(spec)
        .count("--meta-episodes", metaEpisodes, 1, Limits.MAX_META_EPISODES, Limits.MEMORY)
        .count("--episodes", episodes, 1, Limits.MAX_EPISODES, Limits.SANE)
        .count("--max-turns", maxTurns, 1, Limits.MAX_TURNS, Limits.SANE);
    if (model != null) {
      limits.tokens("--max-new-tokens", sampling.maxNewTokens, model);
    } else {
      limits.tokens("--max-new-tokens", sampling.maxNewTokens, 0, "");
    }
    limits.check();
    java.util.Optional<java.time.Duration> timeout = Limits.stepTimeout(spec, stepTimeout);
    EnvironmentRegistry registry = remoteRegistry(EnvironmentRegistry.discover());
    EnvironmentProvider provider = registry.require(env);
    Limits.of(spec).turns("--meta-episodes x --episodes x --max-turns", metaEpisodes,
        episodes != null ? episodes : provider.defaults().episodes(),
        maxTurns != null ? maxTurns : provider.defaults().maxTurns()).check();
    if (model == null && !provider.scriptedPolicies().contains(policy)) {
      throw new IllegalArgumentException("unknown policy '" + policy + "' for environment '" + env
          + "'; known policies: " + String.join(", ", provider.scriptedPolicies()));
    }
    TrainingConfig trained = trainingConfig == null ? null : readTrainingConfig();
    org.magejvm.impl.rollout.ReflectionControl control = parseReflectionControl(reflectionControl);
    Map<String, String> options = new LinkedHashMap<>(trained == null ? Map.of()
        : trained.environment().options());
    options.putAll(envOptions);
    EvaluationConfig.Builder b = preset == null
        ? EvaluationConfig.builder().setEnvironmentId(env)
        : TrainingPreset.parse(preset).evaluation(provider);
    b.optMetaEpisodes(metaEpisodes).rollout(r -> {
      r.optSeed(seed).optEnvironmentOptions(options).optEarlyStop(!noEarlyStop).optReflectionControl(control);
      r.optPromptStyle(promptStyle != null ? parsePromptStyle(promptStyle)
          : trained != null ? trained.rollout().promptStyle() : PromptStyle.VERBOSE);
      if (trained != null) {
        r.optContextMode(trained.rollout().contextMode()).optEpisodes(trained.rollout().episodes())
            .optMaxTurns(trained.rollout().maxTurns());
      }
      if (episodes != null) {
        r.optEpisodes(episodes);
      }
      if (maxTurns != null) {
        r.optMaxTurns(maxTurns);
      }
      timeout.ifPresent(r::optStepTimeout);
      if (contextMode != null) {
        r.optContextMode(parseContextMode(contextMode));
      }
      if (model != null) {
        r.optSampling(sampling.toConfig(seed));
      }
    });
    if (opponent != null) {
      if (!provider.twoPlayer()) {
        throw new IllegalArgumentException("environment '" + env + "' is single-player and has no opponents");
      }
      provider.opponents().require(opponent);
      b.optOpponent(opponent);
    }
    if (seat != null) {
      b.optSeat(Seat.parse(seat));
    }
    EvaluationConfig config = b.build();
    Limits.endOfOptions();
    Evaluation evaluation;
    try (LanguagePolicy p = createPolicy(provider)) {
      evaluation = new Evaluator(registry).evaluate(config, p);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> root = new LinkedHashMap<>();
      root.put("settings", settings(evaluation.rolloutConfig(), evaluation));
      root.put("metrics", evaluation.metrics().toMap());
      List<String> failures = new ArrayList<>();
      for (WorkerFailure f : evaluation.rollout().failures()) {
        failures.add(f.describe());
      }
      root.put("failures", failures);
      out.println(new GsonBuilder().setPrettyPrinting().create().toJson(root));
    } else {
      printTable(out, evaluation);
    }
    out.flush();
    PrintWriter err = spec.commandLine().getErr();
    for (WorkerFailure f : evaluation.rollout().failures()) {
      err.println("warning: " + f.describe());
    }
    err.flush();
    return evaluation.rollout().complete() ? 0 : 1;
  }

  /**
   * Applies {@code --env-url} and {@code --remote-env}: {@code agentgym-remote} is replaced by a provider for that
   * server, and the AgentGym task environments get the URL as their {@code url} option.
   */
  private EnvironmentRegistry remoteRegistry(EnvironmentRegistry discovered) {
    boolean remote = RemoteEnvironmentProvider.ID.equals(env);
    if (remoteEnv != null && !remote) {
      throw Limits.usage(spec, "--remote-env applies only to --env " + RemoteEnvironmentProvider.ID);
    }
    if (envUrl == null) {
      return discovered;
    }
    if (env.equals(WebShopProvider.ID) || env.equals(AlfWorldProvider.ID)) {
      if (envOptions.containsKey("url")) {
        throw Limits.usage(spec, "give the server URL once: --env-url or --env-option url=..., not both");
      }
      envOptions.put("url", envUrl);
      return discovered;
    }
    if (!remote) {
      throw Limits.usage(spec, "--env-url applies to " + RemoteEnvironmentProvider.ID + ", " + WebShopProvider.ID
          + " and " + AlfWorldProvider.ID + ", not to '" + env + "'");
    }
    RemoteSettings settings;
    try {
      settings = RemoteSettings.of(envUrl);
    } catch (IllegalArgumentException e) {
      throw Limits.usage(spec, "--env-url: " + e.getMessage());
    }
    EnvironmentRegistry out = EnvironmentRegistry.empty();
    for (EnvironmentProvider p : discovered.all()) {
      out.register(p.id().equals(RemoteEnvironmentProvider.ID) ? new RemoteEnvironmentProvider(settings, remoteEnv)
          : p);
    }
    return out;
  }

  private LanguagePolicy createPolicy(EnvironmentProvider provider) {
    if (model == null) {
      return provider.scriptedPolicy(policy, Seeds.derive(seed, Seeds.POLICY, 0));
    }
    return org.magejvm.impl.llm.Qwen3Checkpoint.loadPolicy(model,
        modelOptions.toOptions(Seeds.derive(seed, Seeds.SAMPLING, 0), !sampling.noThinking));
  }

  private String policyLabel() {
    return model == null ? policy : "model " + model;
  }

  private Map<String, Object> settings(RolloutConfig r, Evaluation e) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("environment", r.environmentId());
    s.put("environment_options", r.environmentOptions());
    if (envUrl != null) {
      s.put("environment_url", envUrl);
    }
    if (remoteEnv != null) {
      s.put("remote_environment", remoteEnv);
    }
    s.put("policy", policyLabel());
    s.put("opponent", r.fixedOpponent().orElse(""));
    s.put("seat", r.fixedOpponent().isPresent() ? r.seating().toString() : "");
    s.put("preset", preset == null ? "" : TrainingPreset.parse(preset).id());
    s.put("context_mode", r.contextMode().name().toLowerCase(Locale.ROOT));
    s.put("reflection_control", r.reflectionControl().name().toLowerCase(Locale.ROOT));
    s.put("prompt_style", r.promptStyle().name().toLowerCase(Locale.ROOT));
    s.put("meta_episodes", r.tasks());
    s.put("episodes", e.rollout().episodes());
    s.put("max_turns", e.rollout().maxTurns());
    s.put("early_stop", r.earlyStop());
    s.put("seed", r.seed());
    return s;
  }

  private void printTable(PrintWriter out, Evaluation e) {
    RolloutConfig r = e.rolloutConfig();
    EvaluationMetrics m = e.metrics();
    out.printf(Locale.ROOT, "mage play: %s, policy %s, %s%s%n", r.environmentId(), policyLabel(),
        r.fixedOpponent().map(o -> "opponent " + o + " (seat " + r.seating() + "), ").orElse(""),
        r.contextMode().name().toLowerCase(Locale.ROOT));
    out.printf(Locale.ROOT, "%d meta-episodes x %d episodes (at most %d turns each), seed %d%s%n%n",
        r.tasks(),
        e.rollout().episodes(), e.rollout().maxTurns(), r.seed(),
        e.rollout().complete() ? "" : ", " + e.rollout().failures().size() + " failed");
    printRates(out, "", m.overall());
    m.byOpponent().forEach((id, rates) -> {
      out.printf(Locale.ROOT, "%nopponent %s (%d meta-episodes)%n", id, rates.metaEpisodes());
      printRates(out, "  ", rates);
    });
    out.printf(Locale.ROOT,
        "%nplay turns %d, invalid action rate %.3f; reflection turns %d, invalid reflection rate %.3f%n",
        m.playTurns(), m.invalidActionRate(), m.reflectionTurns(), m.reflectionInvalidRate());
    out.printf(Locale.ROOT, "mean response length %.1f characters%s; truncated responses %.3f%n",
        m.meanResponseChars(),
        m.meanResponseTokens().isPresent()
            ? String.format(Locale.ROOT, ", %.1f tokens", m.meanResponseTokens().getAsDouble()) : "",
        m.truncatedResponseRate());
  }

  private static void printRates(PrintWriter out, String indent, OutcomeRates r) {
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%s%-26s", indent, "episode k"));
    for (int k = 0; k < r.episodes(); k++) {
      header.append(String.format(Locale.ROOT, "%8s", "[" + k + "]"));
    }
    out.println(header);
    row(out, indent, "success_rate", r.successRate());
    row(out, indent, "draw_rate", r.drawRate());
    row(out, indent, "success_and_draw_rate", r.successAndDrawRate());
    row(out, indent, "independent_success_rate", r.independentSuccessRate());
    row(out, indent, "independent_draw_rate", r.independentDrawRate());
    row(out, indent, "score", r.score());
  }

  private static void row(PrintWriter out, String indent, String name, List<Double> values) {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%s%-26s", indent, name));
    for (double v : values) {
      sb.append(String.format(Locale.ROOT, "%8.3f", v));
    }
    out.println(sb);
  }

  /**
   * Reads {@code --config} and checks it names {@code --env}.
   *
   * @throws CommandLine.ParameterException naming the file when it cannot be read or names another environment
   */
  private TrainingConfig readTrainingConfig() {
    TrainingConfig c;
    try {
      c = TrainingConfig.fromJson(java.nio.file.Files.readString(trainingConfig));
    } catch (java.io.IOException e) {
      throw Limits.usage(spec, "--config: cannot read " + trainingConfig + ": " + e.getMessage());
    } catch (RuntimeException e) {
      throw Limits.usage(spec, "--config: " + trainingConfig + " is not a training config: " + e.getMessage());
    }
    if (!c.environment().id().equals(env)) {
      throw Limits.usage(spec, "--config: " + trainingConfig + " trains " + c.environment().id() + ", not --env "
          + env);
    }
    return c;
  }

  static org.magejvm.impl.rollout.ReflectionControl parseReflectionControl(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    for (org.magejvm.impl.rollout.ReflectionControl c : org.magejvm.impl.rollout.ReflectionControl.values()) {
      if (c.name().equals(t)) {
        return c;
      }
    }
    throw new IllegalArgumentException("unknown reflection control '" + text + "': expected own, removed or shuffled");
  }

  static ContextMode parseContextMode(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    for (ContextMode c : ContextMode.values()) {
      if (c.name().equals(t)) {
        return c;
      }
    }
    throw new IllegalArgumentException("unknown context mode '" + text
        + "': expected reflection_only, history_and_reflection, history_only or none");
  }

  static PromptStyle parsePromptStyle(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT);
    for (PromptStyle p : PromptStyle.values()) {
      if (p.name().equals(t)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown prompt style '" + text + "': expected verbose or compact");
  }
}
