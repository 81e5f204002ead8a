#!/usr/bin/env python3
"""Move quality of Connect Four policies against perfect play: on the
positions of tests/data/connect_four_positions.txt (1000 reached by random
play, each column's exact score from the solver c4_solve), the fraction
where a policy's greedy move keeps the position's game-theoretic value (a
won position stays won, a drawn one drawn; lost positions left out: a
perfect player scores 1.0), and the fraction where it is one of the
columns that win fastest (the solver's best score).

  scripts/c4_move_quality.py RUN_DIR|CHECKPOINT ... [--positions FILE] [--search SPEC] [--search-threads K]
                             [--search-max-mib M] [--search-batch B] [--misses] [--columns] [--json]

A run directory's self-play pool (pool/step-*.safetensors) is measured
snapshot by snapshot, then its checkpoint: the fractions through training.
Beside them, the fraction of the positions where the side to move can win
with its next stone in which the policy does.  --search SPEC plays each
move by a tree search guided by the policy (Policy.search, docs/search.md)
instead of its greedy move: SPEC is a number of simulations, or key=value
pairs separated by commas as `rlhost eval --search` takes them
(simulations=3200,c_puct=2), on --search-threads K threads, its trees
within M MiB (the search's max_mib), B positions at a time.  --misses
lists the positions whose value the move loses: the moves to them, the
column played (1..7) and every column's exact score (None: full).
--columns gives the column played (1..7) in every position, in the file's
order: two players' lists say where they differ.
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


def search_spec(text):
    """SPEC as `rlhost eval --search` takes it: a number of simulations, or
    key=value pairs separated by commas (simulations 100 where not given).
    Returns (simulations, the other keys as numbers), or a sentence."""
    if text.isdigit():
        return int(text), {}
    sims, keys = 100, {}
    for item in text.split(","):
        k, eq, v = (x.strip() for x in item.partition("="))
        if not eq or not k:
            return (
                f"{item.strip()!r} is not key=value (a number of simulations, or keys such as simulations=800,c_puct=2)"
            )
        if k in ("threads", "max_mib"):
            return f"{k}: give it with --search-{k.replace('_', '-')}"
        try:  # a whole number stays one: the search refuses rollouts=1.0
            num = int(v) if k == "simulations" or v.lstrip("+-").isdigit() else float(v)
        except ValueError:
            return f"{k}={v!r}: expected a number"
        if k == "simulations":
            sims = num
        else:
            keys[k] = num
    return sims, keys


def searched(p, rows, simulations, keys, threads, max_mib, batch):
    """The searched move in every position: the positions of each length,
    batch at a time, are played from the start on envs of their own, then
    searched (a tree a row: batch bounds the trees' memory)."""
    acts = np.zeros(len(rows), np.int64)
    by_len = {}
    for i, (m, _, _) in enumerate(rows):
        by_len.setdefault(len(m), []).append(i)
    groups = [(n, idx[k : k + batch]) for n, idx in sorted(by_len.items()) for k in range(0, len(idx), batch)]
    for n, idx in groups:
        env = p.make_env(num_envs=len(idx), seed=0)
        env.reset(seed=0)
        for k in range(n):
            cols = np.array([int(rows[i][0][k]) - 1 for i in idx], np.int32)
            env.step(np.repeat(cols, 2))  # both seats' rows: the mover's counts
        a = p.search(env, simulations, threads=threads, max_mib=max_mib, **keys).reshape(len(idx), 2)
        acts[idx] = a[np.arange(len(idx)), n % 2]
        env.close()
    return acts


def value_kept(move, scores):
    """Whether the move keeps a won position won and a drawn one drawn
    (None: a lost position, left out)."""
    best = max(s for s in scores if s is not None)
    if best < 0:
        return None
    got = scores[move]
    return got is not None and (got > 0 if best > 0 else got == 0)


def quality(path, rows, obs, masks, simulations, keys, opts):
    """The rates of path's moves on rows; opts: the parsed options (search_threads,
    search_max_mib, search_batch, misses, columns)."""
    threads, max_mib, batch = opts.search_threads, opts.search_max_mib, opts.search_batch
    try:
        # the positions are played from an empty board: no random opening
        ov = ["env.random_opening=0", "env.random_opening_max=0"] if simulations else None
        # a search's trees are as many as the policy's rows: batch's when searching
        n = min(len(rows), batch) if simulations else len(rows)
        with rlhost.load(path, num_envs=n, overrides=ov) as p:
            if simulations:
                acts = searched(p, rows, simulations, keys, threads, max_mib, batch)
            else:
                acts = np.asarray(p(obs, action_masks=masks)).reshape(-1)
            step = int(getattr(p, "step", 0) or 0)
    except rlhost.RlhostError as e:
        sys.exit(f"c4_move_quality: {e}")
    good = [int(a) in best for a, (_, _, best) in zip(acts, rows)]
    kept = [value_kept(int(a), sc) for a, (_, sc, _) in zip(acts, rows)]
    lost = [
        {"moves": m, "column": int(a) + 1, "scores": sc} for a, k, (m, sc, _) in zip(acts, kept, rows) if k is False
    ]
    kept = [k for k in kept if k is not None]
    now = [g for g, (m, sc, _) in zip(good, rows) if wins_now(m, sc)]
    return {
        "step": step,
        "value_kept_rate": sum(kept) / len(kept) if kept else None,
        "value_kept_positions": len(kept),
        "best_move_rate": sum(good) / len(rows),
        "win_now_rate": sum(now) / len(now) if now else None,
        "win_now_positions": len(now),
        **({"value_lost": lost} if opts.misses else {}),
        **({"columns": [int(a) + 1 for a in acts]} if opts.columns else {}),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--positions", default=os.path.join(here, "..", "tests", "data", "connect_four_positions.txt"))
    ap.add_argument(
        "--search",
        default="0",
        metavar="SPEC",
        help="a tree search per move: simulations, or key=value pairs (simulations=800,c_puct=2); "
        "0: the policy's own move",
    )
    ap.add_argument(
        "--search-threads",
        type=int,
        default=0,
        metavar="K",
        help="the search's threads (0: every core); a network that acts on several threads at once is "
        "evaluated in batches that follow this count",
    )
    ap.add_argument(
        "--search-max-mib", type=int, default=1024, metavar="M", help="the search trees' memory cap (max_mib)"
    )
    ap.add_argument(
        "--search-batch",
        type=int,
        default=1000,
        metavar="B",
        help="positions searched at once, a tree for each of their rows (fewer: less memory)",
    )
    ap.add_argument("--misses", action="store_true", help="list the positions whose value the move loses")
    ap.add_argument("--columns", action="store_true", help="list the column played (1..7) in every position")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.search_threads < 0 or a.search_threads > 256:
        ap.error(f"--search-threads {a.search_threads}: from 0 (every core) to 256")
    spec = search_spec(a.search)
    if isinstance(spec, str):
        ap.error(f"--search {a.search}: {spec}")
    sims, keys = spec
    if sims < 0 or sims > 1_000_000 or (sims == 0 and keys):
        ap.error(f"--search {a.search}: simulations from 1 to 1000000 (0 alone: the policy's own moves)")
    if a.search_max_mib < 1 or a.search_max_mib > 1 << 20:
        ap.error(f"--search-max-mib {a.search_max_mib}: from 1 to 1048576")
    if a.search_batch < 1 or a.search_batch > 1_000_000:
        ap.error(f"--search-batch {a.search_batch}: from 1 to 1000000")
    rows = read(a.positions)
    obs = np.stack([observation(m) for m, _, _ in rows])
    masks = np.array([[s is not None for s in sc] for _, sc, _ in rows], bool)
    out = []
    for path in a.paths:
        items = sorted(glob.glob(os.path.join(path, "pool", "step-*.safetensors"))) if os.path.isdir(path) else []
        if not os.path.isdir(path) or os.path.exists(os.path.join(path, "checkpoint.safetensors")):
            items.append(path)
        for item in items:
            r = {
                "path": item,
                "search": sims,
                "search_keys": keys,
                **quality(item, rows, obs, masks, sims, keys, a),
            }
            out.append(r)
            if not a.json:
                n_now, qn = r["win_now_positions"], r["win_now_rate"]
                now = f"  (wins at once where it can: {qn:.3f} of {n_now})" if n_now else ""
                print(
                    f"value kept {r['value_kept_rate']:6.3f}  fastest {r['best_move_rate']:6.3f}  "
                    f"step {r['step']:>10}  {item}{now}"
                )
                for x in r.get("value_lost", []):
                    print(f"  value lost: {x['moves']} played column {x['column']}, scores {x['scores']}")
                if "columns" in r:
                    print("  columns: " + "".join(str(c) for c in r["columns"]))
    if a.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
