package org.magejvm.impl.train.common;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.magejvm.api.annotation.Api;

/**
 * Turns configuration objects (records, enums, optionals, maps, lists, numbers) into JSON for checkpoints, with
 * snake_case keys. Values of other classes are written with {@code toString()}. Shared by the trainer, the
 * checkpoints and the metrics file.
 */
@Api(status = Api.Status.INTERNAL)
public final class ConfigJson {

  /** Pretty-printing Gson that writes NaN and infinities (as the metrics may hold them) and keeps nulls. */
  public static final Gson PRETTY = new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues()
      .serializeNulls().disableHtmlEscaping().create();
  /** Compact Gson for one-line JSON (metrics.jsonl). */
  public static final Gson COMPACT = new GsonBuilder().serializeSpecialFloatingPointValues().serializeNulls()
      .disableHtmlEscaping().create();

  private ConfigJson() {}

  /**
   * @param value a configuration value
   * @return its JSON form
   */
  public static JsonElement toJson(Object value) {
    if (value == null) {
      return JsonNull.INSTANCE;
    }
    if (value instanceof JsonElement) {
      return ((JsonElement) value).deepCopy();
    }
    if (value instanceof String) {
      return new JsonPrimitive((String) value);
    }
    if (value instanceof Number) {
      return new JsonPrimitive((Number) value);
    }
    if (value instanceof Boolean) {
      return new JsonPrimitive((Boolean) value);
    }
    if (value instanceof Enum<?>) {
      return new JsonPrimitive(((Enum<?>) value).name().toLowerCase(Locale.ROOT));
    }
    if (value instanceof Optional<?>) {
      return toJson(((Optional<?>) value).orElse(null));
    }
    if (value instanceof OptionalInt) {
      OptionalInt o = (OptionalInt) value;
      return o.isPresent() ? new JsonPrimitive(o.getAsInt()) : JsonNull.INSTANCE;
    }
    if (value instanceof OptionalLong) {
      OptionalLong o = (OptionalLong) value;
      return o.isPresent() ? new JsonPrimitive(o.getAsLong()) : JsonNull.INSTANCE;
    }
    if (value instanceof OptionalDouble) {
      OptionalDouble o = (OptionalDouble) value;
      return o.isPresent() ? new JsonPrimitive(o.getAsDouble()) : JsonNull.INSTANCE;
    }
    if (value instanceof Map<?, ?>) {
      JsonObject o = new JsonObject();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        o.add(String.valueOf(e.getKey()), toJson(e.getValue()));
      }
      return o;
    }
    if (value instanceof Collection<?>) {
      JsonArray a = new JsonArray();
      for (Object v : (Collection<?>) value) {
        a.add(toJson(v));
      }
      return a;
    }
    if (value instanceof Path) {
      return new JsonPrimitive(value.toString());
    }
    if (value.getClass().isRecord()) {
      JsonObject o = new JsonObject();
      for (RecordComponent c : value.getClass().getRecordComponents()) {
        o.add(snakeCase(c.getName()), toJson(read(c, value)));
      }
      return o;
    }
    return new JsonPrimitive(value.toString());
  }

  private static Object read(RecordComponent c, Object record) {
    Method accessor = c.getAccessor();
    try {
      if (!accessor.canAccess(record)) {
        accessor.setAccessible(true);
      }
      return accessor.invoke(record);
    } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
      return "<" + c.getName() + " unreadable: " + e + ">";
    }
  }

  /**
   * @param name a camelCase name
   * @return the snake_case form ({@code maxNewTokens} to {@code max_new_tokens})
   */
  public static String snakeCase(String name) {
    StringBuilder sb = new StringBuilder(name.length() + 4);
    for (int i = 0; i < name.length(); i++) {
      char ch = name.charAt(i);
      if (Character.isUpperCase(ch)) {
        if (i > 0) {
          sb.append('_');
        }
        sb.append(Character.toLowerCase(ch));
      } else {
        sb.append(ch);
      }
    }
    return sb.toString();
  }
}
