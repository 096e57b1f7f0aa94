#!/usr/bin/env python3
"""Prints the quick start's rows over seeds: python3 quickstart-table.py DIR SEED [SEED ...].

Reads DIR/seedS.json as `./mage quickstart --json` writes it and prints, per seed and as mean (sample sd), the rows
of the warm start, the trained model and its controls. Goalkeeper: Pass@k (success_rate[k]), the per-attempt save
rate (per_attempt_success[k]) and the share of reflections naming the striker's spot, beside the ceilings; each
control against its own ceiling; the per-spot follow rates of the probe and how many seeds reach 0.8 per spot; the
example reflections. Kuhn Poker (`--env
mage-kuhn-poker`): the pool averages (the mean over the pool's opponents, as the quick start prints them) of
success_rate and score at attempts 0 and 2, what the history adds to the score's rise from attempt 0 to 2, and the
held-out cfr's, beside the objective's optimum. Run by hand; nothing in the build calls it.
"""
import json
import statistics
import sys

ROWS = ["before", "after", "after_without_history"]
KEYS = ["success_rate[0]", "success_rate[1]", "success_rate[2]",
        "per_attempt_success[0]", "per_attempt_success[1]", "per_attempt_success[2]"]


def fmt(v):
    return "-" if v is None else "%.3f" % v


KUHN_POOL = ["conservative", "aggressive", "intermediate"]
KUHN_KEYS = ["success_rate[0]", "success_rate[2]", "score[0]", "score[2]"]


def kuhn(d, seeds, data):
    def pool(row, key):
        return statistics.mean(row[o + "/" + key] for o in KUHN_POOL)

    cols = ["pool/" + k for k in KUHN_KEYS] + ["cfr/success_rate[2]", "cfr/score[2]"]

    def values(row):
        return [pool(row, k) for k in KUHN_KEYS] + [row["cfr/success_rate[2]"], row["cfr/score[2]"]]

    print("| seed | row | " + " | ".join(cols) + " | score gain |")
    print("|---" * (len(cols) + 3) + "|")
    gains = {r: [] for r in ROWS}
    for s in seeds:
        for r in ROWS:
            v = values(data[s][r])
            gains[r].append(v[3] - v[2])
            print("| %s | %s | %s | %.3f |" % (s, r, " | ".join(fmt(x) for x in v), v[3] - v[2]))
    for r in ROWS:
        rows = [values(data[s][r]) for s in seeds]
        cells = ["%.3f (%.3f)" % (statistics.mean(c), statistics.stdev(c) if len(c) > 1 else 0) for c in zip(*rows)]
        g = gains[r]
        print("| mean (sd) | %s | %s | %.3f (%.3f) |" % (r, " | ".join(cells), statistics.mean(g),
                                                          statistics.stdev(g) if len(g) > 1 else 0))
    opt = [values(data[s]["optimum"]) for s in seeds]
    print("| mean | optimum | %s | %.3f |" % (" | ".join("%.3f" % statistics.mean(c) for c in zip(*opt)),
                                              statistics.mean(o[3] - o[2] for o in opt)))
    adds = [a - b for a, b in zip(gains["after"], gains["after_without_history"])]
    print("\nthe history adds to the score gain: %s; mean %.3f, sd %.3f"
          % (", ".join("%.3f" % a for a in adds), statistics.mean(adds), statistics.stdev(adds) if len(adds) > 1 else 0))


def main():
    d, seeds = sys.argv[1], sys.argv[2:]
    data = {s: json.load(open("%s/seed%s.json" % (d, s))) for s in seeds}
    if "ceiling_blind" not in data[seeds[0]]:
        kuhn(d, seeds, data)
        times(d, seeds)
        return
    keeper(d, seeds, data)
    times(d, seeds)


KEEPER_ROWS = ["before", "after", "after_without_reflections", "after_shuffled_reflections", "after_without_history"]
NAMES = "reflection_names_spot_rate"


def mean_sd(v):
    return "-" if not v else "%.3f (%.3f)" % (statistics.mean(v), statistics.stdev(v) if len(v) > 1 else 0)


def keeper(d, seeds, data):
    first = data[seeds[0]]
    rows = [r for r in KEEPER_ROWS if r in first]
    keys = KEYS + [NAMES]
    print("context mode: %s" % first.get("context_mode", "history_only"))
    print("| seed | row | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 2) + "|")
    for s in seeds:
        for r in rows:
            print("| %s | %s | %s |" % (s, r, " | ".join(fmt(data[s][r].get(k)) for k in keys)))
    for r in rows:
        cells = [mean_sd([data[s][r][k] for s in seeds if k in data[s][r]]) for k in keys]
        print("| mean (sd) | %s | %s |" % (r, " | ".join(cells)))
    for r in ["ceiling_blind", "ceiling_adaptive", "ceiling_without_history"]:
        if r in first:
            print("| exact | %s | %s |" % (r, " | ".join(fmt(first[r].get(k)) for k in keys)))
    after = [data[s]["after"]["success_rate[2]"] for s in seeds]
    blind = first["ceiling_blind"]["success_rate[2]"]
    if len(after) > 1:
        m, sd = statistics.mean(after), statistics.stdev(after)
        print("\nafter Pass@3: mean %.3f, sd %.3f, mean - 2 sd %.3f; history-blind ceiling %.3f"
              % (m, sd, m - 2 * sd, blind))
    for r, c in first.get("ceiling_of", {}).items():
        v = [data[s][r]["success_rate[2]"] for s in seeds]
        print("%s Pass@3 per seed %s, its ceiling (%s) %.3f; at or below it in %d of %d"
              % (r, ", ".join("%.3f" % x for x in v), c, first[c]["success_rate[2]"],
                 sum(1 for x in v if x <= first[c]["success_rate[2]"] + 1e-12), len(v)))
    if NAMES in first["after"]:
        v = [data[s]["after"][NAMES] for s in seeds]
        print("trained reflections naming the spot: %s; mean %.3f" % (", ".join("%.3f" % x for x in v),
                                                                     statistics.mean(v)))
    spots = sorted(int(k[len("follow_rate["):-1]) for k in first["after"] if k.startswith("follow_rate["))
    if spots:
        print("\n| follow rate (probe) | " + " | ".join("spot %d" % p for p in spots) + " |")
        print("|---" * (len(spots) + 1) + "|")
        for r in ["before", "after"]:
            for s in seeds:
                print("| %s, seed %s | %s |" % (r, s, " | ".join(fmt(data[s][r]["follow_rate[%d]" % p])
                                                                  for p in spots)))
            print("| %s, mean (sd) | %s |" % (r, " | ".join(mean_sd([data[s][r]["follow_rate[%d]" % p]
                                                                       for s in seeds]) for p in spots)))
        for p in spots:
            n = sum(1 for s in seeds if data[s]["after"]["follow_rate[%d]" % p] >= 0.8)
            print("spot %d: follow rate >= 0.8 in %d of %d seeds" % (p, n, len(seeds)))
    for s in seeds:
        ex = data[s].get("example_reflections", {})
        if ex:
            print("seed %s reflections: before %s; after %s" % (s, ex.get("before"), ex.get("after")))


def times(d, seeds):
    seconds = []
    for s in seeds:
        try:
            seconds.append(int(open("%s/seed%s.time" % (d, s)).read()))
        except OSError:
            pass
    if seconds:
        print("wall-clock seconds per seed: %s" % ", ".join(str(t) for t in seconds))


if __name__ == "__main__":
    main()
