#!/usr/bin/env python3
"""Prints the Goalkeeper quick start's rows over seeds: python3 quickstart-table.py DIR SEED [SEED ...].

Reads DIR/seedS.json as `./mage quickstart --json` writes it and prints, per seed and as mean (sample sd), Pass@k
(success_rate[k]) and the per-attempt save rate (per_attempt_success[k]) of the warm start, the trained model and the
trained model without its history, beside the two ceilings. Run by hand; nothing in the build calls it.
"""
import json
import statistics
import sys

ROWS = ["before", "after", "after_without_history"]
KEYS = ["success_rate[0]", "success_rate[1]", "success_rate[2]",
        "per_attempt_success[0]", "per_attempt_success[1]", "per_attempt_success[2]"]


def fmt(v):
    return "-" if v is None else "%.3f" % v


def main():
    d, seeds = sys.argv[1], sys.argv[2:]
    data = {s: json.load(open("%s/seed%s.json" % (d, s))) for s in seeds}
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
    times = []
    for s in seeds:
        try:
            times.append(int(open("%s/seed%s.time" % (d, s)).read()))
        except OSError:
            pass
    if times:
        print("wall-clock seconds per seed: %s" % ", ".join(str(t) for t in times))


if __name__ == "__main__":
    main()
