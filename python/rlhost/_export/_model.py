"""What an exporter writes from: a checkpoint's greedy policy as rlhost
acts with it, read through the C side (which validates the file against
the config that built it) and checked op by op against the tensors.

Every exporter sees the same Model: the raw observation (one tensor, or a
composite row of parts), the network input it becomes (scaled, one-hot,
normalized), the greedy output's ops, and the greedy rule (argmax per
component among the allowed choices, or the output clipped into the box;
a hybrid action both, the logits first)."""

import json
import re

import numpy as np

from .._native import RlhostError
from .._spec import same_description

FORMAT = "rlhost.policy/1"
MIN_OPSET = 17  # the oldest ONNX opset the exporter writes
# the ops of rlhost.policy/1 (docs/run-directory.md); any other is refused
OPS = (
    "linear",
    "relu",
    "tanh",
    "conv2d",
    "flatten",
    "slice",
    "clip",
    "rescale",
    "batchnorm",
    "mean",
    "concat",
    "dueling",
    "residual",
    "lstm",
)
_NP = {"F32": np.float32, "U8": np.uint8, "I32": np.int32}


class Refused(Exception):
    """A policy or request no exporter can honour: one sentence."""


class Part:
    """One part of a composite observation: where its values lie in the row
    and how they become network input."""

    def __init__(self, d):
        self.name = str(d["name"])
        if not re.fullmatch(r"[A-Za-z0-9_]{1,64}", self.name):  # the ABI's rule for a part's name
            raise Refused(
                f"observation part {self.name[:80]!r} is no part name ([A-Za-z0-9_]+): the checkpoint's "
                "rlhost.observation was edited"
            )
        self.kind = d["kind"]  # "box" or "discrete"
        self.dtype = d["dtype"]
        if self.dtype not in _NP:
            raise Refused(f"observation part {self.name!r} has dtype {self.dtype}, which no exporter reads")
        self.shape = [int(x) for x in d["shape"]]
        self.size = int(np.prod(self.shape))
        self.offset = int(d["offset"])
        self.scale = float(d.get("scale", 1.0))
        self.nvec = [int(x) for x in d["nvec"]] if self.kind == "discrete" else None
        self.width = sum(self.nvec) if self.nvec else self.size  # network input floats

    @property
    def np_dtype(self):
        return _NP[self.dtype]


