"""One Atari PPO update through rlhost and through CleanRL's ppo_atari_envpool.py arithmetic
from the same start: a differential check of the CNN PPO update (docs/learning.md, Atari).
Not part of the build or the tests; it needs PyTorch and NumPy (Debian's python3-torch is
enough) and an rlhost built with ALE, with the Pong ROM where rlhost finds it:

    python3 scripts/peers/cleanrl_ppo_atari_step.py RLHOST [SEED [EPOCHS]]

It runs configs/pong_ppo.cfg twice with the seed and one replica: for 8 agent steps (the
initial weights; no rollout is complete) and for one rollout of 8 envs x 128 steps (its
checkpoint holds that rollout and the weights after the update). The whole rollout is one
minibatch, so the order of the samples cannot differ, and the learning rate is held at
2.5e-4, CleanRL's rate in its first update. The script builds CleanRL's agent (the Nature
CNN, Linear 512, the actor and critic heads) in PyTorch with rlhost's initial weights,
recomputes the rollout's values and log-probabilities from rlhost's stored observations
(already divided by 255, which CleanRL does inside the network), runs CleanRL's GAE from the
rewards, episode starts and the value of the observation after the last step, and then
CleanRL's loss (normalized advantages, clipped surrogate, the value loss as 0.5 max of the
clipped and unclipped errors, entropy bonus), clip_grad_norm_(0.5) and Adam (eps 1e-5) for
EPOCHS passes. The forward, the gradients (Adam's first moments) and the weights must agree
to float32 rounding (the weights by norm: Adam's first step divides a gradient below its eps
by eps, so a weight whose tiny gradient is all rounding moves by a rounding-sized step); it
prints the largest differences and exits 1 when one is larger than the tolerance.
"""

import os
import sys
import tempfile

import numpy as np
import rlhost_run
import torch
import torch.nn as nn
from rlhost_run import f32

rlhost = sys.argv[1]
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
epochs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
cfg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs", "pong_ppo.cfg")
N, T, C, H, W, A = 8, 128, 4, 84, 84, 6
GAMMA, LAMBDA, CLIP, ENT, VF, MAX_NORM, LR = 0.99, 0.95, 0.1, 0.01, 0.5, 0.5, 2.5e-4
torch.set_num_threads(1)


def run(steps, out):
    return rlhost_run.run(
        rlhost,
        cfg,
        out,
        [
            f"run.steps={steps}",
            f"run.seed={seed}",
            "algo.lr_schedule=constant",
            f"algo.n_epochs={epochs}",
            f"algo.batch_size={N * T}",
            "run.replicas=1",
            "run.eval_episodes=0",
        ],
    )


tmp = tempfile.mkdtemp(prefix="cleanrl_atari_step_")
start, after = run(8, os.path.join(tmp, "start")), run(N * T, os.path.join(tmp, "after"))

body = nn.Sequential(
    nn.Conv2d(C, 32, 8, stride=4),
    nn.ReLU(),
    nn.Conv2d(32, 64, 4, stride=2),
    nn.ReLU(),
    nn.Conv2d(64, 64, 3, stride=1),
    nn.ReLU(),
    nn.Flatten(),
    nn.Linear(64 * 7 * 7, 512),
    nn.ReLU(),
)
actor, critic = nn.Linear(512, A), nn.Linear(512, 1)
# rlhost's tensor -> the PyTorch layer (conv weights [out][in k k] are [out][in][k][k])
layers = {
    "body/cnn/conv0": body[0],
    "body/cnn/conv1": body[2],
    "body/cnn/conv2": body[4],
    "body/mlp/layer0": body[7],
    "pi/layer0": actor,
    "vf/layer0": critic,
}
params = {}
for key, layer in layers.items():
    params[key + ".weight"], params[key + ".bias"] = layer.weight, layer.bias
with torch.no_grad():
    for key, p in params.items():
        p.copy_(torch.from_numpy(f32(start[key], tuple(p.shape))))
plist = list(params.values())


def forward(x):
    h = body(x)
    return actor(h), critic(h).view(-1)


