"""A Parallel PettingZoo env of many agents trained by rlhost through its
bridge and by Stable-Baselines3 through SuperSuit's vectorization, side by
side: the many-agents row of docs/seats.md.  Not part of the build or the
tests; run it from a virtual environment outside the repository with
stable-baselines3 (PyTorch), supersuit and pettingzoo[sisl], with rlhost's
Python package importable (RLHOST_LIB_DIR=build PYTHONPATH=python):

    python scripts/peers/supersuit_pursuit.py AGENTS STEPS [--out FILE.json]

The env: pursuit_v5 with AGENTS pursuers (max_cycles 500), one copy, each
pursuer a row of one shared policy on both sides.  SB3: PPO over
supersuit.pettingzoo_env_to_vec_env_v1 and concat_vec_envs_v1 (one copy,
base_class stable_baselines3), n_steps 128 a row, minibatches of 256, 4
epochs, [64, 64] tanh; rlhost: PPO at the same settings through
rlhost.run(env=...).  PyTorch on one thread.  Reports the agent steps per
second of each learn() / run, and the env alone (a plain loop of the
Parallel env with random actions) as the floor both pay.
"""

import argparse
import json
import os
import tempfile
import time

import numpy as np
import torch
from pettingzoo.sisl import pursuit_v5

import rlhost


def make(agents):
    return pursuit_v5.parallel_env(n_pursuers=agents, max_cycles=500)


def sb3(agents, steps):
    import supersuit as ss
    from stable_baselines3 import PPO

    torch.set_num_threads(1)
    env = ss.pettingzoo_env_to_vec_env_v1(make(agents))
    env = ss.concat_vec_envs_v1(env, 1, num_cpus=0, base_class="stable_baselines3")
    env.venv.seed = lambda seed=None: [seed]  # SuperSuit 3.11's ConcatVecEnv lacks the seed() SB3 2.x calls
    model = PPO("MlpPolicy", env, n_steps=128, batch_size=256, n_epochs=4, seed=0, verbose=0)
    t = time.perf_counter()
    model.learn(total_timesteps=steps)
    return time.perf_counter() - t


def ours(agents, steps):
    out = tempfile.mkdtemp()
    cfg = os.path.join(out, "ppo.cfg")
    open(cfg, "w").write(
        "run: { seed = 0; eval_episodes = 0; quiet = true; };\nenv: { num_envs = 1; };\n"
        'algo: { plugin = "ppo"; n_steps = 128; batch_size = 256; n_epochs = 4; };\n'
    )
    t = time.perf_counter()
    rlhost.run(cfg, env=lambda: make(agents), force=True, run__steps=steps, run__out_dir=out)
    return time.perf_counter() - t


def floor(agents, steps):
    env = make(agents)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    t, n = time.perf_counter(), 0
    while n < steps:
        _, _, te, tr, _ = env.step({a: int(rng.integers(5)) for a in env.agents})
        n += agents
        if all(te.values()) or all(tr.values()) or not env.agents:
            env.reset()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("agents", type=int)
    ap.add_argument("steps", type=int)
    ap.add_argument("--out")
    a = ap.parse_args()
    rows = []
    for name, fn in (("env_alone", floor), ("sb3_supersuit", sb3), ("rlhost_bridge", ours)):
        wall = fn(a.agents, a.steps)
        row = {
            "route": name,
            "agents": a.agents,
            "steps": a.steps,
            "wall_s": round(wall, 3),
            "agent_steps_per_s": round(a.steps / wall, 1),
        }
        print(json.dumps(row), flush=True)
        rows.append(row)
    if a.out:
        json.dump(rows, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
