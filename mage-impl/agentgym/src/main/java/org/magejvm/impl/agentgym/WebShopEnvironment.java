package org.magejvm.impl.agentgym;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A WebShop task on an AgentGym WebShop server ({@code agentenv_webshop}); see {@link AgentGymTaskEnvironment} for
 * the life cycle and docs/environments.md for the requests.
 *
 * <p>The server's text observation reads {@code WebShop [SEP] Instruction: [SEP] TASK [SEP] Search ...}. As in the
 * reference's {@code WebshopEnvironmentManager}, the task is the part after {@code Instruction:}, the agent sees the
 * parts after the task, each quoted and joined by {@code [SEP]}, and the admissible actions are {@code
 * search[<your query>]} when the page has a search bar plus {@code click[VALUE]} for every clickable. An episode is
 * solved when the server ends it with reward 1.0 (the purchased item matches every requirement); the step reward is
 * then 10, else 0, and the score is the server's reward (the task score in [0, 1]).
 */
public final class WebShopEnvironment extends AgentGymTaskEnvironment {

  private static final String SEP = " [SEP] ";

  private String task = "";
  private boolean searchBar;

  /**
   * @param client the server's client
   * @param tasks the goal indices ({@code session_id}) seeds pick from
   */
  public WebShopEnvironment(HttpEnvClient client, TaskRange tasks) {
    super(WebShopProvider.ID, client, tasks, WebShopProvider.TEXT);
  }

  @Override
  protected String createInstance() {
    String what = "POST " + client.settings().baseUrl() + "/create";
    JsonElement answer = client.post("/create", new JsonObject());
    // AgentGym's WebShop server answers the bare id; accept {"id": n} too
    JsonElement id = answer.isJsonObject() ? HttpEnvClient.field(answer, "id", what) : answer;
    if (!id.isJsonPrimitive() || !id.getAsJsonPrimitive().isNumber()) {
      throw new RemoteEnvironmentException(what + ": expected the new environment's id (a number), got "
          + HttpEnvClient.quote(answer.toString()), 200, null);
    }
    return id.getAsJsonPrimitive().getAsString();
  }

  @Override
  protected View resetTask(String instance, int taskIndex) {
    JsonObject body = new JsonObject();
    body.addProperty("env_idx", Long.parseLong(instance));
    body.addProperty("session_id", taskIndex);
    client.post("/reset", body);
    String what = "GET " + client.settings().baseUrl() + "/observation?env_idx=" + instance;
    String raw = HttpEnvClient.string(client.get("/observation", "env_idx", instance), "observation", what);
    task = extractTask(raw);
    return new View(format(raw), available(instance), 0, false);
  }

  @Override
  protected View sendAction(String instance, String action) {
    JsonObject body = new JsonObject();
    body.addProperty("env_idx", Long.parseLong(instance));
    body.addProperty("action", action);
    String what = "POST " + client.settings().baseUrl() + "/step " + HttpEnvClient.quote(body.toString());
    JsonElement answer = client.post("/step", body);
    String state = HttpEnvClient.string(HttpEnvClient.field(answer, "state", what), "state", what);
    double reward = HttpEnvClient.number(HttpEnvClient.field(answer, "reward", what), "reward", what);
    boolean done = HttpEnvClient.bool(HttpEnvClient.field(answer, "done", what), "done", what);
    return new View(format(state), done ? List.of() : available(instance), reward, done);
  }

  private List<String> available(String instance) {
    String what = "GET " + client.settings().baseUrl() + "/available_actions?env_idx=" + instance;
    JsonElement answer = client.get("/available_actions", "env_idx", instance);
    searchBar = HttpEnvClient.bool(HttpEnvClient.field(answer, "has_search_bar", what), "has_search_bar", what);
    List<String> clickables = HttpEnvClient.strings(HttpEnvClient.field(answer, "clickables", what), "clickables",
        what);
    List<String> out = new ArrayList<>();
    for (String c : clickables) {
      out.add("click[" + c + "]");
    }
    return out;
  }

  @Override
  protected void closeInstance(String instance) {
    JsonObject body = new JsonObject();
    body.addProperty("env_idx", Long.parseLong(instance));
    client.post("/close", body);
  }

  @Override
  protected String task() {
    return task;
  }

  @Override
  protected boolean solved(double raw) {
    return raw == 1.0;
  }

  @Override
  protected double scoreOf(double raw, boolean solved) {
    return raw;
  }

  /** The prompt lists {@code search[<your query>]} first when the page has a search bar, as the reference does. */
  @Override
  protected List<String> promptActions() {
    List<String> clicks = super.promptActions();
    if (!searchBar || isDone()) {
      return clicks;
    }
    List<String> out = new ArrayList<>(clicks.size() + 1);
    out.add("search[<your query>]");
    out.addAll(clicks);
    return out;
  }

  /**
   * The actions a scripted policy may answer: {@code search[TASK]} when the page has a search bar (a concrete query
   * in place of the prompt's placeholder), then the clicks.
   */
  @Override
  public List<String> legalActions() {
    List<String> clicks = super.legalActions();
    if (!searchBar || isDone()) {
      return clicks;
    }
    List<String> out = new ArrayList<>(clicks.size() + 1);
    out.add("search[" + task + "]");
    out.addAll(clicks);
    return List.copyOf(out);
  }

  /**
   * @param observation the server's raw text observation
   * @return the instruction, or the whole observation when it has no {@code Instruction:} part
   */
  static String extractTask(String observation) {
    String[] parts = observation.split(" \\[SEP\\] ", -1);
    for (int i = 0; i + 1 < parts.length; i++) {
      if (parts[i].strip().equals("Instruction:")) {
        return parts[i + 1].strip();
      }
    }
    return observation.strip();
  }

  /**
   * @param observation the server's raw text observation
   * @return the parts after the task, each quoted and joined by {@code [SEP]} (the whole text when the task is not
   *     in it)
   */
  String format(String observation) {
    String[] parts = observation.split(" \\[SEP\\] ", -1);
    int at = -1;
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].equals(task)) {
        at = i;
        break;
      }
    }
    if (at < 0) {
      return observation;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = at + 1; i < parts.length; i++) {
      sb.append(i == at + 1 ? "" : SEP).append('\'').append(parts[i]).append('\'');
    }
    return sb.toString();
  }
}
