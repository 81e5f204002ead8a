#!/usr/bin/env python3
"""PPO's initial weights, read from checkpoints written before any update:
ortho_init = true gives orthogonal layers (rows orthonormal times the gain:
sqrt 2 hidden, 0.01 policy output, 1 value output) with zero biases; false
gives PyTorch's nn.Linear default (weights and biases uniform in
+-1/sqrt(fan_in)).  Usage: ppo_init.py ORTHO_CKPT DEFAULT_CKPT  (TAP)"""

import json
import struct
import sys

import numpy as np

sys.path.insert(0, __import__("os").path.dirname(__file__))
import tap as t  # noqa: E402


def tensors(path):
    raw = open(path, "rb").read()
    hlen = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + hlen])
    header.pop("__metadata__")
    data = raw[8 + hlen :]
    return {
        k: np.frombuffer(data[v["data_offsets"][0] : v["data_offsets"][1]], dtype=np.float32).reshape(v["shape"])
        for k, v in header.items()
        if v["dtype"] == "F32" and not k.startswith(("adam/", "rollout/", "host/", "state/", "env/", "eval_env/"))
    }


ortho, default = tensors(sys.argv[1]), tensors(sys.argv[2])
layers = sorted(k[: -len(".weight")] for k in ortho if k.endswith(".weight"))
t.ok(len(layers) == 6, f"two towers of three layers ({len(layers)})")
for name in layers:
    w, b = ortho[name + ".weight"], ortho[name + ".bias"]
    gain = 0.01 if name == "actor/mlp/layer2" else 1.0 if name == "critic/mlp/layer2" else 2**0.5
    rows = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    t.ok(
        np.allclose(rows, gain * gain * np.eye(rows.shape[0]), atol=1e-4 * max(1, gain * gain)) and not b.any(),
        f"ortho_init=true: {name} orthogonal with gain {gain:.3g}, zero bias",
    )
    w, b = default[name + ".weight"], default[name + ".bias"]
    bound = 1 / np.sqrt(w.shape[1])
    inside = np.all(np.abs(w) <= bound * (1 + 1e-6)) and np.all(np.abs(b) <= bound * (1 + 1e-6))
    spread = w.size < 64 or abs(w.std() - bound / np.sqrt(3)) < 0.15 * bound / np.sqrt(3)
    t.ok(inside and spread and b.any(), f"ortho_init=false: {name} uniform in +-1/sqrt({w.shape[1]}), biases too")
t.done()
