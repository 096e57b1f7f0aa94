package org.magejvm.impl.agentgym;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Seat;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;

/**
 * {@code agentgym-webshop} against a fake AgentGym WebShop server: request shapes, observation formatting, rewards
 * and done, the action parsing, restart by the same session id, and errors naming the URL.
 */
class WebShopProviderTest {

  static final String TASK = "i need a red ceramic mug, and price lower than 20.00 dollars";
  static final String START = "WebShop [SEP] Instruction: [SEP] " + TASK + " [SEP] Search";
  static final String RESULTS = "Back to Search [SEP] Page 1 (Total results: 2) [SEP] Next > [SEP] B0001 [SEP] Red"
      + " Mug 11oz [SEP] $12.99 [SEP] B0002 [SEP] Blue Mug [SEP] $9.99";
  static final String ITEM = "Instruction: [SEP] " + TASK + " [SEP] Back to Search [SEP] < Prev [SEP] Red Mug 11oz"
      + " [SEP] Price: $12.99 [SEP] Buy Now";

  /** A WebShop server: search, click an item, buy it; buying B0001 scores 1.0, B0002 0.5. */
  static FakeAgentGymServer.Answer script(FakeAgentGymServer.Request r) {
    switch (r.path()) {
      case "/create":
        return FakeAgentGymServer.Answer.ok("42");
      case "/reset":
        return FakeAgentGymServer.Answer.ok("[\"" + START + "\", null]");
      case "/observation":
        return FakeAgentGymServer.Answer.ok(quote(START));
      case "/available_actions":
        return FakeAgentGymServer.Answer.ok(PAGE.get());
      case "/step": {
        String action = r.body().getAsJsonObject().get("action").getAsString();
        if (action.startsWith("search[")) {
          PAGE.set("{\"has_search_bar\": false, \"clickables\": [\"back to search\", \"next >\", \"b0001\","
              + " \"b0002\"]}");
          return step(RESULTS, 0.0, false);
        }
        if (action.equals("click[b0001]") || action.equals("click[b0002]")) {
          BOUGHT.set(action.equals("click[b0001]") ? 1.0 : 0.5);
          PAGE.set("{\"has_search_bar\": false, \"clickables\": [\"back to search\", \"< prev\", \"buy now\"]}");
          return step(ITEM, 0.0, false);
        }
        if (action.equals("click[buy now]")) {
          return step("Thank you for shopping with us! [SEP] Your code: [SEP] None", BOUGHT.get(), true);
        }
        return step(START, 0.0, false);
      }
      case "/close":
        return FakeAgentGymServer.Answer.ok("{\"closed\": true}");
      default:
        return new FakeAgentGymServer.Answer(404, "{\"detail\": \"Not Found\"}", 0);
    }
  }

  static final ThreadLocalLike<String> PAGE = new ThreadLocalLike<>(
      "{\"has_search_bar\": true, \"clickables\": [\"search\"]}");
  static final ThreadLocalLike<Double> BOUGHT = new ThreadLocalLike<>(0.0);

  /** A shared mutable cell (the fake server's handler threads and the test share it). */
  static final class ThreadLocalLike<T> {
    private final T initial;
    private volatile T value;

    ThreadLocalLike(T initial) {
      this.initial = initial;
      this.value = initial;
    }

    T get() {
      return value;
    }

    void set(T v) {
      value = v;
    }

    void reset() {
      value = initial;
    }
  }

  static FakeAgentGymServer.Answer step(String state, double reward, boolean done) {
    JsonObject o = new JsonObject();
    o.addProperty("state", state);
    o.addProperty("reward", reward);
    o.addProperty("done", done);
    o.add("info", com.google.gson.JsonNull.INSTANCE);
    return FakeAgentGymServer.Answer.ok(o.toString());
  }

  static String quote(String s) {
    return new com.google.gson.JsonPrimitive(s).toString();
  }

