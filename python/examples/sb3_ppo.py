#!/usr/bin/env python3
"""Stable-Baselines3 PPO trained on rlhost envs through the VecEnv adapter.
CartPole with RL Zoo's tuned PPO settings, evaluated greedily over 20
episodes; then snake (10x10, features + flood fill).
Needs stable-baselines3 and PyTorch.  Usage: sb3_ppo.py [cartpole|snake] [STEPS]"""

import sys
import time

import numpy as np
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from stable_baselines3 import PPO

import rlhost


def evaluate(model, name, episodes=20, **options):
    env = RecordEpisodeStatistics(rlhost.make_vec(name, 1, seed=12345, **options))
    obs, _ = env.reset()
    returns, scores = [], []
    while len(returns) < episodes:
        action, _ = model.predict(obs, deterministic=True)
        obs, _, term, trunc, info = env.step(action)
        if term[0] or trunc[0]:
            returns.append(info["episode"]["r"][0])
            if "score" in info:  # the env's own score (snake's food), under Gymnasium's info layout
                scores.append(info["score"][0])
    return float(np.mean(returns)), (float(np.mean(scores)) if scores else None)


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "cartpole"
    if which == "cartpole":
        steps = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
        options = {}
        venv = rlhost.make_sb3_vec("cartpole", 8, seed=1)
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
        )
    else:
        steps = int(sys.argv[2]) if len(sys.argv) > 2 else 300_000
        options = {"observation": "features", "flood_fill": True}
        venv = rlhost.make_sb3_vec("snake", 16, seed=1, **options)
        model = PPO(
            "MlpPolicy",
            venv,
            n_steps=128,
            batch_size=512,
            n_epochs=4,
            gamma=0.99,
            ent_coef=0.01,
            learning_rate=3e-4,
            seed=1,
            verbose=0,
        )
    t = time.perf_counter()
    model.learn(total_timesteps=steps)
    wall = time.perf_counter() - t
    ret, score = evaluate(model, which, **options)
    extra = f", mean food {score:.1f}" if score is not None else ""
    print(f"SB3 PPO on rlhost {which}: {steps} steps in {wall:.0f} s, greedy return {ret:.1f} over 20 episodes{extra}")


if __name__ == "__main__":
    main()
