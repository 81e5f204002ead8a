"""What the differential checks beside this file share: an rlhost run's checkpoint as raw
tensors, float32 views of them, and the report of the largest differences. Imported by sb3_ppo_step.py and
cleanrl_ppo_atari_step.py (Python puts a script's own folder on its path)."""

import json
import os
import struct
import subprocess

import numpy as np


def run(rlhost, cfg, out, sets):
    """Runs `rlhost run CFG --set K=V... --out OUT --force` quietly and returns the run's
    checkpoint as {tensor name: bytes}."""
    args = [rlhost, "run", cfg]
    for kv in sets:
        args += ["--set", kv]
    subprocess.run(args + ["--set", "run.quiet=true", "--out", out, "--force"], check=True, stdout=subprocess.DEVNULL)
    raw = open(os.path.join(out, "checkpoint.safetensors"), "rb").read()
    hlen = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + hlen])
    header.pop("__metadata__")
    data = raw[8 + hlen :]
    return {k: data[v["data_offsets"][0] : v["data_offsets"][1]] for k, v in header.items()}


def f32(b, shape=None):
    a = np.frombuffer(b, dtype=np.float32).copy()
    return a.reshape(shape) if shape else a


def report(title, worst, width):
    """Prints each compared quantity's largest difference against its tolerance (1e-4 for a
    forward pass, 2e-3 for the rest) and returns the exit status: 1 when any is over."""
    print(title)
    bad = 0
    for k, v in worst.items():
        tol = 1e-4 if "forward" in k else 2e-3
        bad += v > tol
        print(f"  {k:{width}s} {v:.2e}{'  <- over ' + str(tol) if v > tol else ''}")
    return 1 if bad else 0
