package org.magejvm.impl.jinja;

/**
 * One lexical token.
 *
 * @param type the kind of token
 * @param text the token's text (for data, the text after whitespace control; for strings, the decoded value)
 * @param line 1-based line of the token's start
 * @param column 1-based column of the token's start
 */
record Token(Type type, String text, int line, int column) {

  /** Token kinds. */
  enum Type {
    DATA, VAR_BEGIN, VAR_END, BLOCK_BEGIN, BLOCK_END, NAME, STRING, INTEGER, FLOAT, OPERATOR, EOF
  }

  boolean is(Type t, String s) {
    return type == t && text.equals(s);
  }

  boolean isOp(String s) {
    return is(Type.OPERATOR, s);
  }

  boolean isName(String s) {
    return is(Type.NAME, s);
  }

  /** @return a short description for error messages */
  String describe() {
    switch (type) {
      case EOF:
        return "end of template";
      case VAR_END:
        return "end of print statement '}}'";
      case BLOCK_END:
        return "end of statement block '%}'";
      case DATA:
        return "template text";
      case STRING:
        return "string literal";
      default:
        return "'" + text + "'";
    }
  }
}