  @Test
  void playsAWebShopTaskWithTheReferenceRequestsPromptsAndRewards() throws Exception {
    PAGE.reset();
    BOUGHT.reset();
    try (FakeAgentGymServer fake = new FakeAgentGymServer(WebShopProviderTest::script)) {
      WebShopEnvironment env = new WebShopProvider().create(Map.of("url", fake.url(), "tasks", "600-609"));
      assertThat(fake.requests).as("nothing is sent before the first reset").isEmpty();

      String start = env.reset(13, null, Seat.FIRST);
      assertThat(fake.requests(fake.requests.get(0).path())).hasSize(1);
      assertThat(fake.requests.get(0).path()).isEqualTo("/create");
      JsonObject reset = fake.requests("/reset").get(0).body().getAsJsonObject();
      assertThat(reset).isEqualTo(JsonParser.parseString("{\"env_idx\": 42, \"session_id\": 603}"));
      assertThat(env.taskIndex()).isEqualTo(603);
      assertThat(fake.requests("/observation").get(0).query()).isEqualTo("env_idx=42");
      assertThat(start).isEqualTo("'Search'");
      assertThat(env.anchor().state()).isEqualTo("'Search'");
      assertThat(env.anchor().opponentId()).isEmpty();
      // as the reference lists them: the search bar, then a click for every clickable (the search button too)
      assertThat(env.legalActions()).containsExactly("search[" + TASK + "]", "click[search]");

      String prompt = env.promptRenderer().renderPlay(new PromptContext(PromptStyle.VERBOSE, start, 0, List.of(),
          List.of(), null));
      assertThat(prompt).contains("Your task is to: " + TASK + ".").contains("'search[<your query>]',")
          .contains("<action> </action>").contains("[\n'search[<your query>]',\n'click[search]',\n]");

      // no tags: an invalid no-op that never reaches the server
      int before = fake.requests.size();
      StepResult invalid = env.step("I would search for a mug.");
      assertThat(invalid.actionValid()).isFalse();
      assertThat(invalid.done()).isFalse();
      assertThat(invalid.observation()).isEqualTo("'Search'");
      assertThat(fake.requests).hasSize(before);

      StepResult searched = env.step("<think>search first</think> <action>Search[Red Ceramic Mug]</action>");
      JsonObject stepBody = fake.requests("/step").get(0).body().getAsJsonObject();
      assertThat(stepBody).isEqualTo(JsonParser.parseString("{\"env_idx\": 42, \"action\": \"search[red ceramic"
          + " mug]\"}"));
      assertThat(searched.actionValid()).isTrue();
      assertThat(searched.action()).isEqualTo("search[red ceramic mug]");
      assertThat(searched.anchor().state()).as("the anchor is the state before the action").isEqualTo("'Search'");
      assertThat(searched.observation()).startsWith("Back to Search [SEP]").as("results pages carry no task");
      assertThat(env.legalActions()).containsExactly("click[back to search]", "click[next >]", "click[b0001]",
          "click[b0002]");

      env.step("<action>click[b0001]</action>");
      assertThat(env.observation()).isEqualTo("'Back to Search' [SEP] '< Prev' [SEP] 'Red Mug 11oz' [SEP] 'Price:"
          + " $12.99' [SEP] 'Buy Now'");
      StepResult bought = env.step("<action>click[buy now]</action>");
      assertThat(bought.done()).isTrue();
      assertThat(bought.won()).isTrue();
      assertThat(bought.reward()).isEqualTo(10.0);
      assertThat(bought.score()).isEqualTo(1.0);
      assertThat(env.isDone()).isTrue();
      assertThat(env.legalActions()).isEmpty();
      assertThatThrownBy(() -> env.step("<action>click[buy now]</action>"))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("over");

      // restart replays the same session id
      PAGE.reset();
      assertThat(env.restart()).isEqualTo("'Search'");
      assertThat(fake.requests("/reset")).hasSize(2);
      assertThat(fake.requests("/reset").get(1).body()).isEqualTo(fake.requests("/reset").get(0).body());
      assertThat(fake.requests("/create")).as("restart reuses the instance").hasSize(1);

      // a wrong item ends the episode unsolved: reward 0, score = the task score
      env.step("<action>search[mug]</action>");
      env.step("<action>click[b0002]</action>");
      StepResult wrong = env.step("<action>click[buy now]</action>");
      assertThat(wrong.done()).isTrue();
      assertThat(wrong.won()).isFalse();
      assertThat(wrong.reward()).isZero();
      assertThat(wrong.score()).isEqualTo(0.5);

      env.close();
      assertThat(fake.requests("/close").get(0).body()).isEqualTo(JsonParser.parseString("{\"env_idx\": 42}"));
    }
  }

