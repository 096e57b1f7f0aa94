package org.magejvm.impl.agentgym;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.policy.RandomPolicy;

/**
 * Plays an environment that an env server ({@code mage env-serve}, {@link
 * org.magejvm.impl.agentgym.server.EnvServer}) serves, id {@code agentgym-remote}. Everything the rollout engine asks a
 * provider (defaults, opponent pool with its weights, evaluation opponent and seat, options) is read once from the
 * server's {@code GET /info}, so a game played remotely samples the same opponents and seats, and with the same
 * seeds plays the same games, as in-process.
 *
 * <p>Configuration: programmatically with {@link #RemoteEnvironmentProvider(RemoteSettings, String)}; through
 * {@link java.util.ServiceLoader} (the no-argument constructor) from the system properties {@value #URL_PROPERTY} and
 * {@value #ENV_PROPERTY}, else the environment variables {@value #URL_VARIABLE} and {@value #ENV_VARIABLE}. Without
 * them the provider is listed but unconfigured: it reports an empty pool, and {@link #create} says what to set.
 *
 * <p>The only scripted policy is {@code random} (it needs only the legal actions, which travel); policies that read a
 * game's state object need the game in-process.
 */
public final class RemoteEnvironmentProvider implements EnvironmentProvider {

  /** The provider id. */
  public static final String ID = "agentgym-remote";
  /** The provider version. */
  public static final String VERSION = "0.1.0";
  /** The system property holding the server's base URL. */
  public static final String URL_PROPERTY = "mage.agentgym.remote.url";
  /** The system property holding the id of the environment to play on the server. */
  public static final String ENV_PROPERTY = "mage.agentgym.remote.env";
  /** The environment variable holding the server's base URL. */
  public static final String URL_VARIABLE = "MAGE_AGENTGYM_REMOTE_URL";
  /** The environment variable holding the id of the environment to play on the server. */
  public static final String ENV_VARIABLE = "MAGE_AGENTGYM_REMOTE_ENV";

  private static final EnvironmentDefaults UNCONFIGURED = EnvironmentDefaults.builder()
      .setMaxTurns(1).setEpisodes(1).setStepGamma(1).setTrajGamma(1)
      .setInvalidPenalty(0).setLengthPenalty(0).setMaxResponseTokens(1).build();

  private final RemoteSettings settings;
  private final String remoteId;
  private final HttpEnvClient client;
  private final String configError;
  private Info info;

  /** What {@code GET /info} said. */
  private record Info(String version, String description, EnvironmentDefaults defaults, OpponentPool pool,
      boolean twoPlayer, String evaluationOpponent, List<String> validationOpponents, Seat evaluationSeat,
      Map<String, String> options) {}

  /** The provider as {@link java.util.ServiceLoader} creates it, configured from system properties or variables. */
  public RemoteEnvironmentProvider() {
    String url = setting(URL_PROPERTY, URL_VARIABLE);
    String env = setting(ENV_PROPERTY, ENV_VARIABLE);
    RemoteSettings s = null;
    String error = null;
    if (url != null) {
      try {
        s = RemoteSettings.of(url);
      } catch (IllegalArgumentException e) {
        // discovery must not fail for every environment because of this one: create() reports it
        error = "the configured URL '" + url + "' (" + URL_PROPERTY + " / " + URL_VARIABLE + ") is not usable: "
            + e.getMessage();
      }
    }
    this.settings = s;
    this.remoteId = env;
    this.client = s == null ? null : new HttpEnvClient(s);
    this.configError = error;
  }

