package org.magejvm.spi.small;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.BiFunction;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.util.SplitMix64;
import org.magejvm.spi.Environment;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.StepResult;

/**
 * One meta-episode of a small guessing game: the task seed draws a number from 1 to {@link #size()} ({@link
 * #draw(long, int)}), which stays hidden and the same in every attempt. Every attempt is one answer, a number from 1
 * to N: the game reads it ({@link #parse(String)}) and judges it against the hidden number ({@link #judge(int, int)})
 * into a {@link Feedback}. A winning answer wins the attempt (reward {@link #WIN_REWARD}, score 1), any other loses it
 * (reward 0, score 0); either way the attempt is over, and the feedback's {@link Feedback#text()} is the action as a
 * prompt's history lists it. An unreadable answer is invalid and changes nothing. {@link #restart()} starts the next
 * attempt with the same hidden number and keeps the feedback of the finished one among the earlier attempts, from
 * which {@link #state()} is made for scripted players.
 *
 * <p>A game supplies its words ({@link Terms}), how an answer is read and judged, the two observations ({@link
 * #question()} before the answer, {@link #answered(Feedback)} after it), its state ({@link #snapshot(List)}) and its
 * prompts ({@link #promptRenderer()}):
 *
 * <pre>{@code
 * final class Doors extends HiddenNumberEnvironment<Doors.Pick, List<Doors.Pick>> {
 *   record Pick(int door, int prize) implements Feedback {
 *     public boolean won() { return door == prize; }
 *     public String text() { return door + (won() ? " (found)" : " (empty)"); }
 *   }
 *   Doors() { super("doors", new Terms("doors", "prize", "attempt"), 5); }
 *   protected ParsedAction<Integer> parse(String response) { ... }
 *   protected Pick judge(int answer, int hidden) { return new Pick(answer, hidden); }
 *   protected String question() { return "Doors 1 to 5."; }
 *   protected String answered(Pick p) { return "Door " + p.door() + (p.won() ? ": the prize." : ": empty."); }
 *   protected List<Pick> snapshot(List<Pick> earlier) { return earlier; }
 *   public PromptRenderer promptRenderer() { return PROMPTS; }
 * }
 * }</pre>
 *
 * <p>Not thread-safe, as every {@link Environment}.
 *
 * @param <F> what one answer revealed
 * @param <S> the structured state scripted players read
 */
@Api(status = Api.Status.EXPERIMENTAL)
public abstract class HiddenNumberEnvironment<F extends HiddenNumberEnvironment.Feedback, S> implements Environment {

  /** The reward of a winning answer. */
  public static final double WIN_REWARD = 10.0;

  /** What one answer revealed: the action a prompt's history lists for it, and whether it won. */
  public interface Feedback {

    /** @return the answer as the history of earlier attempts shows it, with what it revealed */
    String text();

    /** @return whether the answer won its attempt */
    boolean won();
  }

  /**
   * The words the environment's messages use.
   *
   * @param size the name of N, as the constructor's message and {@link #toString()} write it ({@code spots})
   * @param hidden the name of the hidden number in {@link #toString()} ({@code striker})
   * @param attempt what one attempt is called when a step comes after its end ({@code penalty})
   */
  public record Terms(String size, String hidden, String attempt) {
    /**
     * Checks.
     *
     * @param size N's name
     * @param hidden the hidden number's name
     * @param attempt an attempt's name
     */
    public Terms {
      Objects.requireNonNull(size, "size");
      Objects.requireNonNull(hidden, "hidden");
      Objects.requireNonNull(attempt, "attempt");
    }
  }

  /**
   * What a deterministic player reached against every hidden number ({@link #playEveryNumber}), counted per attempt.
   *
   * @param wonAt for each attempt index, how many hidden numbers were found at that attempt
   * @param reached for each attempt index, how many hidden numbers had not been found before it
   */
  public record Tally(int[] wonAt, int[] reached) {}

