"""Stable-Baselines3 PPO on Gymnasium's HalfCheetah-v5 and Hopper-v5 with the RL Zoo's
tuned settings (hyperparams/ppo.yml): the peer side of configs/{half_cheetah,hopper}_ppo_zoo.cfg
(docs/learning.md, MuJoCo). Not part of the build or the tests; run it from a virtual
environment outside the repository that has stable-baselines3, gymnasium and mujoco:

    python scripts/peers/sb3_mujoco.py {half_cheetah|hopper} STEPS [TORCH_THREADS [SEED]]

It prints the learn time (model construction excluded) and the mean greedy return over
10 episodes, with the normalization statistics frozen, as the Zoo evaluates.
"""

import sys
import time

import torch
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.vec_env import VecNormalize

task, steps = sys.argv[1], int(sys.argv[2])
torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1

zoo = {
    "half_cheetah": (
        "HalfCheetah-v5",
        dict(
            batch_size=64,
            n_steps=512,
            gamma=0.98,
            learning_rate=2.0633e-05,
            ent_coef=0.000401762,
            clip_range=0.1,
            n_epochs=20,
            gae_lambda=0.92,
            max_grad_norm=0.8,
            vf_coef=0.58096,
        ),
    ),
    "hopper": (
        "Hopper-v5",
        dict(
            batch_size=32,
            n_steps=512,
            gamma=0.999,
            learning_rate=9.80828e-05,
            ent_coef=0.00229519,
            clip_range=0.2,
            n_epochs=5,
            gae_lambda=0.99,
            max_grad_norm=0.7,
            vf_coef=0.835671,
        ),
    ),
}
if task not in zoo:
    sys.exit(f"sb3_mujoco.py: unknown task '{task}' (half_cheetah or hopper)")
env_id, kw = zoo[task]
env = VecNormalize(make_vec_env(env_id, n_envs=1, seed=seed), gamma=kw["gamma"])  # the Zoo's normalize: true
policy_kwargs = dict(
    log_std_init=-2, ortho_init=False, activation_fn=torch.nn.ReLU, net_arch=dict(pi=[256, 256], vf=[256, 256])
)
model = PPO("MlpPolicy", env, policy_kwargs=policy_kwargs, seed=seed, verbose=0, **kw)
t0 = time.time()
model.learn(total_timesteps=steps)
learn_s = time.time() - t0
env.training = False
env.norm_reward = False
mean, std = evaluate_policy(model, env, n_eval_episodes=10, deterministic=True)
print(f"sb3 ppo {env_id} seed {seed}: {steps} steps, learn {learn_s:.2f} s, eval {mean:.1f} +- {std:.1f}")