  /**
   * A provider for one environment of an env server. Nothing is sent until the first question about the environment.
   *
   * @param settings where the server is
   * @param remoteId the environment's id on the server, or null when the server serves exactly one
   */
  public RemoteEnvironmentProvider(RemoteSettings settings, String remoteId) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.remoteId = remoteId == null || remoteId.isBlank() ? null : remoteId;
    this.client = new HttpEnvClient(settings);
    this.configError = null;
  }

  private static String setting(String property, String variable) {
    String v = System.getProperty(property);
    if (v == null || v.isBlank()) {
      v = System.getenv(variable);
    }
    return v == null || v.isBlank() ? null : v.trim();
  }

  /** @return whether a server URL is configured */
  public boolean configured() {
    return settings != null;
  }

  /** @return the environment's id on the server: the configured one, else what the server reports */
  public synchronized String remoteId() {
    if (remoteId != null || !configured()) {
      return remoteId;
    }
    info();
    return infoRemoteId;
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String version() {
    return VERSION;
  }

  @Override
  public String description() {
    if (!configured()) {
      return "an environment served by `mage env-serve` (not configured: set " + URL_PROPERTY + " and "
          + ENV_PROPERTY + ", or use mage play --env-url)";
    }
    return "environment " + (remoteId == null ? "(the served one)" : "'" + remoteId + "'") + " served at "
        + settings.baseUrl();
  }

  @Override
  public Environment create(Map<String, String> options) {
    requireConfigured();
    Info i = info();
    Map<String, String> given = options == null ? Map.of() : options;
    for (String k : given.keySet()) {
      if (!i.options().containsKey(k)) {
        throw new IllegalArgumentException("unknown option '" + k + "' for environment '" + remoteId() + "' at "
            + settings.baseUrl() + (i.options().isEmpty() ? ": it takes no options" : "; known options: "
            + i.options().keySet()));
      }
    }
    return new RemoteEnvironment(client, remoteId(), given);
  }

  @Override
  public Map<String, String> options() {
    return configured() ? info().options() : Map.of();
  }

  @Override
  public EnvironmentDefaults defaults() {
    return configured() ? info().defaults() : UNCONFIGURED;
  }

  @Override
  public OpponentPool opponents() {
    return configured() ? info().pool() : OpponentPool.builder().build();
  }

  @Override
  public boolean twoPlayer() {
    return configured() && info().twoPlayer();
  }

  @Override
  public String evaluationOpponent() {
    return configured() ? info().evaluationOpponent() : "";
  }

  @Override
  public List<String> validationOpponents() {
    return configured() ? info().validationOpponents() : List.of();
  }

  @Override
  public Seat evaluationSeat() {
    return configured() ? info().evaluationSeat() : Seat.FIRST;
  }

  @Override
  public List<String> scriptedPolicies() {
    return List.of("random");
  }

  @Override
  public LanguagePolicy scriptedPolicy(String name, long seed) {
    if (!"random".equals(name)) {
      throw new IllegalArgumentException("unknown scripted policy '" + name + "' for environment '" + ID
          + "'; known policies: random (a remote game's own scripted policies need its state object, which stays"
          + " on the server)");
    }
    return new RandomPolicy(seed);
  }

  @Override
  public String toString() {
    return "RemoteEnvironmentProvider[" + (configured() ? settings.baseUrl() + " " + remoteId : "unconfigured")
        + "]";
  }

  private void requireConfigured() {
    if (configError != null) {
      throw new IllegalStateException("environment '" + ID + "': " + configError);
    }
    if (!configured()) {
      throw new IllegalStateException("environment '" + ID + "' is not configured: set the system property "
          + URL_PROPERTY + " (or " + URL_VARIABLE + ") to the env server's URL and " + ENV_PROPERTY + " (or "
          + ENV_VARIABLE + ") to the environment it serves, or give mage play --env-url URL --remote-env ID");
    }
  }

  private String infoRemoteId;

  private synchronized Info info() {
    if (info == null) {
      info = fetchInfo();
    }
    return info;
  }

  private Info fetchInfo() {
    JsonElement answer = remoteId == null ? client.get("/info", null, null) : client.get("/info", "env", remoteId);
    String what = "GET " + settings.baseUrl() + "/info" + (remoteId == null ? "" : "?env=" + remoteId);
    try {
      JsonObject o = EnvProtocol.object(answer, "");
      infoRemoteId = EnvProtocol.string(o, "id", "");
      JsonObject opp = EnvProtocol.object(o.get("opponents"), "opponents");
      OpponentPool.Builder pool = OpponentPool.builder();
      JsonArray training = EnvProtocol.array(opp, "training", "opponents");
      for (int i = 0; i < training.size(); i++) {
        String at = "opponents.training[" + i + "]";
        JsonObject e = EnvProtocol.object(training.get(i), at);
        pool.addOpponent(new RemoteOpponent(EnvProtocol.string(e, "id", at), EnvProtocol.string(e, "description",
            at)), EnvProtocol.number(e, "weight", at));
      }
      JsonArray heldOut = EnvProtocol.array(opp, "held_out", "opponents");
      for (int i = 0; i < heldOut.size(); i++) {
        String at = "opponents.held_out[" + i + "]";
        JsonObject e = EnvProtocol.object(heldOut.get(i), at);
        pool.addHeldOut(new RemoteOpponent(EnvProtocol.string(e, "id", at), EnvProtocol.string(e, "description",
            at)));
      }
      Map<String, String> options = new LinkedHashMap<>();
      JsonObject opts = EnvProtocol.object(o.get("options"), "options");
      for (String k : opts.keySet()) {
        options.put(k, EnvProtocol.string(opts, k, "options"));
      }
      return new Info(EnvProtocol.string(o, "version", ""), EnvProtocol.string(o, "description", ""),
          EnvProtocol.defaults(EnvProtocol.object(o.get("defaults"), "defaults"), "defaults"), pool.build(),
          EnvProtocol.bool(o, "two_player", ""), EnvProtocol.string(o, "evaluation_opponent", ""),
          EnvProtocol.strings(o, "validation_opponents", ""),
          Seat.parse(EnvProtocol.string(o, "evaluation_seat", "")),
          java.util.Collections.unmodifiableMap(options));
    } catch (IllegalArgumentException e) {
      throw new RemoteEnvironmentException(what + ": malformed answer: " + e.getMessage(), 200, e);
    }
  }
}
