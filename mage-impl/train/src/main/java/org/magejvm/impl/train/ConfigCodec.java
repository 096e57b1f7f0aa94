package org.magejvm.impl.train;

import org.magejvm.api.ConfigException;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads and writes the configuration records as JSON, with the key checks the configuration promises: keys are the
 * record components' names in snake_case, every key of a record must be known (an unknown one is refused with the
 * closest known key as a suggestion), and every value must have the component's type. The types it handles are the
 * ones the configuration records use: {@code int}, {@code long}, {@code double}, {@code boolean} (and their boxes,
 * which may be JSON {@code null}), {@code String} (may be {@code null}), enums (written in lower case), {@code
 * List<String>}, {@code Map<String, String>} and nested records.
 */
final class ConfigCodec {

  private ConfigCodec() {}

  /**
   * @param record a configuration record
   * @return its JSON form, every component present
   */
  static JsonObject encode(Record record) {
    JsonObject o = new JsonObject();
    for (RecordComponent c : record.getClass().getRecordComponents()) {
      o.add(key(c), encodeValue(read(c, record)));
    }
    return o;
  }

  private static JsonElement encodeValue(Object v) {
    if (v == null) {
      return JsonNull.INSTANCE;
    }
    if (v instanceof Record) {
      return encode((Record) v);
    }
    if (v instanceof Enum<?>) {
      return new JsonPrimitive(((Enum<?>) v).name().toLowerCase(Locale.ROOT));
    }
    if (v instanceof Number) {
      return new JsonPrimitive((Number) v);
    }
    if (v instanceof Boolean) {
      return new JsonPrimitive((Boolean) v);
    }
    if (v instanceof String) {
      return new JsonPrimitive((String) v);
    }
    if (v instanceof List<?>) {
      JsonArray a = new JsonArray();
      for (Object e : (List<?>) v) {
        a.add(encodeValue(e));
      }
      return a;
    }
    if (v instanceof Map<?, ?>) {
      JsonObject o = new JsonObject();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        o.add(String.valueOf(e.getKey()), encodeValue(e.getValue()));
      }
      return o;
    }
    throw new IllegalStateException("no JSON form for " + v.getClass().getName());
  }

  /**
   * Lays {@code patch} over {@code base}: every key of {@code patch} must be a key of the record type (checked all
   * the way down), its value replaces the base's (a map is replaced whole; a nested record is merged key by key).
   *
   * @param type the record type both objects describe
   * @param base a complete JSON form of {@code type}
   * @param patch some of its keys
   * @param path the dotted path of {@code type} ({@code ""} at the top)
   * @return the merged object (a new one)
   * @throws ConfigException naming an unknown key or a value that is not an object where one is needed
   */
  static JsonObject overlay(Class<?> type, JsonObject base, JsonObject patch, String path) {
    JsonObject out = base.deepCopy();
    Map<String, RecordComponent> components = components(type);
    for (Map.Entry<String, JsonElement> e : patch.entrySet()) {
      String key = join(path, e.getKey());
      RecordComponent c = components.get(e.getKey());
      if (c == null) {
        throw unknown(key, e.getKey(), components.keySet(), path);
      }
      JsonElement value = e.getValue();
      if (c.getType().isRecord()) {
        if (!value.isJsonObject()) {
          throw new ConfigException(key, "config key '" + key + "' must be an object of "
              + String.join(", ", components(c.getType()).keySet()) + ", got " + value);
        }
        JsonElement sub = out.get(e.getKey());
        out.add(e.getKey(), overlay(c.getType(), sub != null && sub.isJsonObject() ? sub.getAsJsonObject()
            : new JsonObject(), value.getAsJsonObject(), key));
      } else {
        out.add(e.getKey(), value.deepCopy());
      }
    }
    return out;
  }

  /**
   * Sets one dotted key from command-line text: {@code rollout.tasks} and {@code 8}, {@code environment.options.reward}
   * and {@code win-loss} (a map entry), {@code fine_tuning.lora_targets} and {@code q_proj,v_proj} (a list).
   *
   * @param type the top-level record type
   * @param base a complete JSON form of {@code type}
   * @param dottedKey the key
   * @param text the value as typed; {@code null} (the word) clears a nullable value
   * @return the new JSON form
   * @throws ConfigException naming the key when it is unknown or the text does not have the key's type
   */
  static JsonObject set(Class<?> type, JsonObject base, String dottedKey, String text) {
    String[] parts = dottedKey.split("\\.", -1);
    JsonObject patch = new JsonObject();
    JsonObject at = patch;
    Class<?> current = type;
    String path = "";
    for (int i = 0; i < parts.length; i++) {
      Map<String, RecordComponent> components = components(current);
      RecordComponent c = components.get(parts[i]);
      String key = join(path, parts[i]);
      if (c == null) {
        throw unknown(key, parts[i], components.keySet(), path);
      }
      boolean last = i == parts.length - 1;
      if (c.getType().isRecord()) {
        if (last) {
          throw new ConfigException(key, "config key '" + key + "' is a section; set one of its keys: "
              + components(c.getType()).keySet().stream().map(k -> key + "." + k).collect(Collectors.joining(", ")));
        }
        JsonObject sub = new JsonObject();
        at.add(parts[i], sub);
        at = sub;
        current = c.getType();
        path = key;
        continue;
      }
      if (Map.class.isAssignableFrom(c.getType()) && i == parts.length - 2) {
        // one entry of a map: the base's other entries stay
        JsonElement baseMap = navigate(base, Arrays.copyOf(parts, i + 1));
        JsonObject map = baseMap != null && baseMap.isJsonObject() ? baseMap.getAsJsonObject().deepCopy()
            : new JsonObject();
        if (text.equals("null")) {
          map.remove(parts[i + 1]);
        } else {
          map.addProperty(parts[i + 1], text);
        }
        at.add(parts[i], map);
        return overlay(type, base, patch, "");
      }
      if (!last) {
        throw new ConfigException(key, "config key '" + key + "' has no keys below it (" + dottedKey + ")");
      }
      at.add(parts[i], parseText(c, key, text));
    }
    return overlay(type, base, patch, "");
  }

  private static JsonElement navigate(JsonObject o, String[] parts) {
    JsonElement at = o;
    for (String p : parts) {
      if (at == null || !at.isJsonObject()) {
        return null;
      }
      at = at.getAsJsonObject().get(p);
    }
    return at;
  }

  private static JsonElement parseText(RecordComponent c, String key, String text) {
    Class<?> t = c.getType();
    String s = text.trim();
    if (s.equals("null") && !t.isPrimitive()) {
      return JsonNull.INSTANCE;
    }
    if (t == String.class || t.isEnum()) {
      return new JsonPrimitive(text);
    }
    if (t == boolean.class || t == Boolean.class) {
      if (s.equals("true") || s.equals("false")) {
        return new JsonPrimitive(Boolean.parseBoolean(s));
      }
      throw new ConfigException(key, "config key '" + key + "' must be true or false, got '" + text + "'");
    }
    if (isNumber(t)) {
      try {
        return new JsonPrimitive(new BigDecimal(s));
      } catch (NumberFormatException e) {
        throw new ConfigException(key, "config key '" + key + "' must be " + typeName(c) + ", got '" + text + "'");
      }
    }
    if (List.class.isAssignableFrom(t)) {
      JsonArray a = new JsonArray();
      for (String part : s.split(",")) {
        if (!part.isBlank()) {
          a.add(part.trim());
        }
      }
      return a;
    }
    throw new ConfigException(key, "config key '" + key + "' cannot be set from text; give a config file");
  }

  /**
   * Builds a record from its complete JSON form.
   *
   * @param type the record type
   * @param o its JSON form: every key present, no other key
   * @param path the dotted path of {@code type} ({@code ""} at the top)
   * @param <R> the record type
   * @return the record (its canonical constructor validates the values)
   * @throws ConfigException naming the key of a missing, unknown, mistyped or out-of-range value
   */
  static <R> R decode(Class<R> type, JsonObject o, String path) {
    Map<String, RecordComponent> components = components(type);
    for (String k : o.keySet()) {
      if (!components.containsKey(k)) {
        throw unknown(join(path, k), k, components.keySet(), path);
      }
    }
    RecordComponent[] cs = type.getRecordComponents();
    Object[] args = new Object[cs.length];
    Class<?>[] types = new Class<?>[cs.length];
    for (int i = 0; i < cs.length; i++) {
      String k = key(cs[i]);
      String key = join(path, k);
      types[i] = cs[i].getType();
      if (!o.has(k)) {
        throw new ConfigException(key, "config key '" + key + "' is missing");
      }
      args[i] = decodeValue(cs[i], o.get(k), key);
    }
    try {
      Constructor<R> ctor = type.getDeclaredConstructor(types);
      return ctor.newInstance(args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ConfigException) {
        throw (ConfigException) cause;
      }
      if (cause instanceof RuntimeException) {
        throw new ConfigException(path, (path.isEmpty() ? "" : path + ": ") + cause.getMessage());
      }
      throw new IllegalStateException(cause);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot construct " + type.getName(), e);
    }
  }

  private static Object decodeValue(RecordComponent c, JsonElement v, String key) {
    Class<?> t = c.getType();
    if (v == null || v.isJsonNull()) {
      if (t.isPrimitive()) {
        throw new ConfigException(key, "config key '" + key + "' must be " + typeName(c) + ", got null");
      }
      return null;
    }
    if (t.isRecord()) {
      if (!v.isJsonObject()) {
        throw new ConfigException(key, "config key '" + key + "' must be an object, got " + v);
      }
      return decode(t, v.getAsJsonObject(), key);
    }
    if (t == String.class) {
      return string(v, key);
    }
    if (t.isEnum()) {
      return enumValue(t, string(v, key), key);
    }
    if (t == boolean.class || t == Boolean.class) {
      if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isBoolean()) {
        return v.getAsBoolean();
      }
      throw new ConfigException(key, "config key '" + key + "' must be true or false, got " + v);
    }
    if (isNumber(t)) {
      if (!v.isJsonPrimitive() || !v.getAsJsonPrimitive().isNumber()) {
        throw new ConfigException(key, "config key '" + key + "' must be " + typeName(c) + ", got " + v);
      }
      BigDecimal d;
      try {
        d = v.getAsBigDecimal();
      } catch (NumberFormatException e) {
        throw new ConfigException(key, "config key '" + key + "' must be " + typeName(c) + ", got " + v);
      }
      if (t == double.class || t == Double.class) {
        double x = d.doubleValue();
        if (Double.isInfinite(x)) {
          throw new ConfigException(key, "config key '" + key + "' is beyond the range of a double: " + v);
        }
        return x;
      }
      try {
        long l = d.longValueExact();
        if (t == int.class || t == Integer.class) {
          return Math.toIntExact(l);
        }
        return l;
      } catch (ArithmeticException e) {
        throw new ConfigException(key, "config key '" + key + "' must be " + typeName(c) + ", got " + v);
      }
    }
    if (List.class.isAssignableFrom(t)) {
      if (!v.isJsonArray()) {
        throw new ConfigException(key, "config key '" + key + "' must be a list of strings, got " + v);
      }
      List<String> out = new ArrayList<>();
      for (JsonElement e : v.getAsJsonArray()) {
        out.add(string(e, key));
      }
      return List.copyOf(out);
    }
    if (Map.class.isAssignableFrom(t)) {
      if (!v.isJsonObject()) {
        throw new ConfigException(key, "config key '" + key + "' must be an object of strings, got " + v);
      }
      Map<String, String> out = new LinkedHashMap<>();
      for (Map.Entry<String, JsonElement> e : v.getAsJsonObject().entrySet()) {
        out.put(e.getKey(), string(e.getValue(), key + "." + e.getKey()));
      }
      return out;
    }
    throw new IllegalStateException("unsupported configuration type " + t.getName() + " of " + key);
  }

  private static String string(JsonElement v, String key) {
    if (v != null && v.isJsonPrimitive() && v.getAsJsonPrimitive().isString()) {
      return v.getAsString();
    }
    throw new ConfigException(key, "config key '" + key + "' must be a string, got " + v);
  }

  private static Object enumValue(Class<?> t, String text, String key) {
    String want = text.trim().replace('-', '_');
    for (Object constant : t.getEnumConstants()) {
      if (((Enum<?>) constant).name().equalsIgnoreCase(want)) {
        return constant;
      }
    }
    throw new ConfigException(key, "config key '" + key + "' must be one of "
        + Arrays.stream(t.getEnumConstants()).map(x -> ((Enum<?>) x).name().toLowerCase(Locale.ROOT))
            .collect(Collectors.joining(", ")) + ", got '" + text + "'");
  }

  private static boolean isNumber(Class<?> t) {
    return t == int.class || t == long.class || t == double.class || t == Integer.class || t == Long.class
        || t == Double.class;
  }

  private static String typeName(RecordComponent c) {
    Class<?> t = c.getType();
    if (t == int.class || t == Integer.class) {
      return "a whole number";
    }
    if (t == long.class || t == Long.class) {
      return "a whole number (64-bit)";
    }
    if (t == double.class || t == Double.class) {
      return "a number";
    }
    Type g = c.getGenericType();
    return g instanceof ParameterizedType ? g.getTypeName() : t.getSimpleName();
  }

  private static ConfigException unknown(String key, String name, Collection<String> known, String path) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(name, k);
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
      }
    }
    String hint = best != null && bestDistance <= Math.max(2, name.length() / 3)
        ? "; did you mean '" + join(path, best) + "'?"
        : "; known keys" + (path.isEmpty() ? "" : " of " + path) + ": " + String.join(", ", known);
    return new ConfigException(key, "unknown config key '" + key + "'" + hint);
  }

  /** Levenshtein distance, for suggestions. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /**
   * @param type a record type
   * @return its keys, in declaration order
   */
  static java.util.Set<String> keys(Class<?> type) {
    return components(type).keySet();
  }

  private static Map<String, RecordComponent> components(Class<?> type) {
    Map<String, RecordComponent> out = new LinkedHashMap<>();
    for (RecordComponent c : type.getRecordComponents()) {
      out.put(key(c), c);
    }
    return out;
  }

  private static String key(RecordComponent c) {
    return snakeCase(c.getName());
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  private static Object read(RecordComponent c, Record r) {
    try {
      return c.getAccessor().invoke(r);
    } catch (IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot read " + c.getName(), e);
    }
  }

  /**
   * @param name a camelCase name
   * @return its snake_case form ({@code maxNewTokens} to {@code max_new_tokens})
   */
  static String snakeCase(String name) {
    StringBuilder sb = new StringBuilder(name.length() + 4);
    for (int i = 0; i < name.length(); i++) {
      char ch = name.charAt(i);
      if (Character.isUpperCase(ch)) {
        sb.append('_').append(Character.toLowerCase(ch));
      } else {
        sb.append(ch);
      }
    }
    return sb.toString();
  }
}
