package org.magejvm.impl.env.sokoban;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.Phase;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.api.Seat;
import org.magejvm.spi.StepResult;

class SokobanGenerationTest {

  private static final int TURN_LIMIT = 7;

  @Test
  void theSameSeedGivesTheSameRoom() {
    SokobanGenerator a = new SokobanGenerator(SokobanConfig.DEFAULT);
    SokobanGenerator b = new SokobanGenerator(SokobanConfig.DEFAULT);
    Set<String> distinct = new HashSet<>();
    for (long seed = 0; seed < 40; seed++) {
      SokobanGenerator.Result ra = a.generate(seed);
      SokobanGenerator.Result rb = b.generate(seed);
      assertThat(ra.start()).isEqualTo(rb.start());
      assertThat(ra.start().render()).isEqualTo(rb.start().render());
      assertThat(ra.solution()).isEqualTo(rb.solution());
      distinct.add(ra.start().render());
    }
    // different seeds give (nearly always) different rooms
    assertThat(distinct.size()).isGreaterThanOrEqualTo(38);
    SokobanEnvironment env = new SokobanEnvironment(SokobanConfig.DEFAULT);
    String first = env.reset(123, null, Seat.FIRST);
    env.reset(124, null, Seat.FIRST);
    assertThat(env.reset(123, null, Seat.SECOND)).isEqualTo(first);
  }

  @Test
  void everyDefaultRoomIsSolvableWithinTheBoundsAndItsSolutionWins() {
    checkRooms(SokobanConfig.DEFAULT, 0, 400);
  }

  @Test
  void oneAndThreeBoxRoomsAreSolvableWithinTheBounds() {
    checkRooms(SokobanConfig.builder().optBoxes(1).build(), 1_000, 150);
    checkRooms(SokobanConfig.builder().optBoxes(3).build(), 2_000, 100);
  }

  @Test
  void otherSizesAndBoundsWork() {
    checkRooms(SokobanConfig.builder().optSize(5).optBoxes(1).build(), 3_000, 20);
    checkRooms(SokobanConfig.builder().optSize(5).optBoxes(3).build(), 3_100, 10);
    checkRooms(SokobanConfig.builder().optSize(8).optBoxes(2).build(), 3_200, 20);
    checkRooms(SokobanConfig.builder().optSize(10).optBoxes(3).build(), 3_300, 5);
    checkRooms(SokobanConfig.builder().optMinSolutionMoves(12).optMaxSolutionMoves(14).build(), 3_400, 20);
    checkRooms(SokobanConfig.builder().optMovesPerTurn(1).optMaxSolutionMoves(7).build(), 3_500, 20);
  }

  @Test
  void impossibleBoundsFailWithAClearMessage() {
    // a 5x5 room has a 3x3 inside: one box never needs 30 moves
    SokobanGenerator g = new SokobanGenerator(
        SokobanConfig.builder().optSize(5).optBoxes(1).optMinSolutionMoves(29).optMaxSolutionMoves(30).build());
    assertThatThrownBy(() -> g.generate(5)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("seed 5").hasMessageContaining("29 to 30");
  }

  /**
   * Generates rooms for consecutive seeds and checks: the start has no box on a target, the solution length is in
   * the bounds and equals the solver's shortest length, replaying it through step() wins, and the solver policy wins
   * within the turn limit (when the bounds allow it).
   */
  private static void checkRooms(SokobanConfig config, long firstSeed, int count) {
    SokobanEnvironment env = new SokobanEnvironment(config);
    SokobanSolver solver = new SokobanSolver();
    LanguagePolicy policy = new SokobanProvider().scriptedPolicy("solver", 1);
    int n = config.movesPerTurn();
    for (long seed = firstSeed; seed < firstSeed + count; seed++) {
      String observation = env.reset(seed, null, Seat.FIRST);
      SokobanState start = env.startPosition();
      List<Move> solution = env.startSolution();
      assertThat(observation).isEqualTo(start.render());
      assertThat(start.rows()).isEqualTo(config.size());
      assertThat(start.boxCount()).isEqualTo(config.boxes());
      assertThat(start.boxesOnTargets()).as("seed %d", seed).isZero();
      assertThat(solution.size()).as("seed %d", seed)
          .isBetween(config.minSolutionMoves(), config.maxSolutionMoves());
      assertThat(solver.shortestLength(start)).as("seed %d", seed).isEqualTo(solution.size());

      StepResult last = null;
      for (int i = 0; i < solution.size(); i += n) {
        assertThat(env.isDone()).isFalse();
        last = env.step("<action>" + Move.join(solution.subList(i, Math.min(i + n, solution.size())))
            + "</action>");
        assertThat(last.actionValid()).isTrue();
      }
      assertThat(last.won()).as("replayed solution of seed %d", seed).isTrue();
      assertThat(last.score()).isEqualTo(1.0);

      env.restart();
      assertThat(env.observation()).isEqualTo(observation);
      int turns = 0;
      while (!env.isDone()) {
        PolicyRequest request = new PolicyRequest(env.observation(), Phase.PLAY, "w", 0, turns,
            env.legalActions(), env.state(), List.of());
        Generation g = policy.generate(List.of(request), SamplingConfig.evaluation(64)).get(0);
        last = env.step(g.text());
        turns++;
      }
      assertThat(last.won()).as("solver policy on seed %d", seed).isTrue();
      assertThat(turns).isEqualTo((solution.size() + n - 1) / n);
      if (config.maxSolutionMoves() <= TURN_LIMIT * n) {
        assertThat(turns).isLessThanOrEqualTo(TURN_LIMIT);
      }
    }
  }
}
