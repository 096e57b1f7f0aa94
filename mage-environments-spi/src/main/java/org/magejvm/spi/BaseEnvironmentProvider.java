package org.magejvm.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongFunction;
import org.magejvm.api.annotation.Api;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;

/**
 * An {@link EnvironmentProvider} that does the bookkeeping every game repeats: it answers the descriptive methods
 * from {@link Settings} given once to the constructor, rejects unknown options in {@link #create(Map)} before the
 * game sees them, and looks scripted policies up by name, naming the known ones when a name is unknown. A game then
 * writes one constructor and {@link #newEnvironment(Map)}:
 *
 * <pre>{@code
 * public final class CoinGameProvider extends BaseEnvironmentProvider<CoinGame> {
 *   public CoinGameProvider() {   // ServiceLoader needs a public no-argument constructor
 *     super(settings("coin-game", "1.0.0")
 *         .optDescription("take coins from either end of a row")
 *         .setDefaults(DEFAULTS)
 *         .optOpponents(POOL)
 *         .optEvaluationOpponent("greedy")
 *         .addOption("coins", "coins in the row, 4 to 20 (default 8)")
 *         .addScriptedPolicy("random", RandomPolicy::new)
 *         .addScriptedPolicy("greedy", GreedyPolicy::new));
 *   }
 *
 *   @Override
 *   protected CoinGame newEnvironment(Map<String, String> options) {
 *     return new CoinGame(Integer.parseInt(options.getOrDefault("coins", "8")));
 *   }
 * }
 * }</pre>
 *
 * <p>Instances are as thread-safe as {@link #newEnvironment(Map)}: everything else is immutable.
 *
 * @param <E> the game's environment type, so that {@link #create(Map)} returns it
 */
@Api(status = Api.Status.EXPERIMENTAL)
public abstract class BaseEnvironmentProvider<E extends Environment> implements EnvironmentProvider {

  private final String id;
  private final String version;
  private final String description;
  private final EnvironmentDefaults defaults;
  private final OpponentPool opponents;
  private final String evaluationOpponent;
  private final List<String> validationOpponents;
  private final Seat evaluationSeat;
  private final Map<String, String> options;
  private final Map<String, LongFunction<? extends LanguagePolicy>> policies;
  private final List<String> policyNames;
  private final String formatPolicy;

  /**
   * @param settings what the provider reports
   * @throws IllegalArgumentException if the defaults are missing, there is no {@code random} scripted policy, or the
   *     evaluation opponent is not in the pool
   */
  protected BaseEnvironmentProvider(Settings settings) {
    Objects.requireNonNull(settings, "settings");
    this.id = settings.id;
    this.version = settings.version;
    this.description = settings.description;
    if (settings.defaults == null) {
      throw new IllegalArgumentException("environment provider '" + id + "' has no defaults (setDefaults)");
    }
    this.defaults = settings.defaults;
    this.opponents = settings.opponents;
    this.evaluationOpponent = settings.evaluationOpponent;
    this.evaluationSeat = settings.evaluationSeat;
    if (!evaluationOpponent.isEmpty() && opponents.find(evaluationOpponent).isEmpty()) {
      throw new IllegalArgumentException("the evaluation opponent '" + evaluationOpponent + "' of environment '" + id
          + "' is not in its opponent pool " + opponents.ids());
    }
    List<String> validation = new ArrayList<>();
    if (!evaluationOpponent.isEmpty()) {
      validation.add(evaluationOpponent);
    }
    for (String v : settings.validationOpponents) {
      if (opponents.find(v).isEmpty()) {
        throw new IllegalArgumentException("the validation opponent '" + v + "' of environment '" + id
            + "' is not in its opponent pool " + opponents.ids());
      }
      if (validation.contains(v)) {
        throw new IllegalArgumentException("the validation opponent '" + v + "' of environment '" + id
            + "' is named twice (the evaluation opponent is always validated against)");
      }
      validation.add(v);
    }
    this.validationOpponents = List.copyOf(validation);
    this.options = Collections.unmodifiableMap(new LinkedHashMap<>(settings.options));
    this.policies = Map.copyOf(settings.policies);
    this.policyNames = List.copyOf(settings.policies.keySet());
    if (!policies.containsKey("random")) {
      throw new IllegalArgumentException("environment '" + id + "' must offer the scripted policy 'random' (every"
          + " game does; RandomPolicy::new plays uniformly among the legal actions), got " + policyNames);
    }
    formatPolicy = settings.formatPolicy;
    if (!policies.containsKey(formatPolicy)) {
      throw new IllegalArgumentException("environment '" + id + "' names '" + formatPolicy + "' as its format"
          + " policy, which is not among its scripted policies " + policyNames);
    }
  }

