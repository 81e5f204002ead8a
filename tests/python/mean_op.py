#!/usr/bin/env python3
"""The policy description's `mean` op, read as a distributional head's would
be: rewrites a DQN checkpoint so that its last linear layer puts out two
values per action, (W + D) x + (b + e) and (W - D) x + (b - e) with a random
D and e, and its op list ends in {"op":"mean"} over them, whose means are
the original Q values.  policy_read.py must then still pick every action
`rlhost eval --trace` took on the original checkpoint.
Usage: mean_op.py CHECKPOINT OUT AXIS   (AXIS 1: the pairs are rows of
[A, 2]; 0: the halves are rows of [2, A])"""

import json
import struct
import sys

import numpy as np

src, out, axis = sys.argv[1], sys.argv[2], int(sys.argv[3])
DT = {"F32": np.float32, "F64": np.float64, "U8": np.uint8, "I32": np.int32, "U64": np.uint64}
raw = open(src, "rb").read()
hlen = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8 : 8 + hlen])
meta = header.pop("__metadata__")
data = raw[8 + hlen :]
T = {
    k: np.frombuffer(data[v["data_offsets"][0] : v["data_offsets"][1]], dtype=DT[v["dtype"]]).reshape(v["shape"])
    for k, v in header.items()
}
policy = json.loads(meta["algo.policy"])
ops = policy["outputs"]["q"]
last = max(i for i, op in enumerate(ops) if op["op"] == "linear")
op = ops[last]
W, b = T[op["weight"]].reshape(op["out"], op["in"]), T[op["bias"]].reshape(op["out"])
A = op["out"]
rng = np.random.default_rng(7)
D = rng.normal(0, 0.1, W.shape).astype(np.float32)
e = rng.normal(0, 0.1, b.shape).astype(np.float32)
hi_w, lo_w, hi_b, lo_b = W + D, W - D, b + e, b - e
if axis == 1:  # row a of [A, 2]: (hi, lo) of action a
    W2, b2 = np.stack([hi_w, lo_w], 1).reshape(2 * A, -1), np.stack([hi_b, lo_b], 1).reshape(2 * A)
    shape = [A, 2]
else:  # [2, A]: every action's hi, then every action's lo
    W2, b2 = np.concatenate([hi_w, lo_w]), np.concatenate([hi_b, lo_b])
    shape = [2, A]
T["q/split.weight"], T["q/split.bias"] = W2.astype(np.float32), b2.astype(np.float32)
ops[last] = dict(op, weight="q/split.weight", bias="q/split.bias", out=2 * A)
ops.insert(last + 1, {"op": "mean", "shape": shape, "axis": axis})
meta["algo.policy"] = json.dumps(policy)
meta.pop("rlhost.crc32", None)  # a file of another writer: no CRC-32s, read unchecked

blobs, header, at = [], {"__metadata__": meta}, 0
for k in sorted(T):
    a = np.ascontiguousarray(T[k])
    name = {v: k2 for k2, v in DT.items()}[a.dtype.type]
    header[k] = {"dtype": name, "shape": list(a.shape), "data_offsets": [at, at + a.nbytes]}
    blobs.append(a.tobytes())
    at += a.nbytes
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
