package org.magejvm.impl.agentgym;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Outcome;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.GameText;
import org.magejvm.spi.HistoryStep;
import org.magejvm.spi.PastEpisode;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptStyle;

/**
 * The JSON shapes the env server ({@code mage env-serve}) and {@link RemoteEnvironmentProvider} exchange beyond the
 * AgentGym fields: environment defaults, a game's prompt sentences, anchors and prompt contexts. Readers throw a
 * {@link ProtocolException} naming the field when a message is malformed. docs/environments.md lists every request.
 */
public final class EnvProtocol {

  private EnvProtocol() {}

  /**
   * @param d defaults
   * @return them as JSON
   */
  public static JsonObject defaults(EnvironmentDefaults d) {
    JsonObject o = new JsonObject();
    o.addProperty("max_turns", d.maxTurns());
    o.addProperty("episodes", d.episodes());
    o.addProperty("step_gamma", d.stepGamma());
    o.addProperty("traj_gamma", d.trajGamma());
    o.addProperty("invalid_penalty", d.invalidPenalty());
    o.addProperty("length_penalty", d.lengthPenalty());
    o.addProperty("max_response_tokens", d.maxResponseTokens());
    return o;
  }

  /**
   * @param o JSON from {@link #defaults(EnvironmentDefaults)}
   * @param at the field path of {@code o}
   * @return the defaults
   * @throws ProtocolException naming the field when one is missing or invalid
   */
  public static EnvironmentDefaults defaults(JsonObject o, String at) {
    try {
      return EnvironmentDefaults.builder()
          .setMaxTurns(integer(o, "max_turns", at)).setEpisodes(integer(o, "episodes", at))
          .setStepGamma(number(o, "step_gamma", at)).setTrajGamma(number(o, "traj_gamma", at))
          .setInvalidPenalty(number(o, "invalid_penalty", at)).setLengthPenalty(number(o, "length_penalty", at))
          .setMaxResponseTokens(integer(o, "max_response_tokens", at))
          .build();
    } catch (ProtocolException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new ProtocolException(at, at + ": " + e.getMessage());
    }
  }

  /**
   * @param t a game's sentences
   * @return them as JSON
   */
  public static JsonObject gameText(GameText t) {
    JsonObject o = new JsonObject();
    o.addProperty("name", t.name());
    o.addProperty("role", t.role());
    o.addProperty("rules", t.rules());
    o.addProperty("goal", t.goal());
    o.addProperty("action_format", t.actionFormat());
    o.addProperty("compact_rules", t.compactRules());
    o.addProperty("compact_action_format", t.compactActionFormat());
    o.addProperty("history_note", t.historyNote());
    o.addProperty("state_noun", t.stateNoun());
    o.addProperty("replay_note", t.replayNote());
    o.addProperty("reflection_example", t.reflectionExample());
    return o;
  }

  /**
   * @param o JSON from {@link #gameText(GameText)}
   * @param at the field path of {@code o}
   * @return the sentences
   * @throws ProtocolException naming the field when one is missing
   */
  public static GameText gameText(JsonObject o, String at) {
    return new GameText(string(o, "name", at), string(o, "role", at), string(o, "rules", at), string(o, "goal", at),
        string(o, "action_format", at), string(o, "compact_rules", at), string(o, "compact_action_format", at),
        string(o, "history_note", at), string(o, "state_noun", at), string(o, "replay_note", at),
        string(o, "reflection_example", at));
  }

  /**
   * @param a an anchor
   * @return it as JSON {@code {"state": ..., "opponent": ...}}
   */
  public static JsonObject anchor(AnchorKey a) {
    JsonObject o = new JsonObject();
    o.addProperty("state", a.state());
    o.addProperty("opponent", a.opponentId());
    return o;
  }

  /**
   * @param o JSON from {@link #anchor(AnchorKey)}
   * @param at the field path of {@code o}
   * @return the anchor
   */
  public static AnchorKey anchor(JsonObject o, String at) {
    return new AnchorKey(string(o, "state", at), string(o, "opponent", at));
  }

