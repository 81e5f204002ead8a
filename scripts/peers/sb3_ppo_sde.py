"""Stable-Baselines3's PPO with gSDE on MountainCarContinuous-v0 with the RL Zoo's settings
(hyperparams/ppo.yml): the peer side of configs/mountain_car_continuous_ppo_sde.cfg
(docs/performance.md, Peers). Not part of the build or the tests; run it from a virtual
environment outside the repository that has stable-baselines3 and gymnasium:

    python scripts/peers/sb3_ppo_sde.py STEPS [TORCH_THREADS [SEED]]

Observations and rewards are normalized as the Zoo's `normalize: true` does (VecNormalize
with the algorithm's gamma); the evaluation reads the training statistics, frozen. It prints
the learn time (model construction excluded) and the mean greedy return over 10 episodes,
as rlhost's config evaluates.
"""

import sys
import time

import torch
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.vec_env import VecNormalize

steps = int(sys.argv[1])
torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1

env = VecNormalize(make_vec_env("MountainCarContinuous-v0", n_envs=1, seed=seed), gamma=0.9999)
model = PPO(
    "MlpPolicy",
    env,
    n_steps=8,
    batch_size=256,
    n_epochs=10,
    learning_rate=7.77e-5,
    ent_coef=0.00429,
    clip_range=0.1,
    gamma=0.9999,
    gae_lambda=0.9,
    max_grad_norm=5,
    vf_coef=0.19,
    use_sde=True,
    policy_kwargs=dict(log_std_init=-3.29, ortho_init=False),
    seed=seed,
    verbose=0,
)
t0 = time.time()
model.learn(total_timesteps=steps)
learn_s = time.time() - t0
eval_env = VecNormalize(make_vec_env("MountainCarContinuous-v0", n_envs=1, seed=seed + 1000), training=False)
eval_env.norm_reward = False
eval_env.obs_rms = env.obs_rms
mean, std = evaluate_policy(model, eval_env, n_eval_episodes=10, deterministic=True)
print(f"ppo gSDE {steps} steps: learn {learn_s:.2f} s, eval return {mean:.1f} +- {std:.1f}")
