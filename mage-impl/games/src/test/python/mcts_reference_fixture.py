"""Generates the MCTS move-frequency fixture used by MctsReferenceFrequencyTest.

The search below restates, for Tic-Tac-Toe only, the algorithm of OpenSpiel's Python MCTSBot as the MAGE
reference configures it (uct_c=1.4, RandomRolloutEvaluator with one rollout, solve=True): a visited leaf is
expanded with its legal moves shuffled, children are selected by UCT (unvisited = +inf, proven = proven value,
first maximum wins), leaves are scored by one uniformly random rollout, proven terminal values are backed up
(a node is proven when a child is a proven win for the player to move there or all children are proven), the
search stops once the root is proven, and the move is the child with the largest
(proven value or 0, visit count, total reward).

It runs many independent searches per position with numpy's RandomState and writes how often each move was
chosen. Only Python 3 and numpy are needed:

    python3 mage-impl/games/src/test/python/mcts_reference_fixture.py > \
        mage-impl/games/src/test/resources/org/magejvm/impl/env/tictactoe/mcts-reference-frequencies.csv
"""
import math
import sys

import numpy as np

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
UCT_C = 1.4


def result(board):
    """+1 if X has a line, -1 if O has, 0 for a full board, None while running. board: list of 'X'/'O'/'.'"""
    for a, b, c in LINES:
        if board[a] != '.' and board[a] == board[b] == board[c]:
            return 1 if board[a] == 'X' else -1
    return 0 if '.' not in board else None


def value_for(player, x_value):
    return x_value if player == 'X' else -x_value


class Node:
    __slots__ = ("move", "player", "visits", "total", "proven", "children")

    def __init__(self, move, player):
        self.move = move          # cell played to reach this node
        self.player = player      # who played it (for the root: who is to move)
        self.visits = 0
        self.total = 0.0          # sum of results for `player`
        self.proven = None        # proven result for X, or None
        self.children = None


def other(p):
    return 'O' if p == 'X' else 'X'


def uct(child, parent_visits):
    if child.proven is not None:
        return value_for(child.player, child.proven)
    if child.visits == 0:
        return math.inf
    return child.total / child.visits + UCT_C * math.sqrt(math.log(parent_visits) / child.visits)


def search(board, to_move, sims, rng):
    root = Node(None, to_move)
    for _ in range(sims):
        b = list(board)
        p = to_move
        node = root
        path = [root]
        status = result(b)
        while status is None and node.visits > 0:
            if node.children is None:
                moves = [i for i in range(9) if b[i] == '.']
                rng.shuffle(moves)
                node.children = [Node(m, p) for m in moves]
            best, best_v = None, -math.inf
            for c in node.children:
                v = uct(c, node.visits)
                if best is None or v > best_v:
                    best, best_v = c, v
            node = best
            b[node.move] = p
            p = other(p)
            path.append(node)
            status = result(b)
        if status is not None:
            x_result = float(status)
            node.proven = x_result
            solved = True
        else:
            while result(b) is None:
                empty = [i for i in range(9) if b[i] == '.']
                b[rng.choice(empty)] = p
                p = other(p)
            x_result = float(result(b))
            solved = False
        for n in reversed(path):
            n.total += value_for(n.player, x_result)
            n.visits += 1
            if solved and n.children:
                mover = n.children[0].player
                best, all_proven = None, True
                for c in n.children:
                    if c.proven is None:
                        all_proven = False
                    elif best is None or value_for(mover, c.proven) > value_for(mover, best.proven):
                        best = c
                if best is not None and (all_proven or value_for(mover, best.proven) == 1.0):
                    n.proven = best.proven
                else:
                    solved = False
        if root.proven is not None:
            break

    def key(c):
        return (0.0 if c.proven is None else value_for(c.player, c.proven), c.visits, c.total)

    best = root.children[0]
    for c in root.children[1:]:
        if key(c) > key(best):
            best = c
    return best.move


POSITIONS = [
    # (board in reading order, side to move, simulations)
    (".........", 'X', 100),
    ("X........", 'O', 100),
    ("....X....", 'O', 100),
    (".X.......", 'O', 100),
    ("X...O...X", 'O', 100),
    ("X...O...X", 'O', 1000),
    ("XO..X....", 'O', 100),
]
RUNS = 2000


def main():
    rng = np.random.RandomState(20260304)
    out = sys.stdout
    out.write("# move frequencies of the reference MCTS (see mcts_reference_fixture.py); cells 0-8 in reading order\n")
    out.write("board,to_move,simulations,runs," + ",".join("c%d" % i for i in range(9)) + "\n")
    for board, to_move, sims in POSITIONS:
        counts = [0] * 9
        for _ in range(RUNS):
            counts[search(board, to_move, sims, rng)] += 1
        out.write("%s,%s,%d,%d,%s\n" % (board, to_move, sims, RUNS, ",".join(str(c) for c in counts)))
        out.flush()


if __name__ == "__main__":
    main()
