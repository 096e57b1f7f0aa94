package org.magejvm.impl.env;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.Turn;
import org.magejvm.api.annotation.Api;
import org.magejvm.spi.ParsedAction;

/**
 * The lessons of the keeper games' format player ({@code random-plan} in Goalkeeper and Penalty Shoot-out): after an
 * attempt it writes {@code next shot N} with N a spot other than the one it dove to, drawn at random, and dives there
 * next; so its lessons have the game's format and are acted on while they carry nothing about the shot.
 */
@Api(status = Api.Status.INTERNAL)
public final class KeeperLessons {

  private final Map<String, Integer> plans = new HashMap<>();

  /** Creates a player's memory of its plans, one per meta-episode (by worker key). */
  public KeeperLessons() {}

  /**
   * A play turn's dive: the plan the last lesson of this meta-episode made, else a spot at random.
   *
   * @param request the play request
   * @param spots the number of spots
   * @param random the player's random source
   * @return the dive, as the answer's text
   */
  public String dive(PolicyRequest request, int spots, Random random) {
    if (request.episodeIndex() == 0) {
      plans.remove(request.workerKey()); // a new meta-episode under a key used before
    }
    Integer plan = plans.get(request.workerKey());
    return Integer.toString(plan != null ? plan : 1 + random.nextInt(spots));
  }

  /**
   * A reflection: plans the next attempt's spot ({@link #nextPlan}) and writes it as the lesson.
   *
   * @param request the reflect request
   * @param spots the number of spots
   * @param random the player's random source
   * @return the lesson's text
   */
  public String reflect(PolicyRequest request, int spots, Random random) {
    int plan = nextPlan(request, spots, random);
    plans.put(request.workerKey(), plan);
    return lesson(plan);
  }

  /**
   * @param guess the guessed spot of the next shot
   * @return the lesson's text: {@code " next shot 4"} (the leading space keeps {@code shot} the token it is in the
   *     prompt's {@code dove 3, shot 5})
   */
  public static String lesson(int guess) {
    return " next shot " + guess;
  }

  /**
   * The next attempt's planned spot: uniform over the spots other than the last dive (over all of them when there
   * was no valid dive).
   *
   * @param request the reflect request (its last past episode is the finished attempt)
   * @param spots the number of spots
   * @param random the player's random source
   * @return the spot, 1-based
   */
  public static int nextPlan(PolicyRequest request, int spots, Random random) {
    int dive = lastDive(request, spots);
    if (dive == 0) {
      return 1 + random.nextInt(spots);
    }
    int plan = 1 + random.nextInt(spots - 1);
    return plan >= dive ? plan + 1 : plan;
  }

  /** The spot the finished attempt dove to, or 0 when its answer was no valid dive. */
  private static int lastDive(PolicyRequest request, int spots) {
    if (request.pastEpisodes().isEmpty()) {
      return 0;
    }
    List<Turn> turns = request.pastEpisodes().get(request.pastEpisodes().size() - 1).turns();
    if (turns.isEmpty()) {
      return 0;
    }
    ParsedAction<Integer> dive = NumberAnswer.parse(turns.get(turns.size() - 1).response(), spots, "a spot number",
        "spot");
    return dive.ok() ? dive.action() : 0;
  }
}
