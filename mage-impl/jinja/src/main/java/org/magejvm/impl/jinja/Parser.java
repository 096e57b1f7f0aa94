package org.magejvm.impl.jinja;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.magejvm.impl.jinja.Ast.Expr;
import org.magejvm.impl.jinja.Ast.Stmt;
import org.magejvm.impl.jinja.Token.Type;

/** Recursive-descent parser with Jinja's operator precedence. */
final class Parser {

  /** Tags Jinja has but this interpreter does not. */
  private static final Set<String> UNSUPPORTED_TAGS = Set.of(
      "extends", "block", "include", "import", "from", "call", "filter", "with", "autoescape", "trans", "do",
      "pluralize");

  private final List<Token> tokens;
  private final int maxDepth;
  private int pos;
  private int loopDepth;
  private int depth;

  private Parser(List<Token> tokens, int maxDepth) {
    this.tokens = tokens;
    this.maxDepth = maxDepth;
  }

  static List<Stmt> parse(String source, TemplateLimits limits) {
    Parser p = new Parser(Lexer.tokenize(source), limits.maxNestingDepth());
    List<Stmt> body = p.parseBody(Set.of());
    if (p.cur().type() != Type.EOF) {
      throw p.error("unexpected " + p.cur().describe());
    }
    return body;
  }

  // ---------------------------------------------------------------- token helpers

  private Token cur() {
    return tokens.get(pos);
  }

  private Token peek(int ahead) {
    return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
  }

  private Token next() {
    Token t = tokens.get(pos);
    if (t.type() != Type.EOF) {
      pos++;
    }
    return t;
  }

  private TemplateException error(String message) {
    return error(message, cur());
  }

  private static TemplateException error(String message, Token at) {
    return new TemplateException(message, at.line(), at.column());
  }

  private boolean skipOp(String op) {
    if (cur().isOp(op)) {
      pos++;
      return true;
    }
    return false;
  }

  private boolean skipName(String name) {
    if (cur().isName(name)) {
      pos++;
      return true;
    }
    return false;
  }

  private Token expectOp(String op) {
    if (!cur().isOp(op)) {
      throw error("expected '" + op + "' but found " + cur().describe());
    }
    return next();
  }

  private String expectName(String what) {
    if (cur().type() != Type.NAME) {
      throw error("expected " + what + " but found " + cur().describe());
    }
    return next().text();
  }

  private void expectName(String name, String context) {
    if (!cur().isName(name)) {
      throw error("expected '" + name + "' " + context + " but found " + cur().describe());
    }
    next();
  }

  private void expectBlockEnd(String tag) {
    if (cur().type() != Type.BLOCK_END) {
      throw error("expected end of '" + tag + "' tag '%}' but found " + cur().describe());
    }
    next();
  }

  /** Opens a nesting level (see {@link TemplateLimits#maxNestingDepth()}); {@link #exit} closes it. */
  private void enter() {
    if (++depth > maxDepth) {
      Token at = cur();
      throw new TemplateLimitException("the template nests brackets, operators or blocks deeper than " + maxDepth
          + " levels (limit maxNestingDepth = " + maxDepth + ")", at.line(), at.column(), "maxNestingDepth",
          maxDepth);
    }
  }

  private void exit() {
    depth--;
  }

  // ---------------------------------------------------------------- statements

  /** Parses template content until one of the end tags (left unconsumed, after its BLOCK_BEGIN) or EOF. */
  private List<Stmt> parseBody(Set<String> endTags) {
    if (endTags.isEmpty()) {
      return parseBodyAt(endTags);
    }
    enter();
    try {
      return parseBodyAt(endTags);
    } finally {
      exit();
    }
  }

  private List<Stmt> parseBodyAt(Set<String> endTags) {
    List<Stmt> body = new ArrayList<>();
    while (true) {
      Token t = cur();
      switch (t.type()) {
        case DATA:
          next();
          body.add(new Ast.Text(t, t.text()));
          break;
        case VAR_BEGIN: {
          next();
          Expr e = parseTuple(true, false);
          if (cur().type() != Type.VAR_END) {
            throw error("expected end of print statement '}}' but found " + cur().describe());
          }
          next();
          body.add(new Ast.Print(t, e));
          break;
        }
        case BLOCK_BEGIN: {
          Token name = peek(1);
          if (name.type() == Type.NAME && endTags.contains(name.text())) {
            next();
            return body;
          }
          next();
          body.add(parseStatement());
          break;
        }
        case EOF:
          if (!endTags.isEmpty()) {
            throw error("unexpected end of template: expected one of " + new java.util.TreeSet<>(endTags)
                + " to close a block");
          }
          return body;
        default:
          throw error("unexpected " + t.describe());
      }
    }
  }