  /**
   * @param c a prompt context
   * @return it as JSON
   */
  public static JsonObject context(PromptContext c) {
    JsonObject o = new JsonObject();
    o.addProperty("style", c.style().name().toLowerCase(Locale.ROOT));
    o.addProperty("initial_observation", c.initialObservation());
    o.addProperty("episode_index", c.episodeIndex());
    JsonArray past = new JsonArray();
    for (PastEpisode p : c.pastEpisodes()) {
      JsonObject e = new JsonObject();
      e.addProperty("index", p.index());
      e.add("steps", steps(p.steps()));
      e.addProperty("outcome", p.outcome() == null ? null : p.outcome().name().toLowerCase(Locale.ROOT));
      e.addProperty("reflection", p.reflection());
      past.add(e);
    }
    o.add("past_episodes", past);
    o.add("steps", steps(c.steps()));
    o.addProperty("outcome", c.outcome() == null ? null : c.outcome().name().toLowerCase(Locale.ROOT));
    return o;
  }

  /**
   * @param o JSON from {@link #context(PromptContext)}
   * @param at the field path of {@code o}
   * @return the context
   * @throws ProtocolException naming the field when one is missing or invalid
   */
  public static PromptContext context(JsonObject o, String at) {
    PromptStyle style = enumValue(PromptStyle.class, string(o, "style", at), at + ".style");
    List<PastEpisode> past = new ArrayList<>();
    JsonArray pa = array(o, "past_episodes", at);
    for (int i = 0; i < pa.size(); i++) {
      String p = at + ".past_episodes[" + i + "]";
      JsonObject e = object(pa.get(i), p);
      Outcome outcome = optionalOutcome(e, "outcome", p);
      String reflection = e.has("reflection") && !e.get("reflection").isJsonNull() ? string(e, "reflection", p) : "";
      try {
        past.add(new PastEpisode(integer(e, "index", p), steps(array(e, "steps", p), p + ".steps"), outcome,
            reflection));
      } catch (ProtocolException x) {
        throw x;
      } catch (RuntimeException x) {
        throw new ProtocolException(p, p + ": " + x.getMessage());
      }
    }
    try {
      return new PromptContext(style, string(o, "initial_observation", at), integer(o, "episode_index", at), past,
          steps(array(o, "steps", at), at + ".steps"), optionalOutcome(o, "outcome", at));
    } catch (ProtocolException x) {
      throw x;
    } catch (RuntimeException x) {
      throw new ProtocolException(at, at + ": " + x.getMessage());
    }
  }

  private static JsonArray steps(List<HistoryStep> steps) {
    JsonArray a = new JsonArray();
    for (HistoryStep s : steps) {
      JsonObject o = new JsonObject();
      o.addProperty("number", s.number());
      o.addProperty("action", s.action());
      o.addProperty("valid", s.valid());
      o.addProperty("observation", s.observation());
      a.add(o);
    }
    return a;
  }

