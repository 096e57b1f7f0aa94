package org.magejvm.examples.cli;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.magejvm.api.Generation;
import org.magejvm.api.LanguagePolicy;
import org.magejvm.api.PolicyRequest;
import org.magejvm.api.SamplingConfig;
import org.magejvm.impl.rollout.Seeds;

/**
 * Several scripted policies playing as one. Which policy answers a request is a pure function of the seed and the
 * request's position (meta-episode key, phase, episode and turn index), never of the order of calls or of earlier
 * outcomes, so the mixture never adapts to the opponent on its own.
 */
final class ScriptedMixture implements LanguagePolicy {

  /** How the answering policy is drawn. */
  enum Mode {
    /** Uniformly at random for every turn. */
    TURN,
    /** Uniformly at random once per meta-episode; all of its turns then come from that policy. */
    META_EPISODE;

    static Mode parse(String text) {
      String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
      switch (t) {
        case "turn":
          return TURN;
        case "meta-episode":
          return META_EPISODE;
        default:
          throw new IllegalArgumentException("--mix: unknown mode '" + text + "'; expected turn or meta-episode");
      }
    }
  }

  private final List<LanguagePolicy> policies;
  private final Mode mode;
  private final long seed;

  /**
   * @param policies the policies, at least one; closed with the mixture
   * @param mode how the answering policy is drawn
   * @param seed the seed of the draws
   */
  ScriptedMixture(List<LanguagePolicy> policies, Mode mode, long seed) {
    if (policies.isEmpty()) {
      throw new IllegalArgumentException("a mixture needs at least one policy");
    }
    this.policies = List.copyOf(policies);
    this.mode = Objects.requireNonNull(mode, "mode");
    this.seed = seed;
  }

  @Override
  public String name() {
    List<String> names = new ArrayList<>();
    policies.forEach(p -> names.add(p.name()));
    return String.join("+", names);
  }

  /**
   * @param r a request
   * @return the index of the policy that answers it
   */
  int choose(PolicyRequest r) {
    if (policies.size() == 1) {
      return 0;
    }
    long h = Seeds.derive(seed, hash(r.workerKey()), 0);
    if (mode == Mode.TURN) {
      h = Seeds.derive(h, r.phase().ordinal(), ((long) r.episodeIndex() << 32) | r.turnIndex());
    }
    return (int) Math.floorMod(h, (long) policies.size());
  }

  private static long hash(String s) {
    long h = 0xcbf29ce484222325L; // FNV-1a, stable across JVMs (String.hashCode is too, but only 32 bits)
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    return h;
  }

  @Override
  public List<Generation> generate(List<PolicyRequest> requests, SamplingConfig sampling) {
    List<Generation> out = new ArrayList<>(requests.size());
    for (PolicyRequest r : requests) {
      out.add(policies.get(choose(r)).generate(List.of(r), sampling).get(0));
    }
    return out;
  }

  @Override
  public void close() {
    policies.forEach(LanguagePolicy::close);
  }
}
