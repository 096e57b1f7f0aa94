package org.magejvm.impl.jinja;

/**
 * The bookkeeping of one render against its {@link TemplateLimits}: iterations, open macro calls and the deadline.
 * The render in progress on a thread is reachable through {@link #current()}, so value operations deep in the
 * interpreter can check sizes before they allocate.
 */
final class Render {

  private static final ThreadLocal<Render> CURRENT = new ThreadLocal<>();
  /** Used when values are computed outside any render (tests of single operations). */
  private static final TemplateLimits OUTSIDE = TemplateLimits.defaults();

  final TemplateLimits limits;
  private final long deadline;
  private long iterations;
  private int macroDepth;
  private int ticks;

  private Render(TemplateLimits limits) {
    this.limits = limits;
    this.deadline = System.nanoTime() + limits.maxRenderMillis() * 1_000_000L;
  }

  /** Starts a render on this thread; the caller must {@link #end} it. */
  static Render begin(TemplateLimits limits) {
    Render r = new Render(limits);
    CURRENT.set(r);
    return r;
  }

  /** Makes an outer render current again (a template rendered from inside another's render). */
  static void restore(Render outer) {
    CURRENT.set(outer);
  }

  /** Ends the render on this thread. */
  static void end() {
    CURRENT.remove();
  }

  /** @return the limits of the render in progress, or the defaults outside a render */
  static TemplateLimits limits() {
    Render r = CURRENT.get();
    return r == null ? OUTSIDE : r.limits;
  }

  /** @return the render in progress on this thread, or null */
  static Render current() {
    return CURRENT.get();
  }

  /** Counts a loop iteration or macro call; checks the total and, now and then, the clock. */
  void iteration() {
    if (++iterations > limits.maxLoopIterations()) {
      throw new LimitError("more than " + limits.maxLoopIterations() + " loop iterations and macro calls in one "
          + "render", "maxLoopIterations", limits.maxLoopIterations());
    }
    tick();
  }

  /** Checks the clock every 256 calls. */
  void tick() {
    if ((++ticks & 255) == 0 && System.nanoTime() - deadline > 0) {
      throw new LimitError("rendering took longer than " + limits.maxRenderMillis() + " ms", "maxRenderMillis",
          limits.maxRenderMillis());
    }
  }

  void enterMacro(String name) {
    if (++macroDepth > limits.maxMacroDepth()) {
      macroDepth--;
      throw new LimitError("macro '" + name + "' called with " + limits.maxMacroDepth() + " macro calls already "
          + "open (runaway recursion?)", "maxMacroDepth", limits.maxMacroDepth());
    }
    iteration();
  }

  void exitMacro() {
    macroDepth--;
  }

  /**
   * Checks the length of a string about to be created.
   *
   * @param length its length in chars
   * @param what the operation, for the message
   */
  static void checkString(long length, String what) {
    long max = limits().maxStringChars();
    if (length > max || length < 0) {
      throw new LimitError(what + " would make a string of " + (length < 0 ? "more than 2^63" : length)
          + " characters, more than " + max, "maxStringChars", max);
    }
  }

  /**
   * Checks the size of a list about to be created.
   *
   * @param items its size
   * @param what the operation, for the message
   */
  static void checkList(long items, String what) {
    long max = limits().maxListItems();
    if (items > max || items < 0) {
      throw new LimitError(what + " would make a list of " + (items < 0 ? "more than 2^63" : items)
          + " items, more than " + max, "maxListItems", max);
    }
  }

  /** A limit exceeded where the template position is not known; expression nodes add it. */
  static final class LimitError extends EvalError {
    private static final long serialVersionUID = 1L;

    final String limit;
    final long value;

    LimitError(String message, String limit, long value) {
      super(message + " (limit " + limit + " = " + value + ")");
      this.limit = limit;
      this.value = value;
    }
  }
}
