"""The mujoco env's speed against MuJoCo bare and against EnvPool, interleaved
(docs/performance.md, MuJoCo). Not part of the tests; from the repository root, after a
build with MuJoCo:

    python3 scripts/peers/bench_mujoco.py [--envpool PYTHON] [--rounds R] [--steps S]

For each task and env count (1, 8, 64) every round runs, one after the other:
  bare     build/envs/mujoco/mujoco_bare (MuJoCo with nothing around it, one thread), and
           rlhost bench env mujoco with env.terminate_when_unhealthy=false and
           env.reset_noise_scale=0: both step the same actions from the same states, bit for
           bit, so the difference is rlhost's per-step cost;
  envpool  PYTHON scripts/peers/envpool_mujoco.py (one thread, then all cores), and
           rlhost bench env mujoco with the task's defaults (one thread and all cores).
It prints the medians over the rounds and the ratios of the medians.
"""

import argparse
import json
import os
import statistics
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--envpool", help="a python that has envpool")
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--steps", type=int, default=100000)
ap.add_argument("--tasks", default="half_cheetah,hopper,walker2d,ant")
ap.add_argument("--envs", default="1,8,64")
a = ap.parse_args()

RLHOST, BARE = "build/core/rlhost", "build/envs/mujoco/mujoco_bare"
MODELS = "build/envs/mujoco/mujoco_models"
XML = {"half_cheetah": "half_cheetah.xml", "hopper": "hopper.xml", "walker2d": "walker2d_v5.xml", "ant": "ant.xml"}
SKIP = {"half_cheetah": 5, "hopper": 4, "walker2d": 4, "ant": 5}
cores = os.cpu_count()


def out(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def rlhost(task, n, *sets):
    cmd = [
        RLHOST,
        "bench",
        "env",
        "mujoco",
        "--json",
        "--repeat",
        "1",
        "--steps",
        str(a.steps),
        "--set",
        f"env.task={task}",
        "--set",
        f"env.num_envs={n}",
    ]
    for s in sets:
        cmd += ["--set", s]
    rows = [json.loads(l) for l in out(cmd).splitlines() if l.startswith("{")]
    return {r["threads"]: r["steps_per_s"] for r in rows}


print(f"# {cores} cores, {a.rounds} interleaved rounds of {a.steps} env steps; medians in env steps/s")
print(
    "| task | envs | bare | rlhost (no early end) | rlhost / bare | EnvPool 1 thread | rlhost 1 thread "
    "| rlhost / EnvPool | EnvPool all cores | rlhost all cores | rlhost / EnvPool |"
)
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for task in a.tasks.split(","):
    for n in map(int, a.envs.split(",")):
        s = {k: [] for k in ("bare", "rl_bare", "ep1", "rl1", "epN", "rlN")}
        for _ in range(a.rounds):
            s["bare"].append(float(out([BARE, f"{MODELS}/{XML[task]}", str(SKIP[task]), str(n), str(a.steps)])))
            s["rl_bare"].append(rlhost(task, n, "env.terminate_when_unhealthy=false", "env.reset_noise_scale=0")[1])
            if a.envpool:
                ep = [a.envpool, "scripts/peers/envpool_mujoco.py", task, str(n)]
                s["ep1"].append(float(out(ep + ["1", str(a.steps)])))
                s["epN"].append(float(out(ep + [str(min(cores, n)), str(a.steps)])))
                r = rlhost(task, n)
                s["rl1"].append(r[1])
                s["rlN"].append(r[max(r)])
        m = {k: statistics.median(v) if v else float("nan") for k, v in s.items()}
        print(
            f"| {task} | {n} | {m['bare']:.0f} | {m['rl_bare']:.0f} | {m['rl_bare'] / m['bare']:.3f} "
            f"| {m['ep1']:.0f} | {m['rl1']:.0f} | {m['rl1'] / m['ep1']:.2f} "
            f"| {m['epN']:.0f} | {m['rlN']:.0f} | {m['rlN'] / m['epN']:.2f} |",
            flush=True,
        )
