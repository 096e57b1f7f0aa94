package org.magejvm.impl.llm.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The real Qwen3 chat template (from Qwen3's {@code tokenizer_config.json}, committed under
 * {@code qwen3-tokenizer-config/}) rendered by our Jinja interpreter, and the built-in Java renderer, byte for byte.
 */
class Qwen3ChatTemplateTest {

  static final String USER = "Play Kuhn poker.";

  static TokenizerConfig qwen3Config() {
    try {
      Path dir = Path.of(Qwen3ChatTemplateTest.class.getResource("/qwen3-tokenizer-config").toURI());
      return TokenizerConfig.load(dir);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static final ChatTemplate JINJA = ChatTemplates.fromConfig(qwen3Config());
  static final ChatTemplate BUILT_IN = Qwen3ChatTemplate.builtIn();

  static Stream<ChatTemplate> both() {
    return Stream.of(JINJA, BUILT_IN);
  }

  private static String render(ChatTemplate t, List<ChatMessage> msgs, boolean gen, Boolean thinking) {
    Map<String, Object> vars = new HashMap<>();
    if (thinking != null) {
      vars.put(ChatTemplate.ENABLE_THINKING, thinking);
    }
    return t.render(msgs, gen, vars);
  }

  @Test
  void checkpointTemplateIsTheJinjaOne() {
    assertThat(JINJA).isInstanceOf(JinjaChatTemplate.class);
    assertThat(((JinjaChatTemplate) JINJA).source()).isEqualTo(JinjaChatTemplate.qwen3Source());
    assertThat(JINJA.endOfTurnToken()).contains("<|im_end|>");
    assertThat(BUILT_IN.endOfTurnToken()).contains("<|im_end|>");
  }

  @ParameterizedTest
  @MethodSource("both")
  void singleUserMessage(ChatTemplate t) {
    List<ChatMessage> one = List.of(ChatMessage.user(USER));
    String turn = "<|im_start|>user\nPlay Kuhn poker.<|im_end|>\n";
    assertThat(render(t, one, true, true)).isEqualTo(turn + "<|im_start|>assistant\n");
    assertThat(render(t, one, true, false)).isEqualTo(turn + "<|im_start|>assistant\n<think>\n\n</think>\n\n");
    assertThat(render(t, one, true, null)).isEqualTo(turn + "<|im_start|>assistant\n");
    assertThat(render(t, one, false, true)).isEqualTo(turn);
    assertThat(render(t, one, false, false)).isEqualTo(turn);
  }

  @ParameterizedTest
  @MethodSource("both")
  void systemUserAssistantUser(ChatTemplate t) {
    List<ChatMessage> msgs = List.of(ChatMessage.system("You are a careful player."),
        ChatMessage.user("Your move?"), ChatMessage.assistant("<action>B2</action>"), ChatMessage.user("And now?"));
    // The system message opens the prompt (first branch of the template); the loop skips it because it is first.
    // The assistant turn (index 2) lies before the last user query (index 3), so it is printed as it is.
    String expected = "<|im_start|>system\nYou are a careful player.<|im_end|>\n"
        + "<|im_start|>user\nYour move?<|im_end|>\n"
        + "<|im_start|>assistant\n<action>B2</action><|im_end|>\n"
        + "<|im_start|>user\nAnd now?<|im_end|>\n"
        + "<|im_start|>assistant\n";
    assertThat(render(t, msgs, true, true)).isEqualTo(expected);
  }

  @ParameterizedTest
  @MethodSource("both")
  void reasoningOfEarlierAssistantTurnsIsDropped(ChatTemplate t) {
    String answer = "<think>\nI should check the board.\n</think>\n\nI play the center.";
    List<ChatMessage> msgs = List.of(ChatMessage.user("Move 1?"), ChatMessage.assistant(answer),
        ChatMessage.user("Move 2?"));
    // Derivation from the template:
    // 1. The reversed scan sets ns.last_query_index to the index of the last user message whose content is not a
    //    <tool_response>: messages[2], so last_query_index = 2.
    // 2. For the assistant message (loop.index0 = 1) there is no reasoning_content field, but '</think>' is in the
    //    content, so content = content.split('</think>')[-1].lstrip('\n') = "I play the center." and
    //    reasoning_content = "I should check the board." (unused below).
    // 3. loop.index0 (1) > ns.last_query_index (2) is false, so the else branch prints
    //    '<|im_start|>assistant\n' + content, i.e. the think block is gone, then '<|im_end|>\n'.
    // 4. The users render as plain turns, and add_generation_prompt with enable_thinking true adds only the header.
    String expected = "<|im_start|>user\nMove 1?<|im_end|>\n"
        + "<|im_start|>assistant\nI play the center.<|im_end|>\n"
        + "<|im_start|>user\nMove 2?<|im_end|>\n"
        + "<|im_start|>assistant\n";
    assertThat(render(t, msgs, true, true)).isEqualTo(expected);
  }

  @ParameterizedTest
  @MethodSource("both")
  void reasoningOfTheFinalAssistantTurnIsKept(ChatTemplate t) {
    // The assistant message (index 1) comes after the last query (index 0) and is loop.last, so the template
    // prints '<think>\n' + reasoning.strip('\n') + '\n</think>\n\n' + content.lstrip('\n').
    String answer = "<think>\n\nweigh the options\n\n</think>\n\n\nbet";
    List<ChatMessage> msgs = List.of(ChatMessage.user("Move?"), ChatMessage.assistant(answer));
    assertThat(render(t, msgs, false, true)).isEqualTo("<|im_start|>user\nMove?<|im_end|>\n"
        + "<|im_start|>assistant\n<think>\nweigh the options\n</think>\n\nbet<|im_end|>\n");
  }

  // ---------------------------------------------------------------- parity with Jinja2 on the fixture cases

  static Stream<Arguments> jinja2Cases() {
    JsonObject doc = new Gson().fromJson(new InputStreamReader(
        Qwen3ChatTemplateTest.class.getResourceAsStream("/jinja/jinja2-parity.json"), StandardCharsets.UTF_8),
        JsonObject.class);
    List<Arguments> out = new ArrayList<>();
    for (JsonElement e : doc.getAsJsonArray("qwen3")) {
      JsonObject c = e.getAsJsonObject();
      List<ChatMessage> msgs = new ArrayList<>();
      for (JsonElement m : c.getAsJsonArray("messages")) {
        msgs.add(new ChatMessage(m.getAsJsonObject().get("role").getAsString(),
            m.getAsJsonObject().get("content").getAsString()));
      }
      Boolean thinking = c.get("enable_thinking").isJsonNull() ? null : c.get("enable_thinking").getAsBoolean();
      for (ChatTemplate t : List.of(JINJA, BUILT_IN)) {
        out.add(Arguments.of(c.get("name").getAsString() + " / " + t.getClass().getSimpleName(), t, msgs,
            c.get("add_generation_prompt").getAsBoolean(), thinking, c.get("expected").getAsString()));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("jinja2Cases")
  void matchesJinja2(String name, ChatTemplate t, List<ChatMessage> msgs, boolean gen, Boolean thinking,
      String expected) {
    assertThat(render(t, msgs, gen, thinking)).isEqualTo(expected);
  }

  @Test
  void builtInRejectsWhatItCannotRender() {
    assertThatThrownBy(() -> BUILT_IN.render(List.of(new ChatMessage("narrator", "x")), true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("narrator");
    assertThatThrownBy(() -> BUILT_IN.render(List.of(ChatMessage.user("x")), true,
        Map.of("tools", List.of(Map.of("name", "f"))))).hasMessageContaining("tool");
    assertThatThrownBy(() -> BUILT_IN.render(List.of(), true)).hasMessageContaining("at least one message");
    assertThatThrownBy(() -> BUILT_IN.render(List.of(ChatMessage.user("x")), true,
        Map.of(ChatTemplate.ENABLE_THINKING, "no"))).hasMessageContaining("Boolean");
  }

  @Test
  void jinjaTemplateRejectsReservedVariables() {
    assertThatThrownBy(() -> JINJA.render(List.of(ChatMessage.user("x")), true, Map.of("messages", List.of())))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("messages");
  }
}
