package org.magejvm.impl.agentgym;

/**
 * The task indices an AgentGym environment draws from, {@code first..last} inclusive; a task seed picks index
 * {@code first + floorMod(seed, count)}, so the same seed always replays the same task.
 *
 * @param first the first index
 * @param last the last index, at least {@code first}
 */
public record TaskRange(int first, int last) {

  /**
   * Validates.
   *
   * @param first first index
   * @param last last index
   */
  public TaskRange {
    if (first < 0 || last < first) {
      throw new IllegalArgumentException("a task range needs 0 <= first <= last, got " + first + "-" + last);
    }
  }

  /**
   * Parses {@code A-B} or a single index {@code A}.
   *
   * @param text the text
   * @param envId the environment, for messages
   * @return the range
   * @throws IllegalArgumentException naming option {@code tasks} when the text is malformed
   */
  public static TaskRange parse(String text, String envId) {
    String t = text == null ? "" : text.trim();
    try {
      int dash = t.indexOf('-');
      if (dash < 0) {
        int i = Integer.parseInt(t);
        return new TaskRange(i, i);
      }
      return new TaskRange(Integer.parseInt(t.substring(0, dash).trim()), Integer.parseInt(t.substring(dash + 1)
          .trim()));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("option 'tasks' of environment '" + envId
          + "' must be FIRST-LAST (task indices, 0 <= FIRST <= LAST) or one index, got '" + text + "'", e);
    }
  }

  /** @return how many tasks the range holds */
  public long count() {
    return (long) last - first + 1;
  }

  /**
   * @param seed a task seed
   * @return the task index it picks
   */
  public int pick(long seed) {
    return (int) (first + Math.floorMod(seed, count()));
  }

  @Override
  public String toString() {
    return first + "-" + last;
  }
}