  /**
   * Starts the settings of a provider.
   *
   * @param id the provider id (checked by the registry: lower case, {@code mage-} reserved for built-in games)
   * @param version the provider's version
   * @return the settings, to fill in and pass to the constructor
   */
  protected static Settings settings(String id, String version) {
    return new Settings(id, version);
  }

  /**
   * Creates the game's environment once the options have been checked.
   *
   * @param options the options, every key one of {@link #options()}; empty for the defaults
   * @return a new environment, not yet reset
   * @throws IllegalArgumentException naming the option when a value is malformed
   */
  protected abstract E newEnvironment(Map<String, String> options);

  @Override
  public final String id() {
    return id;
  }

  @Override
  public final String version() {
    return version;
  }

  @Override
  public final String description() {
    return description;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException naming the option and the known ones when an option is unknown, or naming the
   *     option when its value is malformed
   */
  @Override
  public final E create(Map<String, String> options) {
    Map<String, String> given = options == null ? Map.of() : options;
    for (Map.Entry<String, String> e : given.entrySet()) {
      if (e.getKey() == null || !this.options.containsKey(e.getKey())) {
        throw new IllegalArgumentException("unknown option '" + e.getKey() + "' (value '" + e.getValue()
            + "') for environment '" + id + "'"
            + (this.options.isEmpty() ? ": it takes no options" : "; known options: " + this.options.keySet()));
      }
      if (e.getValue() == null) {
        throw new IllegalArgumentException("option '" + e.getKey() + "' of environment '" + id + "' has no value");
      }
    }
    E environment = newEnvironment(Collections.unmodifiableMap(new LinkedHashMap<>(given)));
    if (environment == null) {
      throw new IllegalStateException(getClass().getName() + ".newEnvironment returned null");
    }
    return environment;
  }

  @Override
  public final Map<String, String> options() {
    return options;
  }

  @Override
  public final EnvironmentDefaults defaults() {
    return defaults;
  }

  @Override
  public final OpponentPool opponents() {
    return opponents;
  }

  @Override
  public final String evaluationOpponent() {
    return evaluationOpponent;
  }

  @Override
  public final List<String> validationOpponents() {
    return validationOpponents;
  }

  @Override
  public final Seat evaluationSeat() {
    return evaluationSeat;
  }

  @Override
  public final List<String> scriptedPolicies() {
    return policyNames;
  }

  @Override
  public final String formatPolicy() {
    return formatPolicy;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException naming the known policies when the name is unknown
   */
  @Override
  public final LanguagePolicy scriptedPolicy(String name, long seed) {
    LongFunction<? extends LanguagePolicy> factory = name == null ? null : policies.get(name);
    if (factory == null) {
      throw new IllegalArgumentException("unknown scripted policy '" + name + "' for environment '" + id
          + "'; known policies: " + String.join(", ", policyNames));
    }
    return factory.apply(seed);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + id + " " + version + "]";
  }

  /**
   * What a {@link BaseEnvironmentProvider} reports. {@code set*} for the required values, {@code opt*} and {@code
   * add*} for the rest; the options and scripted policies keep the order they were added in.
   */
  public static final class Settings {
    private final String id;
    private final String version;
    private String description = "";
    private EnvironmentDefaults defaults;
    private OpponentPool opponents = OpponentPool.builder().build();
    private String evaluationOpponent = "";
    private final List<String> validationOpponents = new ArrayList<>();
    private Seat evaluationSeat = Seat.FIRST;
    private final Map<String, String> options = new LinkedHashMap<>();
    private final Map<String, LongFunction<? extends LanguagePolicy>> policies = new LinkedHashMap<>();
    private String formatPolicy = "random";

    private Settings(String id, String version) {
      this.id = Objects.requireNonNull(id, "id");
      this.version = Objects.requireNonNull(version, "version");
    }

    /**
     * @param v the reference settings of the game (required)
     * @return these settings
     */
    public Settings setDefaults(EnvironmentDefaults v) {
      defaults = Objects.requireNonNull(v, "defaults");
      return this;
    }

    /**
     * @param v a one-line description (default empty)
     * @return these settings
     */
    public Settings optDescription(String v) {
      description = Objects.requireNonNull(v, "description");
      return this;
    }

    /**
     * @param v the built-in opponents (default none: a single-player game)
     * @return these settings
     */
    public Settings optOpponents(OpponentPool v) {
      opponents = Objects.requireNonNull(v, "opponents");
      return this;
    }

    /**
     * @param v the id of the opponent the reference evaluates against, from the pool (default none)
     * @return these settings
     */
    public Settings optEvaluationOpponent(String v) {
      evaluationOpponent = Objects.requireNonNull(v, "evaluationOpponent");
      return this;
    }

    /**
     * Adds a held-out opponent that trainers validate against after the evaluation opponent, in the evaluation seat
     * ({@link EnvironmentProvider#validationOpponents()}).
     *
     * @param v an opponent id from the pool (training or held out)
     * @return these settings
     */
    public Settings addValidationOpponent(String v) {
      validationOpponents.add(Objects.requireNonNull(v, "validationOpponent"));
      return this;
    }

    /**
     * @param v the seat the reference evaluates in (default {@link Seat#FIRST})
     * @return these settings
     */
    public Settings optEvaluationSeat(Seat v) {
      evaluationSeat = Objects.requireNonNull(v, "evaluationSeat");
      return this;
    }

    /**
     * Declares an option {@link #create(Map)} accepts.
     *
     * @param name the option's name
     * @param v a one-line description with its default
     * @return these settings
     * @throws IllegalArgumentException if the option was declared before
     */
    public Settings addOption(String name, String v) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(v, "description");
      if (options.putIfAbsent(name, v) != null) {
        throw new IllegalArgumentException("option '" + name + "' is declared twice");
      }
      return this;
    }

    /**
     * Declares several options.
     *
     * @param v option names and their one-line descriptions, in the order to list them
     * @return these settings
     * @throws IllegalArgumentException if an option was declared before
     */
    public Settings addOptions(Map<String, String> v) {
      v.forEach(this::addOption);
      return this;
    }

    /**
     * @param name the scripted policy that answers in the game's format with nothing in particular to say,
     *     reflections included ({@link EnvironmentProvider#formatPolicy()}; default {@code random}); it must be
     *     declared with {@link #addScriptedPolicy}
     * @return these settings
     */
    public Settings optFormatPolicy(String name) {
      formatPolicy = Objects.requireNonNull(name, "formatPolicy");
      return this;
    }

    /**
     * Declares a scripted policy.
     *
     * @param name the policy's name, as {@code mage play --policy} takes it
     * @param factory creates the policy from its seed, for example {@code RandomPolicy::new}
     * @return these settings
     * @throws IllegalArgumentException if a policy of that name was declared before
     */
    public Settings addScriptedPolicy(String name, LongFunction<? extends LanguagePolicy> factory) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(factory, "factory");
      if (policies.putIfAbsent(name, factory) != null) {
        throw new IllegalArgumentException("scripted policy '" + name + "' is declared twice");
      }
      return this;
    }
  }
}
