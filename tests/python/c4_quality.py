"""Connect Four from Python.  scripts/c4_move_quality.py on a short
self-play run: a rate for every pool snapshot and the checkpoint, in step
order; its count of positions the side to move wins with its next stone
equals one found by playing each best column on the board; searched
(--search, Policy.search) it takes its immediate wins and keeps the
position's value more often; --columns lists the column of every
position, from which its rates follow; hostile observations, masks and episode
starts, and a missing run, are sentences, not tracebacks.  random_opening_max: games open with every
count of random moves in the range where an env trains, and with
random_opening where it evaluates.
Usage: c4_quality.py RLHOST SOURCE_ROOT  (TAP; RLHOST_LIB_DIR and PYTHONPATH set)"""

import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

import rlhost
import rlhost.pettingzoo as P

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

RLHOST, SRC = sys.argv[1], sys.argv[2]
SCRIPT = os.path.join(SRC, "scripts", "c4_move_quality.py")
POS = os.path.join(SRC, "tests", "data", "connect_four_positions.txt")
sys.path.insert(0, os.path.join(SRC, "scripts"))
import c4_move_quality as Q  # noqa: E402

_tmp = tempfile.TemporaryDirectory(prefix="rlhost-c4-")
T = _tmp.name


def four_after(moves, col):
    """Whether dropping the mover's stone in col (0-based) makes four in a row."""
    b = Q.position(moves)
    me = 1 + len(moves) % 2
    r = Q.H - 1 - int((b[:, col] != 0).sum())
    b[r, col] = me
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        n = 1
        for s in (1, -1):
            rr, cc = r + s * dr, col + s * dc
            while 0 <= rr < Q.H and 0 <= cc < Q.W and b[rr, cc] == me:
                n, rr, cc = n + 1, rr + s * dr, cc + s * dc
        if n >= 4:
            return True
    return False


rows = Q.read(POS)
by_rule = sum(Q.wins_now(m, sc) for m, sc, _ in rows)
by_board = sum(any(four_after(m, c) for c in best) for m, _, best in rows)
ok(
    by_rule == by_board and by_rule > 0,
    f"positions won with the next stone: {by_rule} by the score rule, {by_board} on the board",
)

run = os.path.join(T, "sp")
r = subprocess.run(
    [
        RLHOST,
        "run",
        os.path.join(SRC, "configs", "connect_four_selfplay.cfg"),
        "--out",
        run,
        "--set",
        "run.steps=12000",
        "--set",
        "seats.snapshot_interval=4000",
        "--set",
        "run.eval_episodes=0",
        "--set",
        "env.num_envs=16",
        "--set",
        "run.quiet=true",
        "--set",
        "run.tensorboard=false",
    ],
    capture_output=True,
    text=True,
)
ok(r.returncode == 0, f"a 12k-step self-play run ({r.stderr.strip()[-200:]})")
r = subprocess.run([sys.executable, SCRIPT, run, "--json"], capture_output=True, text=True)
out = json.loads(r.stdout) if r.returncode == 0 else []
steps = [o["step"] for o in out]
ok(
    len(out) >= 4 and steps == sorted(steps) and steps[0] == 0 and out[-1]["path"] == run,
    f"a rate per snapshot from step 0, then the run's checkpoint (steps {steps})",
)
ok(
    all(0 <= o["best_move_rate"] <= 1 and o["win_now_positions"] == by_rule for o in out),
    "every rate is a fraction, over the positions counted above",
)
ok(
    out and out[0]["best_move_rate"] < 0.4,
    f"the untrained policy is near random play's 0.245 ({out[0]['best_move_rate'] if out else None})",
)
# --misses lists each position whose value the move loses: as many as the
# rate leaves, each one's column a loss of value by its own scores
r = subprocess.run([sys.executable, SCRIPT, run, "--misses", "--json"], capture_output=True, text=True)
miss = json.loads(r.stdout)[-1] if r.returncode == 0 else {}
lost = miss.get("value_lost", [])


def loses(x):
    best = max(v for v in x["scores"] if v is not None)
    got = x["scores"][x["column"] - 1]
    return best >= 0 and (got is None or (got <= 0 if best > 0 else got < 0))


ok(
    out
    and len(lost) == round((1 - out[-1]["value_kept_rate"]) * out[-1]["value_kept_positions"])
    and all(loses(x) for x in lost),
    f"--misses lists the {len(lost)} positions whose value the move loses ({r.stderr.strip()[-200:]})",
)
ok("value_lost" not in out[-1] if out else False, "without --misses the JSON lists none")


