package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/** {@code mage envs}: every built-in game with its opponents, scripted policies and options. */
class EnvsCommandTest {

  @Test
  void listsTheGamesWithTheirOptions() {
    CliRun text = CliRun.of("envs");
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out()).contains("mage-kuhn-poker", "mage-tictactoe", "mage-sokoban")
        .contains("opponents: conservative, aggressive, intermediate, cfr, cfr-mixed")
        .contains("option:    reward: chips")
        .contains("option:    boxes: ");
    CliRun json = CliRun.of("envs", "--json");
    assertThat(json.code()).isZero();
    JsonArray rows = JsonParser.parseString(json.out()).getAsJsonArray();
    JsonObject kuhn = null;
    for (JsonElement e : rows) {
      if (e.getAsJsonObject().get("id").getAsString().equals("mage-kuhn-poker")) {
        kuhn = e.getAsJsonObject();
      }
    }
    assertThat(kuhn).isNotNull();
    assertThat(kuhn.getAsJsonObject("options").keySet()).containsExactly("reward");
    assertThat(kuhn.getAsJsonArray("policies").toString()).contains("adaptive");
  }
}