  private Stmt parseStatement() {
    Token t = cur();
    if (t.type() != Type.NAME) {
      throw error("expected a tag name after '{%' but found " + t.describe());
    }
    String tag = t.text();
    next();
    switch (tag) {
      case "if":
        return parseIf(t);
      case "for":
        return parseFor(t);
      case "set":
        return parseSet(t);
      case "macro":
        return parseMacro(t);
      case "break":
      case "continue":
        if (loopDepth == 0) {
          throw error("'" + tag + "' outside of a for loop", t);
        }
        expectBlockEnd(tag);
        return new Ast.LoopControl(t, tag.equals("break") ? Ast.Flow.BREAK : Ast.Flow.CONTINUE);
      case "generation": {
        expectBlockEnd(tag);
        List<Stmt> body = parseBody(Set.of("endgeneration"));
        next();
        expectBlockEnd("endgeneration");
        return new Ast.Block(t, body);
      }
      default:
        if (tag.startsWith("end") || tag.equals("elif") || tag.equals("else")) {
          throw error("unexpected tag '" + tag + "': there is no open block it belongs to", t);
        }
        if (UNSUPPORTED_TAGS.contains(tag)) {
          throw error("unsupported tag '" + tag + "' (chat templates may use if, for, set, macro, break, continue, "
              + "generation and raw)", t);
        }
        throw error("unknown tag '" + tag + "'", t);
    }
  }

  private Stmt parseIf(Token at) {
    List<Expr> tests = new ArrayList<>();
    List<List<Stmt>> bodies = new ArrayList<>();
    List<Stmt> otherwise = List.of();
    tests.add(parseTuple(false, false));
    expectBlockEnd("if");
    while (true) {
      bodies.add(parseBody(Set.of("elif", "else", "endif")));
      String tag = next().text();
      if (tag.equals("elif")) {
        tests.add(parseTuple(false, false));
        expectBlockEnd("elif");
      } else if (tag.equals("else")) {
        expectBlockEnd("else");
        otherwise = parseBody(Set.of("endif"));
        next();
        expectBlockEnd("endif");
        break;
      } else {
        expectBlockEnd("endif");
        break;
      }
    }
    return new Ast.If(at, tests, bodies, otherwise);
  }

  private Ast.Target parseTarget(String context) {
    Token at = cur();
    List<String> names = new ArrayList<>();
    boolean paren = skipOp("(");
    names.add(expectName("a variable name " + context));
    boolean unpack = paren;
    while (skipOp(",")) {
      unpack = true;
      if (cur().type() != Type.NAME) {
        break;
      }
      names.add(expectName("a variable name " + context));
    }
    if (paren) {
      expectOp(")");
    }
    return new Ast.Target(at, names, unpack);
  }

  private Stmt parseFor(Token at) {
    Ast.Target target = parseTarget("after 'for'");
    expectName("in", "in the for loop");
    Expr iter = parseTuple(false, false);
    Expr filter = null;
    if (skipName("if")) {
      filter = parseExpression(true);
    }
    if (cur().isName("recursive")) {
      throw error("unsupported: recursive for loops");
    }
    expectBlockEnd("for");
    loopDepth++;
    List<Stmt> body = parseBody(Set.of("else", "endfor"));
    loopDepth--;
    List<Stmt> otherwise = List.of();
    if (next().text().equals("else")) {
      expectBlockEnd("else");
      otherwise = parseBody(Set.of("endfor"));
      next();
    }
    expectBlockEnd("endfor");
    return new Ast.For(at, target, iter, filter, body, otherwise);
  }

  private Stmt parseSet(Token at) {
    if (cur().type() == Type.NAME && peek(1).isOp(".")) {
      String name = next().text();
      next();
      String attr = expectName("an attribute name after '.'");
      expectOp("=");
      Expr value = parseTuple(true, false);
      expectBlockEnd("set");
      return new Ast.SetAttr(at, name, attr, value);
    }
    Ast.Target target = parseTarget("after 'set'");
    if (skipOp("=")) {
      Expr value = parseTuple(true, false);
      expectBlockEnd("set");
      return new Ast.Set(at, target, value);
    }
    if (cur().isOp("|")) {
      throw error("unsupported: filters on a block set");
    }
    expectBlockEnd("set");
    List<Stmt> body = parseBody(Set.of("endset"));
    next();
    expectBlockEnd("endset");
    return new Ast.SetBlock(at, target, body);
  }

