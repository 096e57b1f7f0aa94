package org.magejvm.impl.serve;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;

/** Typed reads of request fields; a wrong type or value is a 400 naming the field. */
final class Fields {
  private Fields() {}

  static JsonElement present(JsonObject o, String name) {
    JsonElement e = o.get(name);
    return e == null || e.isJsonNull() ? null : e;
  }

  static BigDecimal number(JsonElement e, String name) {
    if (!(e instanceof JsonPrimitive) || !((JsonPrimitive) e).isNumber()) {
      throw HttpError.badRequest(name, "invalid_type", "'" + name + "' must be a number, got " + shown(e));
    }
    try {
      return e.getAsBigDecimal();
    } catch (NumberFormatException bad) {
      throw HttpError.badRequest(name, "invalid_type", "'" + name + "' must be a number, got " + shown(e));
    }
  }

  static long integer(JsonObject o, String name, long dflt, long min, long max) {
    JsonElement e = present(o, name);
    return e == null ? dflt : integer(e, name, min, max);
  }

  static long integer(JsonElement e, String name, long min, long max) {
    BigDecimal d = number(e, name);
    if (d.signum() != 0 && d.stripTrailingZeros().scale() > 0) {
      throw HttpError.badRequest(name, "invalid_type", "'" + name + "' must be an integer, got " + shown(e));
    }
    if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw HttpError.badRequest(name, "invalid_value", "'" + name + "' must be in [" + min + ", " + max
          + "], got " + shown(e));
    }
    return d.longValueExact();
  }

  static double real(JsonObject o, String name, double dflt) {
    JsonElement e = present(o, name);
    if (e == null) {
      return dflt;
    }
    double v = number(e, name).doubleValue();
    if (!Double.isFinite(v)) {
      throw HttpError.badRequest(name, "invalid_value", "'" + name + "' must be finite, got " + shown(e));
    }
    return v;
  }

  static boolean bool(JsonObject o, String name, boolean dflt) {
    JsonElement e = present(o, name);
    if (e == null) {
      return dflt;
    }
    if (!(e instanceof JsonPrimitive) || !((JsonPrimitive) e).isBoolean()) {
      throw HttpError.badRequest(name, "invalid_type", "'" + name + "' must be true or false, got " + shown(e));
    }
    return e.getAsBoolean();
  }

  static String string(JsonElement e, String name) {
    if (!(e instanceof JsonPrimitive) || !((JsonPrimitive) e).isString()) {
      throw HttpError.badRequest(name, "invalid_type", "'" + name + "' must be a string, got " + shown(e));
    }
    return e.getAsString();
  }

  static String shown(JsonElement e) {
    String s = String.valueOf(e);
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }
}
