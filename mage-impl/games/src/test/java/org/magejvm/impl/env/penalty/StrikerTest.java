package org.magejvm.impl.env.penalty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The strikers' habits, ids and descriptions, and the scoring of a dive. */
class StrikerTest {

  /** The shots of a striker from a first spot against a keeper that dives to the given spots. */
  private static List<Integer> shots(Striker s, int spots, int first, int... dives) {
    List<PenaltyEnvironment.Penalty> earlier = new ArrayList<>();
    List<Integer> out = new ArrayList<>();
    for (int d : dives) {
      int shot = s.shoot(spots, first, earlier);
      out.add(shot);
      earlier.add(new PenaltyEnvironment.Penalty(d, shot, 0));
    }
    return out;
  }

  @Test
  void everyHabitShootsByItsRuleAndTheSpotsWrapAround() {
    assertThat(shots(new Striker(Striker.Habit.STEP, 0), 5, 4, 1, 1, 1, 1)).containsExactly(4, 4, 4, 4);
    assertThat(shots(new Striker(Striker.Habit.STEP, 1), 5, 4, 1, 1, 1, 1)).containsExactly(4, 5, 1, 2);
    assertThat(shots(new Striker(Striker.Habit.STEP, 2), 5, 4, 1, 1, 1, 1)).containsExactly(4, 1, 3, 5);
    assertThat(shots(new Striker(Striker.Habit.STEP, -2), 5, 2, 1, 1, 1, 1)).containsExactly(2, 5, 3, 1);
    assertThat(shots(new Striker(Striker.Habit.ALTERNATE, 2), 5, 4, 1, 1, 1, 1)).containsExactly(4, 1, 4, 1);
    assertThat(shots(new Striker(Striker.Habit.ALTERNATE, -1), 5, 1, 3, 3, 3, 3)).containsExactly(1, 5, 1, 5);
    // the copying habits read the keeper's previous dive, never the first spot after the first shot
    assertThat(shots(new Striker(Striker.Habit.COPY, 0), 5, 4, 2, 5, 1, 3)).containsExactly(4, 2, 5, 1);
    assertThat(shots(new Striker(Striker.Habit.COPY, 1), 5, 4, 2, 5, 1, 3)).containsExactly(4, 3, 1, 2);
    assertThat(shots(new Striker(Striker.Habit.COPY, -2), 7, 4, 2, 1, 7, 3)).containsExactly(4, 7, 6, 5);
    assertThat(Striker.wrap(0, 5)).isEqualTo(5);
    assertThat(Striker.wrap(-7, 5)).isEqualTo(3);
    assertThat(Striker.wrap(11, 5)).isEqualTo(1);
  }

  @Test
  void idsNameTheHabitAndTheSignedOffsetAndDescriptionsSayWhatItDoes() {
    assertThat(new Striker(Striker.Habit.STEP, 0).id()).isEqualTo("fixed");
    assertThat(new Striker(Striker.Habit.COPY, 0).id()).isEqualTo("copy");
    assertThat(new Striker(Striker.Habit.STEP, 2).id()).isEqualTo("step+2");
    assertThat(new Striker(Striker.Habit.STEP, -1).id()).isEqualTo("step-1");
    assertThat(new Striker(Striker.Habit.ALTERNATE, -2).id()).isEqualTo("alternate-2");
    assertThat(new Striker(Striker.Habit.COPY, 1).id()).isEqualTo("copy+1");
    assertThat(new Striker(Striker.Habit.STEP, 0).description()).isEqualTo("shoots every penalty at its first spot");
    assertThat(new Striker(Striker.Habit.STEP, -2).description()).isEqualTo("moves 2 spots left every penalty");
    assertThat(new Striker(Striker.Habit.ALTERNATE, 1).description())
        .isEqualTo("alternates between its first spot and the spot 1 spot right of it");
    assertThat(new Striker(Striker.Habit.COPY, 0).description()).isEqualTo("shoots where the keeper dove last");
    assertThat(new Striker(Striker.Habit.COPY, 1).description())
        .isEqualTo("shoots 1 spot right of where the keeper dove last");
    assertThatThrownBy(() -> new Striker(Striker.Habit.ALTERNATE, 0)).hasMessageContaining("'fixed'");
    assertThat(new Striker(Striker.Habit.STEP, 2)).isEqualTo(PenaltyStrikers.GRADED_POPULATION.pool().require("step+2"));
  }

  @Test
  void aSaveScoresOneAndAGradedNearMissHalfCountingAroundTheRing() {
    assertThat(Scoring.BINARY.score(3, 3, 5)).isEqualTo(1.0);
    assertThat(Scoring.BINARY.score(2, 3, 5)).isZero();
    assertThat(Scoring.GRADED.score(3, 3, 5)).isEqualTo(1.0);
    assertThat(Scoring.GRADED.score(2, 3, 5)).isEqualTo(Scoring.NEAR_MISS_SCORE);
    assertThat(Scoring.GRADED.score(4, 3, 5)).isEqualTo(0.5);
    assertThat(Scoring.GRADED.score(5, 1, 5)).isEqualTo(0.5);
    assertThat(Scoring.GRADED.score(1, 3, 5)).isZero();
    assertThat(Scoring.isNearMiss(3, 3, 5)).isFalse();
    assertThat(Scoring.parse("graded")).isEqualTo(Scoring.GRADED);
    assertThat(Scoring.parse(" binary ")).isEqualTo(Scoring.BINARY);
    assertThatThrownBy(() -> Scoring.parse("partial")).hasMessageContaining("'scoring'")
        .hasMessageContaining("'partial'");
  }
}
