"""How often a policy on the tic-tac-toe fixture (tests/fixtures/tictactoe.c)
picks a minimax-optimal move, over every position reachable from the empty
board: the network alone (greedy), or searched with N simulations (--search
N, Policy.search).  A player optimal in all of them never loses.
Usage: ttt_alphazero.py RUN_DIR [--search N] [--at-least K]
(prints the count; exit 1 below K, by default every position)"""

import argparse
import functools
import sys

import numpy as np

import rlhost

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def won(cells, mark):
    return any(all(cells[i] == mark for i in line) for line in LINES)


@functools.lru_cache(maxsize=None)
def value(cells):
    """The mover's minimax value of a position that is not over: 1, 0 or -1."""
    mover = 1 + (9 - cells.count(0)) % 2
    best = -1
    for a in range(9):
        if cells[a]:
            continue
        child = cells[:a] + (mover,) + cells[a + 1 :]
        v = 1 if won(child, mover) else 0 if 0 not in child else -value(child)
        best = max(best, v)
    return best


def child_value(cells, a):
    mover = 1 + (9 - cells.count(0)) % 2
    child = cells[:a] + (mover,) + cells[a + 1 :]
    return 1 if won(child, mover) else 0 if 0 not in child else -value(child)


def reachable():
    """Every position not over that play from the empty board reaches, each
    with one sequence of moves that reaches it."""
    seen, todo = {}, [((0,) * 9, ())]
    while todo:
        c, moves = todo.pop()
        if c in seen:
            continue
        seen[c] = moves
        mover = 1 + (9 - c.count(0)) % 2
        for a in range(9):
            if not c[a]:
                child = c[:a] + (mover,) + c[a + 1 :]
                if not won(child, mover) and 0 in child:
                    todo.append((child, moves + (a,)))
    return sorted(seen.items())


def searched(p, items, simulations):
    """The searched move of every position: those of each depth are played
    from the start on envs of their own, then searched."""
    acts = np.zeros(len(items), np.int64)
    by_len = {}
    for i, (_, moves) in enumerate(items):
        by_len.setdefault(len(moves), []).append(i)
    for n, idx in sorted(by_len.items()):
        env = p.make_env(num_envs=len(idx), seed=0)
        env.reset(seed=0)
        for k in range(n):
            env.step(np.repeat(np.array([items[i][1][k] for i in idx], np.int32), 2))  # the mover's row counts
        a = p.search(env, simulations).reshape(len(idx), 2)
        acts[idx] = a[np.arange(len(idx)), n % 2]
        env.close()
    return acts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--search", type=int, default=0, metavar="N")
    ap.add_argument("--at-least", type=int, default=None, metavar="K")
    a = ap.parse_args()
    items = reachable()
    positions = [c for c, _ in items]
    obs = np.zeros((len(positions), 18), np.uint8)
    masks = np.zeros((len(positions), 9), np.uint8)
    for i, c in enumerate(positions):
        mover = 1 + (9 - c.count(0)) % 2
        obs[i, :9] = [x == mover for x in c]
        obs[i, 9:] = [x == 3 - mover for x in c]
        masks[i] = [x == 0 for x in c]
    with rlhost.Policy(a.run, num_envs=len(positions)) as p:
        if a.search:
            acts = searched(p, items, a.search)
        else:
            acts = np.asarray(p(obs.reshape(-1, 2, 3, 3), action_masks=masks))
    missed = [c for c, m in zip(positions, acts) if child_value(c, int(m)) != value(c)]
    good = len(positions) - len(missed)
    how = f"searched with {a.search} simulations" if a.search else "the network alone"
    print(f"{good} of {len(positions)} reachable positions get a minimax-optimal move ({how})")
    for c in missed[:5]:
        print("missed:", c)
    return 0 if good >= (len(positions) if a.at_least is None else a.at_least) else 1


if __name__ == "__main__":
    sys.exit(main())