class Model:
    """The greedy policy of one checkpoint, ready for an exporter."""

    def __init__(self, path, overrides=()):
        from ..policy import describe

        try:
            d = describe(path, overrides)  # parsed and validated by librlhost; the spec checked against the tensors
        except RlhostError as e:
            raise Refused(str(e)) from None
        if d.spec is None:
            raise Refused(
                f"{d.path}: algo '{d.algo}' describes no network (its checkpoint has no algo.policy), so there "
                "is nothing to export"
            )
        self.path, self.algo, self.env, self.step = d.path, d.algo, d.env, d.step
        fmt = d.spec.get("format")
        if fmt != FORMAT:
            raise Refused(
                f"{d.path}: the policy description is {fmt!r}; this rlhost exports {FORMAT!r} "
                "(a newer rlhost wrote it?)"
            )
        self.spec = d.spec
        # the env as the loader opened it: the metadata must say the same
        self.observation, self.action = d.env_observation, d.env_action
        for key, mine in (("rlhost.observation", self.observation), ("rlhost.action_space", self.action)):
            try:
                said = json.loads(d.metadata[key])
            except (KeyError, ValueError, RecursionError):
                said = None
            if not same_description(said, mine):
                raise Refused(
                    f"{d.path}: the checkpoint's {key} ({str(d.metadata.get(key))[:200]}) is not what env "
                    f"'{d.env}' gives as its config opens it ({json.dumps(mine)[:200]}): the metadata was edited"
                )
        self.W = d.tensors
        self.mask_width = d.mask_width
        self._read()

    def _read(self):
        spec, obs, act = self.spec, self.observation, self.action
        greedy = spec["greedy"]
        from .._spec import greedy_output

        self.greedy = greedy_output(greedy)
        # deterministic_eval = false (sample_softmax, sample_gaussian): rlhost
        # samples around this output; the exports act greedily on it and give
        # its parameters beside
        self.ops = spec["outputs"][self.greedy]
        self.log_std = greedy.get("log_std")  # PPO's Gaussian: a state-independent tensor
        # the value head (PPO's critic, AlphaZero's value), exported beside the action where it is
        # feed-forward: a recurrent critic's own LSTM state is not part of an export
        value = spec["outputs"].get("value") if self.greedy != "value" else None
        lstm = isinstance(value, list) and any(op.get("op") == "lstm" for op in _walk(value))
        self.value_ops = value if isinstance(value, list) and value and not lstm else None
        for op in list(_walk(self.ops)) + list(_walk(self.value_ops or [])):
            if op.get("op") not in OPS:
                raise Refused(f"{self.path}: the policy description has an op {op.get('op')!r} that no exporter knows")
            if op["op"] == "clip" and not _bounds(op.get("min"), op.get("max")):
                lo, hi = op.get("min"), op.get("max")
                raise Refused(f"{self.path}: a clip op with bounds {lo!r}, {hi!r}, not finite numbers in order")
        self.kind = act["type"]
        self.box_dim = 0  # a hybrid action's floats, after its components' logits
        if self.kind == "hybrid":
            if ("argmax" not in greedy and "sample_softmax" not in greedy) or greedy.get("box") != act.get("dim"):
                raise Refused(
                    f"{self.path}: a hybrid action space with greedy rule {greedy!r}, which no exporter knows"
                )
            self.nvec = [int(x) for x in act["nvec"]]
            self.adim, self.box_dim = len(self.nvec), int(act["dim"])
            self.low = np.asarray(act["low"], np.float32)
            self.high = np.asarray(act["high"], np.float32)
        elif self.kind == "box":
            if "identity" not in greedy and "sample_gaussian" not in greedy:
                raise Refused(f"{self.path}: a box action space with greedy rule {greedy!r}, which no exporter knows")
            self.adim = int(act["dim"])
            self.low = np.asarray(act["low"], np.float32)
            self.high = np.asarray(act["high"], np.float32)
            self.nvec = None
        elif self.kind in ("discrete", "multi_discrete"):
            if "argmax" not in greedy and "sample_softmax" not in greedy:
                raise Refused(
                    f"{self.path}: a discrete action space with greedy rule {greedy!r}, which no exporter knows"
                )
            self.nvec = [int(act["n"])] if self.kind == "discrete" else [int(x) for x in act["nvec"]]
            self.adim = len(self.nvec)
        else:
            raise Refused(f"{self.path}: action space type {self.kind!r}, which no exporter knows")
        self.masked = bool(act.get("masked")) and self.kind != "box"
        self.parts = [Part(d) for d in obs["parts"]] if obs.get("parts") else None
        if self.parts is None:
            if obs["dtype"] not in _NP:
                raise Refused(f"{self.path}: observations of dtype {obs['dtype']}, which no exporter reads")
            self.obs_dtype = obs["dtype"]
            self.obs_shape = [int(x) for x in obs["shape"]]
            self.obs_size = int(np.prod(self.obs_shape))
            self.scale = np.float32(obs["scale"])
            self.row_bytes = self.obs_size * np.dtype(_NP[self.obs_dtype]).itemsize
            self.in_width = self.obs_size
        else:
            self.row_bytes = max(p.offset + p.size * np.dtype(p.np_dtype).itemsize for p in self.parts)
            self.in_width = sum(p.width for p in self.parts)
        norm = spec["input"].get("normalize")
        self.norm = None
        if norm:
            # as the normalizer derives them (core/rlcore/learn/norm.c): shift = (float)mean,
            # mul = (float)(1 / sqrt(var + eps)) in double
            mean = np.asarray(self.W[norm["mean"]], np.float64).reshape(-1)
            var = np.asarray(self.W[norm["var"]], np.float64).reshape(-1)
            shift = mean.astype(np.float32)
            mul = (1.0 / np.sqrt(var + float(norm["eps"]))).astype(np.float32)
            self.norm = (shift, mul, np.float32(norm["clip"]))
        self.lstms = [(op["state"], int(op["hidden"])) for op in _walk(self.ops) if op["op"] == "lstm"]
        if len({k for k, _ in self.lstms}) != len(self.lstms):
            raise Refused(f"{self.path}: two LSTM layers share a state name; no exporter keeps them apart")
        if self.log_std is not None:
            t = self.W.get(self.log_std)
            want = self.box_dim or self.adim  # the Gaussian's dimensions
            if t is None or t.size != want or not np.isfinite(t).all():
                raise Refused(
                    f"{self.path}: the greedy rule's log_std tensor {self.log_std!r} is missing or not "
                    f"{want} finite values"
                )

    def value_width(self, width):
        """The value head's width as an exporter computed it: one a row, or refused."""
        if width != 1:
            raise Refused(f"{self.path}: the policy description's value output has {width} values a row, not 1")

    def tensor(self, name, shape=None):
        """A float32 copy of a named tensor (the spec check proved it exists,
        is finite and has the size its op needs)."""
        t = np.asarray(self.W[name], np.float32)
        return t.reshape(shape) if shape is not None else t.copy()

    def meta(self):
        """What the artifacts say about themselves: the spaces and origin."""
        out = {
            "format": FORMAT,
            "algo": self.algo,
            "env": self.env,
            "step": str(self.step),
            "observation": json.dumps(self.observation, separators=(",", ":")),
            "action_space": json.dumps(self.action, separators=(",", ":")),
        }
        return out


def _bounds(lo, hi):
    """Whether lo <= hi are finite numbers (not bools)."""
    num = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (lo, hi))
    return num and np.isfinite(lo) and np.isfinite(hi) and lo <= hi


def apply_ops(ops, x, w, done, apply):
    """Applies ops in order from input x of width w, each as apply(op, x, w)
    -> (output, width), and returns the last output and width.  An op already
    applied to the same input (the trunk a policy and its value head share)
    is applied once: done maps (op, input, width) to its output and width
    across the calls of one export."""
    for op in ops:
        key = (json.dumps(op, sort_keys=True), x, w)
        if key not in done:
            done[key] = apply(op, x, w)
        x, w = done[key]
    return x, w


def _walk(ops):
    for op in ops:
        yield op
        for k in ("value", "advantage", "ops"):
            if k in op:
                yield from _walk(op[k])
        for part in op.get("parts", ()) if op.get("op") == "concat" else ():
            yield from _walk(part)
