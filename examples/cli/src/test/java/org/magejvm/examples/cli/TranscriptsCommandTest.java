package org.magejvm.examples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.train.supervised.Transcript;
import org.magejvm.impl.train.supervised.TranscriptReader;
import org.magejvm.spi.EnvironmentRegistry;
import picocli.CommandLine;

/** {@code mage transcripts}: scripted players' turns as chat transcripts, prompts exactly as the engine sent them. */
class TranscriptsCommandTest {

  @TempDir Path tmp;

  /** Records every request the engine sends and the answer it gets back. */
  static final class Recording implements LanguagePolicy {
    final LanguagePolicy inner;
    final List<String> pairs = new ArrayList<>();
    int reflections;

    Recording(LanguagePolicy inner) {
      this.inner = inner;
    }

    @Override
    public String name() {
      return inner.name();
    }

    @Override
    public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
      List<Generation> out = inner.generate(requests, sampling);
      for (int i = 0; i < requests.size(); i++) {
        pairs.add(requests.get(i).prompt() + "\u0000" + out.get(i).text());
        reflections += requests.get(i).phase() == Phase.REFLECT ? 1 : 0;
      }
      return out;
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  private static List<String> pairsOf(Path file) throws IOException {
    List<String> pairs = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      JsonObject o = JsonParser.parseString(line).getAsJsonObject();
      assertThat(o.keySet()).containsExactly("messages");
      JsonArray m = o.getAsJsonArray("messages");
      assertThat(m).hasSize(2);
      assertThat(m.get(0).getAsJsonObject().get("role").getAsString()).isEqualTo("user");
      assertThat(m.get(1).getAsJsonObject().get("role").getAsString()).isEqualTo("assistant");
      pairs.add(m.get(0).getAsJsonObject().get("content").getAsString() + "\u0000"
          + m.get(1).getAsJsonObject().get("content").getAsString());
    }
    return pairs;
  }

  @Test
  void kuhnTurnsAreWrittenWithThePromptsTheEngineRendered() throws IOException {
    Path file = tmp.resolve("kuhn.jsonl");
    String[] args = {"--env", "mage-kuhn-poker", "--policy", "fixed-line,random", "--meta-episodes", "12",
        "--episodes", "3", "--prompt-style", "compact", "--seed", "4", "--out", file.toString()};
    String[] cli = new String[args.length + 1];
    cli[0] = "transcripts";
    System.arraycopy(args, 0, cli, 1, args.length);
    CliRun r = CliRun.of(cli);
    assertThat(r.code()).as(r.err()).isZero();

    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    List<String> written = pairsOf(file);
    assertThat(r.out()).contains("wrote " + lines.size() + " transcripts", "from 12 meta-episodes");
    List<Transcript> parsed = TranscriptReader.read(file);
    assertThat(parsed).hasSize(lines.size());
    assertThat(parsed).allSatisfy(t -> assertThat(t.assistantTurns()).isEqualTo(1));

    // the same rollout again, recording what the engine actually handed to the players
    TranscriptsCommand command = new TranscriptsCommand();
    new CommandLine(command).parseArgs(args);
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    Recording recording = new Recording(command.policy(registry));
    try (recording) {
      new MetaEpisodeRunner(registry).run(command.rolloutConfig(registry), recording);
    }
    assertThat(recording.reflections).isPositive();
    List<String> sent = new ArrayList<>(recording.pairs);
    List<String> got = new ArrayList<>(written);
    Collections.sort(sent);
    Collections.sort(got);
    assertThat(got).isEqualTo(sent);
    assertThat(written.get(0)).contains("<action>");
    assertThat(r.out()).contains(recording.reflections + " reflections");

    // the same command writes the same file; verbose prompts differ from compact ones
    CliRun again = CliRun.of(cli);
    assertThat(again.code()).isZero();
    assertThat(Files.readAllLines(file, StandardCharsets.UTF_8)).isEqualTo(lines);
    Path verbose = tmp.resolve("verbose.jsonl");
    cli[cli.length - 1] = verbose.toString();
    cli[10] = "verbose";
    assertThat(CliRun.of(cli).code()).isZero();
    assertThat(pairsOf(verbose).get(0)).isNotEqualTo(written.get(0));
  }

  @Test
  void aMixtureDrawsFromEveryPolicyByPositionOnly() {
    EnvironmentRegistry registry = EnvironmentRegistry.discover();
    List<LanguagePolicy> list = List.of(
        registry.require("mage-kuhn-poker").scriptedPolicy("fixed-line", 1),
        registry.require("mage-kuhn-poker").scriptedPolicy("random", 2));
    int[] perTurn = new int[2];
    int[] perMeta = new int[2];
    try (ScriptedMixture turn = new ScriptedMixture(list, ScriptedMixture.Mode.TURN, 9);
        ScriptedMixture meta = new ScriptedMixture(list, ScriptedMixture.Mode.META_EPISODE, 9)) {
      for (int w = 0; w < 50; w++) {
        int first = -1;
        for (int t = 0; t < 4; t++) {
          PolicyRequest r = new PolicyRequest("p", Phase.PLAY, "g" + w + "/0", 0, t, List.of(), null, List.of());
          perTurn[turn.choose(r)]++;
          int m = meta.choose(r);
          first = first < 0 ? m : first;
          assertThat(m).as("one policy per meta-episode").isEqualTo(first);
          assertThat(turn.choose(r)).as("a pure function of the position").isEqualTo(turn.choose(r));
        }
        perMeta[first]++;
      }
    }
    assertThat(perTurn[0]).isBetween(70, 130);
    assertThat(perMeta[0]).isBetween(15, 35);
  }

  @Test
  void unknownNamesAreOneLineErrors() {
    CliRun policy = CliRun.of("transcripts", "--env", "mage-kuhn-poker", "--policy", "fixed-line,genius", "--out",
        tmp.resolve("x.jsonl").toString());
    assertThat(policy.code()).isEqualTo(2);
    assertThat(policy.err().strip()).doesNotContain("\n").contains("'genius'", "fixed-line", "adaptive");
    CliRun mix = CliRun.of("transcripts", "--env", "mage-kuhn-poker", "--policy", "nash,random", "--mix", "coin",
        "--out", tmp.resolve("x.jsonl").toString());
    assertThat(mix.code()).isEqualTo(2);
    assertThat(mix.err().strip()).doesNotContain("\n").contains("--mix", "coin");
    assertThat(tmp.resolve("x.jsonl")).doesNotExist();
  }
}