  private Stmt parseMacro(Token at) {
    String name = expectName("a macro name");
    expectOp("(");
    List<String> params = new ArrayList<>();
    List<Expr> defaults = new ArrayList<>();
    while (!cur().isOp(")")) {
      if (!params.isEmpty()) {
        expectOp(",");
        if (cur().isOp(")")) {
          break;
        }
      }
      params.add(expectName("a parameter name"));
      defaults.add(skipOp("=") ? parseExpression(true) : null);
    }
    expectOp(")");
    expectBlockEnd("macro");
    int savedDepth = loopDepth;
    loopDepth = 0;
    List<Stmt> body = parseBody(Set.of("endmacro"));
    loopDepth = savedDepth;
    next();
    if (cur().type() == Type.NAME) {
      next();
    }
    expectBlockEnd("endmacro");
    return new Ast.Macro(at, name, params, defaults, body);
  }

  // ---------------------------------------------------------------- expressions

  private boolean isTupleEnd() {
    Type t = cur().type();
    return t == Type.VAR_END || t == Type.BLOCK_END || t == Type.EOF || cur().isOp(")");
  }

  /**
   * Parses a comma-separated expression list; one item without a comma is returned as it is.
   *
   * @param withCondexpr whether the items may be inline if expressions
   * @param explicitParens whether this is inside parentheses (so {@code ()} is the empty tuple)
   */
  private Expr parseTuple(boolean withCondexpr, boolean explicitParens) {
    Token at = cur();
    List<Expr> items = new ArrayList<>();
    boolean isTuple = false;
    while (true) {
      if (!items.isEmpty()) {
        expectOp(",");
      }
      if (isTupleEnd() || (!withCondexpr && cur().isName("if") && !items.isEmpty())
          || (!withCondexpr && cur().isName("recursive"))) {
        break;
      }
      items.add(withCondexpr ? parseExpression(true) : parseOr());
      if (cur().isOp(",")) {
        isTuple = true;
      } else {
        break;
      }
    }
    if (!isTuple) {
      if (!items.isEmpty()) {
        return items.get(0);
      }
      if (!explicitParens) {
        throw error("expected an expression but found " + cur().describe());
      }
    }
    return new Ast.ListExpr(at, items, true);
  }

  private Expr parseExpression(boolean withCondexpr) {
    return withCondexpr ? parseCondexpr() : parseOr();
  }

  private Expr parseCondexpr() {
    Token at = cur();
    Expr expr = parseOr();
    while (skipName("if")) {
      Expr test = parseOr();
      Expr otherwise = null;
      if (skipName("else")) {
        enter();
        try {
          otherwise = parseCondexpr();
        } finally {
          exit();
        }
      }
      expr = new Ast.CondExpr(at, test, expr, otherwise);
    }
    return expr;
  }

  private Expr parseOr() {
    Expr left = parseAnd();
    while (cur().isName("or")) {
      Token at = next();
      left = new Ast.Logical(at, false, left, parseAnd());
    }
    return left;
  }

  private Expr parseAnd() {
    Expr left = parseNot();
    while (cur().isName("and")) {
      Token at = next();
      left = new Ast.Logical(at, true, left, parseNot());
    }
    return left;
  }

  private Expr parseNot() {
    if (cur().isName("not")) {
      Token at = next();
      enter();
      try {
        return new Ast.Unary(at, "not", parseNot());
      } finally {
        exit();
      }
    }
    return parseCompare();
  }

  private static final Set<String> COMPARE_OPS = Set.of("==", "!=", "<", "<=", ">", ">=");

  private Expr parseCompare() {
    Token at = cur();
    Expr first = parseMath1();
    List<String> ops = new ArrayList<>();
    List<Expr> rest = new ArrayList<>();
    while (true) {
      if (cur().type() == Type.OPERATOR && COMPARE_OPS.contains(cur().text())) {
        ops.add(next().text());
      } else if (cur().isName("in")) {
        next();
        ops.add("in");
      } else if (cur().isName("not") && peek(1).isName("in")) {
        next();
        next();
        ops.add("not in");
      } else {
        break;
      }
      rest.add(parseMath1());
    }
    return ops.isEmpty() ? first : new Ast.Compare(at, first, ops, rest);
  }

  private Expr parseMath1() {
    Expr left = parseConcat();
    while (cur().isOp("+") || cur().isOp("-")) {
      Token op = next();
      left = new Ast.Binary(op, op.text(), left, parseConcat());
    }
    return left;
  }

