"""sb3-contrib's TQC with the settings of rlhost's TQC configs: the peer side of
configs/pendulum_tqc.cfg, configs/half_cheetah_tqc.cfg and
configs/mountain_car_continuous_tqc_sde.cfg (docs/performance.md, TQC). Not
part of the build or the tests; run it from a virtual environment outside the repository
that has sb3-contrib, gymnasium and mujoco:

    python scripts/peers/sb3_tqc.py {pendulum|half_cheetah|mountain_car_sde} STEPS [TORCH_THREADS [SEED]]

It prints the learn time (model construction excluded) and the mean greedy return over
the episodes rlhost's config evaluates (20 on Pendulum, 10 on HalfCheetah and MountainCar).
"""

import sys
import time

import gymnasium as gym
import torch
from sb3_contrib import TQC
from stable_baselines3.common.evaluation import evaluate_policy

task, steps = sys.argv[1], int(sys.argv[2])
torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1

# sb3-contrib's defaults otherwise: 2 critics of 25 quantiles, 2 dropped per critic,
# batch 256, gamma 0.99, tau 0.005, a learned entropy coefficient
settings = {
    "pendulum": ("Pendulum-v1", 20, dict(learning_rate=1e-3, policy_kwargs=dict(net_arch=[64, 64]))),
    "half_cheetah": ("HalfCheetah-v5", 10, dict(learning_starts=10000)),
    # the RL Zoo's hyperparams/tqc.yml entry for MountainCarContinuous-v0
    "mountain_car_sde": (
        "MountainCarContinuous-v0",
        10,
        dict(
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
        ),
    ),
}
if task not in settings:
    sys.exit(f"sb3_tqc.py: unknown task '{task}' (pendulum, half_cheetah or mountain_car_sde)")
env_id, episodes, kw = settings[task]
model = TQC("MlpPolicy", gym.make(env_id), seed=seed, verbose=0, **kw)
t0 = time.time()
model.learn(total_timesteps=steps)
learn_s = time.time() - t0
mean, std = evaluate_policy(model, gym.make(env_id), n_eval_episodes=episodes, deterministic=True)
print(f"tqc {task} {steps} steps: learn {learn_s:.2f} s, eval return {mean:.1f} +- {std:.1f}")
