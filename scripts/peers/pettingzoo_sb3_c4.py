"""PettingZoo's Stable-Baselines3 tutorial for Connect Four against rlhost,
at the same budget in steps: the peer side of docs/seats.md.  Not part of
the build or the tests; run it from a virtual environment outside the
repository with sb3-contrib (PyTorch), pettingzoo[classic] and gymnasium,
and rlhost's Python package importable (RLHOST_LIB_DIR=build PYTHONPATH=python):

    python scripts/peers/pettingzoo_sb3_c4.py STEPS SEED [--out FILE.json]

The tutorial's route (written here anew from its description): one
connect_four_v3 AEC env wrapped as a single-agent Gymnasium env in which
MaskablePPO plays both sides (each step one ply, the observation and mask
those of the side to move, the reward that of the side that moved), the
masks through sb3-contrib's ActionMasker, MaskablePPO's defaults (2048
steps a rollout, minibatches of 64, 10 epochs, [64, 64] tanh), PyTorch on
one thread.  rlhost's routes: configs/connect_four_selfplay.cfg without its scripted
pool members (self-play alone, against its snapshots) on its own C Connect
Four, the same with SB3's network size ([64, 64] instead of the config's
[256, 256]), and the same on PettingZoo's connect_four_v3 through rlhost's
bridge.  Every side trains
STEPS steps of its learner (the tutorial's steps are plies of both sides,
all of them learned from; rlhost's are the learner's moves, the pool's
moves between them not counted), then plays 100 games from each seat
against uniformly random legal moves, greedy.  Wall times are
training's: the peer's learn() and rlhost's summary.json wall_s (its
snapshots included, its evaluation not).  Prints a JSON line a route.
"""

import argparse
import csv
import json
import os
import tempfile
import time

import gymnasium as gym
import numpy as np
import torch
from pettingzoo.classic import connect_four_v3
from pettingzoo.utils import BaseWrapper
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker

import rlhost


class BothSides(BaseWrapper, gym.Env):
    """The AEC game as one Gymnasium env whose agent plays every side."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        return self.observe(self.agent_selection), {}

    def step(self, action):
        mover = self.agent_selection
        super().step(action)
        return (
            self.observe(self.agent_selection),
            self._cumulative_rewards[mover],
            self.terminations[mover],
            self.truncations[mover],
            self.infos[mover],
        )

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def sb3(steps, seed):
    torch.set_num_threads(1)
    env = BothSides(connect_four_v3.env())
    env.observation_space = env.observation_space(env.possible_agents[0])["observation"]
    env.action_space = env.action_space(env.possible_agents[0])
    env.reset(seed=seed)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, seed=seed, verbose=0)
    t = time.perf_counter()
    model.learn(total_timesteps=steps)
    wall = time.perf_counter() - t

    def act(obs, mask):
        return int(model.predict(obs["observation"], action_masks=mask, deterministic=True)[0])

    return wall, play(act, seed)


def play(act, seed, games=100):
    """Win rates of act against random legal moves from each seat."""
    rng = np.random.default_rng(seed + 1)
    rates = []
    for seat in (0, 1):
        won = 0
        for g in range(games):
            env = connect_four_v3.env()
            env.reset(seed=seed * 1000 + g)
            me = env.possible_agents[seat]
            for agent in env.agent_iter():
                obs, rew, term, trunc, _ = env.last()
                if term or trunc:
                    won += agent == me and rew > 0
                    env.step(None)
                    continue
                mask = obs["action_mask"]
                env.step(act(obs, mask) if agent == me else int(rng.choice(np.flatnonzero(mask))))
            env.close()
        rates.append(won / games)
    return rates


def rlhost_route(steps, seed, bridge, hidden=None):
    out = tempfile.mkdtemp()
    cfg = os.path.join(os.path.dirname(__file__), "..", "..", "configs", "connect_four_selfplay.cfg")
    over = {
        "run.steps": steps,
        "run.seed": seed,
        "run.eval_interval": 0,
        "run.eval_episodes": 100,
        "run.quiet": True,
        "run.out_dir": out,
        "run.checkpoint_interval": 0,
        "run.tensorboard": False,
        "seats.snapshot_interval": max(steps // 10, 1),
        "seats.eval_opponents": '["random"]',
        "seats.pool_opponents": "[]",
    }  # self-play alone, as the tutorial's
    if hidden:
        over["algo.hidden"] = hidden
    env = None
    if bridge:
        over["env.num_envs"] = 16
        over["env.plugin"] = None
        env = lambda: connect_four_v3.env()  # noqa: E731
        text = open(cfg).read().replace('plugin = "connect_four";', "").replace("random_opening = 2;", "")
        cfg = os.path.join(out, "bridge.cfg")
        open(cfg, "w").write(text)
        del over["env.plugin"]
    rlhost.run(cfg, env=env, force=True, overrides=over)
    wall = json.load(open(os.path.join(out, "summary.json")))["wall_s"]  # training, as the peer's learn()
    e = list(csv.DictReader(open(os.path.join(out, "evals.csv"))))[-1]
    return wall, [float(e["vs_random_seat0_win"]), float(e["vs_random_seat1_win"])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("steps", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--out")
    a = ap.parse_args()
    rows = []
    for name, fn in (
        ("sb3_maskable_ppo", lambda: sb3(a.steps, a.seed)),
        ("rlhost", lambda: rlhost_route(a.steps, a.seed, False)),
        ("rlhost_64x64", lambda: rlhost_route(a.steps, a.seed, False, "[64, 64]")),
        ("rlhost_pettingzoo_bridge", lambda: rlhost_route(a.steps, a.seed, True)),
    ):
        wall, rates = fn()
        row = {
            "route": name,
            "steps": a.steps,
            "seed": a.seed,
            "train_wall_s": round(wall, 3),
            "win_vs_random_first": rates[0],
            "win_vs_random_second": rates[1],
        }
        print(json.dumps(row), flush=True)
        rows.append(row)
    if a.out:
        json.dump(rows, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
