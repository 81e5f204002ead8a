"""The atari env's speed against ALE bare and against EnvPool, interleaved
(docs/performance.md, Atari). Not part of the tests; from the repository root, after a
build with ALE and scripts/pydeps.sh (the ROMs of .venv's ale-py):

    python3 scripts/peers/bench_atari.py [--envpool PYTHON] [--rounds R] [--steps S]

For each game and env count (1, 8, 64) every round runs, one after the other:
  bare     build/envs/atari/atari_bare (ALE's act() and the same preprocessing, one
           thread), and rlhost bench env atari (one thread): both play the same frames
           (the same seeds and action table), so the difference is rlhost's per-step cost;
  envpool  PYTHON scripts/peers/envpool_atari.py (one thread, then all cores), against
           rlhost bench env atari (one thread and all cores).
It prints the medians over the rounds and the ratios of the medians.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--envpool", help="a python that has envpool")
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--steps", type=int, default=20000)
ap.add_argument("--games", default="pong,breakout")
ap.add_argument("--envs", default="1,8,64")
a = ap.parse_args()

RLHOST, BARE = "build/core/rlhost", "build/envs/atari/atari_bare"
ROMS = glob.glob(".venv/lib/python3*/site-packages/ale_py/roms")[0]
cores = os.cpu_count()


def out(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def rlhost(game, n):
    cmd = [
        RLHOST,
        "bench",
        "env",
        "atari",
        "--json",
        "--repeat",
        "1",
        "--steps",
        str(a.steps),
        "--set",
        f"env.game={game}",
        "--set",
        f"env.num_envs={n}",
    ]
    rows = [json.loads(l) for l in out(cmd).splitlines() if l.startswith("{")]
    return {r["threads"]: r["steps_per_s"] for r in rows}


print(f"# {cores} cores, {a.rounds} interleaved rounds of {a.steps} env steps; medians in env steps/s")
print(
    "| game | envs | bare | rlhost 1 thread | rlhost / bare | EnvPool 1 thread | rlhost / EnvPool "
    "| EnvPool all cores | rlhost all cores | rlhost / EnvPool |"
)
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for game in a.games.split(","):
    for n in map(int, a.envs.split(",")):
        s = {k: [] for k in ("bare", "rl1", "ep1", "epN", "rlN")}
        for _ in range(a.rounds):
            s["bare"].append(float(out([BARE, f"{ROMS}/{game}.bin", str(n), str(max(a.steps // n, 1))])))
            r = rlhost(game, n)
            s["rl1"].append(r[1])
            s["rlN"].append(r[max(r)])
            if a.envpool:
                ep = [a.envpool, "scripts/peers/envpool_atari.py", game, str(n)]
                s["ep1"].append(float(out(ep + ["1", str(a.steps)])))
                s["epN"].append(float(out(ep + [str(min(cores, n)), str(a.steps)])))
        m = {k: statistics.median(v) if v else float("nan") for k, v in s.items()}
        print(
            f"| {game} | {n} | {m['bare']:.0f} | {m['rl1']:.0f} | {m['rl1'] / m['bare']:.3f} "
            f"| {m['ep1']:.0f} | {m['rl1'] / m['ep1']:.2f} "
            f"| {m['epN']:.0f} | {m['rlN']:.0f} | {m['rlN'] / m['epN']:.2f} |",
            flush=True,
        )
