package org.magejvm.impl.jinja;

/**
 * Bounds on what parsing and rendering one template may cost, because a chat template comes with a downloaded model
 * and is code we execute. Every limit, when exceeded, fails with a {@link TemplateLimitException} naming the
 * template, the limit and its value, before the work or the allocation it guards; nothing ends in a {@code
 * StackOverflowError}, an {@code OutOfMemoryError} or a hang.
 *
 * <p>The defaults are far above what real chat templates need (the largest published ones render a prompt in well
 * under a millisecond with loops of a few hundred iterations and nesting below 20) and low enough that a hostile
 * template is stopped within seconds and a few hundred MB:
 *
 * <table>
 *   <caption>Limits and defaults</caption>
 *   <tr><th>limit</th><th>default</th><th>bounds</th></tr>
 *   <tr><td>{@code maxRangeItems}</td><td>100,000</td><td>the items one {@code range()} call may produce (Jinja2's
 *       sandbox uses the same bound)</td></tr>
 *   <tr><td>{@code maxLoopIterations}</td><td>1,000,000</td><td>for-loop iterations (filter tests included) plus
 *       macro calls, in total over one render</td></tr>
 *   <tr><td>{@code maxMacroDepth}</td><td>100</td><td>macro calls open at once (recursion, mutual recursion)</td></tr>
 *   <tr><td>{@code maxNestingDepth}</td><td>100</td><td>syntactic nesting: each bracket, unary operator,
 *       {@code not}, chained conditional and block ({@code if}, {@code for}, ...) opens one level</td></tr>
 *   <tr><td>{@code maxOutputChars}</td><td>10,000,000</td><td>characters of rendered output (and of the output of one
 *       macro call or {@code set} block)</td></tr>
 *   <tr><td>{@code maxStringChars}</td><td>10,000,000</td><td>characters of any string the template creates
 *       ({@code *}, {@code +}, {@code ~}, filters and methods)</td></tr>
 *   <tr><td>{@code maxListItems}</td><td>1,000,000</td><td>items of any list the template creates, and characters
 *       of a string it iterates over</td></tr>
 *   <tr><td>{@code maxRenderMillis}</td><td>10,000</td><td>wall-clock time of one render (a backstop for what the
 *       counts above do not bound, such as filters over large lists called in loops)</td></tr>
 * </table>
 *
 * <p>Variables passed in by the caller (the messages) are not limited; what the template makes of them is.
 *
 * @param maxRangeItems most items of one {@code range()}
 * @param maxLoopIterations most loop iterations plus macro calls in one render
 * @param maxMacroDepth most macro calls open at once
 * @param maxNestingDepth deepest syntactic nesting
 * @param maxOutputChars longest output
 * @param maxStringChars longest string created
 * @param maxListItems longest list created
 * @param maxRenderMillis longest render, in milliseconds
 */
public record TemplateLimits(
    long maxRangeItems,
    long maxLoopIterations,
    int maxMacroDepth,
    int maxNestingDepth,
    long maxOutputChars,
    long maxStringChars,
    long maxListItems,
    long maxRenderMillis) {

  private static final TemplateLimits DEFAULTS =
      new TemplateLimits(100_000, 1_000_000, 100, 100, 10_000_000, 10_000_000, 1_000_000, 10_000);

  /**
   * Validates.
   *
   * @param maxRangeItems most items of one {@code range()}
   * @param maxLoopIterations most loop iterations plus macro calls in one render
   * @param maxMacroDepth most macro calls open at once
   * @param maxNestingDepth deepest syntactic nesting
   * @param maxOutputChars longest output
   * @param maxStringChars longest string created
   * @param maxListItems longest list created
   * @param maxRenderMillis longest render, in milliseconds
   * @throws IllegalArgumentException when a limit is not positive, or a length is beyond what a Java string or list
   *     can hold
   */
  public TemplateLimits {
    positive("maxRangeItems", maxRangeItems);
    positive("maxLoopIterations", maxLoopIterations);
    positive("maxMacroDepth", maxMacroDepth);
    positive("maxNestingDepth", maxNestingDepth);
    positive("maxOutputChars", maxOutputChars);
    positive("maxStringChars", maxStringChars);
    positive("maxListItems", maxListItems);
    positive("maxRenderMillis", maxRenderMillis);
    for (long v : new long[] {maxOutputChars, maxStringChars, maxListItems, maxRangeItems}) {
      if (v > Integer.MAX_VALUE - 16) {
        throw new IllegalArgumentException("string and list limits must be below 2^31 - 16, got " + v);
      }
    }
  }

  private static void positive(String name, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, got " + value);
    }
  }

  /** @return the defaults (see the class comment) */
  public static TemplateLimits defaults() {
    return DEFAULTS;
  }

  /**
   * @param n most items of one {@code range()}
   * @return a copy with that limit
   */
  public TemplateLimits withMaxRangeItems(long n) {
    return new TemplateLimits(n, maxLoopIterations, maxMacroDepth, maxNestingDepth, maxOutputChars, maxStringChars,
        maxListItems, maxRenderMillis);
  }

  /**
   * @param n most loop iterations plus macro calls in one render
   * @return a copy with that limit
   */
  public TemplateLimits withMaxLoopIterations(long n) {
    return new TemplateLimits(maxRangeItems, n, maxMacroDepth, maxNestingDepth, maxOutputChars, maxStringChars,
        maxListItems, maxRenderMillis);
  }

  /**
   * @param n most macro calls open at once
   * @return a copy with that limit
   */
  public TemplateLimits withMaxMacroDepth(int n) {
    return new TemplateLimits(maxRangeItems, maxLoopIterations, n, maxNestingDepth, maxOutputChars, maxStringChars,
        maxListItems, maxRenderMillis);
  }

  /**
   * @param n deepest syntactic nesting
   * @return a copy with that limit
   */
  public TemplateLimits withMaxNestingDepth(int n) {
    return new TemplateLimits(maxRangeItems, maxLoopIterations, maxMacroDepth, n, maxOutputChars, maxStringChars,
        maxListItems, maxRenderMillis);
  }

  /**
   * @param n longest output, in characters
   * @return a copy with that limit
   */
  public TemplateLimits withMaxOutputChars(long n) {
    return new TemplateLimits(maxRangeItems, maxLoopIterations, maxMacroDepth, maxNestingDepth, n, maxStringChars,
        maxListItems, maxRenderMillis);
  }

  /**
   * @param n longest string created, in characters
   * @return a copy with that limit
   */
  public TemplateLimits withMaxStringChars(long n) {
    return new TemplateLimits(maxRangeItems, maxLoopIterations, maxMacroDepth, maxNestingDepth, maxOutputChars, n,
        maxListItems, maxRenderMillis);
  }

  /**
   * @param n longest list created, in items
   * @return a copy with that limit
   */
  public TemplateLimits withMaxListItems(long n) {
    return new TemplateLimits(maxRangeItems, maxLoopIterations, maxMacroDepth, maxNestingDepth, maxOutputChars,
        maxStringChars, n, maxRenderMillis);
  }

  /**
   * @param millis longest render, in milliseconds
   * @return a copy with that limit
   */
  public TemplateLimits withMaxRenderMillis(long millis) {
    return new TemplateLimits(maxRangeItems, maxLoopIterations, maxMacroDepth, maxNestingDepth, maxOutputChars,
        maxStringChars, maxListItems, millis);
  }
}
