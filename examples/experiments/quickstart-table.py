#!/usr/bin/env python3
"""Prints the quick start's rows over seeds: python3 quickstart-table.py DIR SEED [SEED ...].

Reads DIR/seedS.json as `./mage quickstart --json` writes it and prints, per seed and as mean (sample sd), the rows
of the warm start, the trained model and the trained model without its history. Goalkeeper: Pass@k (success_rate[k])
and the per-attempt save rate (per_attempt_success[k]) beside the two ceilings. Kuhn Poker (`--env
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
    print("| seed | row | " + " | ".join(KEYS) + " |")
    print("|---" * (len(KEYS) + 2) + "|")
    for s in seeds:
        for r in ROWS:
            print("| %s | %s | %s |" % (s, r, " | ".join(fmt(data[s][r].get(k)) for k in KEYS)))
    for r in ROWS:
        cells = []
        for k in KEYS:
            v = [data[s][r][k] for s in seeds if k in data[s][r]]
            cells.append("-" if not v else "%.3f (%.3f)" % (statistics.mean(v), statistics.stdev(v) if len(v) > 1 else 0))
        print("| mean (sd) | %s | %s |" % (r, " | ".join(cells)))
    first = data[seeds[0]]
    for r in ["ceiling_blind", "ceiling_adaptive"]:
        print("| exact | %s | %s |" % (r, " | ".join(fmt(first[r].get(k)) for k in KEYS)))
    after = [data[s]["after"]["success_rate[2]"] for s in seeds]
    if len(after) > 1:
        m, sd = statistics.mean(after), statistics.stdev(after)
        print("\nafter Pass@3: mean %.3f, sd %.3f, mean - 2 sd %.3f; history-blind ceiling %.3f"
              % (m, sd, m - 2 * sd, first["ceiling_blind"]["success_rate[2]"]))
    times(d, seeds)


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
