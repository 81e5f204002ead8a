#!/usr/bin/env python3
"""Move quality of Connect Four policies against perfect play: on the
positions of tests/data/connect_four_positions.txt (1000 reached by random
play, each column's exact score from the solver c4_solve), the fraction
where a policy's greedy move is one of the best columns.

  scripts/c4_move_quality.py RUN_DIR|CHECKPOINT ... [--positions FILE] [--json]

A run directory's self-play pool (pool/step-*.safetensors) is measured
snapshot by snapshot, then its checkpoint: the fraction through training.
Beside it, the fraction of the positions where the side to move can win
with its next stone in which the policy does.
Run it with the project's .venv and RLHOST_LIB_DIR=build PYTHONPATH=python
from a build tree (or an installed rlhost package)."""

import argparse
import glob
import json
import os
import sys

import numpy as np

import rlhost

H, W = 6, 7


def position(moves):
    """The board after moves (columns 1..7): 0 empty, 1 the first player's, 2 the second's."""
    b = np.zeros((H, W), np.int8)
    for k, ch in enumerate(moves):
        c = int(ch) - 1
        r = H - 1 - int((b[:, c] != 0).sum())
        b[r, c] = 1 + k % 2
    return b


def observation(moves):
    """The mover's observation (rlhost's connect_four): planes own, other; row 0 the top."""
    b = position(moves)
    me = 1 + len(moves) % 2
    return np.stack([(b == me), (b == 3 - me)]).astype(np.uint8)


def read(path):
    rows = []
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        sys.exit(f"c4_move_quality: {path}: {e.strerror}")
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        scores = [None if x == "x" else int(x) for x in f[2:9]]
        best = max(s for s in scores if s is not None)
        rows.append((f[0], scores, {c for c, s in enumerate(scores) if s == best}))
    return rows


def wins_now(moves, scores):
    """Whether the side to move wins with its next stone: the score of a win
    is 22 less the winner's stones at the end (c4.h)."""
    return max(s for s in scores if s is not None) == 21 - len(moves) // 2


def quality(path, rows, obs, masks):
    try:
        with rlhost.load(path, num_envs=len(rows)) as p:
            acts = np.asarray(p(obs, action_masks=masks)).reshape(-1)
            step = int(getattr(p, "step", 0) or 0)
    except rlhost.RlhostError as e:
        sys.exit(f"c4_move_quality: {e}")
    good = [int(a) in best for a, (_, _, best) in zip(acts, rows)]
    now = [g for g, (m, sc, _) in zip(good, rows) if wins_now(m, sc)]
    return step, sum(good) / len(rows), (sum(now) / len(now) if now else None), len(now)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--positions", default=os.path.join(here, "..", "tests", "data", "connect_four_positions.txt"))
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = read(a.positions)
    obs = np.stack([observation(m) for m, _, _ in rows])
    masks = np.array([[s is not None for s in sc] for _, sc, _ in rows], bool)
    out = []
    for path in a.paths:
        items = sorted(glob.glob(os.path.join(path, "pool", "step-*.safetensors"))) if os.path.isdir(path) else []
        if not os.path.isdir(path) or os.path.exists(os.path.join(path, "checkpoint.safetensors")):
            items.append(path)
        for item in items:
            step, q, qn, n_now = quality(item, rows, obs, masks)
            out.append(
                {"path": item, "step": step, "best_move_rate": q, "win_now_rate": qn, "win_now_positions": n_now}
            )
            if not a.json:
                now = f"  (wins at once where it can: {qn:.3f} of {n_now})" if n_now else ""
                print(f"{q:6.3f}  step {step:>10}  {item}{now}")
    if a.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