def columns_agree(args, want):
    """--columns lists a legal column for every position, and the rates
    recomputed from those columns are the ones reported beside them."""
    r = subprocess.run([sys.executable, SCRIPT, run, *args, "--columns", "--json"], capture_output=True, text=True)
    got = json.loads(r.stdout)[-1] if r.returncode == 0 else {}
    cols = got.get("columns", [])
    legal = len(cols) == len(rows) and all(1 <= c <= 7 and sc[c - 1] is not None for c, (_, sc, _) in zip(cols, rows))
    kept = [Q.value_kept(c - 1, sc) for c, (_, sc, _) in zip(cols, rows)] if legal else []
    kept = [k for k in kept if k is not None]
    best = sum(c - 1 in b for c, (_, _, b) in zip(cols, rows)) / len(rows) if legal else -1
    ok(
        legal
        and kept
        and sum(kept) / len(kept) == got.get("value_kept_rate") == want.get("value_kept_rate")
        and best == got.get("best_move_rate") == want.get("best_move_rate"),
        f"{' '.join(args + ['--columns'])} lists a legal column for each position, and they give its rates "
        f"({r.stderr.strip()[-200:]})",
    )


columns_agree([], out[-1] if out else {})
# The same positions searched through the env with the checkpoint's policy
# guiding: the value kept rises, and immediate wins are taken (a move that
# ends the game is known to the search with its exact value).
r = subprocess.run([sys.executable, SCRIPT, run, "--search", "64", "--json"], capture_output=True, text=True)
got = json.loads(r.stdout) if r.returncode == 0 else []
last = got[-1] if got else {}
ok(
    r.returncode == 0 and last.get("search") == 64 and 0 <= last.get("value_kept_rate", -1) <= 1,
    f"--search 64 reports the searched player's rates ({r.stderr.strip()[-200:]})",
)
# a few positions at a time, their trees in less memory: the same moves
r = subprocess.run(
    [sys.executable, SCRIPT, run, "--search", "64", "--search-batch", "7", "--search-max-mib", "16", "--json"],
    capture_output=True,
    text=True,
)
small = json.loads(r.stdout)[-1] if r.returncode == 0 else {}
ok(small == last, f"--search-batch 7 --search-max-mib 16 searches to the same rates ({r.stderr.strip()[-200:]})")
columns_agree(["--search", "64"], last)
r = subprocess.run(
    [sys.executable, SCRIPT, run, "--search", "64", "--search-max-mib", "1"], capture_output=True, text=True
)
ok(
    r.returncode == 1 and "past the cap of 1.0 MiB" in r.stderr,
    f"trees past --search-max-mib are refused with a sentence ({r.stderr.strip()[-200:]})",
)
# a search spec as `rlhost eval --search` takes it: the default c_puct given
# by name searches to the same rates; a key the search lacks is its sentence
r = subprocess.run(
    [sys.executable, SCRIPT, run, "--search", "simulations=64,c_puct=1.25", "--json"], capture_output=True, text=True
)
spec = json.loads(r.stdout)[-1] if r.returncode == 0 else {}
ok(
    spec.get("search_keys") == {"c_puct": 1.25}
    and {k: v for k, v in spec.items() if k != "search_keys"} == {k: v for k, v in last.items() if k != "search_keys"},
    f"--search simulations=64,c_puct=1.25 searches to --search 64's rates ({r.stderr.strip()[-200:]})",
)
for bad, rc, want in (
    ("simulations=64,nosuch=1", 1, "the search has no key 'nosuch'"),
    ("simulations=x", 2, "simulations='x': expected a number"),
    ("threads=2", 2, "give it with --search-threads"),
    ("c_puct", 2, "'c_puct' is not key=value"),
):
    r = subprocess.run([sys.executable, SCRIPT, run, "--search", bad], capture_output=True, text=True)
    ok(r.returncode == rc and want in r.stderr, f"--search {bad} is refused: {r.stderr.strip()[-200:]}")
raw, srch = out[-1] if out else {}, last
ok(
    srch.get("win_now_rate", 0) >= 0.9 and srch.get("value_kept_rate", 0) > raw.get("value_kept_rate", 1) + 0.1,
    f"searched, it wins at once where it can ({srch.get('win_now_rate')}) and keeps the value more often "
    f"({raw.get('value_kept_rate')} -> {srch.get('value_kept_rate')})",
)

# Policy.search: a move for each row to move, -1 for the others; repeatable;
# bad arguments are sentences.
with rlhost.load(run, num_envs=8, overrides=["env.random_opening=0"]) as pol:
    env = pol.make_env(num_envs=4, seed=3)
    env.reset(seed=3)
    env.step(np.array([3, 3, 2, 2, 4, 4, 0, 0], np.int32))
    a = pol.search(env, simulations=50)
    movers = env._v.to_move()
    ok(
        a.shape == (8,) and all((a[i] >= 0) == movers[i] for i in range(8)) and all(0 <= x < 7 for x in a[movers]),
        f"one move per row to move, -1 for the others ({a.tolist()})",
    )
    b = pol.search(env, simulations=50, threads=1)
    ok(b.shape == a.shape, "a second search runs on one thread")
    for bad, want in (({"simulations": 0}, "simulations"), ({"depth": 3}, "no key 'depth'")):
        try:
            pol.search(env, **bad)
            ok(False, f"search({bad}) is refused")
        except (rlhost.RlhostError, ValueError, TypeError) as e:
            ok(want in str(e), f"search({bad}) is refused: {e}")
    try:
        pol.search(object())
        ok(False, "search of something not an env is refused")
    except TypeError as e:
        ok("VectorEnv" in str(e), f"search of something not an env: {e}")
