package org.magejvm.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.api.util.SplitMix64;
import org.magejvm.spi.Environment;
import org.magejvm.spi.GameText;
import org.magejvm.spi.PromptContext;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StandardPromptRenderer;
import org.magejvm.spi.StepResult;
import org.magejvm.spi.Tags;

/**
 * A two-player test game: the seed hides a number 1..3; the agent guesses it ({@code <action>2</action>}) or
 * passes. A right guess wins (+10), a pass draws (0), a wrong guess costs -1 and the opponent may then strike
 * (-10, a loss). When the agent sits second, the opponent opens by ruling out the smallest wrong number (frozen for
 * restarts). Guessing a number already ruled out is invalid.
 */
public final class ToyDuel implements Environment {

  /** The sentences of the game's prompts. */
  static final GameText TEXT = new GameText("Toy Duel", "You play Toy Duel.", "Guess the hidden number 1, 2 or 3.",
      "Guess right.", "Answer <action>N</action> or <action>pass</action>.", "Guess 1-3 or pass.",
      "Reply <action>N</action>.", "", "table");

  private final Map<String, String> options;
  private final Consumer<PromptContext> sink;
  private final Runnable onClose;
  private long seed;
  private DuelOpponent opponent;
  private int secret;
  private final List<Integer> ruledOut = new ArrayList<>();
  private int opening;
  private Random random;
  private boolean done;
  private boolean started;
  private int episode;
  private int turn;

  ToyDuel(Map<String, String> options, Consumer<PromptContext> sink, Runnable onClose) {
    this.options = options;
    this.sink = sink;
    this.onClose = onClose;
  }

  @Override
  public void close() {
    onClose.run();
  }

  /**
   * @param seed a task seed
   * @return the hidden number of that task
   */
  public static int secretFor(long seed) {
    return 1 + (int) Long.remainderUnsigned(SplitMix64.mix(seed), 3);
  }

  /**
   * @param seed a task seed
   * @return the number the opponent rules out when it opens (the smallest wrong one)
   */
  public static int openingFor(long seed) {
    return secretFor(seed) == 1 ? 2 : 1;
  }

  @Override
  public String id() {
    return ToyDuelProvider.ID;
  }

  @Override
  public String reset(long seed, Opponent opponent, Seat seat) {
    if (!(opponent instanceof DuelOpponent)) {
      throw new IllegalArgumentException("toy-duel needs a DuelOpponent, got " + opponent);
    }
    this.seed = seed;
    this.opponent = (DuelOpponent) opponent;
    this.secret = secretFor(seed);
    this.opening = seat == Seat.SECOND ? openingFor(seed) : 0;
    this.started = true;
    this.episode = 0;
    explodeIf("reset");
    return begin();
  }

  @Override
  public String restart() {
    if (!started) {
      throw new IllegalStateException("restart before reset");
    }
    episode++;
    explodeIf("restart");
    return begin();
  }

  private String begin() {
    ruledOut.clear();
    if (opening != 0) {
      ruledOut.add(opening);
    }
    random = new Random(seed);
    done = false;
    turn = 0;
    return observation();
  }

  private void explodeIf(String stage) {
    String at = options.getOrDefault("explode_at", "");
    String s = options.get("explode_seed");
    if (at.equals(stage) && s != null && Long.parseLong(s) == seed) {
      int ep = Integer.parseInt(options.getOrDefault("explode_episode", "0"));
      int t = Integer.parseInt(options.getOrDefault("explode_turn", "0"));
      if (stage.equals("reset") || episode == ep && (stage.equals("restart") || turn == t)) {
        throw new IllegalStateException("boom at " + stage + " (episode " + episode + ", turn " + turn + ")");
      }
    }
  }

  @Override
  public StepResult step(String response) {
    if (!started || done) {
      throw new IllegalStateException("step on a finished or unstarted toy duel");
    }
    explodeIf("step");
    AnchorKey anchor = anchor();
    String before = observation();
    String text = Tags.first(response, "action").map(String::strip).orElse("");
    turn++;
    if (!legalActions().contains(text)) {
      return StepResult.invalid(before, 0, anchor, text, "not a legal action: '" + text + "'");
    }
    if (text.equals("pass")) {
      done = true;
      return StepResult.valid(observation(), anchor, text).optOutcome(Outcome.DRAW).build();
    }
    int guess = Integer.parseInt(text);
    if (guess == secret) {
      done = true;
      return StepResult.valid("You found it: " + guess, anchor, text).optReward(10).optScore(1)
          .optOutcome(Outcome.WON).build();
    }
    ruledOut.add(guess);
    if (opponent.strikes(random)) {
      done = true;
      return StepResult.valid(observation() + "; the opponent strikes", anchor, text).optReward(-10).optScore(-1)
          .optOutcome(Outcome.LOST).build();
    }
    return StepResult.valid(observation(), anchor, text).optReward(-1).build();
  }

  @Override
  public String observation() {
    if (ruledOut.isEmpty()) {
      return "Ruled out: none";
    }
    StringBuilder sb = new StringBuilder("Ruled out:");
    for (int n : ruledOut) {
      sb.append(' ').append(n);
    }
    return sb.toString();
  }

  @Override
  public AnchorKey anchor() {
    return new AnchorKey(observation(), opponent.id());
  }

  @Override
  public List<String> legalActions() {
    List<String> out = new ArrayList<>();
    for (int n = 1; n <= 3; n++) {
      if (!ruledOut.contains(n)) {
        out.add(Integer.toString(n));
      }
    }
    out.add("pass");
    return out;
  }

  @Override
  public Object state() {
    return new DuelState(List.copyOf(ruledOut), turn);
  }

  @Override
  public boolean isDone() {
    return done;
  }

  @Override
  public PromptRenderer promptRenderer() {
    if (options.getOrDefault("explode_at", "").equals("renderer")) {
      throw new IllegalStateException("no renderer today");
    }
    StandardPromptRenderer standard = new StandardPromptRenderer(TEXT);
    return new PromptRenderer() {
      @Override
      public String renderPlay(PromptContext context) {
        sink.accept(context);
        return standard.renderPlay(context);
      }

      @Override
      public String renderReflect(PromptContext context) {
        sink.accept(context);
        return standard.renderReflect(context);
      }
    };
  }

  /**
   * The structured state scripted policies read.
   *
   * @param ruledOut the numbers known to be wrong in this episode
   * @param turn the turn index
   */
  public record DuelState(List<Integer> ruledOut, int turn) {}
}
