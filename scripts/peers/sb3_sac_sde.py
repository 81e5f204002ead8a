"""Stable-Baselines3's SAC with gSDE on MountainCarContinuous-v0 with the RL Zoo's settings
(hyperparams/sac.yml): the peer side of configs/mountain_car_continuous_sac_sde.cfg
(docs/performance.md, Peers). Not part of the build or the tests; run it from a virtual
environment outside the repository that has stable-baselines3 and gymnasium:

    python scripts/peers/sb3_sac_sde.py STEPS [TORCH_THREADS [SEED]]

It prints the learn time (model construction excluded) and the mean greedy return over
10 episodes, as rlhost's config evaluates.
"""

import sys
import time

import gymnasium as gym
import torch
from stable_baselines3 import SAC
from stable_baselines3.common.evaluation import evaluate_policy

steps = int(sys.argv[1])
torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1

model = SAC(
    "MlpPolicy",
    gym.make("MountainCarContinuous-v0"),
    learning_rate=3e-4,
    buffer_size=50000,
    batch_size=512,
    ent_coef=0.1,
    train_freq=32,
    gradient_steps=32,
    gamma=0.9999,
    tau=0.01,
    learning_starts=0,
    use_sde=True,
    policy_kwargs=dict(log_std_init=-3.67, net_arch=[64, 64]),
    seed=seed,
    verbose=0,
)
t0 = time.time()
model.learn(total_timesteps=steps)
learn_s = time.time() - t0
mean, std = evaluate_policy(model, gym.make("MountainCarContinuous-v0"), n_eval_episodes=10, deterministic=True)
print(f"sac gSDE {steps} steps: learn {learn_s:.2f} s, eval return {mean:.1f} +- {std:.1f}")
