package org.magejvm.impl.rollout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Episode;
import org.magejvm.api.FinishReason;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Outcome;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.ReflectionMemory;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.Tags;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays batches of meta-episodes: {@code tasks x groupSize} environments, each running {@code episodes} episodes of
 * the same task with reflection turns in between.
 *
 * <p>Schedule of one meta-episode: play episode 0, then for k = 1..N-1 a reflection turn (only when the context mode
 * {@linkplain ContextMode#reflects() reflects}), {@link Environment#restart()}, and play episode k. With early stop
 * on, a meta-episode that has won skips every later reflection and episode; draws and losses go on. A play phase
 * ends when the environment reports {@code done} or after {@code maxTurns} turns ({@link Outcome#TRUNCATED}).
 *
 * <p>Every step makes exactly one batched {@link LanguagePolicy#generate} call holding the prompts of the active
 * meta-episodes only (finished ones are not padded with dummy prompts); no call is made when none is active.
 *
 * <p>Groups: meta-episodes {@code b*G .. b*G+G-1} form group {@code b}; they share the task seed, the seat and (with
 * {@link OpponentSampling#PER_GROUP}) the opponent. All seeds derive from the config's base seed as described in
 * {@link Seeds}, so the same config, policy behaviour and seed give equal results.
 *
 * <p>Failures: an exception from one environment (reset, restart, prompt rendering, step) stops only that
 * meta-episode; it is reported as a {@link WorkerFailure} with everything recorded so far, and the others go on. A
 * policy that throws or answers with the wrong number of generations aborts the run with a {@link RolloutException}
 * naming the policy and the step; so does a provider that cannot create the environments. Unreadable model output
 * is not an error: it is an invalid turn.
 *
 * <p>The runner holds no state between runs and may be shared; one run uses one thread.
 */
@Api(status = Api.Status.STABLE)
public final class MetaEpisodeRunner {

  private static final Logger LOG = LoggerFactory.getLogger(MetaEpisodeRunner.class);

  private final EnvironmentRegistry registry;
  private final RolloutListener listener;

  /**
   * A runner without a listener.
   *
   * @param registry where environment ids are looked up
   */
  public MetaEpisodeRunner(EnvironmentRegistry registry) {
    this(registry, RolloutListener.NONE);
  }

  /**
   * A runner reporting progress.
   *
   * @param registry where environment ids are looked up
   * @param listener the progress listener
   */
  public MetaEpisodeRunner(EnvironmentRegistry registry, RolloutListener listener) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * A runner for environment providers registered programmatically.
   *
   * @param providers the providers
   * @return the runner
   */
  public static MetaEpisodeRunner of(EnvironmentProvider... providers) {
    EnvironmentRegistry r = EnvironmentRegistry.empty();
    for (EnvironmentProvider p : providers) {
      r.register(p);
    }
    return new MetaEpisodeRunner(r);
  }

  /**
   * Plays the meta-episodes of a config.
   *
   * @param config what to play
   * @param policy who plays
   * @return the completed meta-episodes and the failures
   * @throws org.magejvm.api.plugin.PluginException if the environment id is unknown
   * @throws IllegalArgumentException if the opponent settings do not fit the environment
   * @throws RolloutException if the policy fails or the environments cannot be created
   */
  public RolloutResult run(RolloutConfig config, LanguagePolicy policy) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(policy, "policy");
    EnvironmentProvider provider = registry.require(config.environmentId());
    return new Run(provider, config, policy, listener).execute();
  }

  /**
   * The reflection inside the first {@code <remark>...</remark>} of a response, stripped and cut to {@link
   * ReflectionMemory#MAX_CHARS} characters.
   *
   * @param response the response text
   * @return the reflection, or empty when the tags are missing
   */
  public static Optional<String> extractReflection(String response) {
    return Tags.first(response, "remark").map(r -> {
      String s = r.strip();
      return s.length() > ReflectionMemory.MAX_CHARS ? s.substring(0, ReflectionMemory.MAX_CHARS) : s;
    });
  }

  /**
   * The history lines a prompt shows: the last {@code length} steps, the last {@code withObservation} of them with
   * their observation.
   *
   * @param steps all steps of the episode, with observations
   * @param length the most steps listed
   * @param withObservation the most (latest) steps shown with their observation
   * @return the steps to show
   */
  static List<HistoryStep> window(List<HistoryStep> steps, int length, int withObservation) {
    int size = steps.size();
    int from = Math.max(0, size - length);
    int obsFrom = Math.max(0, size - withObservation);
    List<HistoryStep> out = new ArrayList<>(size - from);
    for (int i = from; i < size; i++) {
      HistoryStep s = steps.get(i);
      out.add(i >= obsFrom ? s : s.withoutObservation());
    }
    return out;
  }

  /** The state of one meta-episode being played. */
  private static final class Worker {
    final String groupId;
    final int indexInGroup;
    final String key;
    final long seed;
    final Opponent opponent;
    final String opponentId;
    final Seat seat;
    Environment env;
    PromptRenderer renderer;
    String initialObservation;
    final List<Turn> turns = new ArrayList<>();
    final List<Episode> episodes = new ArrayList<>();
    final List<List<HistoryStep>> pastSteps = new ArrayList<>();
    ReflectionMemory reflections = ReflectionMemory.empty();
    boolean won;
    boolean failed;
    // the episode in progress
    int episode;
    List<Turn> episodeTurns = new ArrayList<>();
    List<HistoryStep> steps = new ArrayList<>();
    double episodeReward;
    boolean episodeDone;
    Outcome outcome;
    double score;

    Worker(String groupId, int indexInGroup, long seed, Opponent opponent, Seat seat) {
      this.groupId = groupId;
      this.indexInGroup = indexInGroup;
      this.key = groupId + "/" + indexInGroup;
      this.seed = seed;
      this.opponent = opponent;
      this.opponentId = opponent == null ? "" : opponent.id();
      this.seat = seat;
    }

    void startEpisode(int k) {
      episode = k;
      episodeTurns = new ArrayList<>();
      steps = new ArrayList<>();
      episodeReward = 0;
      episodeDone = false;
      outcome = null;
      score = 0;
    }

    void finishEpisode() {
      Outcome o = episodeDone ? outcome : Outcome.TRUNCATED;
      episodes.add(new Episode(episode, episodeTurns, o, episodeReward, o == Outcome.TRUNCATED ? 0 : score));
      pastSteps.add(steps);
    }

    MetaEpisode toMetaEpisode(String environmentId) {
      return new MetaEpisode(environmentId, groupId, indexInGroup, seed, opponentId, seat, turns, episodes,
          reflections);
    }
  }

  /** One execution of a config; holds the per-run state so the runner itself stays stateless. */
  private static final class Run {
    private final EnvironmentProvider provider;
    private final RolloutConfig config;
    private final LanguagePolicy policy;
    private final RolloutListener listener;
    private final String envId;
    private final int episodes;
    private final int maxTurns;
    private final SamplingConfig sampling;
    private final long samplingRoot;
    private final List<Worker> workers = new ArrayList<>();
    private final List<WorkerFailure> failures = new ArrayList<>();
    private int calls;

    Run(EnvironmentProvider provider, RolloutConfig config, LanguagePolicy policy, RolloutListener listener) {
      this.provider = provider;
      this.config = config;
      this.policy = policy;
      this.listener = listener;
      this.envId = config.environmentId();
      EnvironmentDefaults d = Objects.requireNonNull(provider.defaults(),
          "environment '" + envId + "' returned null defaults");
      this.episodes = config.episodes().orElse(d.episodes());
      this.maxTurns = config.maxTurns().orElse(d.maxTurns());
      this.sampling = config.sampling().orElseGet(() -> SamplingConfig.training(d.maxResponseTokens()));
      this.samplingRoot = sampling.seed().orElse(config.seed());
    }

    RolloutResult execute() {
      planWorkers();
      try {
        createEnvironments();
        for (Worker w : workers) {
          guard(w, "reset", Phase.PLAY, () -> w.initialObservation = w.env.reset(w.seed, w.opponent, w.seat));
        }
        for (int k = 0; k < episodes; k++) {
          if (k > 0) {
            List<Worker> continuing = continuing();
            if (config.contextMode().reflects()) {
              reflect(continuing, k);
            }
            for (Worker w : continuing) {
              if (!w.failed) {
                guard(w, "restart", Phase.PLAY, () -> w.initialObservation = w.env.restart());
              }
            }
          }
          play(continuing(), k);
        }
        List<MetaEpisode> done = new ArrayList<>();
        for (Worker w : workers) {
          if (!w.failed) {
            MetaEpisode m = w.toMetaEpisode(envId);
            done.add(m);
            listener.onMetaEpisode(m);
          }
        }
        return new RolloutResult(done, failures, episodes, maxTurns, calls);
      } finally {
        closeAll();
      }
    }

    private void planWorkers() {
      OpponentPool pool = config.opponentPool().orElseGet(provider::opponents);
      boolean twoPlayer = provider.twoPlayer();
      Opponent fixed = null;
      if (!twoPlayer) {
        if (config.fixedOpponent().isPresent()) {
          throw new IllegalArgumentException("environment '" + envId + "' is single-player, but opponent '"
              + config.fixedOpponent().get() + "' was requested");
        }
      } else if (config.fixedOpponent().isPresent()) {
        fixed = pool.require(config.fixedOpponent().get());
      } else if (pool.isEmpty()) {
        throw new IllegalArgumentException("the opponent pool of environment '" + envId
            + "' has no training opponents to sample from; name a fixed opponent (known: " + pool.ids() + ")");
      }
      long seed = config.seed();
      Seat[] seats = twoPlayer
          ? config.seating().assign(config.tasks(), new Random(Seeds.derive(seed, Seeds.SEAT, 0)))
          : filled(config.tasks(), Seat.FIRST);
      int g = config.groupSize();
      for (int b = 0; b < config.tasks(); b++) {
        String groupId = config.groupPrefix() + b;
        long taskSeed = Seeds.taskSeed(seed, b);
        Opponent groupOpponent = null;
        if (twoPlayer) {
          groupOpponent = fixed != null ? fixed : pool.sample(new Random(Seeds.derive(seed, Seeds.OPPONENT, b)));
        }
        for (int i = 0; i < g; i++) {
          Opponent o = groupOpponent;
          if (twoPlayer && fixed == null && config.opponentSampling() == OpponentSampling.PER_META_EPISODE) {
            o = pool.sample(new Random(Seeds.derive(seed, Seeds.OPPONENT_PER_WORKER, (long) b * g + i)));
          }
          workers.add(new Worker(groupId, i, taskSeed, o, seats[b]));
        }
      }
    }

    private static Seat[] filled(int n, Seat seat) {
      Seat[] s = new Seat[n];
      Arrays.fill(s, seat);
      return s;
    }

    private void createEnvironments() {
      for (Worker w : workers) {
        Environment env;
        try {
          env = provider.create(config.environmentOptions());
        } catch (RuntimeException e) {
          throw new RolloutException("environment '" + envId + "' could not be created with options "
              + config.environmentOptions() + ": " + e.getMessage(), e);
        }
        if (env == null) {
          throw new RolloutException("environment provider '" + envId + "' returned null from create()");
        }
        w.env = env;
      }
      for (Worker w : workers) {
        guard(w, "reset", Phase.PLAY, () -> w.renderer = Objects.requireNonNull(w.env.promptRenderer(),
            "promptRenderer() returned null"));
      }
    }

    private List<Worker> continuing() {
      List<Worker> out = new ArrayList<>();
      for (Worker w : workers) {
        if (!w.failed && !(config.earlyStop() && w.won)) {
          out.add(w);
        }
      }
      return out;
    }

    private void reflect(List<Worker> continuing, int k) {
      List<Worker> batch = new ArrayList<>();
      List<PolicyRequest> requests = new ArrayList<>();
      List<String> prompts = new ArrayList<>();
      for (Worker w : continuing) {
        Episode finished = w.episodes.get(w.episodes.size() - 1);
        guard(w, "reflect", Phase.REFLECT, () -> {
          List<HistoryStep> shown = window(w.pastSteps.get(w.pastSteps.size() - 1), Integer.MAX_VALUE,
              config.reflectObservations());
          PromptContext ctx = new PromptContext(config.promptStyle(), w.initialObservation, finished.index(),
              List.of(), shown, finished.outcome());
          String prompt = Objects.requireNonNull(w.renderer.renderReflect(ctx), "renderReflect returned null");
          PolicyRequest req = new PolicyRequest(prompt, Phase.REFLECT, w.key, k, 0, List.of(), w.env.state(),
              w.episodes);
          batch.add(w);
          requests.add(req);
          prompts.add(prompt);
        });
      }
      if (batch.isEmpty()) {
        return;
      }
      List<Generation> gens = call(requests, Phase.REFLECT, k, 0);
      for (int i = 0; i < batch.size(); i++) {
        Worker w = batch.get(i);
        Generation g = gens.get(i);
        Optional<String> reflection = extractReflection(g.text());
        String text = reflection.orElse("");
        w.reflections = w.reflections.append(text);
        w.turns.add(tokens(Turn.builder(), g)
            .setPhase(Phase.REFLECT)
            .setEpisodeIndex(k)
            .setTurnIndex(0)
            .setPrompt(prompts.get(i))
            .setResponse(g.text())
            .optAction(text)
            .optValid(reflection.isPresent())
            .setAnchor(AnchorKey.reflection(w.opponentId))
            .optOpponentId(w.opponentId)
            .build());
      }
    }

    private void play(List<Worker> players, int k) {
      for (Worker w : players) {
        w.startEpisode(k);
      }
      for (int t = 0; t < maxTurns; t++) {
        List<Worker> batch = new ArrayList<>();
        List<PolicyRequest> requests = new ArrayList<>();
        for (Worker w : players) {
          if (w.failed || w.episodeDone) {
            continue;
          }
          final int turn = t;
          guard(w, "prompt", Phase.PLAY, turn, () -> {
            String prompt = Objects.requireNonNull(w.renderer.renderPlay(playContext(w)),
                "renderPlay returned null");
            List<Episode> past = config.contextMode() == ContextMode.NONE ? List.of() : w.episodes;
            requests.add(new PolicyRequest(prompt, Phase.PLAY, w.key, k, turn, w.env.legalActions(),
                w.env.state(), past));
            batch.add(w);
          });
        }
        if (batch.isEmpty()) {
          break;
        }
        List<Generation> gens = call(requests, Phase.PLAY, k, t);
        for (int i = 0; i < batch.size(); i++) {
          Worker w = batch.get(i);
          Generation g = gens.get(i);
          String prompt = requests.get(i).prompt();
          final int turn = t;
          guard(w, "step", Phase.PLAY, turn, () -> {
            StepResult r = Objects.requireNonNull(w.env.step(g.text()), "step returned null");
            if (!r.anchor().opponentId().equals(w.opponentId)) {
              throw new IllegalStateException("step() returned an anchor naming opponent '"
                  + r.anchor().opponentId() + "', but this meta-episode plays "
                  + (w.opponentId.isEmpty() ? "no opponent (expected the empty id)" : "'" + w.opponentId + "'")
                  + "; an AnchorKey's opponent id is the opponent's id()");
            }
            Turn played = tokens(Turn.builder(), g)
                .setPhase(Phase.PLAY)
                .setEpisodeIndex(k)
                .setTurnIndex(turn)
                .setPrompt(prompt)
                .setResponse(g.text())
                .optAction(r.action())
                .optReward(r.reward())
                .optValid(r.actionValid())
                .setAnchor(r.anchor())
                .optOpponentId(w.opponentId)
                .optDone(r.done())
                .optWon(r.won())
                .optDraw(r.draw())
                .optScore(r.score())
                .build();
            w.turns.add(played);
            w.episodeTurns.add(played);
            w.steps.add(new HistoryStep(turn + 1, r.action(), r.actionValid(), r.observation()));
            w.episodeReward += r.reward();
            w.score = r.score();
            if (r.done()) {
              w.episodeDone = true;
              w.outcome = r.won() ? Outcome.WON : r.draw() ? Outcome.DRAW : Outcome.LOST;
              w.won |= r.won();
            }
          });
        }
      }
      for (Worker w : players) {
        if (!w.failed) {
          w.finishEpisode();
        }
      }
    }

    private PromptContext playContext(Worker w) {
      ContextMode mode = config.contextMode();
      List<PastEpisode> past = new ArrayList<>();
      if (mode != ContextMode.NONE) {
        for (Episode e : w.episodes) {
          int j = e.index();
          List<HistoryStep> steps = mode.showsHistory()
              ? window(w.pastSteps.get(j), Integer.MAX_VALUE, 0)
              : List.of();
          String reflection = mode.reflects() && j < w.reflections.size() ? w.reflections.get(j) : "";
          past.add(new PastEpisode(j, steps, e.outcome(), reflection));
        }
      }
      List<HistoryStep> shown = window(w.steps, config.historyLength(), config.playObservations());
      int shownIndex = mode == ContextMode.NONE ? 0 : w.episode;
      return new PromptContext(config.promptStyle(), w.initialObservation, shownIndex, past, shown, null);
    }

    private static Turn.Builder tokens(Turn.Builder b, Generation g) {
      return b.optPromptTokenIds(g.promptTokenIds())
          .optResponseTokenIds(g.responseTokenIds())
          .optLogProbs(g.logProbs())
          .optResponseTruncated(g.finishReason() == FinishReason.LENGTH);
    }

    private List<Generation> call(List<PolicyRequest> requests, Phase phase, int k, int t) {
      int index = calls++;
      String where = (phase == Phase.REFLECT ? "the reflection before episode " + k : "episode " + k + ", turn "
          + t) + " (policy call " + index + ", " + requests.size() + " prompts)";
      SamplingConfig s = sampling.withSeed(Seeds.derive(samplingRoot, Seeds.SAMPLING, index));
      long start = System.nanoTime();
      List<Generation> out;
      try {
        out = policy.generate(Collections.unmodifiableList(requests), s);
      } catch (RuntimeException e) {
        throw new RolloutException("policy '" + policyName() + "' threw at " + where + ": " + e, e);
      }
      if (out == null || out.size() != requests.size()) {
        throw new RolloutException("policy '" + policyName() + "' returned "
            + (out == null ? "null" : out.size() + " generations") + " for " + requests.size()
            + " prompts at " + where);
      }
      for (int i = 0; i < out.size(); i++) {
        if (out.get(i) == null) {
          throw new RolloutException("policy '" + policyName() + "' returned a null generation for prompt " + i
              + " at " + where);
        }
      }
      listener.onPolicyCall(phase, k, t, requests.size(), System.nanoTime() - start);
      return out;
    }

    private String policyName() {
      try {
        return policy.name();
      } catch (RuntimeException e) {
        return policy.getClass().getName();
      }
    }

    private void guard(Worker w, String stage, Phase phase, Runnable action) {
      guard(w, stage, phase, 0, action);
    }

    private void guard(Worker w, String stage, Phase phase, int turn, Runnable action) {
      if (w.failed) {
        return;
      }
      try {
        action.run();
      } catch (RuntimeException e) {
        w.failed = true;
        int episode = stage.equals("reset") ? 0 : stage.equals("reflect") || stage.equals("restart")
            ? w.episodes.size() : w.episode;
        WorkerFailure f = new WorkerFailure(envId, w.key, w.seed, w.opponentId, episode, turn, stage, phase, e,
            w.toMetaEpisode(envId));
        failures.add(f);
        LOG.warn("{}", f.describe());
        listener.onFailure(f);
      }
    }

    private void closeAll() {
      for (Worker w : workers) {
        if (w.env != null) {
          try {
            w.env.close();
          } catch (RuntimeException e) {
            LOG.warn("closing environment '{}' of meta-episode {} failed: {}", envId, w.key, e.toString());
          }
        }
      }
    }
  }
}
