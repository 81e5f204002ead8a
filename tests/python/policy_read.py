#!/usr/bin/env python3
"""A checkpoint explains itself: rebuilds the greedy policy from the
checkpoint alone (its safetensors header, the rlhost.observation and
algo.policy metadata, the tensors) with NumPy and no rlhost source, and
checks its actions against `rlhost eval --trace` of the same checkpoint:
composite observations decoded from their parts, masked actions from the
trace's masks, MultiDiscrete actions per component.
Usage: policy_read.py CHECKPOINT TRACE_CSV NAME   (TAP on stdout)"""
import csv
import json
import struct
import sys

import numpy as np

ckpt, trace, name = sys.argv[1:4]
n = failed = 0


def ok(cond, desc):
    global n, failed
    n += 1
    failed += not cond
    print(("ok" if cond else "not ok"), n, "-", f"{name}: {desc}")


DT = {"F32": np.float32, "F64": np.float64, "U8": np.uint8, "I32": np.int32, "U64": np.uint64}
raw = open(ckpt, "rb").read()
hlen = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + hlen])
meta = header.pop("__metadata__")
data = raw[8 + hlen:]
T = {k: np.frombuffer(data[v["data_offsets"][0]:v["data_offsets"][1]], dtype=DT[v["dtype"]]).reshape(v["shape"])
     for k, v in header.items()}
obs_meta = json.loads(meta["rlhost.observation"])
space = json.loads(meta["rlhost.action_space"])
policy = json.loads(meta["algo.policy"])
box = space["type"] == "box"
ok(policy["format"] == "rlhost.policy/1" and space["type"] in ("discrete", "box", "multi_discrete"),
   "metadata present")


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def run_ops(ops, x, state):
    for op in ops:
        kind = op["op"]
        if kind == "linear":
            x = x @ T[op["weight"]].astype(np.float64).T + T[op["bias"]].astype(np.float64)
        elif kind == "conv2d":  # x is the flattened [in_c][in_h][in_w] image
            ci, k, st, pd = op["in_c"], op["kernel"], op["stride"], op["pad"]
            img = np.pad(x.reshape(ci, op["in_h"], op["in_w"]), ((0, 0), (pd, pd), (pd, pd)))
            W = T[op["weight"]].astype(np.float64).reshape(op["out_c"], ci, k, k)
            oh, ow = (img.shape[1] - k) // st + 1, (img.shape[2] - k) // st + 1
            y = np.zeros((op["out_c"], oh, ow)) + T[op["bias"]].astype(np.float64).reshape(-1, 1, 1)
            for ky in range(k):
                for kx in range(k):
                    patch = img[:, ky:ky + st * (oh - 1) + 1:st, kx:kx + st * (ow - 1) + 1:st]
                    y += np.einsum("oc,chw->ohw", W[:, :, ky, kx], patch)
            x = y.reshape(-1)
        elif kind == "flatten":
            x = x.reshape(-1)
        elif kind == "relu":
            x = np.maximum(x, 0)
        elif kind == "tanh":
            x = np.tanh(x)
        elif kind == "slice":
            x = x[op["start"]:op["start"] + op["len"]]
        elif kind == "rescale":  # [-1, 1] -> [low, high]
            lo, hi = np.array(op["low"]), np.array(op["high"])
            x = lo + (x + 1) * 0.5 * (hi - lo)
        elif kind == "mean":
            x = x.reshape(op["shape"]).mean(axis=op["axis"])
        elif kind == "concat":  # each part's ops on the same input, outputs side by side
            x = np.concatenate([run_ops(part, x, state) for part in op["parts"]])
        elif kind == "dueling":
            v, a = run_ops(op["value"], x, state), run_ops(op["advantage"], x, state)
            x = v + a - a.mean()
        elif kind == "lstm":
            H = op["hidden"]
            h, c = state.get(op["state"], (np.zeros(H), np.zeros(H)))
            g = T[op["weight_ih"]].astype(np.float64) @ x + T[op["weight_hh"]].astype(np.float64) @ h \
                + T[op["bias"]].astype(np.float64)
            i, f, gg, o = sigmoid(g[:H]), sigmoid(g[H:2 * H]), np.tanh(g[2 * H:3 * H]), sigmoid(g[3 * H:])
            c = f * c + i * gg
            h = o * np.tanh(c)
            state[op["state"]] = (h, c)
            x = h
        else:
            raise ValueError(f"unknown op {kind}")
    return x


