package org.magejvm.examples.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Seat;
import org.magejvm.examples.plugin.RpsEnvironment.Move;
import org.magejvm.examples.plugin.RpsEnvironment.Round;
import org.magejvm.examples.plugin.RpsEnvironment.State;

class RpsOpponentTest {

  /** A generator that fails when used, to prove that an opponent does not draw. */
  private static final class NoRandom extends Random {
    private static final long serialVersionUID = 1L;

    @Override
    protected int next(int bits) {
      throw new AssertionError("this opponent must not draw a random number here");
    }
  }

  private static State state(Round... rounds) {
    return new State(RpsEnvironment.ROUNDS, List.of(rounds));
  }

  /** The opponent's moves over one match in which the agent plays the given moves. */
  private static List<Move> opponentMoves(RpsOpponent opponent, long seed, String... agentMoves) {
    RpsEnvironment env = new RpsEnvironment();
    env.reset(seed, opponent, Seat.FIRST);
    for (String m : agentMoves) {
      env.step("<action>" + m + "</action>");
    }
    List<Move> out = new ArrayList<>();
    for (Round r : env.state().played()) {
      out.add(r.opponent());
    }
    return out;
  }

  @Test
  void idsAreTheNamesUsedInPoolsAndAnchors() {
    List<String> ids = new ArrayList<>();
    for (RpsOpponent.Builtin o : RpsOpponent.Builtin.values()) {
      ids.add(o.id());
      assertThat(o.description()).isNotEmpty().isNotEqualTo(o.id());
    }
    assertThat(ids).containsExactly("always-rock", "cycle", "mirror", "uniform", "beat-last");
  }

  @Test
  void alwaysRockPlaysRockWithoutDrawing() {
    RpsOpponent o = RpsOpponent.Builtin.ALWAYS_ROCK;
    assertThat(o.play(state(), new NoRandom())).isEqualTo(Move.ROCK);
    assertThat(o.play(state(new Round(Move.PAPER, Move.ROCK), new Round(Move.SCISSORS, Move.ROCK)), new NoRandom()))
        .isEqualTo(Move.ROCK);
    for (long seed = 0; seed < 5; seed++) {
      assertThat(opponentMoves(o, seed, "paper", "scissors", "rock")).containsOnly(Move.ROCK);
    }
  }

  @Test
  void cycleStepsFromItsOwnLastMove() {
    RpsOpponent o = RpsOpponent.Builtin.CYCLE;
    assertThat(o.play(state(new Round(Move.SCISSORS, Move.ROCK)), new NoRandom())).isEqualTo(Move.PAPER);
    assertThat(o.play(state(new Round(Move.ROCK, Move.PAPER)), new NoRandom())).isEqualTo(Move.SCISSORS);
    assertThat(o.play(state(new Round(Move.PAPER, Move.SCISSORS)), new NoRandom())).isEqualTo(Move.ROCK);
    for (long seed = 0; seed < 10; seed++) {
      List<Move> moves = opponentMoves(o, seed, "paper", "paper", "paper");
      assertThat(moves.get(1)).isEqualTo(moves.get(0).beatenBy());
      assertThat(moves.get(2)).isEqualTo(moves.get(1).beatenBy());
    }
  }

  @Test
  void mirrorCopiesTheAgentsPreviousMove() {
    RpsOpponent o = RpsOpponent.Builtin.MIRROR;
    assertThat(o.play(state(new Round(Move.SCISSORS, Move.ROCK)), new NoRandom())).isEqualTo(Move.SCISSORS);
    for (long seed = 0; seed < 10; seed++) {
      List<Move> moves = opponentMoves(o, seed, "paper", "rock", "scissors");
      assertThat(moves.subList(1, 3)).containsExactly(Move.PAPER, Move.ROCK);
    }
  }

  @Test
  void beatLastPlaysWhatBeatsTheAgentsPreviousMove() {
    RpsOpponent o = RpsOpponent.Builtin.BEAT_LAST;
    assertThat(o.play(state(new Round(Move.SCISSORS, Move.PAPER)), new NoRandom())).isEqualTo(Move.ROCK);
    for (long seed = 0; seed < 10; seed++) {
      List<Move> moves = opponentMoves(o, seed, "paper", "rock", "scissors");
      assertThat(moves.subList(1, 3)).containsExactly(Move.SCISSORS, Move.PAPER);
    }
  }

  @Test
  void openingsOfThePatternedOpponentsComeFromTheSeed() {
    for (RpsOpponent o : List.of(RpsOpponent.Builtin.CYCLE, RpsOpponent.Builtin.MIRROR,
        RpsOpponent.Builtin.BEAT_LAST)) {
      Set<Move> openings = EnumSet.noneOf(Move.class);
      for (long seed = 0; seed < 30; seed++) {
        Move a = o.play(state(), new Random(seed));
        assertThat(o.play(state(), new Random(seed))).isEqualTo(a);
        openings.add(a);
      }
      assertThat(openings).as(o.id()).containsExactlyInAnyOrder(Move.values());
    }
  }

  @Test
  void uniformPlaysEachMoveAboutAThirdOfTheTime() {
    Map<Move, Integer> counts = new EnumMap<>(Move.class);
    Random random = new Random(2024);
    State after = state(new Round(Move.ROCK, Move.ROCK));
    int n = 30_000;
    for (int i = 0; i < n; i++) {
      counts.merge(RpsOpponent.Builtin.UNIFORM.play(i % 2 == 0 ? state() : after, random), 1, Integer::sum);
    }
    for (Move m : Move.values()) {
      // the standard deviation of each share is about 0.0027
      assertThat(counts.get(m) / (double) n).as(m.text()).isBetween(1 / 3.0 - 0.015, 1 / 3.0 + 0.015);
    }
  }
}
