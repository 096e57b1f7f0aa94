package org.magejvm.impl.train;

import org.magejvm.impl.train.supervised.Transcript;
import org.magejvm.impl.train.supervised.TranscriptReader;
import org.magejvm.impl.train.supervised.TranscriptWriter;
import org.magejvm.impl.train.supervised.TranscriptFormatException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.impl.llm.text.ChatMessage;

class TranscriptIoTest {

  @TempDir Path dir;

  private static final List<Transcript> SAMPLE = List.of(
      Transcript.of(ChatMessage.system("Be brief."),
          ChatMessage.user("Hi \"there\"\n<|im_end|> \u00e9\u4e2d\ud83d\ude00"),
          ChatMessage.assistant("<think>\nok\n</think>\n\nHello.")),
      Transcript.of(ChatMessage.user("2+2?"), ChatMessage.assistant("4"), ChatMessage.user("and 3+3?"),
          ChatMessage.assistant("6")));

  @Test
  void writeThenReadGivesTheSameTranscripts() throws Exception {
    Path file = dir.resolve("sub/chats.jsonl");
    TranscriptWriter.write(file, SAMPLE);
    assertThat(TranscriptReader.read(file)).isEqualTo(SAMPLE);
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).startsWith("{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"}")
        .contains("<|im_end|>").contains("\\n").doesNotContain("\\u003c");
    assertThat(lines.get(1)).isEqualTo("{\"messages\":[{\"role\":\"user\",\"content\":\"2+2?\"},"
        + "{\"role\":\"assistant\",\"content\":\"4\"},{\"role\":\"user\",\"content\":\"and 3+3?\"},"
        + "{\"role\":\"assistant\",\"content\":\"6\"}]}");
    assertThat(SAMPLE.get(1).assistantTurns()).isEqualTo(2);

    try (TranscriptWriter w = TranscriptWriter.append(file)) {
      w.write(SAMPLE.get(1));
    }
    assertThat(TranscriptReader.read(file)).containsExactly(SAMPLE.get(0), SAMPLE.get(1), SAMPLE.get(1));
  }

  @Test
  void extraFieldsBlankLinesAndAByteOrderMarkAreTolerated() throws Exception {
    Path file = dir.resolve("hf.jsonl");
    Files.writeString(file, "\uFEFF{\"id\": 7, \"messages\": [{\"role\": \"user\", \"content\": \"q\", "
        + "\"name\": \"x\"}, {\"role\": \"assistant\", \"content\": \"a\", \"weight\": 1}], \"source\": {\"k\": [1]}}\n"
        + "\n   \n"
        + "{\"messages\":[{\"role\":\"user\",\"content\":\"\"}]}\n", StandardCharsets.UTF_8);
    assertThat(TranscriptReader.read(file)).containsExactly(
        Transcript.of(ChatMessage.user("q"), ChatMessage.assistant("a")), Transcript.of(ChatMessage.user("")));
  }

  @Test
  void malformedLinesNameTheFileAndLine() throws Exception {
    String good = "{\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}\n";
    String[][] cases = {
      {"{\"messages\": [", "not valid JSON"},
      {"[1, 2]", "JSON object"},
      {"{\"conversation\": []}", "\"messages\""},
      {"{\"messages\": {}}", "\"messages\""},
      {"{\"messages\": []}", "at least one message"},
      {"{\"messages\": [\"hi\"]}", "message 0 is not a JSON object"},
      {"{\"messages\": [{\"content\": \"x\"}]}", "message 0 has no string \"role\""},
      {"{\"messages\": [{\"role\": \"user\", \"content\": null}]}", "message 0 has no string \"content\""},
      {"{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"bot\", \"content\": \"b\"}]}",
          "message 1 has role 'bot'"},
    };
    for (String[] c : cases) {
      Path file = dir.resolve("bad.jsonl");
      Files.writeString(file, good + "\n" + c[0] + "\n" + good, StandardCharsets.UTF_8);
      assertThatThrownBy(() -> TranscriptReader.read(file)).as(c[0])
          .isInstanceOf(TranscriptFormatException.class)
          .hasMessageStartingWith(file + ":3: ")
          .hasMessageContaining(c[1])
          .satisfies(e -> {
            assertThat(((TranscriptFormatException) e).line()).isEqualTo(3);
            assertThat(((TranscriptFormatException) e).file()).isEqualTo(file.toString());
          });
    }
    assertThatThrownBy(() -> TranscriptReader.read(dir.resolve("missing.jsonl")))
        .isInstanceOf(java.io.UncheckedIOException.class).hasMessageContaining("missing.jsonl");
    assertThatThrownBy(() -> Transcript.of(new ChatMessage("narrator", "x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("narrator");
  }
}
