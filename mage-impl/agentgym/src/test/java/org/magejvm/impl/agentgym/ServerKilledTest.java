package org.magejvm.impl.agentgym;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.agentgym.server.EnvServer;
import org.magejvm.impl.env.kuhn.KuhnPokerProvider;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.impl.rollout.RolloutResult;
import org.magejvm.impl.rollout.WorkerFailure;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import org.magejvm.spi.policy.RandomPolicy;

/**
 * An env server killed in the middle of an episode fails exactly the meta-episodes it was serving, each with an
 * error naming its URL and the request, while the meta-episodes served by another server finish: the meta-episodes
 * alternate between two servers, and the first is stopped right after the first policy call.
 */
class ServerKilledTest {

  /** Creates its environments alternately on two servers; everything else comes from the first. */
  static final class TwoServers implements EnvironmentProvider {
    final RemoteEnvironmentProvider a;
    final RemoteEnvironmentProvider b;
    final AtomicInteger created = new AtomicInteger();

    TwoServers(RemoteEnvironmentProvider a, RemoteEnvironmentProvider b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public String id() {
      return "two-servers";
    }

    @Override
    public String version() {
      return "1";
    }

    @Override
    public Environment create(Map<String, String> options) {
      return (created.getAndIncrement() % 2 == 0 ? a : b).create(options);
    }

    @Override
    public EnvironmentDefaults defaults() {
      return a.defaults();
    }

    @Override
    public OpponentPool opponents() {
      return a.opponents();
    }

    @Override
    public List<String> scriptedPolicies() {
      return a.scriptedPolicies();
    }

    @Override
    public LanguagePolicy scriptedPolicy(String name, long seed) {
      return a.scriptedPolicy(name, seed);
    }
  }

  private static void stop(EnvServer server) {
    server.close();
  }

  @Test
  void aKilledServerFailsOnlyItsMetaEpisodesNamingItsUrl() throws Exception {
    EnvironmentRegistry games = EnvironmentRegistry.empty().register(new KuhnPokerProvider());
    EnvServer doomed = EnvServer.builder().setRegistry(games).build().start();
    try (EnvServer survivor = EnvServer.builder().setRegistry(games).build().start()) {
      RemoteSettings fast = RemoteSettings.of(doomed.url()).withRetries(1, Duration.ofMillis(10));
      TwoServers provider = new TwoServers(new RemoteEnvironmentProvider(fast, "mage-kuhn-poker"),
          new RemoteEnvironmentProvider(RemoteSettings.of(survivor.url()), "mage-kuhn-poker"));
      RandomPolicy random = new RandomPolicy(3);
      AtomicInteger calls = new AtomicInteger();
      LanguagePolicy killer = new LanguagePolicy() {
        @Override
        public String name() {
          return "kills the first server after its first call";
        }

        @Override
        public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
          List<Generation> out = random.generate(requests, sampling);
          if (calls.getAndIncrement() == 0) {
            stop(doomed);
          }
          return out;
        }
      };
      RolloutConfig config = RolloutConfig.builder().setEnvironmentId(provider.id())
          .optTasks(4).optGroupSize(2).optSeed(11).optEarlyStop(false).build();
      RolloutResult result = MetaEpisodeRunner.of(provider).run(config, killer);

      assertThat(result.failures()).hasSize(4);
      assertThat(result.metaEpisodes()).hasSize(4);
      for (WorkerFailure f : result.failures()) {
        assertThat(f.stage()).isEqualTo("step");
        assertThat(f.episodeIndex()).isZero();
        assertThat(f.error()).isInstanceOf(RemoteEnvironmentException.class);
        assertThat(f.error().getMessage()).contains(doomed.url() + "/step").contains("\"action\"");
      }
      for (var m : result.metaEpisodes()) {
        assertThat(m.episodes()).as("the other server's meta-episodes played all their episodes").hasSize(3);
      }
      assertThat(survivor.openInstances()).isZero();
    } finally {
      doomed.close();
    }
  }
}