  private static List<HistoryStep> steps(JsonArray a, String at) {
    List<HistoryStep> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      String p = at + "[" + i + "]";
      JsonObject o = object(a.get(i), p);
      JsonElement obs = o.get("observation");
      String observation = obs == null || obs.isJsonNull() ? null : string(o, "observation", p);
      try {
        out.add(new HistoryStep(integer(o, "number", p), string(o, "action", p), bool(o, "valid", p), observation));
      } catch (ProtocolException x) {
        throw x;
      } catch (RuntimeException x) {
        throw new ProtocolException(p, p + ": " + x.getMessage());
      }
    }
    return out;
  }

  private static Outcome optionalOutcome(JsonObject o, String key, String at) {
    JsonElement v = o.get(key);
    if (v == null || v.isJsonNull()) {
      return null;
    }
    return enumValue(Outcome.class, string(o, key, at), at + "." + key);
  }

  private static <E extends Enum<E>> E enumValue(Class<E> type, String text, String field) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(text)) {
        return e;
      }
    }
    List<String> known = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      known.add(e.name().toLowerCase(Locale.ROOT));
    }
    throw new ProtocolException(field, "field '" + field + "' must be one of " + known + ", got '" + text + "'");
  }

  /**
   * @param e a JSON value
   * @param field its field path
   * @return it as an object
   * @throws ProtocolException if it is not an object
   */
  public static JsonObject object(JsonElement e, String field) {
    if (e == null || !e.isJsonObject()) {
      throw new ProtocolException(field, "field '" + field + "' must be a JSON object, got "
          + (e == null ? "nothing" : kind(e)));
    }
    return e.getAsJsonObject();
  }

  /**
   * @param o an object
   * @param key a key
   * @param at the object's field path
   * @return the array at the key
   * @throws ProtocolException if it is missing or not an array
   */
  public static JsonArray array(JsonObject o, String key, String at) {
    JsonElement v = o.get(key);
    if (v == null || !v.isJsonArray()) {
      throw new ProtocolException(path(at, key), "field '" + path(at, key) + "' must be a JSON array, got "
          + (v == null ? "nothing" : kind(v)));
    }
    return v.getAsJsonArray();
  }

  /**
   * @param o an object
   * @param key a key
   * @param at the object's field path
   * @return the string at the key
   * @throws ProtocolException if it is missing or not a string
   */
  public static String string(JsonObject o, String key, String at) {
    JsonElement v = o.get(key);
    if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isString()) {
      throw new ProtocolException(path(at, key), "field '" + path(at, key) + "' must be a string, got "
          + (v == null ? "nothing" : kind(v)));
    }
    return v.getAsString();
  }

  /**
   * @param o an object
   * @param key a key
   * @param at the object's field path
   * @return the integer at the key
   * @throws ProtocolException if it is missing or not an int
   */
  public static int integer(JsonObject o, String key, String at) {
    long v = longValue(o, key, at);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new ProtocolException(path(at, key), "field '" + path(at, key) + "' is out of the int range: " + v);
    }
    return (int) v;
  }

  /**
   * @param o an object
   * @param key a key
   * @param at the object's field path
   * @return the integer at the key, exactly (a number without fraction, or a string of digits)
   * @throws ProtocolException if it is missing or not an integer
   */
  public static long longValue(JsonObject o, String key, String at) {
    JsonElement v = o.get(key);
    if (v != null && v.isJsonPrimitive() && (v.getAsJsonPrimitive().isNumber() || v.getAsJsonPrimitive().isString())) {
      try {
        return new java.math.BigDecimal(v.getAsString().trim()).longValueExact();
      } catch (ArithmeticException | NumberFormatException e) {
        // fall through to the error
      }
    }
    throw new ProtocolException(path(at, key), "field '" + path(at, key) + "' must be an integer, got "
        + (v == null ? "nothing" : kind(v)));
  }

  /**
   * @param o an object
   * @param key a key
   * @param at the object's field path
   * @return the finite number at the key
   * @throws ProtocolException if it is missing or not a finite number
   */
  public static double number(JsonObject o, String key, String at) {
    JsonElement v = o.get(key);
    if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isNumber()
        || !Double.isFinite(v.getAsDouble())) {
      throw new ProtocolException(path(at, key), "field '" + path(at, key) + "' must be a finite number, got "
          + (v == null ? "nothing" : kind(v)));
    }
    return v.getAsDouble();
  }

  /**
   * @param o an object
   * @param key a key
   * @param at the object's field path
   * @return the boolean at the key
   * @throws ProtocolException if it is missing or not a boolean
   */
  public static boolean bool(JsonObject o, String key, String at) {
    JsonElement v = o.get(key);
    if (v == null || !v.isJsonPrimitive() || !v.getAsJsonPrimitive().isBoolean()) {
      throw new ProtocolException(path(at, key), "field '" + path(at, key) + "' must be true or false, got "
          + (v == null ? "nothing" : kind(v)));
    }
    return v.getAsBoolean();
  }

  /**
   * @param v a list of strings
   * @return it as a JSON array
   */
  public static JsonArray strings(List<String> v) {
    JsonArray a = new JsonArray();
    for (String s : v) {
      a.add(s);
    }
    return a;
  }

  /**
   * @param o an object
   * @param key a key
   * @param at the object's field path
   * @return the list of strings at the key
   * @throws ProtocolException if it is missing or not an array of strings
   */
  public static List<String> strings(JsonObject o, String key, String at) {
    JsonArray a = array(o, key, at);
    List<String> out = new ArrayList<>(a.size());
    for (int i = 0; i < a.size(); i++) {
      JsonElement e = a.get(i);
      if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
        throw new ProtocolException(path(at, key) + "[" + i + "]", "field '" + path(at, key) + "[" + i
            + "]' must be a string, got " + kind(e));
      }
      out.add(e.getAsString());
    }
    return List.copyOf(out);
  }

  private static String path(String at, String key) {
    return at == null || at.isEmpty() ? key : at + "." + key;
  }

  private static String kind(JsonElement e) {
    if (e == null || e instanceof JsonNull) {
      return "null";
    }
    if (e.isJsonObject()) {
      return "an object";
    }
    if (e.isJsonArray()) {
      return "an array";
    }
    String s = e.toString();
    return s.length() > 60 ? s.substring(0, 60) + "..." : s;
  }
}
