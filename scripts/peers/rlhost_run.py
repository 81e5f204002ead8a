"""What the differential checks beside this file share: an rlhost run's checkpoint as raw
tensors, and float32 views of them. Imported by sb3_ppo_step.py and
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
    subprocess.run(args + ["--set", "run.quiet=true", "--out", out, "--force"], check=True,
                   stdout=subprocess.DEVNULL)
    raw = open(os.path.join(out, "checkpoint.safetensors"), "rb").read()
    hlen = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + hlen])
    header.pop("__metadata__")
    data = raw[8 + hlen:]
    return {k: data[v["data_offsets"][0]:v["data_offsets"][1]] for k, v in header.items()}


def f32(b, shape=None):
    a = np.frombuffer(b, dtype=np.float32).copy()
    return a.reshape(shape) if shape else a
