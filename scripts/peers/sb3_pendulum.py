"""Stable-Baselines3 on Pendulum-v1 with the RL Zoo's settings: the peer side of
docs/performance.md#peers. Not part of the build or the tests; run it from a virtual
environment outside the repository that has stable-baselines3 and gymnasium:

    python scripts/peers/sb3_pendulum.py {sac|td3|ppo} STEPS [TORCH_THREADS [SEED]]

It prints the learn time (model construction excluded) and the mean greedy return over
20 episodes. The rlhost side is configs/pendulum_{sac,td3}_zoo.cfg and
configs/pendulum_ppo.cfg (see the page for the exact --set values).
"""

import sys
import time

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import PPO, SAC, TD3
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.noise import NormalActionNoise
from stable_baselines3.common.vec_env import VecNormalize

algo, steps = sys.argv[1], int(sys.argv[2])
torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1

if algo == "sac":  # rl-baselines3-zoo hyperparams/sac.yml, Pendulum-v1
    env = gym.make("Pendulum-v1")
    model = SAC("MlpPolicy", env, learning_rate=1e-3, seed=seed, verbose=0)
elif algo == "td3":  # hyperparams/td3.yml, Pendulum-v1
    env = gym.make("Pendulum-v1")
    model = TD3(
        "MlpPolicy",
        env,
        gamma=0.98,
        buffer_size=200000,
        learning_starts=10000,
        action_noise=NormalActionNoise(np.zeros(1), 0.1 * np.ones(1)),
        gradient_steps=-1,
        train_freq=(1, "episode"),
        learning_rate=1e-3,
        policy_kwargs=dict(net_arch=[400, 300]),
        seed=seed,
        verbose=0,
    )
elif algo == "ppo":  # hyperparams/ppo.yml, Pendulum-v1, without use_sde (rlhost's PPO has no gSDE)
    env = VecNormalize(make_vec_env("Pendulum-v1", n_envs=4, seed=seed), gamma=0.9)
    model = PPO(
        "MlpPolicy",
        env,
        n_steps=1024,
        gae_lambda=0.95,
        gamma=0.9,
        n_epochs=10,
        ent_coef=0.0,
        learning_rate=1e-3,
        clip_range=0.2,
        seed=seed,
        verbose=0,
    )
else:
    sys.exit(f"sb3_pendulum.py: unknown algorithm '{algo}' (sac, td3 or ppo)")

t0 = time.time()
model.learn(total_timesteps=steps)
learn_s = time.time() - t0
if algo == "ppo":
    env.training = False
    env.norm_reward = False
    mean, std = evaluate_policy(model, env, n_eval_episodes=20, deterministic=True)
else:
    mean, std = evaluate_policy(model, gym.make("Pendulum-v1"), n_eval_episodes=20, deterministic=True)
print(f"{algo} {steps} steps: learn {learn_s:.2f} s, eval return {mean:.1f} +- {std:.1f}")
