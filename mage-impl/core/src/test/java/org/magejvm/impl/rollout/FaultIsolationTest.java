package org.magejvm.impl.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.ContextMode;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Opponent;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.PolicyRequestException;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.api.Turn;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StepResult;
import org.magejvm.testkit.RecordingPolicy;
import org.magejvm.testkit.ToyDuelProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A plugin that throws every kind of {@link Throwable}, or never returns, fails only its own meta-episodes. */
class FaultIsolationTest {

  private static final long SEED = 7;
  private static final int TASKS = 4;
  private static final int GROUP = 2;

  private final ToyDuelProvider duel = new ToyDuelProvider();
  /** Set by tests whose plugin parks forever; lets the abandoned thread go at the end. */
  private volatile boolean release;

  @AfterEach
  void releaseStuckThreads() {
    release = true;
  }

  /** What the faulty environment does in its first step() of group 1. */
  private interface Fault {
    StepResult apply();
  }

  /** The toy duel, except that the environments of group 1 run {@code fault} in their first step. */
  private EnvironmentProvider faulty(Fault fault, List<Thread> closedOn) {
    long bad = Seeds.taskSeed(SEED, 1);
    return (EnvironmentProvider) Proxy.newProxyInstance(EnvironmentProvider.class.getClassLoader(),
        new Class<?>[] {EnvironmentProvider.class}, (proxy, method, args) -> {
          Object out = method.invoke(duel, args);
          return method.getName().equals("create") ? new Faulty((Environment) out, bad, fault, closedOn) : out;
        });
  }

  private static RolloutConfig.Builder config() {
    return RolloutConfig.builder().setEnvironmentId(ToyDuelProvider.ID).optTasks(TASKS).optGroupSize(GROUP)
        .optSeed(SEED).optFixedOpponent("greedy");
  }

  private RecordingPolicy learner() {
    return new RecordingPolicy(duel.scriptedPolicy("learner", 1), false);
  }

  private RolloutResult runWith(Fault fault) {
    return MetaEpisodeRunner.of(faulty(fault, new CopyOnWriteArrayList<>())).run(config().build(), learner());
  }

