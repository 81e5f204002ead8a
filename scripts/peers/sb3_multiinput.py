"""Stable-Baselines3's PPO with MultiInputPolicy against rlhost's PPO on the
same composite observation, side by side: the peer side of docs/spaces.md.
Not part of the build or the tests; run it from a virtual environment
outside the repository that has stable-baselines3 (with PyTorch) and
gymnasium, with rlhost's Python package importable (RLHOST_LIB_DIR=build
PYTHONPATH=python):

    python scripts/peers/sb3_multiinput.py STEPS SEEDS [--out FILE.json]

The env: rlhost's snake on 10x10 with observation = "dict" (the board's
three channels, the heading, length and hunger), no masks, 8 envs stepped
by rlhost (rlhost.sb3.make_sb3_vec for SB3).  SB3's CombinedExtractor would
put the 3x10x10 uint8 board through NatureCNN, whose 8x8 stride-4 kernel
leaves too little for its second layer on a 10x10 board (it raises), so SB3
reads the board as float32 in [0, 1] and flattens it, and rlhost does the
same (encoder = "mlp": every part flattened).  Both: 128 steps an env a
rollout, minibatches of 256, 4 epochs, lr 3e-4, gamma 0.99, GAE 0.95, clip
0.2, entropy 0.01, [64, 64] tanh MLPs, orthogonal init; PyTorch on one
thread.  For each seed in turn: SB3's learn() wall time, then rlhost's
`rlhost.run` without evaluation; each followed by the mean food of 100
greedy episodes.  One JSON line a run; all of them to --out.
"""

import argparse
import json
import os
import tempfile
import time

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecEnvWrapper

import rlhost
from rlhost.sb3 import make_sb3_vec

ap = argparse.ArgumentParser()
ap.add_argument("steps", type=int)
ap.add_argument("seeds")
ap.add_argument("--out")
args = ap.parse_args()
torch.set_num_threads(1)
ENV = dict(width=10, height=10, observation="dict")


class FloatBoard(VecEnvWrapper):
    """The board as float32 in [0, 1] (what rlhost's network reads too)."""

    def __init__(self, venv):
        sp = dict(venv.observation_space.spaces)
        sp["board"] = spaces.Box(0.0, 1.0, sp["board"].shape, np.float32)
        super().__init__(venv, observation_space=spaces.Dict(sp))

    @staticmethod
    def _f(o):
        o = dict(o)
        o["board"] = np.asarray(o["board"], np.float32) / 255.0
        return o

    def reset(self):
        return self._f(self.venv.reset())

    def step_wait(self):
        o, r, d, infos = self.venv.step_wait()
        for i in infos:
            if "terminal_observation" in i:
                i["terminal_observation"] = self._f(i["terminal_observation"])
        return self._f(o), r, d, infos


def food(act, episodes=100, seed=10_000):
    total = 0.0
    for k in range(episodes):
        env = rlhost.make("snake", seed=seed + k, **ENV)
        obs, _ = env.reset(seed=seed + k)
        done, info = False, {}
        while not done:
            obs, _, te, tr, info = env.step(act(obs))
            done = te or tr
        total += info.get("score", 0.0)
        env.close()
    return total / episodes


def sb3(seed):
    model = PPO(
        "MultiInputPolicy",
        FloatBoard(make_sb3_vec("snake", 8, seed, **ENV)),
        n_steps=128,
        batch_size=256,
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.99,
        gae_lambda=0.95,
        clip_range=0.2,
        ent_coef=0.01,
        seed=seed,
        verbose=0,
    )
    t0 = time.time()
    model.learn(total_timesteps=args.steps)
    wall = time.time() - t0

    def act(o):
        o = FloatBoard._f({k: v[None] for k, v in o.items()})
        return int(model.predict(o, deterministic=True)[0][0])

    return wall, food(act)


def ours(seed, tmp):
    path = os.path.join(tmp, "ppo.cfg")
    with open(path, "w") as f:
        f.write(f"""run: {{ steps = {args.steps}; seed = {seed}; eval_episodes = 0; quiet = true; }};
env: {{ plugin = "snake"; num_envs = 8; width = 10; height = 10; observation = "dict"; }};
algo: {{ plugin = "ppo"; n_steps = 128; batch_size = 256; n_epochs = 4; lr = 3e-4; gamma = 0.99; gae_lambda = 0.95;
  clip_range = 0.2; ent_coef = 0.01; hidden = [64, 64]; activation = "tanh"; encoder = "mlp"; }};
""")
    t0 = time.time()
    p = rlhost.run(path, force=True, run__out_dir=os.path.join(tmp, f"run{seed}"))
    wall = time.time() - t0
    return wall, food(lambda o: p(o))


rows = []
with tempfile.TemporaryDirectory() as tmp:
    for seed in [int(s) for s in args.seeds.split(",")]:
        for side, fn in (("SB3 MultiInputPolicy", sb3), ("rlhost", lambda s: ours(s, tmp))):
            wall, ret = fn(seed)
            row = {
                "task": "snake dict",
                "steps": args.steps,
                "side": side,
                "seed": seed,
                "wall_s": round(wall, 2),
                "food": round(ret, 3),
            }
            print(json.dumps(row), flush=True)
            rows.append(row)
if args.out:
    with open(args.out, "w") as f:
        json.dump(rows, f, indent=1)
