package org.magejvm.impl.jinja;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * Splits a template into tokens, applying whitespace control the way Jinja does with {@code trim_blocks=True},
 * {@code lstrip_blocks=True} and {@code keep_trailing_newline=False}.
 *
 * <ul>
 *   <li>{@code {%-}, {@code {{-}, {@code {#-} remove all whitespace before the tag; {@code -%}}, {@code -}}},
 *       {@code -#}} remove all whitespace after it.
 *   <li>trim_blocks: the first newline after a block or comment tag is removed (not after {@code +%}}).
 *   <li>lstrip_blocks: spaces and tabs between the start of a line and a block or comment tag are removed (not for
 *       {@code {%+} and not for print tags).
 *   <li>Line breaks are normalised to {@code \n} and one trailing newline of the template is dropped.
 * </ul>
 */
final class Lexer {

  private static final String[] OPERATORS = {
    "//", "**", "==", "!=", ">=", "<=", "+", "-", "/", "*", "%", "~", "[", "]", "(", ")", "{", "}", ">", "<",
    "=", ".", ":", "|", ",", ";"
  };

  private final String src;
  private final int[] lineStarts;
  private final List<Token> tokens = new ArrayList<>();
  private int pos;
  private boolean lineStarting = true;

  private Lexer(String source) {
    String s = source.replace("\r\n", "\n").replace('\r', '\n');
    if (s.endsWith("\n")) {
      s = s.substring(0, s.length() - 1);
    }
    this.src = s;
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == '\n') {
        starts.add(i + 1);
      }
    }
    this.lineStarts = starts.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Tokenises a template.
   *
   * @param source the template source
   * @return the tokens, ending with an EOF token
   */
  static List<Token> tokenize(String source) {
    Lexer lexer = new Lexer(source);
    lexer.run();
    return lexer.tokens;
  }

  private int lineOf(int index) {
    int i = Arrays.binarySearch(lineStarts, index);
    return i >= 0 ? i + 1 : -i - 1;
  }

  private int columnOf(int index) {
    return index - lineStarts[lineOf(index) - 1] + 1;
  }

  private TemplateException error(String message, int index) {
    return new TemplateException(message, lineOf(index), columnOf(index));
  }

  private void add(Token.Type type, String text, int index) {
    tokens.add(new Token(type, text, lineOf(index), columnOf(index)));
  }

  private void run() {
    int n = src.length();
    while (pos < n) {
      int tag = findTagStart(pos);
      if (tag < 0) {
        add(Token.Type.DATA, src.substring(pos), pos);
        pos = n;
        break;
      }
      char kind = src.charAt(tag + 1);
      char sign = tag + 2 < n ? src.charAt(tag + 2) : 0;
      if (sign != '-' && sign != '+') {
        sign = 0;
      }
      String text = src.substring(pos, tag);
      text = applyLeftStrip(text, sign, kind != '{');
      if (!text.isEmpty()) {
        add(Token.Type.DATA, text, pos);
      }
      int inner = tag + 2 + (sign == 0 ? 0 : 1);
      lineStarting = false;
      if (kind == '#') {
        lexComment(tag, inner);
      } else if (kind == '%' && tryRaw(tag, inner)) {
        continue;
      } else {
        lexTag(tag, inner, kind == '%');
      }
    }
    add(Token.Type.EOF, "", n);
  }

  private int findTagStart(int from) {
    int i = from;
    while (true) {
      int j = src.indexOf('{', i);
      if (j < 0 || j + 1 >= src.length()) {
        return -1;
      }
      char c = src.charAt(j + 1);
      if (c == '{' || c == '%' || c == '#') {
        return j;
      }
      i = j + 1;
    }
  }

  /** Applies {@code -} stripping or lstrip_blocks to the text before a tag. */
  private String applyLeftStrip(String text, char sign, boolean blockLike) {
    if (sign == '-') {
      return Values.rstrip(text, null);
    }
    if (sign != '+' && blockLike) {
      int lpos = text.lastIndexOf('\n') + 1;
      if (lpos > 0 || lineStarting) {
        String tail = text.substring(lpos);
        if (!tail.isEmpty() && Values.isAllSpace(tail)) {
          return text.substring(0, lpos);
        }
      }
    }
    return text;
  }

  private void lexComment(int tag, int inner) {
    int end = src.indexOf("#}", inner);
    if (end < 0) {
      throw error("missing end of comment tag '#}'", tag);
    }
    char before = end > inner ? src.charAt(end - 1) : 0;
    pos = end + 2;
    if (before == '-') {
      skipWhitespace();
    } else if (before != '+') {
      skipOneNewline();
    }
    lineStarting = pos > 0 && src.charAt(pos - 1) == '\n' && pos > end + 2;
  }

  private void skipWhitespace() {
    while (pos < src.length() && Values.isSpace(src.charAt(pos))) {
      pos++;
    }
  }

  private void skipOneNewline() {
    if (pos < src.length() && src.charAt(pos) == '\n') {
      pos++;
    }
  }

  /** Handles {@code {% raw %}...{% endraw %}}; returns false when the block tag is not {@code raw}. */
  private boolean tryRaw(int tag, int inner) {
    int i = inner;
    while (i < src.length() && Values.isSpace(src.charAt(i))) {
      i++;
    }
    if (!src.startsWith("raw", i)) {
      return false;
    }
    int j = i + 3;
    while (j < src.length() && Values.isSpace(src.charAt(j))) {
      j++;
    }
    boolean stripAfter = false;
    if (src.startsWith("-%}", j)) {
      stripAfter = true;
      j += 3;
    } else if (src.startsWith("%}", j)) {
      j += 2;
    } else {
      return false;
    }
    pos = j;
    if (stripAfter) {
      skipWhitespace();
    }
    lineStarting = pos > 0 && src.charAt(pos - 1) == '\n';
    int search = pos;
    while (true) {
      int k = src.indexOf("{%", search);
      if (k < 0) {
        throw error("missing end of raw block '{% endraw %}'", tag);
      }
      int m = k + 2;
      char sign = m < src.length() ? src.charAt(m) : 0;
      if (sign == '-' || sign == '+') {
        m++;
      } else {
        sign = 0;
      }
      while (m < src.length() && Values.isSpace(src.charAt(m))) {
        m++;
      }
      if (src.startsWith("endraw", m)) {
        int e = m + 6;
        while (e < src.length() && Values.isSpace(src.charAt(e))) {
          e++;
        }
        int after;
        int mode;
        if (src.startsWith("+%}", e)) {
          after = e + 3;
          mode = 0;
        } else if (src.startsWith("-%}", e)) {
          after = e + 3;
          mode = 1;
        } else if (src.startsWith("%}", e)) {
          after = e + 2;
          mode = 2;
        } else {
          search = k + 2;
          continue;
        }
        String body = applyLeftStrip(src.substring(pos, k), sign, true);
        if (!body.isEmpty()) {
          add(Token.Type.DATA, body, pos);
        }
        pos = after;
        int before = pos;
        if (mode == 1) {
          skipWhitespace();
        } else if (mode == 2) {
          skipOneNewline();
        }
        lineStarting = pos > before ? src.charAt(pos - 1) == '\n' : false;
        return true;
      }
      search = k + 2;
    }
  }

  private void lexTag(int tag, int inner, boolean block) {
    add(block ? Token.Type.BLOCK_BEGIN : Token.Type.VAR_BEGIN, src.substring(tag, inner), tag);
    pos = inner;
    Deque<Character> brackets = new ArrayDeque<>();
    int n = src.length();
    while (true) {
      if (pos >= n) {
        throw error(block ? "missing end of statement block '%}'" : "missing end of print statement '}}'", tag);
      }
      if (brackets.isEmpty() && tryTagEnd(block)) {
        return;
      }
      char c = src.charAt(pos);
      if (Values.isSpace(c)) {
        pos++;
        continue;
      }
      int start = pos;
      if (c == '\'' || c == '"') {
        add(Token.Type.STRING, lexString(c), start);
      } else if (Character.isDigit(c)) {
        lexNumber(start);
      } else if (c == '_' || Character.isLetter(c)) {
        while (pos < n && (src.charAt(pos) == '_' || Character.isLetterOrDigit(src.charAt(pos)))) {
          pos++;
        }
        add(Token.Type.NAME, src.substring(start, pos), start);
      } else {
        String op = null;
        for (String o : OPERATORS) {
          if (src.startsWith(o, pos)) {
            op = o;
            break;
          }
        }
        if (op == null) {
          throw error("unexpected character '" + c + "' inside a tag", pos);
        }
        if (op.equals("(") || op.equals("[") || op.equals("{")) {
          brackets.push(op.equals("(") ? ')' : op.equals("[") ? ']' : '}');
        } else if (op.equals(")") || op.equals("]") || op.equals("}")) {
          if (brackets.isEmpty()) {
            throw error("unexpected '" + op + "'", pos);
          }
          char expected = brackets.pop();
          if (expected != op.charAt(0)) {
            throw error("unexpected '" + op + "', expected '" + expected + "'", pos);
          }
        }
        pos += op.length();
        add(Token.Type.OPERATOR, op, start);
      }
    }
  }

  private boolean tryTagEnd(boolean block) {
    int start = pos;
    if (block) {
      if (src.startsWith("+%}", pos)) {
        pos += 3;
      } else if (src.startsWith("-%}", pos)) {
        pos += 3;
        skipWhitespace();
      } else if (src.startsWith("%}", pos)) {
        pos += 2;
        skipOneNewline();
      } else {
        return false;
      }
      add(Token.Type.BLOCK_END, "%}", start);
    } else {
      if (src.startsWith("-}}", pos)) {
        pos += 3;
        skipWhitespace();
      } else if (src.startsWith("}}", pos)) {
        pos += 2;
      } else {
        return false;
      }
      add(Token.Type.VAR_END, "}}", start);
    }
    lineStarting = src.charAt(pos - 1) == '\n';
    return true;
  }

  private void lexNumber(int start) {
    int n = src.length();
    scanDigits();
    boolean isFloat = false;
    if (pos + 1 < n && src.charAt(pos) == '.' && Character.isDigit(src.charAt(pos + 1))
        && !(start > 0 && src.charAt(start - 1) == '.')) {
      isFloat = true;
      pos++;
      scanDigits();
    }
    if (pos < n && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
      int save = pos;
      pos++;
      if (pos < n && (src.charAt(pos) == '+' || src.charAt(pos) == '-')) {
        pos++;
      }
      if (pos < n && Character.isDigit(src.charAt(pos))) {
        scanDigits();
        isFloat = true;
      } else {
        pos = save;
      }
    }
    String text = src.substring(start, pos).replace("_", "");
    add(isFloat ? Token.Type.FLOAT : Token.Type.INTEGER, text, start);
  }

  private void scanDigits() {
    int n = src.length();
    while (pos < n && (Character.isDigit(src.charAt(pos))
        || (src.charAt(pos) == '_' && pos + 1 < n && Character.isDigit(src.charAt(pos + 1))))) {
      pos++;
    }
  }

  /** Reads a quoted string and decodes Python escape sequences. */
  private String lexString(char quote) {
    int start = pos;
    pos++;
    StringBuilder sb = new StringBuilder();
    int n = src.length();
    while (true) {
      if (pos >= n) {
        throw error("unterminated string literal", start);
      }
      char c = src.charAt(pos);
      if (c == quote) {
        pos++;
        return sb.toString();
      }
      if (c != '\\') {
        sb.append(c);
        pos++;
        continue;
      }
      if (pos + 1 >= n) {
        throw error("unterminated string literal", start);
      }
      char e = src.charAt(pos + 1);
      pos += 2;
      switch (e) {
        case '\n':
          break;
        case '\\':
          sb.append('\\');
          break;
        case '\'':
          sb.append('\'');
          break;
        case '"':
          sb.append('"');
          break;
        case 'n':
          sb.append('\n');
          break;
        case 't':
          sb.append('\t');
          break;
        case 'r':
          sb.append('\r');
          break;
        case 'b':
          sb.append('\b');
          break;
        case 'f':
          sb.append('\f');
          break;
        case 'v':
          sb.append('\u000b');
          break;
        case 'a':
          sb.append('\u0007');
          break;
        case 'x':
          sb.appendCodePoint(hexEscape(2, start));
          break;
        case 'u':
          sb.appendCodePoint(hexEscape(4, start));
          break;
        case 'U':
          sb.appendCodePoint(hexEscape(8, start));
          break;
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            int k = 1;
            while (k < 3 && pos < n && src.charAt(pos) >= '0' && src.charAt(pos) <= '7') {
              v = v * 8 + (src.charAt(pos++) - '0');
              k++;
            }
            sb.appendCodePoint(v);
          } else {
            sb.append('\\').append(e);
          }
      }
    }
  }

  private int hexEscape(int digits, int start) {
    if (pos + digits > src.length()) {
      throw error("truncated \\x, \\u or \\U escape in string literal", start);
    }
    String hex = src.substring(pos, pos + digits);
    try {
      int v = Integer.parseUnsignedInt(hex, 16);
      if (v > Character.MAX_CODE_POINT) {
        throw error("escape \\U" + hex + " is not a valid code point", start);
      }
      pos += digits;
      return v;
    } catch (NumberFormatException ex) {
      throw error("malformed escape '" + hex + "' in string literal", start);
    }
  }
}
