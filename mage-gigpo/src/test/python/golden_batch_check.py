"""Independent cross-check of the hand-computed numbers in GigpoGoldenTest.

Re-implements the reference's episode_norm_reward / step_norm_reward logic (per-row mean over a group; a one-row
episode group uses mean 0 and std 1; a one-row step group is its own mean; torch.std is the unbiased estimator) in
numpy float64, with this project's group keys, and prints the advantages of the golden batch for each setting.
Run with: python3 mage-gigpo/src/test/python/golden_batch_check.py  (needs only numpy; no fixture is written).
"""
from collections import defaultdict

import numpy as np

# name, groupId, opponent, seat, phase, episode, turn, anchor state, G, s
BATCH = [
    ("A1", "g1", "mcts", "FIRST", "PLAY", 0, 0, "S0", 1, -10),
    ("A2", "g1", "mcts", "FIRST", "PLAY", 0, 1, "S1", 2, -11),
    ("A3", "g1", "mcts", "FIRST", "REFLECT", 1, 0, "R", 6, 0),
    ("A4", "g1", "mcts", "FIRST", "PLAY", 1, 0, "S0", 6, 10),
    ("B1", "g1", "mcts", "FIRST", "PLAY", 0, 0, "S0", 5, 10),
    ("C1", "g1", "mcts", "FIRST", "PLAY", 0, 0, "S0", 2, 0),
    ("C2", "g1", "mcts", "FIRST", "REFLECT", 1, 0, "R", 4, -1),
    ("C3", "g1", "mcts", "FIRST", "PLAY", 1, 0, "S0", 6, 10),
    ("C4", "g1", "mcts", "FIRST", "PLAY", 1, 1, "S1", 4, 10),
    ("D1", "g1", "random", "FIRST", "PLAY", 0, 0, "S0", 9, 10),
    ("F1", "g1", "random", "FIRST", "PLAY", 0, 0, "S0", 6, -10),
    ("F2", "g1", "random", "FIRST", "REFLECT", 1, 0, "R", 8, 0),
    ("F3", "g1", "random", "FIRST", "PLAY", 1, 0, "S0", 9, 20),
    ("H1", "g2", "mcts", "SECOND", "PLAY", 0, 0, "S0", 3, -5),
    ("K1", "g2", "mcts", "FIRST", "PLAY", 0, 0, "S0", 5, 7),
]
EPS = 1e-6


def norm(values, keys, with_std, singleton_zero_mean):
    groups = defaultdict(list)
    for i, k in enumerate(keys):
        groups[k].append(i)
    out = np.zeros(len(values))
    for members in groups.values():
        x = np.array([values[i] for i in members], dtype=np.float64)
        if len(x) == 1:
            mean, std = (0.0 if singleton_zero_mean else x[0]), 1.0
        else:
            mean, std = x.mean(), x.std(ddof=1)
        for i in members:
            out[i] = (values[i] - mean) / (std + EPS) if with_std else values[i] - mean
    return out, len(groups)


def advantages(mixed, per_episode, with_std, omega=1.0):
    ep_keys, st_keys = [], []
    for name, gid, opp, seat, phase, ep, t, state, g, s in BATCH:
        ek = (gid,) if mixed else (gid, opp, seat)
        ep_keys.append(ek)
        st_keys.append(ek + (state,) + (() if mixed else (opp,)) + ((ep,) if per_episode else ()))
    s = [row[9] for row in BATCH]
    g = [row[8] for row in BATCH]
    ae, _ = norm(s, ep_keys, with_std, True)
    ast, count = norm(g, st_keys, with_std, False)
    return ae, ast, ae + omega * ast, count


if __name__ == "__main__":
    np.set_printoptions(precision=6, suppress=True, linewidth=160)
    for mixed in (False, True):
        for per_episode in (False, True):
            for with_std in (False, True):
                ae, ast, a, count = advantages(mixed, per_episode, with_std)
                print(f"mixed={mixed} perEpisode={per_episode} std={with_std} stepGroups={count} "
                      f"meanSize={len(BATCH) / count:.6f}")
                print("  A^E", ae)
                print("  A^S", ast)
                print("  A  ", a)
