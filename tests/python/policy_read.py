#!/usr/bin/env python3
"""A checkpoint explains itself: rebuilds the greedy policy from the
checkpoint alone (its safetensors header, the rlhost.observation and
algo.policy metadata, the tensors) with NumPy and no rlhost source, and
checks its actions against `rlhost eval --trace` of the same checkpoint
(numpy_policy.py is the reader):
composite observations decoded from their parts, masked actions from the
trace's masks, MultiDiscrete actions per component.
Usage: policy_read.py CHECKPOINT TRACE_CSV NAME   (TAP on stdout)"""

import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_policy import NumpyPolicy  # noqa: E402

ckpt, trace, name = sys.argv[1:4]
n = failed = 0


def ok(cond, desc):
    global n, failed
    n += 1
    failed += not cond
    print(("ok" if cond else "not ok"), n, "-", f"{name}: {desc}")


P = NumpyPolicy(ckpt)
obs_meta, space, policy, box = P.obs_meta, P.space, P.policy, P.box
kinds = ("discrete", "box", "multi_discrete", "hybrid")
ok(policy["format"] == "rlhost.policy/1" and space["type"] in kinds, "metadata present")
rows = list(csv.DictReader(open(trace)))
obs_cols = [k for k in rows[0] if k.startswith("obs_")]
ok(len(obs_cols) == int(np.prod(obs_meta["shape"])), f"observation columns match the shape {obs_meta['shape']}")
if box:  # the greedy action: the output named by "identity", clipped into the box
    target = P.target
    ok(target in policy["outputs"], f"greedy action: the '{target}' output")
    lo, hi = np.array(space["low"]), np.array(space["high"])
    act_cols = [k for k in rows[0] if k.startswith("action_")]
    worst = 0.0
    for r in rows:
        out, _ = P.act(np.array([float(r[c]) for c in obs_cols]), {})
        worst = max(worst, float(np.max(np.abs(out - np.array([float(r[c]) for c in act_cols])))))
    ok(
        worst < 1e-4 * max(1.0, float(np.max(hi - lo))),
        f"NumPy from metadata alone computes rlhost's actions on {len(rows)} steps (largest difference {worst:.2g})",
    )
    print(f"1..{n}")
    sys.exit(1 if failed else 0)
target, nvec, masked = P.target, P.nvec, P.masked
ok(target in policy["outputs"], f"greedy action: argmax of '{target}'")
mask_cols = [k for k in rows[0] if k.startswith("mask_")]
ok(
    masked == bool(mask_cols) == bool(space.get("masked")),
    f"masks: the policy's ({masked}), the space's and the trace's agree",
)
act_cols = ["action"] if space["type"] == "discrete" else [f"action_{k}" for k in range(len(nvec))]
# a hybrid action: its floats follow its components in the trace, clipped into the box
box_cols = [f"action_{len(nvec) + k}" for k in range(space["dim"])] if space["type"] == "hybrid" else []
states, agree, near_ties, far, worst = {}, 0, 0, [], 0.0
for r in rows:
    env = int(r["env"])
    if int(r["t"]) == 0:
        states[env] = {}  # recurrent state: zero at an episode's start
    mask = np.array([int(r[c]) for c in mask_cols], bool) if masked else None
    mine, out = P.act(np.array([float(r[c]) for c in obs_cols]), states[env], mask)
    if box_cols:
        worst = max(worst, float(np.max(np.abs(np.array(mine[len(nvec) :]) - [float(r[c]) for c in box_cols]))))
        mine = mine[: len(nvec)]
    if mask is None:
        mask = np.ones(len(out), bool)
    tie, off = False, 0
    for k in nvec:  # a near-tie among the choices its mask allows
        o = np.where(mask[off : off + k], out[off : off + k], -np.inf)
        top = np.sort(o[np.isfinite(o)])[-2:]
        tie |= len(top) == 2 and top[1] - top[0] < 1e-4
        off += k
    theirs = [int(r[c]) for c in act_cols]
    if mine == theirs:
        agree += 1
    elif tie:
        near_ties += 1
    else:
        far.append((r["env"], r["episode"], r["t"], mine, theirs, out.tolist()))
ok(
    not far and agree >= 0.999 * len(rows),
    f"NumPy from metadata alone picks rlhost's action on {agree} of {len(rows)} steps "
    f"({near_ties} float near-ties)" + (f"; first miss {far[0]}" if far else ""),
)
if box_cols:
    span = float(np.max(np.array(space["high"]) - np.array(space["low"])))
    ok(worst < 1e-4 * max(1.0, span), f"and the hybrid action's floats on every step (largest difference {worst:.2g})")
print(f"1..{n}")
sys.exit(1 if failed else 0)
