"""One PPO update through rlhost and through Stable-Baselines3 from the same start: a
differential check of the Gaussian PPO update (docs/performance.md, Peers). Not part of the
build or the tests; run it from a virtual environment outside the repository that has
stable-baselines3 and gymnasium:

    python scripts/peers/sb3_ppo_step.py RLHOST [SEED [EPOCHS [BATCH]]]

It runs rlhost's configs/pendulum_ppo.cfg twice with the seed: for 4 steps (the initial
weights; no rollout is complete) and for one rollout of 4096 steps (its checkpoint holds that
rollout and the weights after the update). SB3's PPO with the same settings gets the initial
weights, recomputes the rollout's values and log-probabilities from rlhost's stored
(normalized) observations and (unclipped) actions, takes rlhost's normalized rewards with
SB3's timeout bootstrap (reward + gamma V(final obs)), runs its own GAE and its own train().
With BATCH equal to the rollout (the default) the minibatch order cannot differ, so every
weight, Adam moment and the log-std must agree to float32 rounding. It prints the largest
differences and exits 1 when one is larger than the tolerance.
"""

import os
import sys
import tempfile

import numpy as np
import rlhost_run
import torch
from rlhost_run import f32
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import configure

rlhost = sys.argv[1]
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
epochs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
batch = int(sys.argv[4]) if len(sys.argv) > 4 else 4096
cfg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs", "pendulum_ppo.cfg")
N, T, D, LR, GAMMA = 4, 1024, 3, 1e-3, 0.9
torch.set_num_threads(1)


def run(steps, out):
    return rlhost_run.run(
        rlhost,
        cfg,
        out,
        [
            f"run.steps={steps}",
            f"run.seed={seed}",
            f"algo.lr={LR}",
            f"algo.n_epochs={epochs}",
            f"algo.batch_size={batch}",
            "run.eval_episodes=1",
        ],
    )


tmp = tempfile.mkdtemp(prefix="sb3_ppo_step_")
start, after = run(4, os.path.join(tmp, "start")), run(N * T, os.path.join(tmp, "after"))

env = make_vec_env("Pendulum-v1", n_envs=N, seed=seed)
model = PPO(
    "MlpPolicy",
    env,
    n_steps=T,
    batch_size=batch,
    n_epochs=epochs,
    gamma=GAMMA,
    gae_lambda=0.95,
    ent_coef=0.0,
    learning_rate=LR,
    clip_range=0.2,
    seed=seed,
    verbose=0,
)
pol = model.policy
# rlhost's tensor -> SB3's parameter
names = {
    "actor/mlp/layer0": pol.mlp_extractor.policy_net[0],
    "actor/mlp/layer1": pol.mlp_extractor.policy_net[2],
    "actor/mlp/layer2": pol.action_net,
    "critic/mlp/layer0": pol.mlp_extractor.value_net[0],
    "critic/mlp/layer1": pol.mlp_extractor.value_net[2],
    "critic/mlp/layer2": pol.value_net,
}
params = {}
for key, lin in names.items():
    params[key + ".weight"], params[key + ".bias"] = lin.weight, lin.bias
params["actor/log_std"] = pol.log_std
with torch.no_grad():
    for key, p in params.items():
        p.copy_(torch.from_numpy(f32(start[key], tuple(p.shape))))

obs = f32(after["rollout/obs"], (T, N, D))
actions = f32(after["rollout/box_actions"], (T, N, 1))
rewards = f32(after["rollout/rewards"], (T, N))
final_v = f32(after["rollout/final_values"], (T, N))
old_v, old_logp = f32(after["rollout/values"], (T, N)), f32(after["rollout/logp"], (T, N))
truncated = np.frombuffer(after["rollout/truncated"], dtype=np.uint8).reshape(T, N)
terminated = np.frombuffer(after["rollout/terminated"], dtype=np.uint8).reshape(T, N)
starts = np.frombuffer(after["rollout/start"], dtype=np.uint8).reshape(T, N)
last_obs = f32(after["rollout/last_obs"], (N, D))

buf = model.rollout_buffer
buf.reset()
worst = {}
with torch.no_grad():
    for t in range(T):
        o = torch.from_numpy(obs[t])
        values, logp, _ = pol.evaluate_actions(o, torch.from_numpy(actions[t]))
        worst["values (forward)"] = max(
            worst.get("values (forward)", 0), float(np.abs(values.numpy().ravel() - old_v[t]).max())
        )
        worst["log-prob (forward)"] = max(
            worst.get("log-prob (forward)", 0), float(np.abs(logp.numpy() - old_logp[t]).max())
        )
        # SB3's collect_rollouts: a truncated episode's reward gains gamma V(terminal obs)
        r = rewards[t] + GAMMA * final_v[t] * (truncated[t] & ~terminated[t])
        buf.add(obs[t], actions[t], r, starts[t].astype(np.float32), values, logp)
    last_values = pol.predict_values(torch.from_numpy(last_obs))
    buf.compute_returns_and_advantage(
        last_values=last_values, dones=(truncated[-1] | terminated[-1]).astype(np.float32)
    )
model._current_progress_remaining = 1.0
model.set_logger(configure(None, []))
model.train()

state = pol.optimizer.state
for key, p in params.items():
    mine = f32(after[key], tuple(p.shape))
    theirs = p.detach().numpy()
    moved = np.abs(mine - f32(start[key], tuple(p.shape))).max()
    worst[key + " (weights)"] = float(np.abs(mine - theirs).max() / max(moved, 1e-12))
    m = f32(after["adam/m/" + key], tuple(p.shape))
    worst[key + " (Adam m)"] = float(np.abs(m - state[p]["exp_avg"].numpy()).max() / max(np.abs(m).max(), 1e-12))
sys.exit(
    rlhost_run.report(
        f"seed {seed}, {epochs} epoch(s) of batch {batch}: largest difference (weights and Adam m relative to the "
        "update's largest move and the largest moment)",
        worst,
        32,
    )
)
