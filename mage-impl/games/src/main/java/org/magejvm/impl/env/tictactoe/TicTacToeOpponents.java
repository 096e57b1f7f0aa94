package org.magejvm.impl.env.tictactoe;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.magejvm.api.annotation.Api;

/** Builds the built-in Tic-Tac-Toe opponents by id (hosts name them by id through the provider instead). */
@Api(status = Api.Status.INTERNAL)
public final class TicTacToeOpponents {

  private static final Pattern MCTS = Pattern.compile("mcts-([1-9][0-9]{0,8})");

  private TicTacToeOpponents() {}

  /**
   * Creates a built-in opponent.
   *
   * @param id {@code random}, {@code minimax}, {@code mcts-N} for any positive N, or one of the preferred-position
   *     ids ({@code preferred-center-first} and so on)
   * @return the opponent
   * @throws IllegalArgumentException naming the known ids when the id is unknown
   */
  public static TicTacToeOpponent byId(String id) {
    if (id != null) {
      if (id.equals(RandomOpponent.ID)) {
        return new RandomOpponent();
      }
      if (id.equals(MinimaxOpponent.ID)) {
        return new MinimaxOpponent();
      }
      Matcher m = MCTS.matcher(id);
      if (m.matches()) {
        return new MctsOpponent(Integer.parseInt(m.group(1)));
      }
      for (PreferredPositionOpponent p : PreferredPositionOpponent.builtIns()) {
        if (p.id().equals(id)) {
          return p;
        }
      }
    }
    throw new IllegalArgumentException("unknown Tic-Tac-Toe opponent '" + id + "'; known opponents: "
        + String.join(", ", builtInIds()));
  }

  /** @return the ids {@link #byId} accepts, with {@code mcts-N} standing for any positive N */
  public static List<String> builtInIds() {
    List<String> ids = new ArrayList<>();
    ids.add("mcts-N");
    for (PreferredPositionOpponent p : PreferredPositionOpponent.builtIns()) {
      ids.add(p.id());
    }
    ids.add(RandomOpponent.ID);
    ids.add(MinimaxOpponent.ID);
    return ids;
  }
}
