package org.magejvm.impl.agentgym;

import java.util.List;
import java.util.Objects;
import org.magejvm.api.AnchorKey;
import org.magejvm.api.Opponent;
import org.magejvm.api.Outcome;
import org.magejvm.api.Seat;
import org.magejvm.spi.Environment;
import org.magejvm.spi.ParsedAction;
import org.magejvm.spi.PromptRenderer;
import org.magejvm.spi.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance of a single-agent AgentGym task server (WebShop, ALFWorld) for one meta-episode.
 *
 * <p>{@link #reset} creates the server-side instance on first use, picks the task index from the seed ({@link
 * TaskRange#pick}) and resets the instance to it; {@link #restart} resets it to the same task index again, which is
 * how the reference replays a task for the next attempt. {@link #step} reads the action between {@code <action>}
 * tags ({@link TagActionParser}); a response without one is an invalid no-op that never reaches the server. A read
 * action is sent; when the episode ends the reward is 10 on success and 0 otherwise, as in the reference.
 * {@link #close} closes the server-side instance.
 *
 * <p>Observations, admissible actions and the done flag come from the last answer, so only reset, restart, step and
 * close talk to the server. Every failure is a {@link RemoteEnvironmentException} naming the URL and the request.
 * Not thread-safe.
 */
public abstract class AgentGymTaskEnvironment implements Environment {

  /** The reward of a successful episode, as in the reference (win 10, anything else 0). */
  public static final double SUCCESS_REWARD = 10.0;

  private static final Logger LOG = LoggerFactory.getLogger(AgentGymTaskEnvironment.class);
  private static final TagActionParser PARSER = new TagActionParser();

  /** The client of the server. */
  protected final HttpEnvClient client;
  private final String id;
  private final TaskRange tasks;
  private final TaskPromptRenderer renderer;
  private String instance;
  private int taskIndex = -1;
  private String initialObservation;
  private String observation;
  private List<String> actions = List.of();
  private boolean done;
  private double score;

  /**
   * What the server shows after a reset or a step.
   *
   * @param observation the observation as the agent sees it
   * @param actions the admissible actions now (empty when the episode is over)
   * @param rawReward the server's reward of the step (0 after a reset)
   * @param done whether the episode is over
   */
  protected record View(String observation, List<String> actions, double rawReward, boolean done) {
    /**
     * Validates.
     *
     * @param observation observation
     * @param actions admissible actions
     * @param rawReward raw reward
     * @param done done
     */
    public View {
      Objects.requireNonNull(observation, "observation");
      actions = List.copyOf(actions);
    }
  }

  /**
   * @param id the provider id
   * @param client the server's client
   * @param tasks the task indices seeds pick from
   * @param text the prompt sentences
   */
  protected AgentGymTaskEnvironment(String id, HttpEnvClient client, TaskRange tasks, TaskPromptRenderer.Text text) {
    this.id = Objects.requireNonNull(id, "id");
    this.client = Objects.requireNonNull(client, "client");
    this.tasks = Objects.requireNonNull(tasks, "tasks");
    this.renderer = new TaskPromptRenderer(text, this::task, this::promptActions);
  }

  /**
   * Creates the server-side instance.
   *
   * @return its id on the server
   */
  protected abstract String createInstance();

  /**
   * Resets the server-side instance to a task.
   *
   * @param instance the instance id
   * @param taskIndex the task index
   * @return what the agent sees at the start
   */
  protected abstract View resetTask(String instance, int taskIndex);

  /**
   * Sends an action.
   *
   * @param instance the instance id
   * @param action the action text, as read from the response
   * @return what the agent sees after it
   */
  protected abstract View sendAction(String instance, String action);

  /**
   * Closes the server-side instance.
   *
   * @param instance the instance id
   */
  protected abstract void closeInstance(String instance);

  /** @return the task description shown in prompts */
  protected abstract String task();

  /**
   * @param raw the server's reward of a step that ended the episode
   * @return whether the task was solved
   */
  protected abstract boolean solved(double raw);

  /**
   * @param raw the server's reward of a step
   * @param solved whether the task was solved
   * @return the episode score recorded with the step (WebShop: the task score in [0, 1]; ALFWorld: 1 when solved)
   */
  protected abstract double scoreOf(double raw, boolean solved);

  /** @return the admissible actions as the prompt lists them (WebShop shows {@code search[<your query>]}) */
  protected List<String> promptActions() {
    return actions;
  }

  @Override
  public final String id() {
    return id;
  }

  /** @return the task index of the last reset, or -1 before it */
  public final int taskIndex() {
    return taskIndex;
  }

  /** @return the server's instance id, or null before the first reset */
  public final String instance() {
    return instance;
  }

  @Override
  public final String reset(long seed, Opponent opponent, Seat seat) {
    if (opponent != null) {
      throw new IllegalArgumentException(id + " is a single-agent task and takes no opponent, got '"
          + opponent.id() + "'");
    }
    if (instance == null) {
      instance = createInstance();
    }
    taskIndex = tasks.pick(seed);
    apply(resetTask(instance, taskIndex));
    score = 0;
    initialObservation = observation;
    return observation;
  }

  @Override
  public final String restart() {
    if (taskIndex < 0) {
      throw new IllegalStateException(id + " was never reset; call reset(seed, null, seat) first");
    }
    if (instance == null) {
      instance = createInstance();
    }
    apply(resetTask(instance, taskIndex));
    score = 0;
    initialObservation = observation;
    return observation;
  }

  @Override
  public final StepResult step(String response) {
    requireReset();
    if (done) {
      throw new IllegalStateException("the " + id + " episode (task " + taskIndex + ") is over; call restart() or"
          + " reset() before stepping again");
    }
    AnchorKey anchor = anchor();
    ParsedAction<String> parsed = PARSER.parse(response);
    if (!parsed.ok()) {
      return StepResult.invalid(observation, score, anchor, parsed.text(), parsed.error());
    }
    View v = sendAction(instance, parsed.action());
    apply(v);
    if (!v.done()) {
      return StepResult.valid(observation, anchor, parsed.action()).optScore(score).build();
    }
    boolean won = solved(v.rawReward());
    score = scoreOf(v.rawReward(), won);
    return StepResult.valid(observation, anchor, parsed.action())
        .optReward(won ? SUCCESS_REWARD : 0)
        .optScore(score)
        .optOutcome(won ? Outcome.WON : Outcome.LOST)
        .build();
  }

  private void apply(View v) {
    observation = v.observation();
    done = v.done();
    actions = done ? List.of() : v.actions();
  }

  @Override
  public final String observation() {
    requireReset();
    return observation;
  }

  @Override
  public final AnchorKey anchor() {
    requireReset();
    return new AnchorKey(observation, "");
  }

  @Override
  public List<String> legalActions() {
    return actions;
  }

  @Override
  public final Object state() {
    requireReset();
    return observation;
  }

  @Override
  public final boolean isDone() {
    return done;
  }

  @Override
  public final PromptRenderer promptRenderer() {
    return renderer;
  }

  /** @return the observation at the start of the current task */
  protected final String initialObservation() {
    return initialObservation;
  }

  @Override
  public final void close() {
    String i = instance;
    instance = null;
    if (i != null) {
      try {
        closeInstance(i);
      } catch (RuntimeException e) {
        LOG.warn("could not close {} instance {}: {}", id, i, e.getMessage());
      }
    }
  }

  private void requireReset() {
    if (taskIndex < 0 || observation == null) {
      throw new IllegalStateException(id + " was never reset; call reset(seed, null, seat) first");
    }
  }
}
