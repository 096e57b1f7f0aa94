package org.magejvm.examples.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.magejvm.impl.agentgym.server.EnvServer;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code mage env-serve ID... [--host H] --port N}: serves environments of the registry over the AgentGym-shaped
 * protocol of docs/environments.md ({@link EnvServer}), so that {@code mage play --env agentgym-remote --env-url URL
 * --remote-env ID}, or any HTTP client, can play them from another process or machine. It prints one line, {@code
 * serving ID... at http://HOST:PORT}, and serves until interrupted (Ctrl-C, or an interrupt of its thread when
 * embedded) or for {@code --for} seconds.
 *
 * <p>Exit code 2 for a usage error (an unknown environment, a port or limit out of range), 1 if the address cannot be
 * bound.
 */
@Command(name = "env-serve", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Serve environments over HTTP (AgentGym-shaped protocol) for remote play.")
final class EnvServeCommand implements Callable<Integer> {

  @Parameters(arity = "1..*", paramLabel = "ID", description = "Environment ids to serve (see `mage envs`).")
  List<String> ids = new ArrayList<>();

  @Option(names = "--host", paramLabel = "H", defaultValue = "127.0.0.1",
      description = "Address to bind (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0 exposes the"
          + " environments to the network: give --api-key then).")
  String host;

  @Option(names = "--port", required = true, paramLabel = "N", description = "Port to listen on (0: a free one).")
  int port;

  @Option(names = "--idle-timeout", paramLabel = "SECONDS", defaultValue = "1800",
      description = "Close an environment instance unused for this long (default: ${DEFAULT-VALUE}).")
  double idleTimeout;

  @Option(names = "--max-instances", paramLabel = "N", defaultValue = "4096",
      description = "Most environment instances open at once (default: ${DEFAULT-VALUE}).")
  int maxInstances;

  @Option(names = "--max-body-bytes", paramLabel = "N", defaultValue = "1048576",
      description = "Largest request body accepted (default: ${DEFAULT-VALUE}).")
  int maxBodyBytes;

  @Option(names = "--threads", paramLabel = "N", description = "Request threads (default: the processors, >= 2).")
  Integer threads;

  @Option(names = "--for", paramLabel = "SECONDS",
      description = "Stop after this many seconds (default: serve until interrupted).")
  Double seconds;

  @CommandLine.Mixin HttpLimitOptions httpLimits;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Limits.range(spec, "--port", port, 0, 65_535, "the largest TCP port");
    Limits.range(spec, "--max-instances", maxInstances, 1, 1 << 20, "each instance holds a game in memory");
    Limits.range(spec, "--max-body-bytes", maxBodyBytes, 1024, 64 << 20, "64 MiB");
    if (threads != null) {
      Limits.range(spec, "--threads", threads, 1, 1024, "threads are not free");
    }
    if (!(idleTimeout > 0) || idleTimeout > 7 * 86_400) {
      throw Limits.usage(spec, "--idle-timeout must be in (0, 604800] seconds, got " + idleTimeout);
    }
    if (seconds != null && (!(seconds > 0) || seconds > 365 * 86_400.0)) {
      throw Limits.usage(spec, "--for must be a positive number of seconds, got " + seconds);
    }
    org.magejvm.impl.http.HttpLimits limits = httpLimits.toLimits(spec, maxBodyBytes);
    String apiKey = httpLimits.apiKey(spec);
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    List<String> known = new ArrayList<>();
    for (EnvironmentProvider p : registry.all()) {
      known.add(p.id());
    }
    for (String id : ids) {
      if (!known.contains(id)) {
        throw Limits.usage(spec, "unknown environment '" + id + "'; known environments: " + String.join(", ",
            known));
      }
    }
    EnvServer.Builder b = EnvServer.builder().setRegistry(registry).optHost(host).optPort(port)
        .optIdleTimeout(Duration.ofMillis(Math.max(1, Math.round(idleTimeout * 1000))))
        .optMaxInstances(maxInstances).optMaxBodyBytes(maxBodyBytes).optHttpLimits(limits)
        .optApiKey(apiKey);
    if (threads != null) {
      b.optThreads(threads);
    }
    ids.forEach(b::addEnvironment);
    EnvServer server = b.build();
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "mage-env-serve-shutdown");
    PrintWriter out = spec.commandLine().getOut();
    try {
      server.start();
    } catch (java.io.IOException e) {
      throw new java.io.IOException("could not listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    out.println("serving " + String.join(", ", ids) + " at " + server.url());
    out.flush();
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      if (seconds == null) {
        stopped.await();
      } else {
        stopped.await(Math.round(seconds * 1000), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      // an embedding host stops the command by interrupting its thread: a normal end
      Thread.currentThread().interrupt();
    } finally {
      server.close();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down
      }
    }
    return 0;
  }
}
