package org.magejvm.impl.jinja;

import java.util.LinkedHashMap;
import java.util.Map;

/** The object {@code namespace(...)} returns: the one value whose attributes a template may assign. */
final class Namespace {
  final Map<String, Object> attrs = new LinkedHashMap<>();
}
