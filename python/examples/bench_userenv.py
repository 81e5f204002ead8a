#!/usr/bin/env python3
"""Your own Python env under rlhost's learners: what the bridge costs, and a
whole PPO run against Stable-Baselines3's on the same env.

1. Bridge: Gymnasium's CartPole-v1 (Python), 8 envs, random actions.
   Stepping them in a plain Python loop (with autoreset) against an rlhost
   run of the `random` algorithm on them through rlhost.run(env=...), where
   every step goes C -> Python callback -> the envs.  The difference per env
   step is the bridge (the run's own bookkeeping included).
2. PPO with the RL Zoo's CartPole settings (configs/cartpole_ppo.cfg: 8
   envs, n_steps 32, batch 256, 20 epochs, [64, 64] tanh, linear schedules)
   for --steps env steps on gym.make("CartPole-v1") factories: rlhost's PPO
   against SB3's PPO (DummyVecEnv, PyTorch on one thread).
Interleaved rounds, medians.  Needs stable-baselines3 and PyTorch for (2).
Usage: bench_userenv.py [--steps 100000] [--rounds 3] [--bridge-steps 200000]"""

import argparse
import os
import statistics
import tempfile
import time

import gymnasium as gym
import numpy as np

import rlhost

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
T = tempfile.mkdtemp()


def cartpole():
    return gym.make("CartPole-v1")


def python_loop(steps, n=8):
    envs = [cartpole() for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=i)
    acts = np.random.default_rng(0).integers(0, 2, (1024, n))
    t = time.perf_counter()
    for k in range(steps // n):
        row = acts[k % 1024]
        for i, e in enumerate(envs):
            _, _, te, tr, _ = e.step(int(row[i]))
            if te or tr:
                e.reset()
    return time.perf_counter() - t


def rlhost_random(steps, n=8):
    cfg = os.path.join(T, "random.cfg")
    with open(cfg, "w") as f:
        f.write(
            f'run: {{ steps = {steps}; seed = 1; out_dir = "{T}/random"; eval_episodes = 0; quiet = true; }};\n'
            f'env: {{ plugin = "cartpole"; num_envs = {n}; }};\nalgo: {{ plugin = "random"; }};\n'
        )
    t = time.perf_counter()
    rlhost.run(cfg, env=cartpole, force=True)
    return time.perf_counter() - t


def rlhost_ppo(steps):
    t = time.perf_counter()
    p = rlhost.run(
        os.path.join(ROOT, "configs/cartpole_ppo.cfg"),
        env=cartpole,
        force=True,
        run__steps=steps,
        run__quiet=True,
        run__out_dir=os.path.join(T, "ppo"),
    )
    return time.perf_counter() - t, p.summary.get("eval_return_mean")


def sb3_ppo(steps):
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    venv = make_vec_env("CartPole-v1", n_envs=8, seed=1)
    t = time.perf_counter()
    model = PPO(
        "MlpPolicy",
        venv,
        n_steps=32,
        batch_size=256,
        gae_lambda=0.8,
        gamma=0.98,
        n_epochs=20,
        ent_coef=0.0,
        learning_rate=lambda f: 1e-3 * f,
        clip_range=lambda f: 0.2 * f,
        seed=1,
        policy_kwargs={"net_arch": [64, 64]},
        verbose=0,
        device="cpu",
    )
    model.learn(steps)
    took = time.perf_counter() - t
    env = cartpole()
    rets = []
    for ep in range(20):
        obs, _ = env.reset(seed=1000 + ep)
        done, ret = False, 0.0
        while not done:
            a, _ = model.predict(obs, deterministic=True)
            obs, r, te, tr, _ = env.step(int(a))
            ret, done = ret + r, te or tr
        rets.append(ret)
    return took, float(np.mean(rets))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--bridge-steps", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-sb3", action="store_true")
    a = ap.parse_args()
    loop, bridged = [], []
    for _ in range(a.rounds):
        loop.append(python_loop(a.bridge_steps))
        bridged.append(rlhost_random(a.bridge_steps))
    lo, br = statistics.median(loop), statistics.median(bridged)
    print(
        f"bridge: {a.bridge_steps} env steps of 8 Python CartPoles: plain loop {lo:.2f} s, through rlhost "
        f"{br:.2f} s: {1e6 * (br - lo) / a.bridge_steps:+.2f} us per env step"
    )
    if a.no_sb3:
        return
    ours, theirs = [], []
    for _ in range(a.rounds):
        ours.append(rlhost_ppo(a.steps))
        theirs.append(sb3_ppo(a.steps))
    o = statistics.median(t for t, _ in ours)
    s = statistics.median(t for t, _ in theirs)
    print(
        f"PPO, RL Zoo settings, {a.steps} steps on Gymnasium's CartPole-v1: rlhost {o:.1f} s "
        f"(returns {[r for _, r in ours]}), SB3 {s:.1f} s (returns {[r for _, r in theirs]}): {s / o:.1f}x"
    )


if __name__ == "__main__":
    main()