  @Test
  void aServerErrorNamesTheUrlAndTheRequest() throws Exception {
    try (FakeAgentGymServer fake = new FakeAgentGymServer(r -> r.path().equals("/create")
        ? FakeAgentGymServer.Answer.ok("1")
        : new FakeAgentGymServer.Answer(500, "Internal Server Error", 0))) {
      WebShopEnvironment env = new WebShopProvider().create(Map.of("url", fake.url()));
      assertThatThrownBy(() -> env.reset(0, null, Seat.FIRST))
          .isInstanceOf(RemoteEnvironmentException.class)
          .hasMessageContaining("POST " + fake.url() + "/reset")
          .hasMessageContaining("\"session_id\":0")
          .hasMessageContaining("HTTP 500");
    }
  }

  @Test
  void aSlowServerTimesOutNamingTheUrl() throws Exception {
    try (FakeAgentGymServer fake = new FakeAgentGymServer(r -> new FakeAgentGymServer.Answer(200, "1", 2_000))) {
      WebShopEnvironment env = new WebShopProvider().create(Map.of("url", fake.url(), "timeout", "0.2"));
      long start = System.nanoTime();
      assertThatThrownBy(() -> env.reset(0, null, Seat.FIRST))
          .isInstanceOf(RemoteEnvironmentException.class)
          .hasMessageContaining(fake.url() + "/create")
          .hasMessageContaining("timeout");
      assertThat((System.nanoTime() - start) / 1e9).isLessThan(1.5);
    }
  }

  @Test
  void optionsAreCheckedNamingTheOption() {
    WebShopProvider p = new WebShopProvider();
    assertThatThrownBy(() -> p.create(Map.of("url", "localhost:3000")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("URL");
    assertThatThrownBy(() -> p.create(Map.of("url", "http://127.0.0.1:1", "tasks", "9-3")))
        .hasMessageContaining("option 'tasks'");
    assertThatThrownBy(() -> p.create(Map.of("url", "http://127.0.0.1:1", "timeout", "-1")))
        .hasMessageContaining("option 'timeout'");
    assertThatThrownBy(() -> p.create(Map.of("url", "http://127.0.0.1:1", "colour", "red")))
        .hasMessageContaining("unknown option 'colour'");
    assertThat(TaskRange.parse("500-999", "x").pick(-1)).isEqualTo(999);
    assertThat(TaskRange.parse("7", "x").pick(123_456_789L)).isEqualTo(7);
  }

  @Test
  void actionsAreReadAsTheReferenceProjectionDoes() {
    TagActionParser p = new TagActionParser();
    assertThat(p.parse("<think>x</think>\n<ACTION> Click[Buy Now] </ACTION>").action()).isEqualTo("click[buy now]");
    assertThat(p.parse("<action>a</action><action>b</action>").action()).isEqualTo("a");
    assertThat(p.parse("no tags here at all, just text").ok()).isFalse();
    assertThat(p.parse("<action></action>").ok()).isFalse();
    assertThat(p.parse("</action>late<action>").ok()).isFalse();
    assertThat(p.parse(null).ok()).isFalse();
  }
}