  private Expr parseConcat() {
    Token at = cur();
    List<Expr> parts = new ArrayList<>();
    parts.add(parseMath2());
    while (skipOp("~")) {
      parts.add(parseMath2());
    }
    return parts.size() == 1 ? parts.get(0) : new Ast.Concat(at, parts);
  }

  private Expr parseMath2() {
    Expr left = parsePow();
    while (cur().isOp("*") || cur().isOp("/") || cur().isOp("//") || cur().isOp("%")) {
      Token op = next();
      left = new Ast.Binary(op, op.text(), left, parsePow());
    }
    return left;
  }

  private Expr parsePow() {
    Expr left = parseUnary(true);
    while (cur().isOp("**")) {
      Token op = next();
      left = new Ast.Binary(op, "**", left, parseUnary(true));
    }
    return left;
  }

  private Expr parseUnary(boolean withFilter) {
    enter();
    try {
      return parseUnaryAt(withFilter);
    } finally {
      exit();
    }
  }

  private Expr parseUnaryAt(boolean withFilter) {
    Token at = cur();
    Expr node;
    if (skipOp("-")) {
      node = new Ast.Unary(at, "-", parseUnary(false));
    } else if (skipOp("+")) {
      node = new Ast.Unary(at, "+", parseUnary(false));
    } else {
      node = parsePrimary();
    }
    node = parsePostfix(node);
    if (withFilter) {
      node = parseFilterExpr(node);
    }
    return node;
  }

  private Expr parsePrimary() {
    Token t = cur();
    switch (t.type()) {
      case NAME:
        next();
        switch (t.text()) {
          case "true":
          case "True":
            return new Ast.Const(t, Boolean.TRUE);
          case "false":
          case "False":
            return new Ast.Const(t, Boolean.FALSE);
          case "none":
          case "None":
            return new Ast.Const(t, null);
          default:
            return new Ast.Name(t, t.text());
        }
      case STRING: {
        StringBuilder sb = new StringBuilder();
        while (cur().type() == Type.STRING) {
          sb.append(next().text());
        }
        return new Ast.Const(t, sb.toString());
      }
      case INTEGER:
        next();
        try {
          return new Ast.Const(t, Long.parseLong(t.text()));
        } catch (NumberFormatException e) {
          throw error("integer literal " + t.text() + " is too large", t);
        }
      case FLOAT:
        next();
        return new Ast.Const(t, Double.parseDouble(t.text()));
      case OPERATOR:
        if (skipOp("(")) {
          Expr e = parseTuple(true, true);
          expectOp(")");
          return e;
        }
        if (skipOp("[")) {
          List<Expr> items = new ArrayList<>();
          while (!cur().isOp("]")) {
            if (!items.isEmpty()) {
              expectOp(",");
              if (cur().isOp("]")) {
                break;
              }
            }
            items.add(parseExpression(true));
          }
          expectOp("]");
          return new Ast.ListExpr(t, items, false);
        }
        if (skipOp("{")) {
          List<Expr> keys = new ArrayList<>();
          List<Expr> vals = new ArrayList<>();
          while (!cur().isOp("}")) {
            if (!keys.isEmpty()) {
              expectOp(",");
              if (cur().isOp("}")) {
                break;
              }
            }
            keys.add(parseExpression(true));
            expectOp(":");
            vals.add(parseExpression(true));
          }
          expectOp("}");
          return new Ast.DictExpr(t, keys, vals);
        }
        throw error("unexpected " + t.describe() + " in an expression");
      default:
        throw error("unexpected " + t.describe() + " in an expression");
    }
  }

  private Expr parsePostfix(Expr node) {
    while (true) {
      Token t = cur();
      if (t.isOp(".")) {
        next();
        Token a = cur();
        if (a.type() == Type.NAME) {
          next();
          node = new Ast.GetAttr(t, node, a.text());
        } else if (a.type() == Type.INTEGER) {
          next();
          node = new Ast.GetItem(t, node, new Ast.Const(a, Long.parseLong(a.text())));
        } else {
          throw error("expected an attribute name after '.' but found " + a.describe());
        }
      } else if (t.isOp("[")) {
        next();
        node = parseSubscript(t, node);
      } else if (t.isOp("(")) {
        node = parseCall(node);
      } else {
        return node;
      }
    }
  }

