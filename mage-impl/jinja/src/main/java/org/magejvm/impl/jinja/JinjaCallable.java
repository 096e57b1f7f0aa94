package org.magejvm.impl.jinja;

import java.util.List;
import java.util.Map;

/** Something a template can call: a global function, a bound string or dict method, a macro. */
interface JinjaCallable {

  /**
   * @param args positional arguments
   * @param kwargs keyword arguments, in call order
   * @return the result
   */
  Object call(List<Object> args, Map<String, Object> kwargs);

  /** @return a name for messages */
  String name();
}
