package org.magejvm.impl.train;

import java.util.List;
import java.util.Map;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Opponent;
import org.magejvm.api.OpponentPool;
import org.magejvm.api.Seat;
import org.magejvm.spi.Environment;
import org.magejvm.spi.EnvironmentDefaults;
import org.magejvm.spi.EnvironmentProvider;
import org.magejvm.spi.GameText;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StandardPromptRenderer;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.policy.RandomPolicy;

/**
 * A single-player test game a random tiny model gets a varied reward in: every response is a valid move, rewarded
 * with the share of vowels in its text; two moves per episode, won when a move's share reaches 0.25. So groups get
 * different scores and training has a signal from the first iteration on. {@link #withRival()} is the same game with a
 * two-player face: a training pool of one opponent, {@code rival}, who is also the evaluation opponent (and never
 * moves).
 */
final class VowelProvider implements EnvironmentProvider {

  static final String ID = "test-vowels";
  /** The id of the variant with an opponent. */
  static final String RIVAL_ID = "test-vowels-rival";
  /** The only opponent of that variant. */
  static final String RIVAL = "rival";

  private final boolean rival;

  /** The single-player game. */
  VowelProvider() {
    this(false);
  }

  private VowelProvider(boolean rival) {
    this.rival = rival;
  }

  /** @return the variant with the opponent {@value #RIVAL}, in the pool and as the evaluation opponent */
  static VowelProvider withRival() {
    return new VowelProvider(true);
  }
  static final EnvironmentDefaults DEFAULTS = new EnvironmentDefaults(2, 1, 0.95, 0.6, 0.5, 1.0, 6);
  private static final GameText TEXT = new GameText("Vowels", "You write.", "Write text.", "Use vowels.",
      "Write anything.", "Write.", "Write.", "", "text");

  @Override
  public String id() {
    return rival ? RIVAL_ID : ID;
  }

  @Override
  public String version() {
    return "1";
  }

  @Override
  public Environment create(Map<String, String> options) {
    return new Vowels(rival ? RIVAL : "");
  }

  @Override
  public EnvironmentDefaults defaults() {
    return DEFAULTS;
  }

  @Override
  public OpponentPool opponents() {
    if (rival) {
      Opponent o = () -> RIVAL;
      return OpponentPool.builder().addOpponent(o, 1).build();
    }
    return OpponentPool.builder().build();
  }

  @Override
  public String evaluationOpponent() {
    return rival ? RIVAL : "";
  }

  @Override
  public List<String> scriptedPolicies() {
    return List.of("random");
  }

  @Override
  public LanguagePolicy scriptedPolicy(String name, long seed) {
    return new RandomPolicy(seed);
  }

  private static final class Vowels implements Environment {
    private final String opponent;
    private int turn;
    private long task;
    private boolean done;

    Vowels(String opponent) {
      this.opponent = opponent;
    }

    @Override
    public String id() {
      return ID;
    }

    @Override
    public String reset(long seed, Opponent opponent, Seat seat) {
      task = Long.remainderUnsigned(seed, 5);
      return restart();
    }

    @Override
    public String restart() {
      turn = 0;
      done = false;
      return observation();
    }

    @Override
    public StepResult step(String response) {
      AnchorKey anchor = anchor();
      long vowels = response.chars().filter(c -> "aeiouAEIOU".indexOf(c) >= 0).count();
      double share = response.isEmpty() ? 0 : (double) vowels / response.length();
      turn++;
      boolean won = share >= 0.25;
      done = won || turn >= 2;
      String a = response.length() > 20 ? response.substring(0, 20) : response;
      return new StepResult(observation(), share, done, won, false, true, share, anchor, a, "");
    }

    @Override
    public String observation() {
      return "task " + task + " turn " + turn;
    }

    @Override
    public AnchorKey anchor() {
      return new AnchorKey(observation(), opponent);
    }

    @Override
    public List<String> legalActions() {
      return List.of("text");
    }

    @Override
    public Object state() {
      return turn;
    }

    @Override
    public boolean isDone() {
      return done;
    }

    @Override
    public PromptRenderer promptRenderer() {
      return new StandardPromptRenderer(TEXT);
    }
  }
}