  private final String id;
  private final Terms terms;
  private final int size;
  private final List<String> legal;
  private final List<F> earlier = new ArrayList<>();
  private int hidden;
  private F current;
  private boolean done;
  private boolean reset;

  /**
   * @param id the provider id, which messages name
   * @param terms the words of the messages
   * @param size N, at least 2: the hidden number and every answer are from 1 to N
   * @throws IllegalArgumentException naming {@link Terms#size()} when N is below 2
   */
  protected HiddenNumberEnvironment(String id, Terms terms, int size) {
    this.id = Objects.requireNonNull(id, "id");
    this.terms = Objects.requireNonNull(terms, "terms");
    if (size < 2) {
      throw new IllegalArgumentException(terms.size() + " must be >= 2, got " + size);
    }
    this.size = size;
    List<String> l = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      l.add(Integer.toString(i));
    }
    legal = List.copyOf(l);
  }

  /**
   * The hidden number a task seed draws: {@code 1 + new Random(seed).nextInt(size)}.
   *
   * @param seed the task seed
   * @param size N
   * @return a number from 1 to N
   */
  public static int draw(long seed, int size) {
    return 1 + new Random(seed).nextInt(size);
  }

  /**
   * Task seeds balanced over the hidden number, for evaluation sets on which every number is equally frequent (a
   * history-blind player then scores its exact ceiling on the set, not a number that depends on which numbers the
   * draw favoured). The candidates are {@code SplitMix64.nth(base, i) >>> 33} for i = 1, 2, ... ({@link
   * SplitMix64#nth}: non-negative seeds below 2^31, as rollouts' own task seeds), taken in order; each is kept while
   * its number ({@link #draw(long, int)}) still has room. The result lists the numbers round robin: the first kept
   * seed of number 1, of number 2, ..., of number {@code size}, then the second of each, and so on.
   *
   * @param base the base seed of the candidates
   * @param size N, at least 2
   * @param perNumber seeds per number, at least 1
   * @return {@code size * perNumber} task seeds
   * @throws IllegalArgumentException when a count is out of range
   */
  public static List<Long> balancedTaskSeeds(long base, int size, int perNumber) {
    if (size < 2 || perNumber < 1) {
      throw new IllegalArgumentException("a balanced set needs at least 2 numbers and 1 seed per number, got " + size
          + " numbers and " + perNumber);
    }
    List<List<Long>> byNumber = new ArrayList<>();
    for (int s = 0; s < size; s++) {
      byNumber.add(new ArrayList<>());
    }
    int full = 0;
    for (int i = 0; full < size; i++) {
      long seed = SplitMix64.nth(base, i + 1) >>> 33;
      List<Long> bucket = byNumber.get(draw(seed, size) - 1);
      if (bucket.size() < perNumber) {
        bucket.add(seed);
        if (bucket.size() == perNumber) {
          full++;
        }
      }
    }
    List<Long> out = new ArrayList<>(size * perNumber);
    for (int j = 0; j < perNumber; j++) {
      for (List<Long> bucket : byNumber) {
        out.add(bucket.get(j));
      }
    }
    return out;
  }

  /**
   * Reads an answer from a response.
   *
   * @param response the policy's full response text, possibly null
   * @return a number from 1 to {@link #size()}, or a failure with what was read and why it is no answer
   */
  protected abstract ParsedAction<Integer> parse(String response);

  /**
   * Judges an answer.
   *
   * @param answer the answer, from 1 to {@link #size()}
   * @param hidden the hidden number
   * @return what the answer revealed
   */
  protected abstract F judge(int answer, int hidden);

  /** @return the observation of an attempt not yet answered */
  protected abstract String question();

  /**
   * @param feedback what the attempt's answer revealed
   * @return the observation of an answered attempt
   */
  protected abstract String answered(F feedback);

  /**
   * The state a scripted player reads at the start of an attempt.
   *
   * @param earlier the feedback of the earlier attempts of the meta-episode, in order (unmodifiable; the snapshot
   *     may keep it)
   * @return an immutable snapshot
   */
  protected abstract S snapshot(List<F> earlier);

  @Override
  public final String id() {
    return id;
  }

  /** @return N: the hidden number and every answer are from 1 to N */
  public final int size() {
    return size;
  }

  /**
   * @return the hidden number (for tests and analysis)
   * @throws IllegalStateException if {@link #reset} was never called
   */
  public final int hidden() {
    requireReset();
    return hidden;
  }

  @Override
  public final String reset(long seed, Opponent opponent, Seat seat) {
    hidden = draw(seed, size);
    earlier.clear();
    current = null;
    done = false;
    reset = true;
    return observation();
  }

  @Override
  public final String restart() {
    requireReset();
    if (current != null) {
      earlier.add(current);
    }
    current = null;
    done = false;
    return observation();
  }

  @Override
  public final StepResult step(String response) {
    requireReset();
    if (done) {
      throw new IllegalStateException("this " + terms.attempt() + " of " + id + " is over; call restart() or"
          + " reset() before stepping again");
    }
    AnchorKey anchor = anchor();
    ParsedAction<Integer> parsed = parse(response);
    if (!parsed.ok()) {
      return StepResult.invalid(observation(), 0, anchor, parsed.text(), parsed.error());
    }
    current = judge(parsed.action(), hidden);
    done = true;
    boolean won = current.won();
    // the action as the history shows it carries what the answer revealed: earlier attempts are listed by it alone
    return StepResult.valid(observation(), anchor, current.text())
        .optReward(won ? WIN_REWARD : 0)
        .optScore(won ? 1 : 0)
        .optOutcome(won ? Outcome.WON : Outcome.LOST)
        .build();
  }

  @Override
  public final String observation() {
    requireReset();
    return current == null ? question() : answered(current);
  }

  @Override
  public final AnchorKey anchor() {
    return new AnchorKey(observation(), "");
  }

  /** @return "1" to "N" while the attempt waits for its answer, else none */
  @Override
  public final List<String> legalActions() {
    return done || !reset ? List.of() : legal;
  }

  /**
   * @return {@link #snapshot(List)} of the attempts finished before this one
   * @throws IllegalStateException if {@link #reset} was never called
   */
  @Override
  public final S state() {
    requireReset();
    return snapshot(List.copyOf(earlier));
  }

  @Override
  public final boolean isDone() {
    return done;
  }

  /**
   * Plays a deterministic player against every hidden number from 1 to N, with this game's {@link #judge} and {@link
   * #snapshot}, and counts its wins: the exact rates of the player when the hidden number is uniform. The environment
   * itself is not changed (it need not be reset).
   *
   * @param attempts K, at least 1: the attempts of each meta-episode
   * @param player the answer for the state at the start of an attempt and the attempt's index
   * @return for each attempt, the numbers it found and the numbers that reached it
   * @throws IllegalArgumentException if {@code attempts} is below 1
   */
  public final Tally playEveryNumber(int attempts, BiFunction<? super S, Integer, Integer> player) {
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be >= 1, got " + attempts);
    }
    int[] wonAt = new int[attempts];
    int[] reached = new int[attempts];
    for (int h = 1; h <= size; h++) {
      List<F> seen = new ArrayList<>();
      for (int k = 0; k < attempts; k++) {
        reached[k]++;
        F feedback = judge(player.apply(snapshot(List.copyOf(seen)), k), h);
        if (feedback.won()) {
          wonAt[k]++;
          break;
        }
        seen.add(feedback);
      }
    }
    return new Tally(wonAt, reached);
  }

  private void requireReset() {
    if (!reset) {
      throw new IllegalStateException(id + ": reset() was never called");
    }
  }

  /** @return the id, N and, once reset, the hidden number: {@code mage-goalkeeper(spots 7, striker 3)} */
  @Override
  public String toString() {
    return id + "(" + terms.size() + " " + size + (reset ? ", " + terms.hidden() + " " + hidden : "") + ")";
  }
}
