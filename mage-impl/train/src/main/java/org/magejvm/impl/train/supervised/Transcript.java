package org.magejvm.impl.train.supervised;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.MetaEpisode;
import org.magejvm.api.Turn;
import org.magejvm.api.annotation.Api;
import org.magejvm.impl.llm.text.ChatMessage;
import org.magejvm.impl.rollout.MetaEpisodeRunner;
import org.magejvm.impl.rollout.RolloutConfig;
import org.magejvm.spi.EnvironmentRegistry;

/**
 * One chat conversation, as a line of a Hugging Face {@code messages} JSON-lines file holds it.
 *
 * @param messages the messages, oldest first; at least one, each with one of the {@link #ROLES}
 */
@Api(status = Api.Status.EXPERIMENTAL)
public record Transcript(List<ChatMessage> messages) {

  /** The roles a message may have. */
  public static final Set<String> ROLES = Set.of("system", "user", "assistant", "tool");

  /** The role whose messages supervised training learns to produce. */
  public static final String ASSISTANT = "assistant";

  /**
   * Validates and copies.
   *
   * @param messages the messages
   * @throws IllegalArgumentException naming the message when there is none or a role is unknown
   */
  public Transcript {
    Objects.requireNonNull(messages, "messages");
    messages = List.copyOf(messages);
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("a transcript needs at least one message");
    }
    for (int i = 0; i < messages.size(); i++) {
      String role = messages.get(i).role();
      if (!ROLES.contains(role)) {
        throw new IllegalArgumentException("message " + i + " has role '" + role
            + "'; expected one of system, user, assistant, tool");
      }
    }
  }

  /**
   * @param messages the messages, oldest first
   * @return the transcript
   * @throws IllegalArgumentException as the constructor
   */
  public static Transcript of(ChatMessage... messages) {
    return new Transcript(List.of(messages));
  }
  /**
   * The play turns of scripted rollouts as one-turn transcripts (the prompt as the user message, the answer as the
   * assistant's), in rollout order: rollout {@code r = 0, 1, ...} runs {@code rollouts.apply(r)} with {@code
   * players.apply(r)} (closed after it) until {@code count} turns are collected.
   *
   * @param registry where the rollouts' environment is found
   * @param count how many turns
   * @param rollouts the rollout of each round
   * @param players the player of each round
   * @return exactly {@code count} transcripts
   * @throws IllegalStateException when a round plays no turn (more rounds would not either)
   */
  public static List<Transcript> ofPlayTurns(EnvironmentRegistry registry, int count,
      IntFunction<RolloutConfig> rollouts, IntFunction<LanguagePolicy> players) {
    return ofTurns(registry, count, rollouts, players, t -> !t.isReflection());
  }

  /**
   * Every turn of scripted rollouts, reflections included, as one-turn transcripts in the order the meta-episodes
   * took them (play turns of attempt 0, the reflection written after it, play turns of attempt 1, ...); otherwise as
   * {@link #ofPlayTurns}. A rollout whose context mode writes no reflection gives the same transcripts as {@link
   * #ofPlayTurns}.
   *
   * @param registry where the rollouts' environment is found
   * @param count how many turns
   * @param rollouts the rollout of each round
   * @param players the player of each round
   * @return exactly {@code count} transcripts
   * @throws IllegalStateException when a round plays no turn (more rounds would not either)
   */
  public static List<Transcript> ofAllTurns(EnvironmentRegistry registry, int count,
      IntFunction<RolloutConfig> rollouts, IntFunction<LanguagePolicy> players) {
    return ofTurns(registry, count, rollouts, players, t -> true);
  }

  /**
   * The turns of scripted rollouts that a filter keeps, as one-turn transcripts in the order the meta-episodes took
   * them; otherwise as {@link #ofPlayTurns}.
   *
   * @param registry where the rollouts' environment is found
   * @param count how many turns
   * @param rollouts the rollout of each round
   * @param players the player of each round
   * @param keep which turns to keep (for example the play turns after a reflection: {@code t -> !t.isReflection() &&
   *     t.episodeIndex() > 0})
   * @return exactly {@code count} transcripts
   * @throws IllegalStateException when a round keeps no turn (more rounds would not either)
   */
  public static List<Transcript> ofTurns(EnvironmentRegistry registry, int count,
      IntFunction<RolloutConfig> rollouts, IntFunction<LanguagePolicy> players, Predicate<Turn> keep) {
    List<Transcript> out = new ArrayList<>(count);
    for (int round = 0; out.size() < count; round++) {
      int before = out.size();
      try (LanguagePolicy player = players.apply(round)) {
        for (MetaEpisode m : new MetaEpisodeRunner(registry).run(rollouts.apply(round), player).metaEpisodes()) {
          for (Turn t : m.turns()) {
            if (out.size() < count && keep.test(t)) {
              out.add(of(ChatMessage.user(t.prompt()), ChatMessage.assistant(t.response())));
            }
          }
        }
      }
      if (out.size() == before) {
        throw new IllegalStateException("round " + round + " of the scripted rollouts played no turn to keep");
      }
    }
    return out;
  }


  /** @return the number of assistant messages (the turns supervised training learns from) */
  public int assistantTurns() {
    int n = 0;
    for (ChatMessage m : messages) {
      if (m.role().equals(ASSISTANT)) {
        n++;
      }
    }
    return n;
  }
}
