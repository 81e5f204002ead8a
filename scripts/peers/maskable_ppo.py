"""sb3-contrib's MaskablePPO against rlhost's PPO with masks, at the same
settings, side by side: the peer side of docs/spaces.md.  Not part of the
build or the tests; run it from a virtual environment outside the repository
that has sb3-contrib (with PyTorch) and gymnasium, with rlhost's Python
package importable (RLHOST_LIB_DIR=build PYTHONPATH=python):

    python scripts/peers/maskable_ppo.py TASK STEPS SEEDS [--out FILE.json]

TASK: discrete (sb3-contrib's InvalidActionEnvDiscrete(dim=80,
n_invalid_actions=60), its own test env), multi (InvalidActionEnvMultiDiscrete
(dims=[5, 5, 5, 5], n_invalid_actions=8)), both through rlhost's Python
bridge (their action_masks() method); snake (rlhost's snake with
action_mask = "deadly", the board's grid, through rlhost's Gymnasium face for
MaskablePPO and natively for rlhost).  Both sides: 8 envs, 128 steps each a
rollout, minibatches of 256, 4 epochs, lr 3e-4, gamma 0.99, GAE 0.95,
clip 0.2, no entropy bonus, [64, 64] tanh MLPs for the actor and the
critic, orthogonal init; PyTorch on one thread.  For each seed, in turn: the
peer's learn() wall time and then rlhost's run (its whole `rlhost.run`, without evaluation), each
followed by the mean return of 100 greedy masked episodes (--config-out
writes rlhost's config of a task, for `rlhost bench`).  Prints one JSON
line a run and writes them all to --out.  --floor times the env alone
instead: 8 of them stepped STEPS steps in a plain loop, one action_masks()
call an env a step and a fixed action (these envs take any), what both
learners pay at least.
"""

import argparse
import json
import os
import tempfile
import time

import numpy as np
import torch

import rlhost

ap = argparse.ArgumentParser()
ap.add_argument("task", choices=["discrete", "multi", "snake"])
ap.add_argument("steps", type=int)
ap.add_argument("seeds", help="comma-separated")
ap.add_argument("--out")
ap.add_argument("--floor", action="store_true")
ap.add_argument("--config-out", help="write rlhost's config for the task (seed 1) there and stop: for rlhost bench")
args = ap.parse_args()
torch.set_num_threads(1)

SETTINGS = dict(
    n_steps=128,
    batch_size=256,
    n_epochs=4,
    learning_rate=3e-4,
    gamma=0.99,
    gae_lambda=0.95,
    clip_range=0.2,
    ent_coef=0.0,
    vf_coef=0.5,
    max_grad_norm=0.5,
)
CFG = """run: {{ steps = {steps}; seed = {seed}; eval_episodes = 0; quiet = true; }};
env: {{ {env} num_envs = 8; }};
algo: {{ plugin = "ppo"; n_steps = 128; batch_size = 256; n_epochs = 4; lr = 3e-4; gamma = 0.99; gae_lambda = 0.95;
  clip_range = 0.2; ent_coef = 0.0; vf_coef = 0.5; max_grad_norm = 0.5; hidden = [64, 64]; activation = "tanh"; }};
"""


def factory():
    from sb3_contrib.common.envs import InvalidActionEnvDiscrete, InvalidActionEnvMultiDiscrete

    if args.task == "discrete":
        return lambda: InvalidActionEnvDiscrete(dim=80, ep_length=100, n_invalid_actions=60)
    if args.task == "multi":
        return lambda: InvalidActionEnvMultiDiscrete(dims=[5, 5, 5, 5], ep_length=100, n_invalid_actions=8)
    return lambda: rlhost.make("snake", width=10, height=10, observation="grid", action_mask="deadly")


def greedy_return(act, make, episodes=100, seed=10_000):
    """Mean return of greedy episodes, each action masked."""
    total = 0.0
    for k in range(episodes):
        env = make()
        obs, _ = env.reset(seed=seed + k)
        done, ret = False, 0.0
        while not done:
            obs, r, te, tr, _ = env.step(act(obs, np.asarray(env.action_masks(), bool)))
            ret += float(r)
            done = te or tr
        total += ret
        env.close()
    return total / episodes


def peer(seed):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    make = factory()
    venv = make_vec_env(make, n_envs=8, seed=seed)
    model = MaskablePPO("MlpPolicy", venv, seed=seed, verbose=0, **SETTINGS)
    t0 = time.time()
    model.learn(total_timesteps=args.steps)
    wall = time.time() - t0
    ret = greedy_return(lambda o, m: model.predict(o, action_masks=m, deterministic=True)[0], make)
    return wall, ret


def write_config(path, seed):
    env = (
        'plugin = "snake"; width = 10; height = 10; observation = "grid"; action_mask = "deadly";'
        if args.task == "snake"
        else ""
    )
    with open(path, "w") as f:
        f.write(CFG.format(steps=args.steps, seed=seed, env=env))


def ours(seed, tmp):
    path = os.path.join(tmp, "ppo.cfg")
    write_config(path, seed)
    kw = {} if args.task == "snake" else {"env": factory()}
    t0 = time.time()
    p = rlhost.run(path, force=True, run__out_dir=os.path.join(tmp, f"run{seed}"), **kw)
    wall = time.time() - t0
    ret = greedy_return(lambda o, m: p(o, action_masks=m), factory())
    return wall, ret


def floor(seed):
    """The env alone: 8 envs, their masks read every step, a fixed action."""
    make = factory()
    envs = [make() for _ in range(8)]
    for k, e in enumerate(envs):
        e.reset(seed=seed * 100 + k)
    action = envs[0].action_space.sample() * 0
    t0 = time.time()
    for _ in range(args.steps // 8):
        for e in envs:
            e.action_masks()
            _, _, te, tr, _ = e.step(action)
            if te or tr:
                e.reset()
    return time.time() - t0, float("nan")


if args.config_out:
    write_config(args.config_out, 1)
    raise SystemExit(0)
rows = []
with tempfile.TemporaryDirectory() as tmp:
    if args.floor:
        for seed in [int(s) for s in args.seeds.split(",")]:
            wall, _ = floor(seed)
            row = {"task": args.task, "steps": args.steps, "side": "env alone", "seed": seed, "wall_s": round(wall, 2)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    for seed in [] if args.floor else [int(s) for s in args.seeds.split(",")]:
        for side, fn in (("MaskablePPO", peer), ("rlhost", lambda s: ours(s, tmp))):
            wall, ret = fn(seed)
            row = {
                "task": args.task,
                "steps": args.steps,
                "side": side,
                "seed": seed,
                "wall_s": round(wall, 2),
                "return": round(ret, 3),
            }
            print(json.dumps(row), flush=True)
            rows.append(row)
if args.out:
    with open(args.out, "w") as f:
        json.dump(rows, f, indent=1)
