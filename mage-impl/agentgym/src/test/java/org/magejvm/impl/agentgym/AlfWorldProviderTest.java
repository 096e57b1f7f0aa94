package org.magejvm.impl.agentgym;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;
import org.magejvm.spi.StepResult;

/**
 * {@code agentgym-alfworld} against a fake AgentGym ALFWorld server: request shapes ({@code id}, {@code game},
 * {@code world_type}), admissible actions without {@code help}, the reward of a won game, restart by the same game,
 * errors reported as {@code {"error": ...}} with status 200, and a server without {@code /close}.
 */
class AlfWorldProviderTest {

  static final String START = "You are in the middle of a room. Looking quickly around you, you see a countertop 1,"
      + " a coffeemachine 1, and a sinkbasin 1.\nYour task is to: put a clean mug in coffeemachine.";

  static FakeAgentGymServer.Answer script(FakeAgentGymServer.Request r) {
    switch (r.path()) {
      case "/create":
        return FakeAgentGymServer.Answer.ok("{\"id\": 3}");
      case "/reset": {
        JsonObject o = new JsonObject();
        o.addProperty("id", 3);
        o.addProperty("observation", START);
        o.add("available_actions", JsonParser.parseString("[\"go to countertop 1\", \"go to sinkbasin 1\","
            + " \"help\", \"inventory\", \"look\"]"));
        o.addProperty("task_type", "pick_clean_then_place_in_recep/trial_1");
        return FakeAgentGymServer.Answer.ok(o.toString());
      }
      case "/step": {
        String action = r.body().getAsJsonObject().get("action").getAsString();
        JsonObject o = new JsonObject();
        boolean won = action.equals("put mug 1 in/on coffeemachine 1");
        o.addProperty("observation", won ? "You put the mug 1 in/on the coffeemachine 1." : "Nothing happens.");
        o.addProperty("reward", won ? 1.0 : 0.0);
        o.add("available_actions", JsonParser.parseString("[\"help\", \"look\", \"put mug 1 in/on coffeemachine"
            + " 1\"]"));
        o.addProperty("done", won);
        return FakeAgentGymServer.Answer.ok(o.toString());
      }
      default:
        return new FakeAgentGymServer.Answer(404, "{\"detail\": \"Not Found\"}", 0);
    }
  }

  @Test
  void playsAnAlfWorldGameWithTheReferenceRequestsPromptsAndRewards() throws Exception {
    try (FakeAgentGymServer fake = new FakeAgentGymServer(AlfWorldProviderTest::script)) {
      AlfWorldEnvironment env = new AlfWorldProvider().create(Map.of("url", fake.url() + "/", "tasks", "10-19"));
      String start = env.reset(25, null, Seat.FIRST);
      assertThat(start).isEqualTo(START);
      assertThat(fake.requests("/reset").get(0).body())
          .isEqualTo(JsonParser.parseString("{\"id\": 3, \"game\": 15, \"world_type\": \"Text\"}"));
      assertThat(env.legalActions()).containsExactly("go to countertop 1", "go to sinkbasin 1", "inventory", "look");

      String prompt = env.promptRenderer().renderPlay(new PromptContext(PromptStyle.VERBOSE, start, 1,
          List.of(new PastEpisode(0, List.of(), Outcome.LOST, "I should have cleaned the mug first.")),
          List.of(), null));
      assertThat(prompt).startsWith("You are an expert agent acting in the ALFRED embodied household environment.\n"
          + START);
      assertThat(prompt).contains("I should have cleaned the mug first.").contains("attempt #2, starting again")
          .contains("['go to countertop 1',\n 'go to sinkbasin 1',\n 'inventory',\n 'look']")
          .doesNotContain("'help'");

      StepResult nothing = env.step("<action>Look</action>");
      assertThat(fake.requests("/step").get(0).body())
          .isEqualTo(JsonParser.parseString("{\"id\": 3, \"action\": \"look\"}"));
      assertThat(nothing.done()).isFalse();
      assertThat(nothing.reward()).isZero();
      assertThat(nothing.observation()).isEqualTo("Nothing happens.");
      assertThat(env.legalActions()).containsExactly("look", "put mug 1 in/on coffeemachine 1");

      String reflect = env.promptRenderer().renderReflect(new PromptContext(PromptStyle.VERBOSE, start, 0, List.of(),
          List.of(new HistoryStep(1, "look", true, "Nothing happens.")), Outcome.TRUNCATED));
      assertThat(reflect).contains("Action 1: 'look'\nObservation 1: Nothing happens.")
          .contains("NOT completed").contains("<remark> </remark>");

      StepResult won = env.step("<action>put mug 1 in/on coffeemachine 1</action>");
      assertThat(won.done()).isTrue();
      assertThat(won.won()).isTrue();
      assertThat(won.reward()).isEqualTo(10.0);
      assertThat(won.score()).isEqualTo(1.0);

      assertThat(env.restart()).isEqualTo(START);
      assertThat(fake.requests("/reset").get(1).body()).isEqualTo(fake.requests("/reset").get(0).body());
      assertThat(env.isDone()).isFalse();

      env.close(); // this server has no /close (404): tolerated
      assertThat(fake.requests("/close")).hasSize(1);
    }
  }

  @Test
  void anErrorAnswerWithStatus200IsAnErrorNamingTheRequest() throws Exception {
    try (FakeAgentGymServer fake = new FakeAgentGymServer(r -> r.path().equals("/create")
        ? FakeAgentGymServer.Answer.ok("{\"id\": 0}")
        : FakeAgentGymServer.Answer.ok("{\"error\": \"The id 0 is not valid.\"}"))) {
      AlfWorldEnvironment env = new AlfWorldProvider().create(Map.of("url", fake.url()));
      assertThatThrownBy(() -> env.reset(0, null, Seat.FIRST))
          .isInstanceOf(RemoteEnvironmentException.class)
          .hasMessageContaining("POST " + fake.url() + "/reset")
          .hasMessageContaining("The id 0 is not valid.");
    }
  }

  @Test
  void aMalformedAnswerNamesTheMissingField() throws Exception {
    try (FakeAgentGymServer fake = new FakeAgentGymServer(r -> r.path().equals("/create")
        ? FakeAgentGymServer.Answer.ok("{\"id\": 0}")
        : FakeAgentGymServer.Answer.ok("{\"available_actions\": []}"))) {
      AlfWorldEnvironment env = new AlfWorldProvider().create(Map.of("url", fake.url()));
      assertThatThrownBy(() -> env.reset(0, null, Seat.FIRST))
          .isInstanceOf(RemoteEnvironmentException.class)
          .hasMessageContaining("/reset")
          .hasMessageContaining("'observation'");
    }
  }

  @Test
  void aServerThatIsNotThereIsRetriedThenNamed() {
    // a port nothing listens on: bind one, note it, close it
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    AlfWorldEnvironment env = new AlfWorldProvider().create(Map.of("url", "http://127.0.0.1:" + port,
        "retries", "2"));
    assertThatThrownBy(() -> env.reset(0, null, Seat.FIRST))
        .isInstanceOf(RemoteEnvironmentException.class)
        .hasMessageContaining("http://127.0.0.1:" + port + "/create")
        .hasMessageContaining("after 3 attempts");
  }
}
