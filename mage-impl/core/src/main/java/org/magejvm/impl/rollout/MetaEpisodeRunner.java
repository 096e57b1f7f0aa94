package org.magejvm.impl.rollout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.magejvm.api.PolicyRequestException;
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
 * {@link OpponentSampling#PER_GROUP} or {@link OpponentSampling#QUOTA}) the opponent. All seeds derive from the
 * config's base seed as described in {@link Seeds}, so the same config, policy behaviour and seed give equal results.
 *
 * <p>Failures: whatever one environment throws (reset, restart, prompt rendering, step, including what an
 * opponent throws inside a step) stops only that meta-episode; it is reported as a {@link WorkerFailure} with
 * everything recorded so far, and the others go on. That holds for every {@link Throwable}: runtime exceptions,
 * checked exceptions thrown without being declared (as Kotlin code does), {@link AssertionError}, {@link
 * StackOverflowError}, {@link LinkageError}; what is not a {@link RuntimeException} is wrapped in a {@link
 * PluginError} whose cause is the original. The exception are errors that leave the JVM unusable, {@link
 * VirtualMachineError}s other than {@link StackOverflowError} ({@link OutOfMemoryError}, {@link InternalError}):
 * they are rethrown as they are, after the environments are closed (see {@link PluginError#isFatal}).
 *
 * <p>A provider whose {@link EnvironmentProvider#create} throws (or returns null, or with a step timeout does not
 * return in time) for some meta-episodes fails only those, with stage {@code create}; when it creates none at all
 * (options it refuses, say) the run aborts with a {@link RolloutException} carrying the first error, since nothing
 * could be played.
 *
 * <p>A policy that rejects some requests with a {@link PolicyRequestException} (a prompt beyond the model's
 * context, say) fails only the meta-episodes of those requests, with stage {@code policy}; the call is repeated with
 * the others. A policy that throws anything else or answers with the wrong number of generations aborts the run with
 * a {@link RolloutException} naming the policy and the step. Unreadable model output is not an error: it is an
 * invalid turn.
 *
 * <p>Generate timeout: with {@link RolloutConfig#generateTimeout()} set (off by default), every batched {@link
 * LanguagePolicy#generate} call runs on a daemon thread of the run and the run thread waits at most that long. A call
 * that takes longer fails every meta-episode of its batch with a {@link GenerateTimeoutException} (stage {@code
 * policy}) and the run goes on with the others (those that had finished their episode, when there are any). The
 * stuck call is interrupted and abandoned on its thread: a native generation does not look at interrupts and goes on
 * until it ends by itself, holding its memory (the KV cache of the batch) until then; a call that never returns keeps
 * its thread for the life of the JVM. Policies are not thread-safe, so the policy is not called again while the
 * abandoned call runs: the next batch first waits up to the timeout for it, and fails in the same way if it is still
 * running.
 *
 * <p>Step timeout: with {@link RolloutConfig#stepTimeout()} set, every call into the environment plugin runs on a
 * daemon thread of the run and the run thread waits at most that long. A call that takes longer fails its
 * meta-episode with a {@link StepTimeoutException} and the run goes on. Java cannot kill a thread: the stuck call is
 * interrupted (plugins that honour interrupts stop there) and abandoned on its daemon thread, which nothing else
 * uses, so it cannot hold up later calls or the JVM's exit; if it ever returns, its result is dropped and the
 * environment is closed on that thread. A call that never returns keeps its thread and whatever it holds for the
 * life of the JVM. Without a timeout (the default) plugin calls run on the caller's thread.
 *
 * <p>The runner holds no state between runs and may be shared; one run uses one thread (plus, with a step timeout,
 * its plugin threads).
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
   * @throws RolloutException if the policy fails, or the provider creates no environment at all
   * @throws VirtualMachineError an error that leaves the JVM unusable, such as {@link OutOfMemoryError}, rethrown as
   *     it is (never a {@link StackOverflowError}: that fails its meta-episode)
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

  /** What a policy call that timed out returns, compared by identity. */
  private static final List<Generation> TIMED_OUT = Collections.unmodifiableList(new ArrayList<>());

  /** The state of one meta-episode being played. */
  private static final class Worker {
    final String groupId;
    final int indexInGroup;
    final String key;
    final long seed;
    final Opponent opponent;
    final String opponentId;
    final Seat seat;
    /** With a step timeout: the plugin thread left running a call that did not return, else null. */
    ExecutorService stuck;
    /** Set (under the worker's lock) when a create() call was abandoned: a late environment is then closed. */
    boolean createAbandoned;
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
    private final Duration stepTimeout;
    private final AtomicInteger pluginThreads = new AtomicInteger();
    /** With a step timeout: the thread plugin calls run on, replaced when a call is abandoned. */
    private ExecutorService pluginThread;
    private final Duration generateTimeout;
    /** With a generate timeout: the thread policy calls run on, replaced when a call is abandoned. */
    private ExecutorService policyThread;
    /** Completes when a generate call that did not return in time ends; null when there is none. */
    private java.util.concurrent.CompletableFuture<Void> abandonedGenerate;
    private String abandonedAt;
    private String abandonedThread;
    /** Whether the last {@link #TIMED_OUT} was this call's own timeout (else: an earlier call still running). */
    private boolean timedOutNow;
    private int policyThreads;
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
      this.stepTimeout = config.stepTimeout().orElse(null);
      this.generateTimeout = config.generateTimeout().orElse(null);
    }

    RolloutResult execute() {
      planWorkers();
      try {
        createEnvironments();
        for (Worker w : workers) {
          guard(w, "reset", Phase.PLAY, () -> w.initialObservation = plugin(w, "reset()",
              () -> w.env.reset(w.seed, w.opponent, w.seat)));
        }
        for (int k = 0; k < episodes; k++) {
          if (k > 0) {
            List<Worker> continuing = continuing();
            if (config.contextMode().reflects()) {
              reflect(continuing, k);
            }
            for (Worker w : continuing) {
              if (!w.failed) {
                guard(w, "restart", Phase.PLAY, () -> w.initialObservation = plugin(w, "restart()",
                    () -> w.env.restart()));
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
      List<Opponent> quota = twoPlayer && fixed == null && config.opponentSampling() == OpponentSampling.QUOTA
          ? OpponentQuota.assign(pool, config.tasks()) : null;
      for (int b = 0; b < config.tasks(); b++) {
        String groupId = config.groupPrefix() + b;
        long taskSeed = config.taskSeeds().isEmpty() ? Seeds.taskSeed(seed, b) : config.taskSeeds().get(b);
        Opponent groupOpponent = null;
        if (twoPlayer) {
          groupOpponent = fixed != null ? fixed : quota != null ? quota.get(b)
              : pool.sample(new Random(Seeds.derive(seed, Seeds.OPPONENT, b)));
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
      Throwable first = null;
      int created = 0;
      for (Worker w : workers) {
        try {
          Environment env = plugin(w, "create()", () -> {
            Environment e = provider.create(config.environmentOptions());
            synchronized (w) {
              if (w.createAbandoned && e != null) {
                closeQuietly(e, w.key); // returned after its meta-episode had timed out
                return null;
              }
            }
            return e;
          });
          if (env == null) {
            throw new IllegalStateException("environment provider '" + envId + "' returned null from create()");
          }
          w.env = env;
          created++;
        } catch (Throwable e) {
          if (PluginError.isFatal(e)) {
            throw e;
          }
          if (e instanceof StepTimeoutException) {
            synchronized (w) {
              w.createAbandoned = true;
            }
          }
          if (first == null) {
            first = e;
          }
          fail(w, "create", Phase.PLAY, 0, e instanceof RuntimeException ? (RuntimeException) e
              : new PluginError("create()", e));
        }
      }
      if (created == 0 && first != null) {
        throw new RolloutException("environment '" + envId + "' could not be created with options "
            + config.environmentOptions() + ": " + first.getMessage(), first);
      }
      for (Worker w : workers) {
        guard(w, "reset", Phase.PLAY, () -> w.renderer = Objects.requireNonNull(
            plugin(w, "promptRenderer()", () -> w.env.promptRenderer()), "promptRenderer() returned null"));
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
      for (Worker w : continuing) {
        Episode finished = w.episodes.get(w.episodes.size() - 1);
        guard(w, "reflect", Phase.REFLECT, () -> {
          List<HistoryStep> shown = window(w.pastSteps.get(w.pastSteps.size() - 1), Integer.MAX_VALUE,
              config.reflectObservations());
          PromptContext ctx = new PromptContext(config.promptStyle(), w.initialObservation, finished.index(),
              List.of(), shown, finished.outcome());
          Object[] out = plugin(w, "renderReflect()", () -> new Object[] {w.renderer.renderReflect(ctx),
              w.env.state()});
          String prompt = Objects.requireNonNull((String) out[0], "renderReflect returned null");
          PolicyRequest req = new PolicyRequest(prompt, Phase.REFLECT, w.key, k, 0, List.of(), out[1], w.episodes);
          batch.add(w);
          requests.add(req);
        });
      }
      List<Generation> gens = call(batch, requests, Phase.REFLECT, k, 0);
      List<Optional<String>> written = new ArrayList<>(batch.size());
      for (Generation g : gens) {
        written.add(extractReflection(g.text()));
      }
      int[] shownFrom = shownReflections(batch.size(), k);
      for (int i = 0; i < batch.size(); i++) {
        Worker w = batch.get(i);
        Generation g = gens.get(i);
        Optional<String> reflection = written.get(i);
        String text = reflection.orElse("");
        w.reflections = w.reflections.append(shownFrom[i] < 0 ? "" : written.get(shownFrom[i]).orElse(""));
        w.turns.add(tokens(Turn.builder(), g)
            .setPhase(Phase.REFLECT)
            .setEpisodeIndex(k)
            .setTurnIndex(0)
            .setPrompt(requests.get(i).prompt())
            .setResponse(g.text())
            .optAction(text)
            .optValid(reflection.isPresent())
            .setAnchor(AnchorKey.reflection(w.opponentId))
            .optOpponentId(w.opponentId)
            .build());
      }
    }

    /**
     * Whose reflection each of a reflection phase's meta-episodes is shown ({@link RolloutConfig#reflectionControl}):
     * its own, none (-1), or another's by a random derangement seeded by the run's seed and the phase.
     */
    private int[] shownReflections(int n, int k) {
      int[] from = new int[n];
      switch (config.reflectionControl()) {
        case OWN:
          for (int i = 0; i < n; i++) {
            from[i] = i;
          }
          return from;
        case REMOVED:
          Arrays.fill(from, -1);
          return from;
        case SHUFFLED:
          if (n < 2) {
            Arrays.fill(from, -1);
            return from;
          }
          // Sattolo's algorithm: a uniformly random cyclic permutation, so nobody keeps its own
          for (int i = 0; i < n; i++) {
            from[i] = i;
          }
          Random r = new Random(Seeds.derive(config.seed(), Seeds.REFLECTION_SHUFFLE, k));
          for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i);
            int t = from[i];
            from[i] = from[j];
            from[j] = t;
          }
          return from;
        default:
          throw new IllegalStateException("unknown reflection control " + config.reflectionControl());
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
            PromptContext ctx = playContext(w);
            Object[] out = plugin(w, "renderPlay()", () -> new Object[] {w.renderer.renderPlay(ctx),
                w.env.legalActions(), w.env.state()});
            String prompt = Objects.requireNonNull((String) out[0], "renderPlay returned null");
            @SuppressWarnings("unchecked")
            List<String> legal = (List<String>) out[1];
            List<Episode> past = config.contextMode() == ContextMode.NONE ? List.of() : w.episodes;
            requests.add(new PolicyRequest(prompt, Phase.PLAY, w.key, k, turn, legal, out[2], past));
            batch.add(w);
          });
        }
        if (batch.isEmpty()) {
          break;
        }
        List<Generation> gens = call(batch, requests, Phase.PLAY, k, t);
        for (int i = 0; i < batch.size(); i++) {
          Worker w = batch.get(i);
          Generation g = gens.get(i);
          String prompt = requests.get(i).prompt();
          final int turn = t;
          guard(w, "step", Phase.PLAY, turn, () -> {
            StepResult r = Objects.requireNonNull(plugin(w, "step()", () -> w.env.step(g.text())),
                "step returned null");
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

    /**
     * One batched policy call. Requests the policy rejects with a {@link PolicyRequestException} fail their
     * meta-episodes and are removed from {@code batch} and {@code requests}; the call is repeated with the rest
     * (same call index and sampling seed). Returns one generation per remaining request.
     */
    private List<Generation> call(List<Worker> batch, List<PolicyRequest> requests, Phase phase, int k, int t) {
      if (requests.isEmpty()) {
        return List.of();
      }
      int index = calls;
      String where = (phase == Phase.REFLECT ? "the reflection before episode " + k : "episode " + k + ", turn "
          + t) + " (policy call " + index + ", " + requests.size() + " prompts)";
      SamplingConfig s = sampling.withSeed(Seeds.derive(samplingRoot, Seeds.SAMPLING, index));
      long start = System.nanoTime();
      List<Generation> out;
      try {
        out = generate(Collections.unmodifiableList(requests), s, where);
        if (out == TIMED_OUT) {
          // timed out (or the policy is still busy with an abandoned call): the batch's meta-episodes fail
          GenerateTimeoutException timeout = new GenerateTimeoutException(timedOutNow
              ? "policy '" + policyName() + "' generate() did not return within " + generateTimeout.toMillis()
                  + " ms (generateTimeout) at " + where + "; it was interrupted and abandoned on daemon thread '"
                  + abandonedThread + "'"
              : "policy '" + policyName() + "' is still running the generate() call abandoned at " + abandonedAt
                  + " on daemon thread '" + abandonedThread + "' (generateTimeout " + generateTimeout.toMillis()
                  + " ms); it is not thread-safe, so it was not called at " + where, generateTimeout);
          for (int i = batch.size() - 1; i >= 0; i--) {
            fail(batch.get(i), "policy", phase, phase == Phase.REFLECT ? 0 : t, timeout);
          }
          batch.clear();
          requests.clear();
          return List.of();
        }
      } catch (PolicyRequestException e) {
        rejectRequests(batch, requests, e, phase, k, t, where);
        return call(batch, requests, phase, k, t);
      } catch (RuntimeException e) {
        throw new RolloutException("policy '" + policyName() + "' threw at " + where + ": " + e, e);
      }
      calls++;
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

    /**
     * Calls the policy: directly without a generate timeout; otherwise on the run's policy thread, waiting at most the
     * timeout. Returns {@link #TIMED_OUT} (and records the abandoned call) when the call did not return in time, or
     * when an earlier abandoned call is still running after waiting up to the timeout for it. Exceptions are rethrown
     * as they are.
     */
    private List<Generation> generate(List<PolicyRequest> requests, SamplingConfig s, String where) {
      if (generateTimeout == null) {
        return policy.generate(requests, s);
      }
      long nanos = generateTimeout.toNanos();
      if (abandonedGenerate != null) {
        try {
          abandonedGenerate.get(nanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          timedOutNow = false;
          return TIMED_OUT;
        } catch (ExecutionException e) {
          // cannot happen: the completion is never exceptional
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new RolloutException("interrupted while waiting for policy '" + policyName() + "'", e);
        }
        abandonedGenerate = null;
      }
      if (policyThread == null) {
        String name = "mage-policy-" + envId + "-" + (++policyThreads);
        policyThread = Executors.newSingleThreadExecutor(r -> {
          Thread th = new Thread(r, name);
          th.setDaemon(true);
          return th;
        });
      }
      java.util.concurrent.CompletableFuture<Void> ended = new java.util.concurrent.CompletableFuture<>();
      Future<List<Generation>> f = policyThread.submit(() -> {
        try {
          return policy.generate(requests, s);
        } finally {
          ended.complete(null);
        }
      });
      try {
        return f.get(nanos, TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof RuntimeException) {
          throw (RuntimeException) c;
        }
        if (c instanceof Error) {
          throw (Error) c;
        }
        throw new RolloutException("policy '" + policyName() + "' threw at " + where + ": " + c, c);
      } catch (TimeoutException e) {
        f.cancel(true);
        // the thread may still hold the call: a fresh one serves later calls, this one ends when the call does
        policyThread.shutdown();
        policyThread = null;
        abandonedGenerate = ended;
        abandonedAt = where;
        abandonedThread = "mage-policy-" + envId + "-" + policyThreads;
        timedOutNow = true;
        return TIMED_OUT;
      } catch (InterruptedException e) {
        f.cancel(true);
        Thread.currentThread().interrupt();
        throw new RolloutException("interrupted while policy '" + policyName() + "' ran at " + where, e);
      }
    }

    private void rejectRequests(List<Worker> batch, List<PolicyRequest> requests, PolicyRequestException e,
        Phase phase, int k, int t, String where) {
      Map<Integer, String> rejected = e.rejected();
      for (int i : rejected.keySet()) {
        if (i < 0 || i >= requests.size()) {
          throw new RolloutException("policy '" + policyName() + "' rejected request " + i + " at " + where
              + ", but the batch holds " + requests.size() + " requests", e);
        }
      }
      for (int i = requests.size() - 1; i >= 0; i--) {
        String why = rejected.get(i);
        if (why != null) {
          Worker w = batch.remove(i);
          requests.remove(i);
          fail(w, "policy", phase, phase == Phase.REFLECT ? 0 : t, new PolicyRequestException(Map.of(i, why)));
        }
      }
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
      } catch (Throwable e) {
        if (PluginError.isFatal(e)) {
          throw e;
        }
        fail(w, stage, phase, turn, e instanceof RuntimeException ? (RuntimeException) e
            : new PluginError(stage + "()", e));
      }
    }

    private void fail(Worker w, String stage, Phase phase, int turn, RuntimeException e) {
      w.failed = true;
      int episode = stage.equals("reset") ? 0 : stage.equals("reflect") || stage.equals("restart")
          || (stage.equals("policy") && phase == Phase.REFLECT) ? w.episodes.size() : w.episode;
      WorkerFailure f = new WorkerFailure(envId, w.key, w.seed, w.opponentId, episode, turn, stage, phase, e,
          w.toMetaEpisode(envId));
      failures.add(f);
      LOG.warn("{}", f.describe());
      listener.onFailure(f);
    }

    /**
     * Calls into the environment plugin: directly without a step timeout; otherwise on the run's plugin thread,
     * waiting at most the timeout. What the call throws is rethrown as it is (checked exceptions included); a call
     * that times out is interrupted and its thread abandoned to the worker ({@link Worker#stuck}), and a {@link
     * StepTimeoutException} is thrown.
     */
    private <T> T plugin(Worker w, String what, Callable<T> call) {
      if (stepTimeout == null) {
        try {
          return call.call();
        } catch (Throwable e) {
          throw thrownBy(what, e);
        }
      }
      if (pluginThread == null) {
        String name = "mage-rollout-" + envId + "-" + pluginThreads.incrementAndGet();
        pluginThread = Executors.newSingleThreadExecutor(r -> {
          Thread th = new Thread(r, name);
          th.setDaemon(true);
          return th;
        });
      }
      Future<T> f = pluginThread.submit(call);
      try {
        return f.get(stepTimeout.toNanos(), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        throw thrownBy(what, e.getCause());
      } catch (TimeoutException e) {
        f.cancel(true);
        ExecutorService abandoned = pluginThread;
        pluginThread = null;
        String thread = "mage-rollout-" + envId + "-" + pluginThreads.get();
        if (w != null) {
          w.stuck = abandoned;
        } else {
          abandoned.shutdown();
        }
        throw new StepTimeoutException(what, stepTimeout, thread);
      } catch (InterruptedException e) {
        f.cancel(true);
        Thread.currentThread().interrupt();
        throw new RolloutException("interrupted while environment '" + envId + "' ran " + what, e);
      }
    }

    /** What a plugin call threw, as a runtime exception to fail its meta-episode with; fatal errors are rethrown. */
    private static RuntimeException thrownBy(String what, Throwable t) {
      if (t instanceof RuntimeException) {
        return (RuntimeException) t;
      }
      if (PluginError.isFatal(t)) {
        throw (VirtualMachineError) t;
      }
      return new PluginError(what, t);
    }

    private void closeAll() {
      Throwable fatal = null;
      for (Worker w : workers) {
        if (w.env == null) {
          continue;
        }
        Environment env = w.env;
        if (w.stuck != null) {
          // closed on the abandoned thread once the stuck call returns, if it ever does
          w.stuck.execute(() -> closeQuietly(env, w.key));
          w.stuck.shutdown();
          continue;
        }
        try {
          plugin(w, "close()", () -> {
            env.close();
            return null;
          });
        } catch (Throwable e) {
          if (PluginError.isFatal(e) && fatal == null) {
            fatal = e;
          }
          LOG.warn("closing environment '{}' of meta-episode {} failed: {}", envId, w.key, e.toString());
        }
      }
      for (Worker w : workers) {
        if (w.stuck != null && w.env == null) {
          w.stuck.shutdown();
        }
      }
      if (pluginThread != null) {
        pluginThread.shutdown();
        pluginThread = null;
      }
      if (policyThread != null) {
        policyThread.shutdown();
        policyThread = null;
      }
      if (fatal != null) {
        throw (VirtualMachineError) fatal;
      }
    }

    private void closeQuietly(Environment env, String key) {
      try {
        env.close();
      } catch (Throwable e) {
        LOG.warn("closing environment '{}' of meta-episode {} failed: {}", envId, key, e.toString());
      }
    }
  }
}