# A policy called with hostile inputs: a sentence (TypeError or ValueError)
# naming what is wrong, never an error from deeper down.
with rlhost.load(run, num_envs=4) as pol:
    board = np.zeros((2, 6, 7), np.uint8)
    hostile = {
        "observations of strings": ({"obs": "abc"}, "must be numbers"),
        "observations of objects": ({"obs": np.array([object()] * 84).reshape(2, 6, 7)}, "must be numbers"),
        "an observation of 300": ({"obs": np.full((2, 6, 7), 300)}, "not an integer in [0, 255]"),
        "a NaN observation": ({"obs": np.full((2, 6, 7), np.nan, np.float32)}, "not an integer in [0, 255]"),
        "observations of the wrong size": ({"obs": np.zeros(10, np.uint8)}, "the policy takes (2, 6, 7)"),
        "masks of strings": ({"obs": board, "action_masks": "x"}, "action_masks must be booleans or numbers"),
        "a mask holding NaN": ({"obs": board, "action_masks": np.full(7, np.nan)}, "not finite"),
        "a mask allowing nothing": ({"obs": board, "action_masks": np.zeros(7, bool)}, "allows no action"),
        "episode starts of strings": ({"obs": board, "episode_start": "x"}, "episode_start must be booleans"),
        "episode starts too many": ({"obs": board, "episode_start": np.ones(5)}, "episode_start has 5 values"),
    }
    for what, (kw, want) in hostile.items():
        try:
            pol(**kw)
            ok(False, f"{what}: refused")
        except (TypeError, ValueError) as e:
            ok(want in str(e), f"{what}: refused with a sentence ({e})")
        except Exception as e:  # noqa: BLE001 - what this test looks for
            ok(False, f"{what}: refused with a sentence, not {type(e).__name__}: {e}")

with rlhost.load(run, num_envs=8, overrides=["env.random_opening=0"]) as pol:
    env = pol.make_env(num_envs=4, seed=3)
    env.reset(seed=3)
    env.step(np.array([3, 3, 2, 2, 4, 4, 0, 0], np.int32))
    c = pol.search(env, simulations=50)
    ok(c.tolist() == a.tolist(), "a policy opened anew searches the same position to the same moves")

r = subprocess.run([sys.executable, SCRIPT, os.path.join(T, "nothing")], capture_output=True, text=True)
ok(
    r.returncode == 1 and "Traceback" not in r.stderr and "does not exist" in r.stderr,
    f"a missing run: exit 1 and a sentence ({r.stderr.strip()})",
)


def opening_stones(**options):
    env = P.env("connect_four", **options)
    counts = set()
    for seed in range(300):
        env.reset(seed=seed)
        counts.add(int(np.asarray(env.observe(env.agent_selection)["observation"]).sum()))
    return counts


ok(opening_stones(random_opening=2) == {2}, "random_opening 2: every game opens with 2 stones")
got = opening_stones(random_opening=2, random_opening_max=12)
ok(got == set(range(2, 13)), f"random_opening_max 12: every count from 2 to 12 ({sorted(got)})")
cfg = os.path.join(SRC, "configs", "connect_four_selfplay.cfg")
r = subprocess.run(
    [RLHOST, "play", cfg, "--set", "env.random_opening_max=12", "--episodes", "8", "--fps", "1000"],
    capture_output=True,
    text=True,
)
games = re.split(r"episode \d+:[^\n]*\n", r.stdout)[:-1]
firsts = [int(m.group(1)) for m in (re.search(r"\), (\d+) stones", g) for g in games) if m]
ok(
    r.returncode == 0 and len(firsts) == 8 and set(firsts) <= {2, 3},
    f"an evaluation (rlhost play) opens every game with random_opening's 2 (its first positions: {firsts} stones)",
)
r = subprocess.run(
    [
        RLHOST,
        "run",
        cfg,
        "--set",
        "env.random_opening=5",
        "--set",
        "env.random_opening_max=3",
        "--out",
        os.path.join(T, "bad"),
    ],
    capture_output=True,
    text=True,
)
ok(
    r.returncode == 2 and "random_opening_max (3) is below random_opening (5)" in r.stderr,
    f"a range below random_opening is refused ({r.stderr.strip()})",
)
done()
