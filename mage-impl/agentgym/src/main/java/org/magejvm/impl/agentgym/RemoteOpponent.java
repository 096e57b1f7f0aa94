package org.magejvm.impl.agentgym;

import java.util.Objects;
import org.magejvm.api.Opponent;

/**
 * An opponent that lives on an env server: only its id and description travel; the server plays it. The rollout
 * engine samples these from {@link RemoteEnvironmentProvider#opponents()} exactly as it samples the server's own pool,
 * and {@link RemoteEnvironment#reset} sends the id.
 *
 * @param id the opponent's id on the server
 * @param description its one-line description
 */
public record RemoteOpponent(String id, String description) implements Opponent {

  /**
   * Validates.
   *
   * @param id id
   * @param description description
   */
  public RemoteOpponent {
    Objects.requireNonNull(id, "id");
    description = description == null ? id : description;
  }
}
