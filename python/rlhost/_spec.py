"""Checks a checkpoint's network description (metadata algo.policy, format
rlhost.policy/1) against its tensors before anything is built from it:
every named tensor exists as finite float32 of the size its op needs, and
the widths chain from the observation to the greedy output."""

import math

import numpy as np

from ._native import RlhostError

# Any one width or dimension of the description: generated C indexes with
# int, so every size, and every product of sizes, stays far inside it.
MAX_DIM, MAX_SIZE, MAX_DEPTH = 1 << 24, 1 << 30, 32


def count(op, key, lo=1, hi=MAX_DIM):
    """op[key] as an int in [lo, hi], or a sentence: an integral number only
    (1e999, 2.5, true and "3" are not counts)."""
    v = op[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf")):
        raise RlhostError(f"the policy description's {op.get('op')} op has {key} = {v!r}, which is no count")
    if int(v) != v or not lo <= v <= hi:
        raise RlhostError(f"the policy description's {op.get('op')} op has {key} = {v!r}, outside [{lo}, {hi}]")
    return int(v)


def batchnorm_arrays(op, W):
    """A batchnorm op's float32 arrays, as every exporter computes from them:
    mean, sd = sqrt(var + eps) rounded as rlhost's sqrtf rounds it (so no
    export needs libm), scale and bias."""
    n = int(op["size"])
    mean, var, scale, bias = (np.asarray(W[op[k]], np.float32).reshape(n) for k in ("mean", "var", "scale", "bias"))
    return mean, np.sqrt(var + np.float32(op["eps"])).astype(np.float32), scale, bias


def conv_out(op):
    """(height, width) of a conv2d op's output."""
    h, w, k, s, p = (int(op[x]) for x in ("in_h", "in_w", "kernel", "stride", "pad"))
    return (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1


class _Walk:
    def __init__(self, W):
        self.W = W

    def tensor(self, op, key, size, dtypes=(np.float32,)):
        name = op.get(key)
        t = self.W.get(name) if isinstance(name, str) else None
        if t is None:
            raise RlhostError(
                f"the policy description's {op.get('op')} op names tensor {name!r} ({key}), "
                "which the checkpoint does not hold"
            )
        if t.dtype not in dtypes or t.size != size:
            raise RlhostError(
                f"tensor {name!r} is {t.dtype} of {t.size} values; the {op['op']} op that names it "
                f"needs {' or '.join(np.dtype(d).name for d in dtypes)} of {size}"
            )
        if not np.isfinite(t).all():
            raise RlhostError(f"tensor {name!r} holds a value that is not finite")

    depth = 0

    def ops(self, ops, width):
        if not isinstance(ops, list):
            raise RlhostError("the policy description has an op list that is no list")
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise RlhostError(f"the policy description nests its ops more than {MAX_DEPTH} deep")
        for op in ops:
            if not isinstance(op, dict):
                raise RlhostError("the policy description has an op that is no object")
            width = self.op(op, width)
            if width > MAX_SIZE:
                raise RlhostError(f"the policy description's {op.get('op')} op gives {width} values")
        self.depth -= 1
        return width

    def op(self, op, width):
        k = op.get("op")
        if k in ("relu", "tanh", "flatten"):
            return width
        if k == "linear":
            i, o = count(op, "in"), count(op, "out")
            if i != width:
                raise RlhostError(f"a linear op takes {i} inputs where the layer before gives {width}")
            self.tensor(op, "weight", i * o)
            self.tensor(op, "bias", o)
            return o
        if k == "conv2d":
            c, h, w, oc, kk, st = (count(op, x) for x in ("in_c", "in_h", "in_w", "out_c", "kernel", "stride"))
            count(op, "pad", 0)  # conv_out reads it
            if c * h * w != width:
                raise RlhostError(f"a conv2d op takes {c}x{h}x{w} inputs where the layer before gives {width}")
            self.tensor(op, "weight", oc * c * kk * kk)
            self.tensor(op, "bias", oc)
            oh, ow = conv_out(op)
            if oh < 1 or ow < 1:
                raise RlhostError(f"a conv2d op's kernel {kk} does not fit its {h}x{w} input")
            return oc * oh * ow
        if k == "slice":
            start, n = count(op, "start", 0), count(op, "len")
            if start < 0 or n < 1 or start + n > width:
                raise RlhostError(f"a slice op takes [{start}, {start + n}) of {width} values")
            return n
        if k == "clip":
            lo, hi = op.get("min"), op.get("max")
            num = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (lo, hi))
            if not num or lo > hi:
                raise RlhostError(f"a clip op has bounds {lo!r}, {hi!r}, not finite numbers in order")
            return width
        if k == "batchnorm":
            n, eps = count(op, "size"), op.get("eps")
            if n != width:
                raise RlhostError(f"a batchnorm op takes {n} inputs where the layer before gives {width}")
            if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not (math.isfinite(eps) and eps > 0):
                raise RlhostError(f"a batchnorm op has eps {eps!r}, not a finite number above 0")
            for key in ("scale", "bias", "mean", "var"):
                self.tensor(op, key, n)
            if (self.W[op["var"]] < 0).any():
                raise RlhostError(f"tensor {op['var']!r} holds a negative variance")
            return width
        if k == "rescale":
            if len(op["low"]) != width or len(op["high"]) != width:
                raise RlhostError(f"a rescale op has {len(op['low'])} bounds for {width} values")
            return width
        if k == "mean":
            shape = op["shape"]
            if not isinstance(shape, list) or len(shape) != 2:
                raise RlhostError(f"a mean op has shape {shape!r}, not [rows, columns]")
            r, c = (
                count({"op": "mean", "rows": shape[0]}, "rows"),
                count({"op": "mean", "columns": shape[1]}, "columns"),
            )
            axis = count(op, "axis", 0, 1)
            if r < 1 or c < 1 or r * c != width or axis not in (0, 1):
                raise RlhostError(f"a mean op views {width} values as [{r}, {c}] over axis {axis}")
            return r if axis == 1 else c
        if k == "concat":
            parts = op["parts"]
            if not isinstance(parts, list) or not parts:
                raise RlhostError("a concat op has no parts")
            return sum(self.ops(part, width) for part in parts)
        if k == "residual":
            r = self.ops(op["ops"], width)
            if r != width:
                raise RlhostError(f"a residual op's ops give {r} values where they add to {width}")
            return width
        if k == "dueling":
            v, a = self.ops(op["value"], width), self.ops(op["advantage"], width)
            if v != 1:
                raise RlhostError(f"a dueling op's value stream gives {v} values, not 1")
            return a
        if k == "lstm":
            H = count(op, "hidden")
            self.tensor(op, "weight_ih", 4 * H * width)
            self.tensor(op, "weight_hh", 4 * H * H)
            self.tensor(op, "bias", 4 * H)
            return H
        raise RlhostError(f"the policy description has an unknown op {k!r}")


def input_width(observation):
    """Floats of network input an observation gives: its elements, or a
    composite one's parts (discrete ones one-hot)."""
    parts = observation.get("parts")
    if not parts:
        return int(np.prod(observation["shape"]))
    return sum(int(np.sum(p["nvec"])) if p["kind"] == "discrete" else int(np.prod(p["shape"])) for p in parts)


RULES = ("argmax", "identity", "sample_softmax", "sample_gaussian")


def greedy_output(greedy):
    """The output a policy acts from: the argmax of discrete values, the box
    action itself, or (deterministic_eval = false) the logits or Gaussian
    mean it samples around."""
    for rule in RULES:
        if isinstance(greedy, dict) and rule in greedy:
            return greedy[rule]
    return None


def check(spec, observation, W, outputs):
    """spec against W; outputs: the width the greedy output must have."""
    try:
        greedy = spec["greedy"]
        name = greedy_output(greedy)
        if name not in spec["outputs"]:
            raise RlhostError(f"the policy description's greedy output {name!r} is not among its outputs")
        width = input_width(observation)
        if int(spec["input"]["size"]) != width:
            raise RlhostError(
                f"the policy description's input has {spec['input']['size']} values; the observation gives {width}"
            )
        norm = spec["input"].get("normalize")
        walk = _Walk(W)
        if norm:
            # the statistics are float64, as the normalizers keep them (docs/run-directory.md)
            walk.tensor({"op": "normalize", **norm}, "mean", width, (np.float32, np.float64))
            walk.tensor({"op": "normalize", **norm}, "var", width, (np.float32, np.float64))
            if (W[norm["var"]] < 0).any():
                raise RlhostError(f"tensor {norm['var']!r} holds a negative variance")
        for out, ops in spec["outputs"].items():
            got = walk.ops(ops, width)
            if out == name and got != outputs:
                raise RlhostError(
                    f"the policy description's greedy output {name!r} has {got} values; the action "
                    f"space needs {outputs}"
                )
    except (KeyError, TypeError, ValueError, OverflowError, ZeroDivisionError, RecursionError) as e:
        raise RlhostError(f"the checkpoint's policy description is malformed: {e!r}") from None


_DTYPES = {1: "F32", 2: "U8", 3: "I32"}


def _g9(x):
    """A float32 as the metadata writes it (C's %.9g), read back."""
    return float(f"{float(x):.9g}")


def describe_info(info):
    """(observation, action space) of the env a policy was opened on (its
    rl_env_info, as the C loader made it), in the form the checkpoint's
    rlhost.observation and rlhost.action_space metadata write them: what an
    exporter builds from, read from the env itself, never from the file."""
    obs = {
        "dtype": _DTYPES.get(int(info.obs_dtype), "?"),
        "shape": [int(info.obs_shape[d]) for d in range(min(int(info.obs_ndim), 4))],
        "scale": _g9(info.obs_scale),
    }
    parts = []
    for k in range(int(info.n_obs_parts or 0) if info.obs_parts else 0):
        c = info.obs_parts[k]
        shape = [int(c.shape[d]) for d in range(min(int(c.ndim), 4))]
        d = {"name": c.name.decode(), "kind": "box" if c.kind == 0 else "discrete", "dtype": _DTYPES.get(c.dtype, "?")}
        d.update(shape=shape, offset=int(c.offset))
        if c.kind == 0:
            d["scale"] = _g9(c.scale)
        else:
            d["nvec"] = [int(c.nvec[e]) for e in range(int(np.prod(shape)))]
        parts.append(d)
    if parts:
        obs["parts"] = parts
    kind, dim = int(info.action_kind), int(info.action_dim)
    if kind == 1:
        act = {
            "type": "box",
            "dim": dim,
            "low": [_g9(info.action_low[k]) for k in range(dim)],
            "high": [_g9(info.action_high[k]) for k in range(dim)],
        }
    elif kind == 2:
        act = {"type": "multi_discrete", "nvec": [int(info.action_nvec[k]) for k in range(dim)]}
    elif kind == 3:
        m = int(info.action_box_dim)
        act = {
            "type": "hybrid",
            "nvec": [int(info.action_nvec[k]) for k in range(dim)],
            "dim": m,
            "low": [_g9(info.action_low[k]) for k in range(m)],
            "high": [_g9(info.action_high[k]) for k in range(m)],
        }
    else:
        act = {"type": "discrete", "n": int(info.n_actions)}
    if info.action_mask and kind != 1:
        act["masked"] = True
    return obs, act


def same_description(a, b):
    """Whether two observation or action descriptions say the same, numbers
    compared as the float32 values the env holds."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_description(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_description(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return np.float32(a) == np.float32(b) or (a != a and b != b)
    return a == b
