"""sb3-contrib's CrossQ with the settings of rlhost's CrossQ configs: the peer side of
configs/pendulum_crossq.cfg, configs/pendulum_crossq_zoo.cfg and
configs/half_cheetah_crossq.cfg (docs/performance.md, CrossQ). Not part of the build or
the tests; run it from a virtual environment outside the repository that has
sb3-contrib, gymnasium and mujoco:

    python scripts/peers/sb3_crossq.py {pendulum|pendulum_zoo|half_cheetah} STEPS [TORCH_THREADS [SEED]]

It prints the learn time (model construction excluded) and the mean greedy return over
the episodes rlhost's config evaluates (20 on Pendulum, 10 on HalfCheetah).
"""

import sys
import time

import gymnasium as gym
import torch
from sb3_contrib import CrossQ
from stable_baselines3.common.evaluation import evaluate_policy

task, steps = sys.argv[1], int(sys.argv[2])
torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1

# sb3-contrib's defaults otherwise: lr 1e-3, Adam betas (0.5, 0.999), batch 256, gamma 0.99,
# 2 critics, a learned entropy coefficient, BatchRenorm momentum 0.01, eps 0.001, 100k warm-up
settings = {
    "pendulum": ("Pendulum-v1", 20, dict(policy_delay=2, policy_kwargs=dict(net_arch=[64, 64]))),
    "pendulum_zoo": ("Pendulum-v1", 20, dict(policy_delay=2, policy_kwargs=dict(net_arch=[256, 256]))),
    # the RL Zoo's hyperparams/crossq.yml MuJoCo entry, critics 256 wide
    "half_cheetah": (
        "HalfCheetah-v5",
        10,
        dict(learning_starts=5000, policy_delay=3, policy_kwargs=dict(net_arch=dict(pi=[256, 256], qf=[256, 256]))),
    ),
}
if task not in settings:
    sys.exit(f"sb3_crossq.py: unknown task '{task}' (pendulum, pendulum_zoo or half_cheetah)")
env_id, episodes, kw = settings[task]
model = CrossQ("MlpPolicy", gym.make(env_id), seed=seed, verbose=0, **kw)
t0 = time.time()
model.learn(total_timesteps=steps)
learn_s = time.time() - t0
mean, std = evaluate_policy(model, gym.make(env_id), n_eval_episodes=episodes, deterministic=True)
print(f"crossq {task} {steps} steps: learn {learn_s:.2f} s, eval return {mean:.1f} +- {std:.1f}")