  private static void assertOnlyGroup1Failed(RolloutResult r) {
    assertThat(r.metaEpisodes()).hasSize(TASKS * GROUP - GROUP).noneMatch(m -> m.groupId().equals("g1"));
    assertThat(r.failures()).extracting(WorkerFailure::workerKey).containsExactly("g1/0", "g1/1");
    assertThat(r.failures()).allSatisfy(f -> {
      assertThat(f.stage()).isEqualTo("step");
      assertThat(f.episodeIndex()).isZero();
      assertThat(f.turnIndex()).isZero();
    });
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> StepResult sneakyThrow(Throwable t) throws E {
    throw (E) t;
  }

  private static int recurse(int n) {
    return recurse(n + 1) + 1;
  }

  @Test
  void anAssertionErrorFailsOnlyItsMetaEpisodes() {
    RolloutResult r = runWith(() -> {
      throw new AssertionError("invariant broken");
    });
    assertOnlyGroup1Failed(r);
    WorkerFailure f = r.failures().get(0);
    assertThat(f.error()).isInstanceOf(PluginError.class).hasMessage("step() threw java.lang.AssertionError: "
        + "invariant broken").cause().isInstanceOf(AssertionError.class);
    assertThat(f.describe()).contains("g1/0", "during step", "AssertionError: invariant broken");
  }

  @Test
  void aStackOverflowFailsOnlyItsMetaEpisodes() {
    RolloutResult r = runWith(() -> {
      recurse(0);
      return null;
    });
    assertOnlyGroup1Failed(r);
    assertThat(r.failures().get(0).error()).isInstanceOf(PluginError.class).cause()
        .isInstanceOf(StackOverflowError.class);
  }

  @Test
  void anUndeclaredCheckedExceptionFailsOnlyItsMetaEpisodes() {
    RolloutResult r = runWith(() -> sneakyThrow(new IOException("disk gone")));
    assertOnlyGroup1Failed(r);
    assertThat(r.failures().get(0).error()).isInstanceOf(PluginError.class).hasMessageContaining("disk gone")
        .cause().isInstanceOf(IOException.class);
  }

  @Test
  void aLinkageErrorAndARuntimeExceptionFailOnlyTheirMetaEpisodes() {
    RolloutResult linkage = runWith(() -> {
      throw new NoClassDefFoundError("com/example/Missing");
    });
    assertOnlyGroup1Failed(linkage);
    assertThat(linkage.failures().get(0).error().getCause()).isInstanceOf(NoClassDefFoundError.class);

    RolloutResult runtime = runWith(() -> {
      throw new IllegalStateException("plain");
    });
    assertOnlyGroup1Failed(runtime);
    assertThat(runtime.failures().get(0).error()).isExactlyInstanceOf(IllegalStateException.class);
  }

  @Test
  void anOpponentThatThrowsInsideAStepFailsOnlyItsMetaEpisodes() {
    Supplier<String> opponentMove = () -> {
      throw new AssertionError("opponent has no move");
    };
    RolloutResult r = runWith(() -> StepResult.valid(opponentMove.get(), new AnchorKey("s", "greedy"), "x").build());
    assertOnlyGroup1Failed(r);
  }

  @Test
  void anOutOfMemoryErrorIsRethrownAfterClosingTheEnvironments() {
    List<Thread> closed = new CopyOnWriteArrayList<>();
    MetaEpisodeRunner runner = MetaEpisodeRunner.of(faulty(() -> {
      throw new OutOfMemoryError("plugin heap");
    }, closed));
    assertThatThrownBy(() -> runner.run(config().build(), learner())).isExactlyInstanceOf(OutOfMemoryError.class)
        .hasMessage("plugin heap");
    assertThat(closed).hasSize(TASKS * GROUP);
  }

  @Test
  void anInternalErrorIsRethrownEvenWithAStepTimeout() {
    MetaEpisodeRunner runner = MetaEpisodeRunner.of(faulty(() -> {
      throw new InternalError("vm broken");
    }, new CopyOnWriteArrayList<>()));
    assertThatThrownBy(() -> runner.run(config().optStepTimeout(Duration.ofSeconds(5)).build(), learner()))
        .isExactlyInstanceOf(InternalError.class);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void aStepThatNeverReturnsTimesOutAndTheRunGoesOn() throws Exception {
    List<Thread> stuckThreads = new CopyOnWriteArrayList<>();
    List<Thread> closedOn = new CopyOnWriteArrayList<>();
    AtomicInteger interrupts = new AtomicInteger();
    MetaEpisodeRunner runner = MetaEpisodeRunner.of(faulty(() -> {
      stuckThreads.add(Thread.currentThread());
      while (!release) {
        LockSupport.parkNanos(1_000_000);
        if (Thread.interrupted()) {
          interrupts.incrementAndGet(); // ignores interrupts, as a plugin stuck in native code would
        }
      }
      throw new IllegalStateException("released");
    }, closedOn));
    long start = System.nanoTime();
    RolloutResult r = runner.run(config().optStepTimeout(Duration.ofMillis(150)).build(), learner());
    long millis = (System.nanoTime() - start) / 1_000_000;

    assertOnlyGroup1Failed(r);
    assertThat(millis).isLessThan(2_000);
    WorkerFailure f = r.failures().get(0);
    assertThat(f.error()).isInstanceOf(StepTimeoutException.class)
        .hasMessageStartingWith("step() did not return within 150 ms (stepTimeout); it was interrupted and "
            + "abandoned on daemon thread 'mage-rollout-toy-duel-");
    assertThat(((StepTimeoutException) f.error()).timeout()).isEqualTo(Duration.ofMillis(150));
    assertThat(stuckThreads).hasSize(2).allMatch(Thread::isDaemon).doesNotHaveDuplicates();
    assertThat(interrupts.get()).isEqualTo(2);
    // the six healthy environments were closed; the stuck two are closed only once their calls return
    assertThat(closedOn).hasSize(6).doesNotContainAnyElementsOf(stuckThreads);

    release = true;
    for (Thread t : stuckThreads) {
      t.join(5_000);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (closedOn.size() < 8 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(closedOn).hasSize(8).containsAll(stuckThreads);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void aStepThatHonoursTheInterruptStopsAndItsThreadEnds() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    List<Thread> stuck = new CopyOnWriteArrayList<>();
    MetaEpisodeRunner runner = MetaEpisodeRunner.of(faulty(() -> {
      stuck.add(Thread.currentThread());
      try {
        never.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      return null;
    }, new CopyOnWriteArrayList<>()));
    RolloutResult r = runner.run(config().optStepTimeout(Duration.ofMillis(100)).build(), learner());
    assertOnlyGroup1Failed(r);
    for (Thread t : stuck) {
      t.join(5_000);
      assertThat(t.isAlive()).isFalse();
    }
  }

  @Test
  void aStepTimeoutThatIsNotReachedChangesNothing() {
    RolloutResult plain = MetaEpisodeRunner.of(duel).run(config().build(), learner());
    RolloutResult timed = MetaEpisodeRunner.of(duel).run(config().optStepTimeout(Duration.ofSeconds(30)).build(),
        learner());
    assertThat(timed.complete()).isTrue();
    assertThat(summary(timed.metaEpisodes())).isEqualTo(summary(plain.metaEpisodes()));
    assertThat(timed.policyCalls()).isEqualTo(plain.policyCalls());
  }

  private static List<String> summary(List<MetaEpisode> ms) {
    List<String> out = new ArrayList<>();
    for (MetaEpisode m : ms) {
      StringBuilder b = new StringBuilder(m.groupId() + "/" + m.indexInGroup() + ":");
      for (Turn t : m.turns()) {
        b.append(' ').append(t.phase()).append('=').append(t.action()).append('/').append(t.reward());
      }
      out.add(b.toString());
    }
    return out;
  }

  @Test
  void aStepTimeoutMustBePositive() {
    assertThatThrownBy(() -> config().optStepTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stepTimeout must be positive");
    assertThat(config().build().stepTimeout()).isEmpty();
  }

  @Test
  void aPolicyThatRejectsSomeRequestsFailsOnlyTheirMetaEpisodes() {
    RecordingPolicy inner = learner();
    Set<String> rejectedKeys = Set.of("g2/1", "g3/0");
    List<Integer> batchSizes = new ArrayList<>();
    LanguagePolicy policy = new LanguagePolicy() {
      @Override
      public String name() {
        return "picky";
      }

      @Override
      public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
        batchSizes.add(requests.size());
        java.util.TreeMap<Integer, String> bad = new java.util.TreeMap<>();
        for (int i = 0; i < requests.size(); i++) {
          if (rejectedKeys.contains(requests.get(i).workerKey()) && requests.get(i).phase() == Phase.PLAY
              && requests.get(i).episodeIndex() == 0 && requests.get(i).turnIndex() == 1) {
            bad.put(i, "prompt is 1000000 tokens, more than the model's context of 40960");
          }
        }
        if (!bad.isEmpty()) {
          throw new PolicyRequestException(bad);
        }
        return inner.generate(requests, sampling);
      }
    };
    RolloutResult r = MetaEpisodeRunner.of(duel).run(config().optFixedOpponent("patient").build(), policy);
    assertThat(r.failures()).extracting(WorkerFailure::workerKey).containsExactlyInAnyOrder("g2/1", "g3/0");
    assertThat(r.metaEpisodes()).hasSize(TASKS * GROUP - 2);
    WorkerFailure f = r.failures().get(0);
    assertThat(f.stage()).isEqualTo("policy");
    assertThat(f.turnIndex()).isEqualTo(1);
    assertThat(f.error()).isInstanceOf(PolicyRequestException.class).hasMessageContaining("model's context");
    assertThat(f.describe()).startsWith("the policy rejected the play request of meta-episode")
        .contains("episode 0, turn 1", "40960");
    assertThat(f.partial().turns()).hasSize(1);
    // the rejected call was repeated without the two requests
    assertThat(batchSizes).containsSubsequence(TASKS * GROUP, TASKS * GROUP - 2);
    assertThat(r.policyCalls()).isEqualTo(batchSizes.size() - 1);
  }

  @Test
  void aPolicyRejectingAnIndexOutsideTheBatchAbortsTheRun() {
    LanguagePolicy policy = new LanguagePolicy() {
      @Override
      public String name() {
        return "confused";
      }

      @Override
      public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
        throw new PolicyRequestException(Map.of(requests.size(), "no such request"));
      }
    };
    assertThatThrownBy(() -> MetaEpisodeRunner.of(duel).run(config().build(), policy))
        .isInstanceOf(RolloutException.class).hasMessageContaining("rejected request 8");
  }

  /** The toy duel, except that create() runs {@code fault} for the meta-episodes of group 1 (calls 2 and 3). */
  private EnvironmentProvider faultyCreate(Runnable fault) {
    AtomicInteger creates = new AtomicInteger();
    return (EnvironmentProvider) Proxy.newProxyInstance(EnvironmentProvider.class.getClassLoader(),
        new Class<?>[] {EnvironmentProvider.class}, (proxy, method, args) -> {
          if (method.getName().equals("create")) {
            int n = creates.getAndIncrement();
            if (n == 2 || n == 3) {
              fault.run();
            }
          }
          try {
            return method.invoke(duel, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  private static void assertOnlyGroup1FailedAt(RolloutResult r, String stage) {
    assertThat(r.metaEpisodes()).hasSize(TASKS * GROUP - GROUP).noneMatch(m -> m.groupId().equals("g1"));
    assertThat(r.failures()).extracting(WorkerFailure::workerKey).containsExactly("g1/0", "g1/1");
    assertThat(r.failures()).allSatisfy(f -> assertThat(f.stage()).isEqualTo(stage));
  }

  @Test
  void aCreateThatThrowsFailsOnlyItsMetaEpisodes() {
    RolloutResult r = MetaEpisodeRunner.of(faultyCreate(() -> {
      throw new AssertionError("no licence for this seat");
    })).run(config().build(), learner());
    assertOnlyGroup1FailedAt(r, "create");
    WorkerFailure f = r.failures().get(0);
    assertThat(f.error()).isInstanceOf(PluginError.class).hasMessageContaining("create() threw")
        .hasMessageContaining("no licence for this seat");
    assertThat(f.describe()).contains("during create at episode 0, turn 0");
    assertThat(f.partial().turns()).isEmpty();
    // the six created environments were closed, none for the two that never existed
    assertThat(duel.closed()).isEqualTo(TASKS * GROUP - GROUP);
  }

  @Test
  void aCreateThatReturnsNullFailsOnlyItsMetaEpisodes() {
    AtomicInteger creates = new AtomicInteger();
    EnvironmentProvider nulls = (EnvironmentProvider) Proxy.newProxyInstance(
        EnvironmentProvider.class.getClassLoader(), new Class<?>[] {EnvironmentProvider.class},
        (proxy, method, args) -> {
          if (method.getName().equals("create")) {
            int n = creates.getAndIncrement();
            if (n == 2 || n == 3) {
              return null;
            }
          }
          return method.invoke(duel, args);
        });
    RolloutResult r = MetaEpisodeRunner.of(nulls).run(config().build(), learner());
    assertOnlyGroup1FailedAt(r, "create");
    assertThat(r.failures().get(0).error()).hasMessageContaining("returned null from create()");
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void aCreateThatNeverReturnsIsBoundedByTheStepTimeout() throws Exception {
    List<Thread> stuck = new CopyOnWriteArrayList<>();
    RolloutResult r = MetaEpisodeRunner.of(faultyCreate(() -> {
      stuck.add(Thread.currentThread());
      while (!release) {
        LockSupport.parkNanos(1_000_000);
        Thread.interrupted(); // ignores interrupts
      }
    })).run(config().optStepTimeout(Duration.ofMillis(150)).build(), learner());
    assertOnlyGroup1FailedAt(r, "create");
    assertThat(r.failures().get(0).error()).isInstanceOf(StepTimeoutException.class)
        .hasMessageStartingWith("create() did not return within 150 ms");
    assertThat(duel.closed()).isEqualTo(TASKS * GROUP - GROUP);
    // once released, the late environments are closed on their abandoned threads instead of leaking
    release = true;
    for (Thread t : stuck) {
      t.join(5_000);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (duel.closed() < TASKS * GROUP && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(duel.closed()).isEqualTo(TASKS * GROUP);
  }

  @Test
  void aProviderThatCreatesNothingStillAbortsTheRun() {
    AtomicInteger calls = new AtomicInteger();
    EnvironmentProvider none = faultyCreate(() -> { });
    EnvironmentProvider refusing = (EnvironmentProvider) Proxy.newProxyInstance(
        EnvironmentProvider.class.getClassLoader(), new Class<?>[] {EnvironmentProvider.class},
        (proxy, method, args) -> {
          if (method.getName().equals("create")) {
            calls.incrementAndGet();
            throw new IllegalArgumentException("unknown option 'size'");
          }
          return method.invoke(none, args);
        });
    assertThatThrownBy(() -> MetaEpisodeRunner.of(refusing).run(config().build(), learner()))
        .isInstanceOf(RolloutException.class).hasMessageContaining("could not be created")
        .hasMessageContaining("unknown option 'size'");
    assertThat(calls.get()).isEqualTo(TASKS * GROUP);
  }

  /**
   * A policy that blocks on the calls {@code hang} selects: until interrupted, or (ignoring interrupts, as a native
   * generation does) until the test ends.
   */
  private LanguagePolicy hanging(java.util.function.Predicate<List<PolicyRequest>> hang, boolean honoursInterrupt,
      List<Integer> sizes, AtomicInteger concurrent, AtomicInteger maxConcurrent) {
    RecordingPolicy inner = learner();
    return new LanguagePolicy() {
      @Override
      public String name() {
        return "slow";
      }

      @Override
      public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
        int now = concurrent.incrementAndGet();
        maxConcurrent.accumulateAndGet(now, Math::max);
        try {
          sizes.add(requests.size());
          if (hang.test(requests)) {
            while (!release) {
              LockSupport.parkNanos(1_000_000);
              if (Thread.interrupted() && honoursInterrupt) {
                throw new IllegalStateException("interrupted");
              }
            }
          }
          return inner.generate(requests, sampling);
        } finally {
          concurrent.decrementAndGet();
        }
      }
    };
  }

  /** Against the patient opponent the learner's batches of episode 0 hold 8, 8 and then 4 meta-episodes. */
  private RolloutConfig.Builder patient() {
    return config().optFixedOpponent("patient").optEarlyStop(false).optContextMode(ContextMode.NONE);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void aGenerateThatTimesOutFailsItsBatchAndTheRunGoesOn() {
    List<Integer> sizes = new CopyOnWriteArrayList<>();
    AtomicInteger concurrent = new AtomicInteger();
    AtomicInteger maxConcurrent = new AtomicInteger();
    // hangs on the third batch of episode 0 (4 meta-episodes) until interrupted
    LanguagePolicy policy = hanging(rs -> rs.size() < TASKS * GROUP && rs.get(0).episodeIndex() == 0, true, sizes,
        concurrent, maxConcurrent);
    long start = System.nanoTime();
    RolloutResult r = MetaEpisodeRunner.of(duel).run(patient().optGenerateTimeout(Duration.ofMillis(200)).build(),
        policy);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(millis).isLessThan(3_000);
    assertThat(sizes).startsWith(TASKS * GROUP, TASKS * GROUP, 4);
    assertThat(r.failures()).hasSize(4).allSatisfy(f -> {
      assertThat(f.stage()).isEqualTo("policy");
      assertThat(f.episodeIndex()).isZero();
      assertThat(f.turnIndex()).isEqualTo(2);
      assertThat(f.error()).isInstanceOf(GenerateTimeoutException.class)
          .hasMessageStartingWith("policy 'slow' generate() did not return within 200 ms (generateTimeout) at"
              + " episode 0, turn 2")
          .hasMessageContaining("abandoned on daemon thread 'mage-policy-toy-duel-1'");
      assertThat(((GenerateTimeoutException) f.error()).timeout()).isEqualTo(Duration.ofMillis(200));
      assertThat(f.describe()).startsWith("the policy did not answer the play request of meta-episode");
      assertThat(f.partial().turns()).hasSize(2);
    });
    // the other four had finished episode 0 and played all three episodes
    assertThat(r.metaEpisodes()).hasSize(4).allSatisfy(m -> assertThat(m.episodes()).hasSize(3));
    assertThat(maxConcurrent.get()).isEqualTo(1);
    assertThat(duel.closed()).isEqualTo(TASKS * GROUP);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void aPolicyStillBusyWithAnAbandonedCallIsNotCalledAgain() {
    List<Integer> sizes = new CopyOnWriteArrayList<>();
    AtomicInteger concurrent = new AtomicInteger();
    AtomicInteger maxConcurrent = new AtomicInteger();
    // the same hang, ignoring the interrupt: the four that come back for episode 1 find the policy still busy
    LanguagePolicy policy = hanging(rs -> rs.size() < TASKS * GROUP && rs.get(0).episodeIndex() == 0, false,
        sizes, concurrent, maxConcurrent);
    RolloutResult r = MetaEpisodeRunner.of(duel).run(patient().optGenerateTimeout(Duration.ofMillis(150)).build(),
        policy);
    assertThat(r.metaEpisodes()).isEmpty();
    assertThat(r.failures()).hasSize(TASKS * GROUP).allSatisfy(f -> assertThat(f.error())
        .isInstanceOf(GenerateTimeoutException.class));
    assertThat(r.failures()).filteredOn(f -> f.episodeIndex() == 1).hasSize(4).allSatisfy(f ->
        assertThat(f.error().getMessage())
            .contains("is still running the generate() call abandoned at episode 0, turn 2")
            .contains("it is not thread-safe, so it was not called at episode 1, turn 0"));
    assertThat(sizes).as("the policy was not called while busy").hasSize(3);
    assertThat(maxConcurrent.get()).isEqualTo(1);
  }

  @Test
  void aGenerateTimeoutMustBePositiveAndIsOffByDefault() {
    assertThatThrownBy(() -> config().optGenerateTimeout(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("generateTimeout must be positive");
    assertThat(config().build().generateTimeout()).isEmpty();
    RolloutResult plain = MetaEpisodeRunner.of(duel).run(config().build(), learner());
    RolloutResult timed = MetaEpisodeRunner.of(duel).run(config().optGenerateTimeout(Duration.ofSeconds(30))
        .build(), learner());
    assertThat(summary(timed.metaEpisodes())).isEqualTo(summary(plain.metaEpisodes()));
  }

  /** Delegates to the toy duel; group 1's environments run the fault in their first step. */
  private static final class Faulty implements Environment {
    private final Environment real;
    private final long bad;
    private final Fault fault;
    private final List<Thread> closedOn;
    private long seed;

    Faulty(Environment real, long bad, Fault fault, List<Thread> closedOn) {
      this.real = real;
      this.bad = bad;
      this.fault = fault;
      this.closedOn = closedOn;
    }

    @Override
    public String id() {
      return real.id();
    }

    @Override
    public String reset(long s, Opponent opponent, Seat seat) {
      seed = s;
      return real.reset(s, opponent, seat);
    }

    @Override
    public String restart() {
      return real.restart();
    }

    @Override
    public StepResult step(String response) {
      return seed == bad ? fault.apply() : real.step(response);
    }

    @Override
    public String observation() {
      return real.observation();
    }

    @Override
    public AnchorKey anchor() {
      return real.anchor();
    }

    @Override
    public List<String> legalActions() {
      return real.legalActions();
    }

    @Override
    public Object state() {
      return real.state();
    }

    @Override
    public boolean isDone() {
      return real.isDone();
    }

    @Override
    public PromptRenderer promptRenderer() {
      return real.promptRenderer();
    }

    @Override
    public void close() {
      closedOn.add(Thread.currentThread());
      real.close();
    }
  }
}
