package org.magejvm.impl.agentgym;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Seat;
import org.magejvm.spi.Environment;
import org.magejvm.spi.GameText;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StandardPromptRenderer;
import org.magejvm.spi.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance of an environment on an env server, for one meta-episode. The server-side instance is created on the
 * first {@link #reset} (so a server that is down fails that meta-episode, not the run); {@link #restart} asks the
 * server to {@link Environment#restart()} its instance, so the semantics are exactly the game's own. Observation,
 * legal actions, anchor, state text and the done flag come from the last answer: only reset, restart, step, close and
 * (for games whose renderer is not the standard one) prompt rendering talk to the server. A game whose renderer is
 * exactly {@link StandardPromptRenderer} sends its {@link GameText} with {@code /create}, and the prompts are
 * rendered here, the same text as in-process, without a round trip.
 *
 * <p>{@link #state()} is the server's {@code String.valueOf(state())}: scripted policies that read a game's state
 * object need the game in-process. Not thread-safe.
 */
public final class RemoteEnvironment implements Environment {

  private static final Logger LOG = LoggerFactory.getLogger(RemoteEnvironment.class);

  private final HttpEnvClient client;
  private final String remoteId;
  private final Map<String, String> options;
  private final PromptRenderer renderer = new Renderer();
  /** The game's own renderer rebuilt here when the server sent its sentences, else null. */
  private PromptRenderer local;
  private long instance = -1;
  private String observation;
  private List<String> legal = List.of();
  private AnchorKey anchor;
  private String stateText;
  private boolean done;

  /**
   * @param client the server's client
   * @param remoteId the environment's id on the server, or null for the one it serves
   * @param options the environment options, passed to the server's {@code /create}
   */
  public RemoteEnvironment(HttpEnvClient client, String remoteId, Map<String, String> options) {
    this.client = Objects.requireNonNull(client, "client");
    this.remoteId = remoteId;
    this.options = Map.copyOf(options);
  }

  @Override
  public String id() {
    return RemoteEnvironmentProvider.ID;
  }

  /** @return the server's instance id, or -1 before the first reset */
  public long instance() {
    return instance;
  }

  @Override
  public String reset(long seed, Opponent opponent, Seat seat) {
    ensureInstance();
    JsonObject body = idBody();
    body.addProperty("seed", seed);
    if (opponent != null) {
      body.addProperty("opponent", opponent.id());
    }
    if (seat != null) {
      body.addProperty("seat", seat.label());
    }
    apply(call("/reset", body));
    return observation;
  }

  @Override
  public String restart() {
    if (instance < 0) {
      throw new IllegalStateException("the remote environment was never reset; call reset(seed, opponent, seat)"
          + " first");
    }
    apply(call("/restart", idBody()));
    return observation;
  }

  @Override
  public StepResult step(String response) {
    if (instance < 0 || observation == null) {
      throw new IllegalStateException("the remote environment was never reset; call reset(seed, opponent, seat)"
          + " first");
    }
    JsonObject body = idBody();
    body.addProperty("action", response);
    String what = "POST " + client.settings().baseUrl() + "/step";
    JsonObject a = call("/step", body);
    try {
      AnchorKey before = EnvProtocol.anchor(EnvProtocol.object(a.get("step_anchor"), "step_anchor"), "step_anchor");
      StepResult r = new StepResult(EnvProtocol.string(a, "observation", ""), EnvProtocol.number(a, "reward", ""),
          EnvProtocol.bool(a, "done", ""), EnvProtocol.bool(a, "won", ""), EnvProtocol.bool(a, "draw", ""),
          EnvProtocol.bool(a, "action_valid", ""), EnvProtocol.number(a, "score", ""), before,
          EnvProtocol.string(a, "action", ""), EnvProtocol.string(a, "message", ""));
      apply(a);
      return r;
    } catch (IllegalArgumentException e) {
      throw new RemoteEnvironmentException(what + ": malformed answer (" + e.getMessage() + "): "
          + HttpEnvClient.quote(a.toString()), 200, e);
    }
  }

  @Override
  public String observation() {
    requireReset();
    return observation;
  }

  @Override
  public AnchorKey anchor() {
    requireReset();
    return anchor;
  }

  @Override
  public List<String> legalActions() {
    return legal;
  }

  @Override
  public Object state() {
    requireReset();
    return stateText;
  }

  @Override
  public boolean isDone() {
    return done;
  }

  @Override
  public PromptRenderer promptRenderer() {
    return renderer;
  }

  @Override
  public void close() {
    long i = instance;
    instance = -1;
    if (i >= 0) {
      JsonObject body = new JsonObject();
      body.addProperty("id", i);
      try {
        client.post("/close", body);
      } catch (RuntimeException e) {
        LOG.warn("could not close remote environment instance {} at {}: {}", i, client.settings().baseUrl(),
            e.getMessage());
      }
    }
  }

  private void ensureInstance() {
    if (instance >= 0) {
      return;
    }
    JsonObject body = new JsonObject();
    if (remoteId != null) {
      body.addProperty("env", remoteId);
    }
    JsonObject opts = new JsonObject();
    options.forEach(opts::addProperty);
    body.add("options", opts);
    JsonObject a = call("/create", body);
    try {
      instance = EnvProtocol.longValue(a, "id", "");
      JsonElement text = a.get("game_text");
      if (text != null && !text.isJsonNull()) {
        local = new StandardPromptRenderer(EnvProtocol.gameText(EnvProtocol.object(text, "game_text"),
            "game_text"));
      }
    } catch (IllegalArgumentException e) {
      throw new RemoteEnvironmentException("POST " + client.settings().baseUrl() + "/create: malformed answer ("
          + e.getMessage() + ")", 200, e);
    }
  }

  private JsonObject idBody() {
    JsonObject body = new JsonObject();
    body.addProperty("id", instance);
    return body;
  }

  private JsonObject call(String path, JsonObject body) {
    JsonElement answer = client.post(path, body);
    if (!answer.isJsonObject()) {
      throw new RemoteEnvironmentException("POST " + client.settings().baseUrl() + path + " "
          + HttpEnvClient.quote(body.toString()) + ": expected a JSON object, got "
          + HttpEnvClient.quote(answer.toString()), 200, null);
    }
    return answer.getAsJsonObject();
  }

  private void apply(JsonObject a) {
    try {
      String obs = EnvProtocol.string(a, "observation", "");
      List<String> actions = EnvProtocol.strings(a, "available_actions", "");
      AnchorKey now = EnvProtocol.anchor(EnvProtocol.object(a.get("anchor"), "anchor"), "anchor");
      String state = EnvProtocol.string(a, "state_text", "");
      boolean d = EnvProtocol.bool(a, "done", "");
      observation = obs;
      legal = actions;
      anchor = now;
      stateText = state;
      done = d;
    } catch (IllegalArgumentException e) {
      throw new RemoteEnvironmentException("answer of " + client.settings().baseUrl() + " for instance " + instance
          + " is malformed (" + e.getMessage() + "): " + HttpEnvClient.quote(a.toString()), 200, e);
    }
  }

  private void requireReset() {
    if (observation == null) {
      throw new IllegalStateException("the remote environment was never reset; call reset(seed, opponent, seat)"
          + " first");
    }
  }

  /** Renders prompts here from the game's sentences, or on the server for games with their own renderer. */
  private final class Renderer implements PromptRenderer {
    @Override
    public String renderPlay(PromptContext context) {
      return local != null ? local.renderPlay(context) : render("play", context);
    }

    @Override
    public String renderReflect(PromptContext context) {
      return local != null ? local.renderReflect(context) : render("reflect", context);
    }

    private String render(String phase, PromptContext context) {
      if (instance < 0) {
        throw new IllegalStateException("the remote environment was never reset; prompts are rendered by its"
            + " server instance");
      }
      JsonObject body = idBody();
      body.addProperty("phase", phase);
      body.add("context", EnvProtocol.context(context));
      JsonObject a = call("/render", body);
      try {
        return EnvProtocol.string(a, "prompt", "");
      } catch (IllegalArgumentException e) {
        throw new RemoteEnvironmentException("POST " + client.settings().baseUrl() + "/render: malformed answer ("
            + e.getMessage() + ")", 200, e);
      }
    }
  }
}
