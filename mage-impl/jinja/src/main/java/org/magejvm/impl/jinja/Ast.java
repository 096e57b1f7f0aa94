package org.magejvm.impl.jinja;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The syntax tree; every node evaluates or renders itself. */
final class Ast {

  private Ast() {}

  /** What a statement asks of the enclosing loop. */
  enum Flow {
    NORMAL, BREAK, CONTINUE
  }

  /** A node with a source position. */
  abstract static class Node {
    final int line;
    final int column;

    Node(Token at) {
      this.line = at.line();
      this.column = at.column();
    }

    TemplateException error(String message) {
      return new TemplateException(message, line, column);
    }

    TemplateLimitException limit(Render.LimitError e) {
      return new TemplateLimitException(e.getMessage(), line, column, e.limit, e.value);
    }

    /** Counts a loop iteration (or filter test) of the render in progress. */
    void iteration() {
      Render r = Render.current();
      if (r != null) {
        try {
          r.iteration();
        } catch (Render.LimitError e) {
          throw limit(e);
        }
      }
    }

    /** Fails when {@code out} has grown beyond the output limit. */
    void checkOutput(StringBuilder out) {
      long max = Render.limits().maxOutputChars();
      if (out.length() > max) {
        throw new TemplateLimitException("the rendered output grew beyond " + max + " characters (limit "
            + "maxOutputChars = " + max + ")", line, column, "maxOutputChars", max);
      }
    }
  }

  // ================================================================ expressions

  /** An expression. */
  abstract static class Expr extends Node {
    Expr(Token at) {
      super(at);
    }

    /** Evaluates, turning value errors into template errors at this node's position. */
    final Object value(Scope scope) {
      try {
        Render r = Render.current();
        if (r != null) {
          r.tick();
        }
        Object v = eval(scope);
        if (v instanceof String && ((String) v).length() > 4096) {
          Render.checkString(((String) v).length(), "this expression");
        }
        return v;
      } catch (Render.LimitError e) {
        throw limit(e);
      } catch (EvalError e) {
        throw error(e.getMessage());
      } catch (ArithmeticException e) {
        throw error("integer overflow: " + e.getMessage());
      }
    }

    abstract Object eval(Scope scope);
  }

  static List<Object> values(List<Expr> exprs, Scope scope) {
    List<Object> out = new ArrayList<>(exprs.size());
    for (Expr e : exprs) {
      out.add(e.value(scope));
    }
    return out;
  }

