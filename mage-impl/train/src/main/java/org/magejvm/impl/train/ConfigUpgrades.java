package org.magejvm.impl.train;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.stream.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.magejvm.api.ConfigException;

/**
 * How a config's JSON text is read: strictly, as one object, with the forms older versions wrote brought up to date
 * (so that their checkpoints keep resuming), and flattened to dotted keys for comparisons.
 */
final class ConfigUpgrades {

  private ConfigUpgrades() {}

  /**
   * Parses a config's JSON text strictly and brings an older form up to date.
   *
   * @param json the text
   * @return the object
   * @throws ConfigException when the text is not one JSON object
   */
  static JsonObject parseObject(String json) {
    try {
      JsonReader reader = new JsonReader(new StringReader(json));
      reader.setStrictness(com.google.gson.Strictness.STRICT);
      JsonElement e = JsonParser.parseReader(reader);
      if (reader.peek() != com.google.gson.stream.JsonToken.END_DOCUMENT) {
        throw new ConfigException("", "not valid JSON: text after the config object at " + reader.getPath());
      }
      if (!e.isJsonObject()) {
        throw new ConfigException("", "a training config must be a JSON object, got " + abbreviate(e.toString()));
      }
      return upgraded(e.getAsJsonObject());
    } catch (IOException | JsonParseException | IllegalStateException e) {
      throw new ConfigException("", "not valid JSON: " + e.getMessage());
    }
  }

  /** The key that {@code update.old_log_probs} replaced (a boolean: true is {@code recompute}, false {@code recorded}). */
  static final String LEGACY_RECOMPUTE_KEY = "recompute_old_log_probs";

  /** The rollout keys a config had before {@code rollout.opponent_assignment} existed. */
  private static final List<String> ROLLOUT_KEYS_BEFORE_ASSIGNMENT = List.of("tasks", "group_size", "episodes",
      "max_turns", "context_mode", "prompt_style", "early_stop", "seating", "step_timeout_seconds",
      "max_failure_share");

  /**
   * A config written before {@code update.old_log_probs} existed, with its {@code update.recompute_old_log_probs}
   * turned into the new key (checkpoints written by earlier versions keep resuming); and one whose rollout section
   * was written whole before {@code rollout.opponent_assignment} existed, with {@code sampled}, the way it ran (a
   * partial section takes the key from its preset, as any missing key does).
   */
  static JsonObject upgraded(JsonObject o) {
    JsonElement rollout = o.get("rollout");
    if (rollout != null && rollout.isJsonObject() && !rollout.getAsJsonObject().has("opponent_assignment")
        && rollout.getAsJsonObject().keySet().containsAll(ROLLOUT_KEYS_BEFORE_ASSIGNMENT)) {
      rollout.getAsJsonObject().addProperty("opponent_assignment", "sampled");
    }
    JsonElement update = o.get("update");
    if (update == null || !update.isJsonObject() || !update.getAsJsonObject().has(LEGACY_RECOMPUTE_KEY)) {
      return o;
    }
    JsonObject u = update.getAsJsonObject();
    if (u.has("old_log_probs")) {
      throw new ConfigException("update." + LEGACY_RECOMPUTE_KEY, "config keys 'update." + LEGACY_RECOMPUTE_KEY
          + "' (the former name) and 'update.old_log_probs' are both given; keep update.old_log_probs");
    }
    u.add("old_log_probs", new com.google.gson.JsonPrimitive(legacyRecompute(u.get(LEGACY_RECOMPUTE_KEY).toString())));
    u.remove(LEGACY_RECOMPUTE_KEY);
    return o;
  }

  static String legacyRecompute(String text) {
    switch (text.trim()) {
      case "true":
        return "recompute";
      case "false":
        return "recorded";
      default:
        throw new ConfigException("update." + LEGACY_RECOMPUTE_KEY, "config key 'update." + LEGACY_RECOMPUTE_KEY
            + "' (now update.old_log_probs) must be true or false, got " + text);
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  /** Leaves of a config's JSON by dotted key; a map (environment options) is one leaf. */
  static void flatten(String prefix, JsonObject o, Map<String, JsonElement> out) {
    for (Map.Entry<String, JsonElement> e : o.entrySet()) {
      String key = prefix + e.getKey();
      if (e.getValue().isJsonObject() && !key.equals("environment.options")) {
        flatten(key + ".", e.getValue().getAsJsonObject(), out);
      } else {
        out.put(key, e.getValue());
      }
    }
  }

  /**
   * @param mine a config's JSON
   * @param theirs another config's JSON
   * @return the dotted keys whose values differ, in {@code mine}'s order then {@code theirs}'s
   */
  static List<String> differences(JsonObject mine, JsonObject theirs) {
    Map<String, JsonElement> a = new java.util.LinkedHashMap<>();
    Map<String, JsonElement> b = new java.util.LinkedHashMap<>();
    flatten("", mine, a);
    flatten("", theirs, b);
    java.util.Set<String> keys = new java.util.LinkedHashSet<>(a.keySet());
    keys.addAll(b.keySet());
    List<String> out = new java.util.ArrayList<>();
    for (String k : keys) {
      if (!java.util.Objects.equals(a.get(k), b.get(k))) {
        out.add(k);
      }
    }
    return out;
  }
}
