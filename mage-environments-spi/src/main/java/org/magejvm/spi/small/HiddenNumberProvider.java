package org.magejvm.spi.small;

import java.util.Map;
import java.util.Objects;
import org.magejvm.api.annotation.Api;
import org.magejvm.spi.BaseEnvironmentProvider;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;

/**
 * The provider of a small guessing game whose one option is N, the range of the hidden number ({@link SizeOption}):
 * the base declares the option, reads and checks it, and creates the environment with {@link #newEnvironment(int)}.
 *
 * <pre>{@code
 * public final class GuessProvider extends HiddenNumberProvider<GuessEnvironment> {
 *   public GuessProvider() {
 *     super(settings("guess", "1.0.0")
 *         .setDefaults(smallGameDefaults().build())
 *         .addScriptedPolicy("random", RandomPolicy::new),
 *         new SizeOption("max", "the largest number", 7, 2, 64));
 *   }
 *
 *   protected GuessEnvironment newEnvironment(int max) {
 *     return new GuessEnvironment(max);
 *   }
 * }
 * }</pre>
 *
 * @param <E> the game's environment type
 */
@Api(status = Api.Status.EXPERIMENTAL)
public abstract class HiddenNumberProvider<E extends Environment> extends BaseEnvironmentProvider<E> {

  /**
   * The option that sets N.
   *
   * @param name the option's name ({@code spots})
   * @param what what N is, to start the option's description ({@code the number of spots})
   * @param defaultValue N without the option
   * @param min the smallest N accepted
   * @param max the largest N accepted
   */
  public record SizeOption(String name, String what, int defaultValue, int min, int max) {
    /**
     * Checks.
     *
     * @param name name
     * @param what description
     * @param defaultValue default
     * @param min smallest
     * @param max largest
     */
    public SizeOption {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(what, "what");
      if (min > max || defaultValue < min || defaultValue > max) {
        throw new IllegalArgumentException("option '" + name + "' needs min <= default <= max, got " + min + ", "
            + defaultValue + " and " + max);
      }
    }

    /** @return the option's description: {@code the number of spots, 2 to 64 (default 7)} */
    public String description() {
      return what + ", " + min + " to " + max + " (default " + defaultValue + ")";
    }

    /**
     * Reads N from the options.
     *
     * @param options the options, without this one for the default
     * @return N
     * @throws IllegalArgumentException naming the option when its value is not a whole number from min to max
     */
    public int read(Map<String, String> options) {
      String text = options.getOrDefault(name, Integer.toString(defaultValue));
      int n;
      try {
        n = Integer.parseInt(text.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("option '" + name + "' must be a whole number from " + min + " to " + max
            + ", got '" + text + "'");
      }
      if (n < min || n > max) {
        throw new IllegalArgumentException("option '" + name + "' must be from " + min + " to " + max + ", got " + n);
      }
      return n;
    }
  }

  private final SizeOption size;

  /**
   * @param settings what the provider reports, without the size option (the base declares it)
   * @param size the option that sets N
   */
  protected HiddenNumberProvider(Settings settings, SizeOption size) {
    super(settings.addOption(size.name(), size.description()));
    this.size = size;
  }

  /**
   * The reference settings of the small games: one answer per attempt (one turn), 3 attempts, the games' discounts
   * (0.95 between turns, 0.6 between attempts) and penalties (2 for an invalid answer, length coefficient 1), and
   * short answers (64 tokens).
   *
   * @return a builder with these values, to change some of them
   */
  public static EnvironmentDefaults.Builder smallGameDefaults() {
    return EnvironmentDefaults.builder()
        .setMaxTurns(1).setEpisodes(3).setStepGamma(0.95).setTrajGamma(0.6)
        .setInvalidPenalty(2.0).setLengthPenalty(1.0).setMaxResponseTokens(64);
  }

  /** @return the option that sets N */
  public final SizeOption sizeOption() {
    return size;
  }

  /**
   * @throws IllegalArgumentException naming the option when N is not a whole number in the option's range
   */
  @Override
  protected final E newEnvironment(Map<String, String> options) {
    return newEnvironment(size.read(options));
  }

  /**
   * Creates the game's environment.
   *
   * @param size N, within the option's range
   * @return a new environment, not yet reset
   */
  protected abstract E newEnvironment(int size);
}