obs = torch.from_numpy(f32(after["rollout/obs"], (T * N, C, H, W)))
actions = torch.from_numpy(np.frombuffer(after["rollout/actions"], dtype=np.int32).astype(np.int64).copy())
rewards = f32(after["rollout/rewards"], (T, N))
old_v, old_logp = f32(after["rollout/values"]), f32(after["rollout/logp"])
terminated = np.frombuffer(after["rollout/terminated"], dtype=np.uint8).reshape(T, N)
truncated = np.frombuffer(after["rollout/truncated"], dtype=np.uint8).reshape(T, N)
starts = np.frombuffer(after["rollout/start"], dtype=np.uint8).reshape(T, N)
last_obs = torch.from_numpy(f32(after["rollout/last_obs"], (N, C, H, W)))
if truncated.any():
    sys.exit("a game was cut off by the time limit in this rollout: CleanRL does not bootstrap it; take another seed")

worst = {}
with torch.no_grad():
    logits, values = forward(obs)
    logp = torch.log_softmax(logits, dim=1).gather(1, actions.view(-1, 1)).view(-1)
    worst["values (forward)"] = float(np.abs(values.numpy() - old_v).max())
    worst["log-prob (forward)"] = float(np.abs(logp.numpy() - old_logp).max())
    next_value = forward(last_obs)[1].numpy()
    # CleanRL's GAE: dones[t] marks obs[t] as an episode's first; the step after the
    # rollout's last is done where that step ended an episode
    v = old_v.reshape(T, N)
    adv, last = np.zeros((T, N), dtype=np.float32), np.zeros(N, dtype=np.float32)
    for t in reversed(range(T)):
        if t == T - 1:
            nonterminal, nextv = 1.0 - (terminated[t] | truncated[t]).astype(np.float32), next_value
        else:
            nonterminal, nextv = 1.0 - starts[t + 1].astype(np.float32), v[t + 1]
        delta = rewards[t] + GAMMA * nextv * nonterminal - v[t]
        adv[t] = last = delta + GAMMA * LAMBDA * nonterminal * last
    returns = torch.from_numpy((adv + v).reshape(-1))
    b_adv, b_v, b_logp = torch.from_numpy(adv.reshape(-1)), torch.from_numpy(old_v), torch.from_numpy(old_logp)

opt = torch.optim.Adam(plist, lr=LR, eps=1e-5)
for _ in range(epochs):
    logits, newv = forward(obs)
    logp_all = torch.log_softmax(logits, dim=1)
    newlogp = logp_all.gather(1, actions.view(-1, 1)).view(-1)
    entropy = -(logp_all.exp() * logp_all).sum(1)
    ratio = (newlogp - b_logp).exp()
    mb_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
    pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - CLIP, 1 + CLIP)).mean()
    v_clipped = b_v + torch.clamp(newv - b_v, -CLIP, CLIP)
    v_loss = 0.5 * torch.max((newv - returns) ** 2, (v_clipped - returns) ** 2).mean()
    loss = pg_loss - ENT * entropy.mean() + VF * v_loss
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(plist, MAX_NORM)
    opt.step()

state = opt.state
for key, p in params.items():
    mine = f32(after[key], tuple(p.shape))
    theirs = p.detach().numpy()
    # the weights by norm: Adam divides a gradient far below its eps by eps, so a weight whose
    # gradient is 1e-7 (float32 rounding in a sum over 400k products) moves by a rounding-sized
    # step on either side; the norm weighs each weight's difference by its share of the update
    moved = np.linalg.norm(theirs - f32(start[key], tuple(p.shape)))
    worst[key + " (weights)"] = float(np.linalg.norm(mine - theirs) / max(moved, 1e-12))
    m = f32(after["adam/m/" + key], tuple(p.shape))
    worst[key + " (Adam m)"] = float(np.abs(m - state[p]["exp_avg"].numpy()).max() / max(np.abs(m).max(), 1e-12))
sys.exit(
    rlhost_run.report(
        f"seed {seed}, {epochs} epoch(s) of the whole rollout: largest difference (forward: absolute; weights: "
        "norm of the difference over the norm of the update; Adam m: relative to the largest moment)",
        worst,
        36,
    )
)