  private Expr parseSubscript(Token at, Expr node) {
    Expr start = null;
    if (!cur().isOp(":")) {
      start = parseExpression(true);
      if (cur().isOp(",")) {
        throw error("unsupported: tuple subscripts such as x[a, b]");
      }
      if (skipOp("]")) {
        return new Ast.GetItem(at, node, start);
      }
    }
    expectOp(":");
    Expr stop = null;
    Expr step = null;
    if (!cur().isOp("]") && !cur().isOp(":")) {
      stop = parseExpression(true);
    }
    if (skipOp(":")) {
      if (!cur().isOp("]")) {
        step = parseExpression(true);
      }
    }
    expectOp("]");
    return new Ast.Slice(at, node, start, stop, step);
  }

  private Expr parseCall(Expr fn) {
    Token at = expectOp("(");
    List<Expr> args = new ArrayList<>();
    Map<String, Expr> kwargs = new LinkedHashMap<>();
    parseArgs(args, kwargs);
    return new Ast.Call(at, fn, args, kwargs);
  }

  /** Parses call arguments after '(' up to and including ')'. */
  private void parseArgs(List<Expr> args, Map<String, Expr> kwargs) {
    boolean first = true;
    while (!cur().isOp(")")) {
      if (!first) {
        expectOp(",");
        if (cur().isOp(")")) {
          break;
        }
      }
      first = false;
      if (cur().isOp("*") || cur().isOp("**")) {
        throw error("unsupported: *args and **kwargs in calls");
      }
      if (cur().type() == Type.NAME && peek(1).isOp("=")) {
        String k = next().text();
        next();
        if (kwargs.containsKey(k)) {
          throw error("keyword argument '" + k + "' repeated");
        }
        kwargs.put(k, parseExpression(true));
      } else {
        if (!kwargs.isEmpty()) {
          throw error("positional argument follows keyword argument");
        }
        args.add(parseExpression(true));
      }
    }
    expectOp(")");
  }

  private Expr parseFilterExpr(Expr node) {
    while (true) {
      if (cur().isOp("|")) {
        next();
        node = parseFilter(node);
      } else if (cur().isName("is")) {
        node = parseTest(node);
      } else if (cur().isOp("(")) {
        node = parseCall(node);
      } else {
        return node;
      }
    }
  }

  private String dottedName(String what) {
    StringBuilder name = new StringBuilder(expectName(what));
    while (cur().isOp(".") && peek(1).type() == Type.NAME) {
      next();
      name.append('.').append(next().text());
    }
    return name.toString();
  }

  private Expr parseFilter(Expr node) {
    Token at = cur();
    String name = dottedName("a filter name after '|'");
    if (!Builtins.hasFilter(name)) {
      throw error("unknown or unsupported filter '" + name + "'", at);
    }
    List<Expr> args = new ArrayList<>();
    Map<String, Expr> kwargs = new LinkedHashMap<>();
    if (skipOp("(")) {
      parseArgs(args, kwargs);
    }
    return new Ast.BuiltinCall(at, false, node, name, args, kwargs);
  }

  private static final Set<String> NOT_TEST_ARGS = Set.of("else", "or", "and");

  private Expr parseTest(Expr node) {
    Token at = next();
    boolean negated = skipName("not");
    Token nameTok = cur();
    String name;
    if (nameTok.type() == Type.OPERATOR && COMPARE_OPS.contains(nameTok.text())) {
      name = next().text();
    } else {
      name = dottedName("a test name after 'is'");
    }
    if (!Builtins.hasTest(name)) {
      throw error("unknown or unsupported test '" + name + "'", nameTok);
    }
    List<Expr> args = new ArrayList<>();
    Map<String, Expr> kwargs = new LinkedHashMap<>();
    Token c = cur();
    if (skipOp("(")) {
      parseArgs(args, kwargs);
    } else if ((c.type() == Type.NAME || c.type() == Type.STRING || c.type() == Type.INTEGER
        || c.type() == Type.FLOAT || c.isOp("(") || c.isOp("[") || c.isOp("{"))
        && !(c.type() == Type.NAME && NOT_TEST_ARGS.contains(c.text()))) {
      if (c.isName("is") || c.isName("if") || c.isName("in") || c.isName("not")) {
        return finishTest(at, node, name, args, kwargs, negated);
      }
      args.add(parsePostfix(parsePrimary()));
    }
    return finishTest(at, node, name, args, kwargs, negated);
  }

  private static Expr finishTest(Token at, Expr node, String name, List<Expr> args, Map<String, Expr> kwargs,
      boolean negated) {
    Expr test = new Ast.BuiltinCall(at, true, node, name, args, kwargs);
    return negated ? new Ast.Unary(at, "not", test) : test;
  }
}
