package org.magejvm.impl.env.penalty;

import java.util.List;

/**
 * The strikers of the three built-in Penalty Shoot-out games, each a training population and held-out strikers from
 * the same habit families ({@link Striker.Habit}) with other offsets.
 *
 * <ul>
 *   <li>{@link #POPULATION} ({@code mage-penalty}, telling habits apart and generalizing): training {@code fixed},
 *       {@code step+1}, {@code step-2}, {@code alternate-1}, {@code alternate+2} and {@code copy-1}; held out their
 *       moving strikers' mirror images, {@code step-1}, {@code step+2}, {@code alternate+1} and {@code alternate-2}
 *       (same habits, the other way). Every training habit with an offset is read from the first two shots in
 *       training (the second shots are all different), so the keeper must extrapolate a step or an alternation, as it
 *       must against the held-out strikers. With 5 spots and 3 attempts the best history-blind keeper saves within 3
 *       attempts with probability 0.633 (training) and 0.6 (held out), the best adaptive one always does.</li>
 *   <li>{@link #GRADED_POPULATION} ({@code mage-penalty-graded}, MAGE against LaMer): training {@code fixed}, {@code
 *       step+2}, {@code alternate+2} and {@code copy}; held out {@code step+1}, {@code step-2}, {@code alternate-2} and
 *       {@code copy+1}. {@code step+2} and {@code alternate+2} shoot their second penalty at the same spot and their
 *       third ones apart, which makes the optima of MAGE's and LaMer's objectives differ under graded scoring ({@link
 *       PenaltyObjectives}); blind 0.65, adaptive 1 on either set.</li>
 *   <li>{@link #STEPS_POPULATION} ({@code mage-penalty-steps}, generalizing a habit to a step never seen): training
 *       {@code fixed}, {@code step+1}, {@code step-1}, {@code step+2} and {@code step-2}; held out {@code step+3} and
 *       {@code step-3}. With 7 spots no held-out striker's second shot is a training striker's second shot from the
 *       same first spot, so the held-out histories are new to a keeper of the training population and nothing it
 *       learnt there is contradicted by them; one keeper (in the third attempt, dive as far on from the last shot as it
 *       was from the one before) saves every striker of both sets. Blind 3/7 = 0.429 on either set ({@link PenaltyTransfer} has the rest).</li>
 * </ul>
 */
public final class PenaltyStrikers {

  /** Goalkeeper's striker: every penalty at the first spot. */
  public static final Striker FIXED = new Striker(Striker.Habit.STEP, 0);
  /** One spot right every penalty. */
  public static final Striker STEP_PLUS_1 = new Striker(Striker.Habit.STEP, 1);
  /** One spot left every penalty. */
  public static final Striker STEP_MINUS_1 = new Striker(Striker.Habit.STEP, -1);
  /** Two spots right every penalty. */
  public static final Striker STEP_PLUS_2 = new Striker(Striker.Habit.STEP, 2);
  /** Two spots left every penalty. */
  public static final Striker STEP_MINUS_2 = new Striker(Striker.Habit.STEP, -2);
  /** Three spots right every penalty. */
  public static final Striker STEP_PLUS_3 = new Striker(Striker.Habit.STEP, 3);
  /** Three spots left every penalty. */
  public static final Striker STEP_MINUS_3 = new Striker(Striker.Habit.STEP, -3);
  /** Back and forth between the first spot and the one right of it. */
  public static final Striker ALTERNATE_PLUS_1 = new Striker(Striker.Habit.ALTERNATE, 1);
  /** Back and forth between the first spot and the one left of it. */
  public static final Striker ALTERNATE_MINUS_1 = new Striker(Striker.Habit.ALTERNATE, -1);
  /** Back and forth between the first spot and the one two right of it. */
  public static final Striker ALTERNATE_PLUS_2 = new Striker(Striker.Habit.ALTERNATE, 2);
  /** Back and forth between the first spot and the one two left of it. */
  public static final Striker ALTERNATE_MINUS_2 = new Striker(Striker.Habit.ALTERNATE, -2);
  /** Where the keeper dove last. */
  public static final Striker COPY = new Striker(Striker.Habit.COPY, 0);
  /** One spot right of where the keeper dove last. */
  public static final Striker COPY_PLUS_1 = new Striker(Striker.Habit.COPY, 1);
  /** One spot left of where the keeper dove last. */
  public static final Striker COPY_MINUS_1 = new Striker(Striker.Habit.COPY, -1);

  /** The strikers of {@code mage-penalty}: six habits to train on, their moving strikers' mirror images held out. */
  public static final PenaltyPopulation POPULATION = new PenaltyPopulation(
      List.of(FIXED, STEP_PLUS_1, STEP_MINUS_2, ALTERNATE_MINUS_1, ALTERNATE_PLUS_2, COPY_MINUS_1),
      List.of(STEP_MINUS_1, STEP_PLUS_2, ALTERNATE_PLUS_1, ALTERNATE_MINUS_2));

  /** The strikers of {@code mage-penalty-graded}, where MAGE's and LaMer's optima differ. */
  public static final PenaltyPopulation GRADED_POPULATION = new PenaltyPopulation(
      List.of(FIXED, STEP_PLUS_2, ALTERNATE_PLUS_2, COPY),
      List.of(STEP_PLUS_1, STEP_MINUS_2, ALTERNATE_MINUS_2, COPY_PLUS_1));

  /**
   * The strikers of {@code mage-penalty-steps}, where generalizing is a question of the habit and nothing else: steps
   * of 0, 1 and 2 spots either way to train on, steps of 3 held out.
   */
  public static final PenaltyPopulation STEPS_POPULATION = new PenaltyPopulation(
      List.of(FIXED, STEP_PLUS_1, STEP_MINUS_1, STEP_PLUS_2, STEP_MINUS_2), List.of(STEP_PLUS_3, STEP_MINUS_3));

  private PenaltyStrikers() {}
}