def decode(row):
    """A composite observation's row of bytes as network input: each part in
    order, a box's elements times its scale, a discrete one's one-hot."""
    raw = np.asarray(row, np.uint8).tobytes()
    out = []
    for p in obs_meta["parts"]:
        size = int(np.prod(p["shape"]))
        vals = np.frombuffer(raw, DT[p["dtype"]], size, p["offset"])
        if p["kind"] == "box":
            out.append(vals.astype(np.float32) * np.float32(p["scale"]))
            continue
        for v, k in zip(vals, p["nvec"]):
            hot = np.zeros(k, np.float32)
            hot[int(v)] = 1
            out.append(hot)
    return np.concatenate(out)


def inputs(obs):
    if "parts" in obs_meta:
        x = decode(obs)
    else:
        x = obs.astype(np.float32) * np.float32(obs_meta["scale"])
    norm = policy["input"]["normalize"]
    if norm:
        mean, var = T[norm["mean"]], T[norm["var"]]
        x = (x - mean.astype(np.float32)) * (1.0 / np.sqrt(var + norm["eps"])).astype(np.float32)
        x = np.clip(x, -norm["clip"], norm["clip"])
    return x.astype(np.float64)


rows = list(csv.DictReader(open(trace)))
obs_cols = [k for k in rows[0] if k.startswith("obs_")]
ok(len(obs_cols) == int(np.prod(obs_meta["shape"])), f"observation columns match the shape {obs_meta['shape']}")
if box:  # the greedy action: the output named by "identity" (or "mean"), clipped into the box
    target = policy["greedy"].get("identity")
    ok(target in policy["outputs"], f"greedy action: the '{target}' output")
    lo, hi = np.array(space["low"]), np.array(space["high"])
    act_cols = [k for k in rows[0] if k.startswith("action_")]
    worst = 0.0
    for r in rows:
        out = np.clip(run_ops(policy["outputs"][target], inputs(np.array([float(r[c]) for c in obs_cols])), {}), lo, hi)
        worst = max(worst, float(np.max(np.abs(out - np.array([float(r[c]) for c in act_cols])))))
    ok(worst < 1e-4 * max(1.0, float(np.max(hi - lo))),
       f"NumPy from metadata alone computes rlhost's actions on {len(rows)} steps (largest difference {worst:.2g})")
    print(f"1..{n}")
    sys.exit(1 if failed else 0)
target = policy["greedy"].get("argmax")
ok(target in policy["outputs"], f"greedy action: argmax of '{target}'")
nvec = policy["greedy"].get("nvec", [space.get("n")] if space["type"] == "discrete" else space["nvec"])
masked = policy["greedy"].get("masked", False)
mask_cols = [k for k in rows[0] if k.startswith("mask_")]
ok(masked == bool(mask_cols) == bool(space.get("masked")), f"masks: the policy's ({masked}), the space's and the trace's agree")
act_cols = ["action"] if space["type"] == "discrete" else [f"action_{k}" for k in range(len(nvec))]
states, agree, near_ties, far = {}, 0, 0, []
for r in rows:
    env = int(r["env"])
    if int(r["t"]) == 0:
        states[env] = {}  # recurrent state: zero at an episode's start
    out = run_ops(policy["outputs"][target], inputs(np.array([float(r[c]) for c in obs_cols])), states[env])
    mask = np.array([int(r[c]) for c in mask_cols], bool) if masked else np.ones(len(out), bool)
    mine, tie, off = [], False, 0
    for k in nvec:  # each component: the argmax of its logits among the choices its mask allows
        o = np.where(mask[off:off + k], out[off:off + k], -np.inf)
        mine.append(int(np.argmax(o)))
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
ok(not far and agree >= 0.999 * len(rows),
   f"NumPy from metadata alone picks rlhost's action on {agree} of {len(rows)} steps "
   f"({near_ties} float near-ties)" + (f"; first miss {far[0]}" if far else ""))
print(f"1..{n}")
sys.exit(1 if failed else 0)
