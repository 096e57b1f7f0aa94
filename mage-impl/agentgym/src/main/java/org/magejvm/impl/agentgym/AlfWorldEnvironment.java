package org.magejvm.impl.agentgym;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * An ALFWorld game on an AgentGym ALFWorld server ({@code agentenv_alfworld}, text world); see {@link
 * AgentGymTaskEnvironment} for the life cycle and docs/environments.md for the requests.
 *
 * <p>The task index is the server's {@code game} (an index into its list of game files), reset with {@code
 * world_type} {@code Text}. The prompt shows the initial observation (the room and "Your task is to: ...") and the
 * admissible commands without {@code help}, as the reference's {@code AlfWorldEnvironmentManager} does. The server's
 * step reward is 1.0 when the game is won; the step reward here is then 10, else 0, and the score is 1 or 0.
 */
public final class AlfWorldEnvironment extends AgentGymTaskEnvironment {

  private static final String TASK_MARK = "Your task is to: ";

  /**
   * @param client the server's client
   * @param tasks the game indices seeds pick from
   */
  public AlfWorldEnvironment(HttpEnvClient client, TaskRange tasks) {
    super(AlfWorldProvider.ID, client, tasks, AlfWorldProvider.TEXT);
  }

  @Override
  protected String createInstance() {
    String what = "POST " + client.settings().baseUrl() + "/create";
    JsonElement answer = client.post("/create", new JsonObject());
    JsonElement id = HttpEnvClient.field(answer, "id", what);
    if (!id.isJsonPrimitive() || !id.getAsJsonPrimitive().isNumber()) {
      throw new RemoteEnvironmentException(what + ": 'id' should be a number, got " + id, 200, null);
    }
    return id.getAsJsonPrimitive().getAsString();
  }

  @Override
  protected View resetTask(String instance, int taskIndex) {
    JsonObject body = new JsonObject();
    body.addProperty("id", Long.parseLong(instance));
    body.addProperty("game", taskIndex);
    body.addProperty("world_type", "Text");
    String what = "POST " + client.settings().baseUrl() + "/reset " + body;
    JsonElement answer = client.post("/reset", body);
    String observation = HttpEnvClient.string(HttpEnvClient.field(answer, "observation", what), "observation", what);
    List<String> actions = HttpEnvClient.strings(HttpEnvClient.field(answer, "available_actions", what),
        "available_actions", what);
    return new View(observation, withoutHelp(actions), 0, false);
  }

  @Override
  protected View sendAction(String instance, String action) {
    JsonObject body = new JsonObject();
    body.addProperty("id", Long.parseLong(instance));
    body.addProperty("action", action);
    String what = "POST " + client.settings().baseUrl() + "/step " + HttpEnvClient.quote(body.toString());
    JsonElement answer = client.post("/step", body);
    String observation = HttpEnvClient.string(HttpEnvClient.field(answer, "observation", what), "observation", what);
    double reward = HttpEnvClient.number(HttpEnvClient.field(answer, "reward", what), "reward", what);
    boolean done = HttpEnvClient.bool(HttpEnvClient.field(answer, "done", what), "done", what);
    JsonElement available = answer.getAsJsonObject().get("available_actions");
    List<String> actions = available == null || available.isJsonNull() ? List.of()
        : HttpEnvClient.strings(available, "available_actions", what);
    // a won game is over even if a server forgot to say so
    return new View(observation, withoutHelp(actions), reward, done || reward > 0);
  }

  @Override
  protected void closeInstance(String instance) {
    JsonObject body = new JsonObject();
    body.addProperty("id", Long.parseLong(instance));
    try {
      client.post("/close", body);
    } catch (RemoteEnvironmentException e) {
      // AgentGym's ALFWorld server has no /close at every version; an instance it keeps is harmless
      if (e.status() != 404 && e.status() != 405) {
        throw e;
      }
    }
  }

  @Override
  protected String task() {
    String obs = initialObservation() == null ? "" : initialObservation();
    int at = obs.indexOf(TASK_MARK);
    return at < 0 ? obs.strip() : obs.substring(at + TASK_MARK.length()).strip();
  }

  @Override
  protected boolean solved(double raw) {
    return raw > 0;
  }

  @Override
  protected double scoreOf(double raw, boolean solved) {
    return solved ? 1 : 0;
  }

  private static List<String> withoutHelp(List<String> actions) {
    List<String> out = new ArrayList<>(actions.size());
    for (String a : actions) {
      if (!a.equals("help")) {
        out.add(a);
      }
    }
    return List.copyOf(out);
  }
}
