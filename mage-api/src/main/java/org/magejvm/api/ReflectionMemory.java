package org.magejvm.api;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.magejvm.api.annotation.Api;

/**
 * The reflections of one meta-episode, in order: entry j is the reflection written after episode j. Immutable;
 * {@link #append(String)} returns a new memory.
 */
@Api(status = Api.Status.STABLE)
public final class ReflectionMemory {

  /** The longest reflection kept, in characters; longer text is cut to this length by {@link #append(String)}. */
  public static final int MAX_CHARS = 2000;

  private static final ReflectionMemory EMPTY = new ReflectionMemory(ImmutableList.of());

  private final ImmutableList<String> reflections;

  private ReflectionMemory(ImmutableList<String> reflections) {
    this.reflections = reflections;
  }

  /** @return the memory with no reflections */
  public static ReflectionMemory empty() {
    return EMPTY;
  }

  /**
   * Builds a memory from reflections, each cut to {@link #MAX_CHARS}.
   *
   * @param reflections the reflections, in episode order
   * @return the memory
   */
  public static ReflectionMemory of(List<String> reflections) {
    ReflectionMemory m = EMPTY;
    for (String r : reflections) {
      m = m.append(r);
    }
    return m;
  }

  /**
   * Adds the reflection written after the next episode.
   *
   * @param reflection the reflection text (null is stored as empty); cut to {@link #MAX_CHARS} characters (one
   *     fewer when the cut would split a surrogate pair)
   * @return a new memory with the reflection appended
   */
  public ReflectionMemory append(String reflection) {
    String r = reflection == null ? "" : reflection;
    if (r.length() > MAX_CHARS) {
      // never split a surrogate pair: drop a dangling high surrogate at the cut
      int end = Character.isHighSurrogate(r.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
      r = r.substring(0, end);
    }
    return new ReflectionMemory(ImmutableList.<String>builder().addAll(reflections).add(r).build());
  }

  /**
   * @param episode the episode the reflection was written after
   * @return that reflection
   * @throws IndexOutOfBoundsException if no reflection was written after that episode
   */
  public String get(int episode) {
    return reflections.get(episode);
  }

  /** @return the number of reflections */
  public int size() {
    return reflections.size();
  }

  /** @return whether there are none */
  public boolean isEmpty() {
    return reflections.isEmpty();
  }

  /** @return the reflections in episode order */
  public List<String> asList() {
    return reflections;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ReflectionMemory && ((ReflectionMemory) o).reflections.equals(reflections);
  }

  @Override
  public int hashCode() {
    return reflections.hashCode();
  }

  @Override
  public String toString() {
    return "ReflectionMemory" + reflections;
  }
}
