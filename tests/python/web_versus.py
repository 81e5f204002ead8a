"""The game page's searched moves against rlhost's own search of the same
run: each position the page searched is played from the opening on an env
of the run, searched by Policy.search with the page's simulations on one
thread, and the two moves compared.  The page's network is the exported C
(its sums in another order than rlhost's kernels), so a move may differ
only where the page's own visit counts put rlhost's move within 2 of its
most visited: a tie in all but the last bits.  (TAP)
Usage: web_versus.py RUN_DIR PAGE_JSON"""

import json
import sys
import warnings

import numpy as np

import rlhost

run, page_json = sys.argv[1:3]
page = json.load(open(page_json))
n = failed = agree = 0


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {what}", flush=True)
    failed += not cond


warnings.simplefilter("ignore", rlhost.RlhostWarning)
sims = page["simulations"]
with rlhost.load(run, num_envs=1) as p:
    for r in page["positions"]:
        moves, visits = r["moves"], r["visits"]
        env = p.make_env(num_envs=1, seed=0)
        env.reset(seed=0)
        for ch in moves:
            env.step(np.array([int(ch) - 1] * 2, np.int32))  # both seats' rows: the mover's counts
        mine = int(p.search(env, sims, threads=1).reshape(2)[len(moves) % 2])
        env.close()
        agree += mine == r["move"]
        ok(
            mine == r["move"] or visits[mine] >= max(visits) - 2,
            f"position {moves or '(empty)'}: the page plays {r['move'] + 1}, rlhost {mine + 1} (page visits {visits})",
        )
        ok(abs(sum(visits) - sims) <= 1, f"position {moves or '(empty)'}: the page's search spent {sims} simulations")
print(f"# the same move in {agree} of {len(page['positions'])} positions")
print(f"1..{n}")
sys.exit(1 if failed else 0)
