#!/usr/bin/env python3
"""Prints one line per tensor of a safetensors checkpoint: its name, dtype,
shape and the SHA-256 of its bytes, sorted by name, then the SHA-256 of the
policy description (metadata "algo.policy", where there is one).  Two
checkpoints whose lines agree hold the same tensors bit for bit and describe
their policy alike, whatever the rest of their metadata (wall times, paths)
says.  A refactor that must not change results is
checked with scripts/ckpt_digests.sh, which runs every shipped config
and calls this on each checkpoint.

Usage: scripts/ckpt_digest.py CHECKPOINT.safetensors"""

import hashlib
import json
import struct
import sys


def digest(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        base = 8 + n
        lines = []
        for name in sorted(k for k in header if k != "__metadata__"):
            t = header[name]
            lo, hi = t["data_offsets"]
            f.seek(base + lo)
            h = hashlib.sha256(f.read(hi - lo)).hexdigest()
            lines.append(f"{name} {t['dtype']} {t['shape']} {h}")
        policy = header.get("__metadata__", {}).get("algo.policy")
        if policy is not None:
            lines.append(f"algo.policy {hashlib.sha256(policy.encode()).hexdigest()}")
    return lines


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print("\n".join(digest(sys.argv[1])))
