"""A reader of rlhost checkpoints with NumPy alone: the greedy policy
rebuilt from the safetensors header, the rlhost.observation and
algo.policy metadata (docs/run-directory.md) and the tensors, with no
rlhost source.  Sums run in float64.  Used by policy_read.py (against
`rlhost eval --trace`) and scripts/export_speed.py (its speed)."""

import json
import struct

import numpy as np

DT = {"F32": np.float32, "F64": np.float64, "U8": np.uint8, "I32": np.int32, "U64": np.uint64}


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


class NumpyPolicy:
    def __init__(self, path):
        raw = open(path, "rb").read()
        hlen = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8 : 8 + hlen])
        self.meta = header.pop("__metadata__")
        data = raw[8 + hlen :]
        self.T = {
            k: np.frombuffer(data[v["data_offsets"][0] : v["data_offsets"][1]], dtype=DT[v["dtype"]]).reshape(
                v["shape"]
            )
            for k, v in header.items()
        }
        # the weights in float64 once, as every call reads them
        self.T64 = {k: v.astype(np.float64) for k, v in self.T.items() if v.dtype == np.float32}
        self.obs_meta = json.loads(self.meta["rlhost.observation"])
        self.space = json.loads(self.meta["rlhost.action_space"])
        self.policy = json.loads(self.meta["algo.policy"])
        self.box = self.space["type"] == "box"
        g = self.policy["greedy"]
        self.target = g.get("identity") if self.box else g.get("argmax")
        self.nvec = g.get("nvec", [self.space.get("n")] if self.space["type"] == "discrete" else self.space.get("nvec"))
        self.masked = bool(self.space.get("masked"))

    def run_ops(self, ops, x, state):
        W = self.T64
        for op in ops:
            kind = op["op"]
            if kind == "linear":
                x = x @ W[op["weight"]].T + W[op["bias"]]
            elif kind == "conv2d":  # x is the flattened [in_c][in_h][in_w] image
                ci, k, st, pd = op["in_c"], op["kernel"], op["stride"], op["pad"]
                img = np.pad(x.reshape(ci, op["in_h"], op["in_w"]), ((0, 0), (pd, pd), (pd, pd)))
                Wc = W[op["weight"]].reshape(op["out_c"], ci, k, k)
                oh, ow = (img.shape[1] - k) // st + 1, (img.shape[2] - k) // st + 1
                y = np.zeros((op["out_c"], oh, ow)) + W[op["bias"]].reshape(-1, 1, 1)
                for ky in range(k):
                    for kx in range(k):
                        patch = img[:, ky : ky + st * (oh - 1) + 1 : st, kx : kx + st * (ow - 1) + 1 : st]
                        y += np.einsum("oc,chw->ohw", Wc[:, :, ky, kx], patch)
                x = y.reshape(-1)
            elif kind == "flatten":
                x = x.reshape(-1)
            elif kind == "relu":
                x = np.maximum(x, 0)
            elif kind == "tanh":
                x = np.tanh(x)
            elif kind == "slice":
                x = x[op["start"] : op["start"] + op["len"]]
            elif kind == "clip":
                x = np.clip(x, op["min"], op["max"])
            elif kind == "rescale":  # [-1, 1] -> [low, high]
                lo, hi = np.array(op["low"]), np.array(op["high"])
                x = lo + (x + 1) * 0.5 * (hi - lo)
            elif kind == "batchnorm":  # by the running statistics
                x = (x - W[op["mean"]]) / np.sqrt(W[op["var"]] + op["eps"]) * W[op["scale"]] + W[op["bias"]]
            elif kind == "mean":
                x = x.reshape(op["shape"]).mean(axis=op["axis"])
            elif kind == "concat":  # each part's ops on the same input, outputs side by side
                x = np.concatenate([self.run_ops(part, x, state) for part in op["parts"]])
            elif kind == "residual":  # y = x + the ops of x
                x = x + self.run_ops(op["ops"], x, state)
            elif kind == "dueling":
                v, a = self.run_ops(op["value"], x, state), self.run_ops(op["advantage"], x, state)
                x = v + a - a.mean()
            elif kind == "lstm":
                H = op["hidden"]
                h, c = state.get(op["state"], (np.zeros(H), np.zeros(H)))
                g = W[op["weight_ih"]] @ x + W[op["weight_hh"]] @ h + W[op["bias"]]
                i, f, gg, o = sigmoid(g[:H]), sigmoid(g[H : 2 * H]), np.tanh(g[2 * H : 3 * H]), sigmoid(g[3 * H :])
                c = f * c + i * gg
                h = o * np.tanh(c)
                state[op["state"]] = (h, c)
                x = h
            else:
                raise ValueError(f"unknown op {kind}")
        return x

    def decode(self, row):
        """A composite observation's row of bytes as network input: each part
        in order, a box's elements times its scale, a discrete one's one-hot."""
        raw = np.asarray(row, np.uint8).tobytes()
        out = []
        for p in self.obs_meta["parts"]:
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

    def inputs(self, obs):
        if "parts" in self.obs_meta:
            x = self.decode(obs)
        else:
            x = np.asarray(obs).astype(np.float32).reshape(-1) * np.float32(self.obs_meta["scale"])
        norm = self.policy["input"]["normalize"]
        if norm:
            mean, var = self.T[norm["mean"]], self.T[norm["var"]]
            x = (x - mean.astype(np.float32)) * (1.0 / np.sqrt(var + norm["eps"])).astype(np.float32)
            x = np.clip(x, -norm["clip"], norm["clip"])
        return x.astype(np.float64)

    def output(self, obs, state):
        """The greedy output (values or the unclipped box action) of one
        observation; state: {} at an episode's start, then carried."""
        return self.run_ops(self.policy["outputs"][self.target], self.inputs(obs), state)

    def act(self, obs, state, mask=None):
        """(action, output): the argmax of each component among the allowed
        choices, or the box action clipped into the box; a hybrid action's
        components, then its floats."""
        out = self.output(obs, state)
        if self.box:
            return np.clip(out, np.array(self.space["low"]), np.array(self.space["high"])), out
        mask = np.ones(len(out), bool) if mask is None else np.asarray(mask, bool)
        acts, off = [], 0
        for k in self.nvec:
            acts.append(int(np.argmax(np.where(mask[off : off + k], out[off : off + k], -np.inf))))
            off += k
        if self.space["type"] == "hybrid":  # the box's part after the logits ("box": its width)
            acts += np.clip(out[off:], np.array(self.space["low"]), np.array(self.space["high"])).tolist()
        return acts, out