  static Map<String, Object> values(Map<String, Expr> exprs, Scope scope) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, Expr> e : exprs.entrySet()) {
      out.put(e.getKey(), e.getValue().value(scope));
    }
    return out;
  }

  static final class Const extends Expr {
    final Object constant;

    Const(Token at, Object constant) {
      super(at);
      this.constant = constant;
    }

    @Override
    Object eval(Scope scope) {
      return constant;
    }
  }

  static final class Name extends Expr {
    final String name;

    Name(Token at, String name) {
      super(at);
      this.name = name;
    }

    @Override
    Object eval(Scope scope) {
      Object v = scope.lookup(name);
      return v == Scope.MISSING ? Undefined.named(name) : v;
    }
  }

  static final class ListExpr extends Expr {
    final List<Expr> items;
    final boolean tuple;

    ListExpr(Token at, List<Expr> items, boolean tuple) {
      super(at);
      this.items = items;
      this.tuple = tuple;
    }

    @Override
    Object eval(Scope scope) {
      List<Object> v = values(items, scope);
      return tuple ? new Tuple(v) : Collections.unmodifiableList(v);
    }
  }

  static final class DictExpr extends Expr {
    final List<Expr> keys;
    final List<Expr> vals;

    DictExpr(Token at, List<Expr> keys, List<Expr> vals) {
      super(at);
      this.keys = keys;
      this.vals = vals;
    }

    @Override
    Object eval(Scope scope) {
      Map<Object, Object> m = new LinkedHashMap<>();
      for (int i = 0; i < keys.size(); i++) {
        Object k = keys.get(i).value(scope);
        if (k instanceof List || k instanceof Map || k instanceof Namespace || k instanceof Undefined) {
          throw new EvalError("unhashable dict key of type '" + Values.typeName(k) + "'");
        }
        m.put(k, vals.get(i).value(scope));
      }
      return Collections.unmodifiableMap(m);
    }
  }

  static final class GetAttr extends Expr {
    final Expr obj;
    final String name;

    GetAttr(Token at, Expr obj, String name) {
      super(at);
      this.obj = obj;
      this.name = name;
    }

    @Override
    Object eval(Scope scope) {
      return Values.getAttr(obj.value(scope), name);
    }
  }

  static final class GetItem extends Expr {
    final Expr obj;
    final Expr key;

    GetItem(Token at, Expr obj, Expr key) {
      super(at);
      this.obj = obj;
      this.key = key;
    }

    @Override
    Object eval(Scope scope) {
      Object o = obj.value(scope);
      return Values.getItem(o, key.value(scope));
    }
  }

  static final class Slice extends Expr {
    final Expr obj;
    final Expr start;
    final Expr stop;
    final Expr step;

    Slice(Token at, Expr obj, Expr start, Expr stop, Expr step) {
      super(at);
      this.obj = obj;
      this.start = start;
      this.stop = stop;
      this.step = step;
    }

    @Override
    Object eval(Scope scope) {
      Object o = obj.value(scope);
      return Values.slice(o, start == null ? null : start.value(scope), stop == null ? null : stop.value(scope),
          step == null ? null : step.value(scope));
    }
  }

  static final class Call extends Expr {
    final Expr fn;
    final List<Expr> args;
    final Map<String, Expr> kwargs;

    Call(Token at, Expr fn, List<Expr> args, Map<String, Expr> kwargs) {
      super(at);
      this.fn = fn;
      this.args = args;
      this.kwargs = kwargs;
    }

    @Override
    Object eval(Scope scope) {
      Object f = fn.value(scope);
      if (f instanceof Undefined) {
        throw ((Undefined) f).fail();
      }
      if (!(f instanceof JinjaCallable)) {
        throw new EvalError("'" + Values.typeName(f) + "' object is not callable");
      }
      return ((JinjaCallable) f).call(values(args, scope), values(kwargs, scope));
    }
  }

  /** {@code input | name(args)} or {@code input is name(args)}: a built-in filter or test applied to a value. */
  static final class BuiltinCall extends Expr {
    final boolean test;
    final Expr input;
    final String name;
    final List<Expr> args;
    final Map<String, Expr> kwargs;

    BuiltinCall(Token at, boolean test, Expr input, String name, List<Expr> args, Map<String, Expr> kwargs) {
      super(at);
      this.test = test;
      this.input = input;
      this.name = name;
      this.args = args;
      this.kwargs = kwargs;
    }

    @Override
    Object eval(Scope scope) {
      Object value = input.value(scope);
      List<Object> a = values(args, scope);
      Map<String, Object> k = values(kwargs, scope);
      return test ? Builtins.test(name, value, a, k) : Builtins.filter(name, value, a, k);
    }
  }

  static final class Unary extends Expr {
    final String op;
    final Expr operand;

    Unary(Token at, String op, Expr operand) {
      super(at);
      this.op = op;
      this.operand = operand;
    }

    @Override
    Object eval(Scope scope) {
      Object v = operand.value(scope);
      switch (op) {
        case "not":
          return !Values.truthy(v);
        case "-":
          return Values.negate(v);
        default:
          if (!Values.isNumber(v)) {
            Values.checkDefined(v);
            throw new EvalError("bad operand type for unary +: '" + Values.typeName(v) + "'");
          }
          return v instanceof Boolean ? Values.toLong(v) : v;
      }
    }
  }

  static final class Logical extends Expr {
    final boolean and;
    final Expr left;
    final Expr right;

    Logical(Token at, boolean and, Expr left, Expr right) {
      super(at);
      this.and = and;
      this.left = left;
      this.right = right;
    }

    @Override
    Object eval(Scope scope) {
      Object l = left.value(scope);
      if (Values.truthy(l) != and) {
        return l;
      }
      return right.value(scope);
    }
  }

  static final class Binary extends Expr {
    final String op;
    final Expr left;
    final Expr right;

    Binary(Token at, String op, Expr left, Expr right) {
      super(at);
      this.op = op;
      this.left = left;
      this.right = right;
    }

    @Override
    Object eval(Scope scope) {
      Object l = left.value(scope);
      Object r = right.value(scope);
      return Values.binary(op, l, r);
    }
  }

  static final class Concat extends Expr {
    final List<Expr> parts;

    Concat(Token at, List<Expr> parts) {
      super(at);
      this.parts = parts;
    }

    @Override
    Object eval(Scope scope) {
      List<String> strings = new ArrayList<>(parts.size());
      long length = 0;
      for (Expr p : parts) {
        String v = Values.str(p.value(scope));
        strings.add(v);
        length += v.length();
      }
      Render.checkString(length, "'~'");
      StringBuilder sb = new StringBuilder((int) length);
      strings.forEach(sb::append);
      return sb.toString();
    }
  }

  static final class Compare extends Expr {
    final Expr first;
    final List<String> ops;
    final List<Expr> rest;

    Compare(Token at, Expr first, List<String> ops, List<Expr> rest) {
      super(at);
      this.first = first;
      this.ops = ops;
      this.rest = rest;
    }

    @Override
    Object eval(Scope scope) {
      Object left = first.value(scope);
      for (int i = 0; i < ops.size(); i++) {
        Object right = rest.get(i).value(scope);
        if (!compare(ops.get(i), left, right)) {
          return false;
        }
        left = right;
      }
      return true;
    }

    private static boolean compare(String op, Object a, Object b) {
      switch (op) {
        case "==":
          return Values.eq(a, b);
        case "!=":
          return !Values.eq(a, b);
        case "<":
          return Values.compare(a, b, op) < 0;
        case "<=":
          return Values.compare(a, b, op) <= 0;
        case ">":
          return Values.compare(a, b, op) > 0;
        case ">=":
          return Values.compare(a, b, op) >= 0;
        case "in":
          return Values.contains(b, a);
        default:
          return !Values.contains(b, a);
      }
    }
  }

  static final class CondExpr extends Expr {
    final Expr test;
    final Expr then;
    final Expr otherwise;

    CondExpr(Token at, Expr test, Expr then, Expr otherwise) {
      super(at);
      this.test = test;
      this.then = then;
      this.otherwise = otherwise;
    }

    @Override
    Object eval(Scope scope) {
      if (Values.truthy(test.value(scope))) {
        return then.value(scope);
      }
      return otherwise == null ? new Undefined("the inline if expression had no else branch")
          : otherwise.value(scope);
    }
  }

  // ================================================================ statements

  /** A statement. */
  abstract static class Stmt extends Node {
    Stmt(Token at) {
      super(at);
    }

    abstract Flow render(Scope scope, StringBuilder out);
  }

  static Flow renderAll(List<Stmt> body, Scope scope, StringBuilder out) {
    for (Stmt s : body) {
      Flow f = s.render(scope, out);
      if (f != Flow.NORMAL) {
        return f;
      }
    }
    return Flow.NORMAL;
  }

  static final class Text extends Stmt {
    final String text;

    Text(Token at, String text) {
      super(at);
      this.text = text;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      out.append(text);
      checkOutput(out);
      return Flow.NORMAL;
    }
  }

  static final class Print extends Stmt {
    final Expr expr;

    Print(Token at, Expr expr) {
      super(at);
      this.expr = expr;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      String v = Values.str(expr.value(scope));
      long max = Render.limits().maxOutputChars();
      if ((long) out.length() + v.length() > max) {
        throw new TemplateLimitException("the rendered output would grow beyond " + max + " characters (limit "
            + "maxOutputChars = " + max + ")", line, column, "maxOutputChars", max);
      }
      out.append(v);
      return Flow.NORMAL;
    }
  }

  static final class If extends Stmt {
    final List<Expr> tests;
    final List<List<Stmt>> bodies;
    final List<Stmt> otherwise;

    If(Token at, List<Expr> tests, List<List<Stmt>> bodies, List<Stmt> otherwise) {
      super(at);
      this.tests = tests;
      this.bodies = bodies;
      this.otherwise = otherwise;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      for (int i = 0; i < tests.size(); i++) {
        if (Values.truthy(tests.get(i).value(scope))) {
          return renderAll(bodies.get(i), scope, out);
        }
      }
      return renderAll(otherwise, scope, out);
    }
  }

  /** An assignment target: one name, or several names to unpack a sequence into. */
  static final class Target extends Node {
    final List<String> names;
    final boolean unpack;

    Target(Token at, List<String> names, boolean unpack) {
      super(at);
      this.names = names;
      this.unpack = unpack;
    }

    void assign(Scope scope, Object value) {
      if (!unpack) {
        scope.set(names.get(0), value);
        return;
      }
      List<Object> items;
      try {
        items = Values.iterate(value);
      } catch (Render.LimitError e) {
        throw limit(e);
      } catch (EvalError e) {
        throw error("cannot unpack: " + e.getMessage());
      }
      if (items.size() != names.size()) {
        throw error((items.size() > names.size() ? "too many" : "not enough") + " values to unpack (expected "
            + names.size() + ", got " + items.size() + ")");
      }
      for (int i = 0; i < names.size(); i++) {
        scope.set(names.get(i), items.get(i));
      }
    }
  }

  static final class For extends Stmt {
    final Target target;
    final Expr iterable;
    final Expr filter;
    final List<Stmt> body;
    final List<Stmt> otherwise;

    For(Token at, Target target, Expr iterable, Expr filter, List<Stmt> body, List<Stmt> otherwise) {
      super(at);
      this.target = target;
      this.iterable = iterable;
      this.filter = filter;
      this.body = body;
      this.otherwise = otherwise;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      Object it = iterable.value(scope);
      List<Object> items;
      try {
        items = Values.iterate(it);
      } catch (Render.LimitError e) {
        throw limit(e);
      } catch (EvalError e) {
        throw error(e.getMessage());
      }
      if (filter != null) {
        List<Object> kept = new ArrayList<>();
        for (Object item : items) {
          iteration();
          Scope s = new Scope(scope);
          target.assign(s, item);
          if (Values.truthy(filter.value(s))) {
            kept.add(item);
          }
        }
        items = kept;
      }
      if (items.isEmpty()) {
        renderAll(otherwise, new Scope(scope), out);
        return Flow.NORMAL;
      }
      Object[] changed = {Undefined.PLAIN};
      for (int i = 0; i < items.size(); i++) {
        iteration();
        Scope s = new Scope(scope);
        target.assign(s, items.get(i));
        s.set("loop", new LoopInfo(items, i, changed));
        if (renderAll(body, s, out) == Flow.BREAK) {
          break;
        }
      }
      return Flow.NORMAL;
    }
  }

  static final class Set extends Stmt {
    final Target target;
    final Expr value;

    Set(Token at, Target target, Expr value) {
      super(at);
      this.target = target;
      this.value = value;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      target.assign(scope, value.value(scope));
      return Flow.NORMAL;
    }
  }

  static final class SetAttr extends Stmt {
    final String name;
    final String attr;
    final Expr value;

    SetAttr(Token at, String name, String attr, Expr value) {
      super(at);
      this.name = name;
      this.attr = attr;
      this.value = value;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      Object ns = scope.lookup(name);
      if (!(ns instanceof Namespace)) {
        throw error("cannot assign attribute '" + attr + "' on '" + name + "': only namespace() objects take "
            + "attribute assignments");
      }
      ((Namespace) ns).attrs.put(attr, value.value(scope));
      return Flow.NORMAL;
    }
  }

  static final class SetBlock extends Stmt {
    final Target target;
    final List<Stmt> body;

    SetBlock(Token at, Target target, List<Stmt> body) {
      super(at);
      this.target = target;
      this.body = body;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      StringBuilder sb = new StringBuilder();
      renderAll(body, scope, sb);
      target.assign(scope, sb.toString());
      return Flow.NORMAL;
    }
  }

  static final class Block extends Stmt {
    final List<Stmt> body;

    Block(Token at, List<Stmt> body) {
      super(at);
      this.body = body;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      return renderAll(body, scope, out);
    }
  }

  static final class LoopControl extends Stmt {
    final Flow flow;

    LoopControl(Token at, Flow flow) {
      super(at);
      this.flow = flow;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      return flow;
    }
  }

  static final class Macro extends Stmt {
    final String name;
    final List<String> params;
    final List<Expr> defaults;
    final List<Stmt> body;

    Macro(Token at, String name, List<String> params, List<Expr> defaults, List<Stmt> body) {
      super(at);
      this.name = name;
      this.params = params;
      this.defaults = defaults;
      this.body = body;
    }

    @Override
    Flow render(Scope scope, StringBuilder out) {
      scope.set(name, new JinjaCallable() {
        @Override
        public Object call(List<Object> args, Map<String, Object> kwargs) {
          return invoke(scope, args, kwargs);
        }

        @Override
        public String name() {
          return name;
        }
      });
      return Flow.NORMAL;
    }

    private Object invoke(Scope definition, List<Object> args, Map<String, Object> kwargs) {
      if (args.size() > params.size()) {
        throw new EvalError("macro '" + name + "' takes not more than " + params.size() + " argument(s)");
      }
      Scope s = new Scope(definition);
      for (String k : kwargs.keySet()) {
        int idx = params.indexOf(k);
        if (idx < 0) {
          throw new EvalError("macro '" + name + "' has no argument named '" + k + "'");
        }
        if (idx < args.size()) {
          throw new EvalError("macro '" + name + "' got multiple values for argument '" + k + "'");
        }
      }
      for (int i = 0; i < params.size(); i++) {
        String p = params.get(i);
        Object v;
        if (i < args.size()) {
          v = args.get(i);
        } else if (kwargs.containsKey(p)) {
          v = kwargs.get(p);
        } else if (defaults.get(i) != null) {
          v = defaults.get(i).value(s);
        } else {
          v = new Undefined("parameter '" + p + "' of macro '" + name + "' was not provided");
        }
        s.set(p, v);
      }
      Render r = Render.current();
      if (r != null) {
        r.enterMacro(name);
      }
      try {
        StringBuilder sb = new StringBuilder();
        renderAll(body, s, sb);
        return sb.toString();
      } finally {
        if (r != null) {
          r.exitMacro();
        }
      }
    }
  }
}
