"""torch.nn.Module from an rlhost.policy/1 description (imported only by
Policy.to_torch, so PyTorch stays optional)."""

import numpy as np
import torch
from torch import nn

from ._spec import batchnorm_arrays


class _Dueling(nn.Module):
    def __init__(self, value, advantage):
        super().__init__()
        self.value, self.advantage = value, advantage

    def forward(self, x, state):
        v, state = self.value(x, state)
        a, state = self.advantage(x, state)
        return v + a - a.mean(dim=-1, keepdim=True), state


class _Residual(nn.Module):
    """y = x + ops(x): a residual block's skip."""

    def __init__(self, ops):
        super().__init__()
        self.ops = ops

    def forward(self, x, state):
        r, state = self.ops(x, state)
        return x + r.reshape(x.shape), state


class _Concat(nn.Module):
    """A composite observation's parts, each through its own ops, side by side."""

    def __init__(self, parts):
        super().__init__()
        self.parts = nn.ModuleList(parts)

    def forward(self, x, state):
        outs = []
        for p in self.parts:
            y, state = p(x, state)
            outs.append(y.reshape(y.shape[0], -1))
        return torch.cat(outs, dim=1), state


class _Seq(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x, state):
        for layer in self.layers:
            if isinstance(layer, (_Seq, _Dueling, _LSTM, _Concat, _Residual)):
                x, state = layer(x, state)
            else:
                x = layer(x)
        return x, state


class _LSTM(nn.Module):
    def __init__(self, key, lstm):
        super().__init__()
        self.key, self.lstm = key, lstm

    def forward(self, x, state):
        B, H = x.shape[0], self.lstm.hidden_size
        h, c = state.get(self.key, (x.new_zeros(1, B, H), x.new_zeros(1, B, H)))
        y, (h, c) = self.lstm(x[None], (h, c))
        state = dict(state)
        state[self.key] = (h, c)
        return y[0], state


class _Slice(nn.Module):
    def __init__(self, start, length):
        super().__init__()
        self.start, self.length = start, length

    def forward(self, x):
        return x[:, self.start : self.start + self.length]


class _Rescale(nn.Module):
    """[-1, 1] to [low, high], per action dimension."""

    def __init__(self, low, high):
        super().__init__()
        self.register_buffer("low", _t(low))
        self.register_buffer("high", _t(high))

    def forward(self, x):
        return self.low + (x + 1) * 0.5 * (self.high - self.low)


class _Conv(nn.Module):
    """Conv2d over the flattened [in_c][in_h][in_w] rows the ops pass on."""

    def __init__(self, op, W):
        super().__init__()
        self.shape = (op["in_c"], op["in_h"], op["in_w"])
        self.conv = nn.Conv2d(op["in_c"], op["out_c"], op["kernel"], op["stride"], op["pad"])
        with torch.no_grad():
            self.conv.weight.copy_(_t(W[op["weight"]]).reshape(self.conv.weight.shape))
            self.conv.bias.copy_(_t(W[op["bias"]]).reshape(op["out_c"]))

    def forward(self, x):
        return self.conv(x.reshape(x.shape[0], *self.shape))


class _Mean(nn.Module):
    """The values as [rows, cols], their means over one axis."""

    def __init__(self, shape, axis):
        super().__init__()
        self.shape, self.axis = tuple(shape), 1 + int(axis)

    def forward(self, x):
        return x.reshape(x.shape[0], *self.shape).mean(dim=self.axis)


def _t(a):
    return torch.from_numpy(np.array(a, dtype=np.float32))


class _BatchNorm(nn.Module):
    """Batch renormalization by its running statistics, as rlhost acts:
    (x - mean) / sqrt(var + eps) * scale + bias."""

    def __init__(self, op, W):
        super().__init__()
        for name, a in zip(("mean", "sd", "scale", "bias"), batchnorm_arrays(op, W)):
            self.register_buffer(name, _t(a))

    def forward(self, x):
        return (x - self.mean) / self.sd * self.scale + self.bias


def _ops(ops, W):
    layers = []
    for op in ops:
        k = op["op"]
        if k == "linear":
            lin = nn.Linear(op["in"], op["out"])
            with torch.no_grad():
                lin.weight.copy_(_t(W[op["weight"]]).reshape(op["out"], op["in"]))
                lin.bias.copy_(_t(W[op["bias"]]).reshape(op["out"]))
            layers.append(lin)
        elif k == "conv2d":
            layers.append(_Conv(op, W))
        elif k == "flatten":
            layers.append(nn.Flatten())
        elif k == "relu":
            layers.append(nn.ReLU())
        elif k == "tanh":
            layers.append(nn.Tanh())
        elif k == "slice":
            layers.append(_Slice(op["start"], op["len"]))
        elif k == "clip":
            layers.append(nn.Hardtanh(float(op["min"]), float(op["max"])))
        elif k == "rescale":
            layers.append(_Rescale(op["low"], op["high"]))
        elif k == "batchnorm":
            layers.append(_BatchNorm(op, W))
        elif k == "mean":
            layers.append(_Mean(op["shape"], op["axis"]))
        elif k == "concat":
            layers.append(_Concat([_Seq(_ops(part, W)) for part in op["parts"]]))
        elif k == "dueling":
            layers.append(_Dueling(_Seq(_ops(op["value"], W)), _Seq(_ops(op["advantage"], W))))
        elif k == "residual":
            layers.append(_Residual(_Seq(_ops(op["ops"], W))))
        elif k == "lstm":
            H = op["hidden"]
            wih = _t(W[op["weight_ih"]]).reshape(4 * H, -1)
            lstm = nn.LSTM(wih.shape[1], H)
            with torch.no_grad():
                lstm.weight_ih_l0.copy_(wih)
                lstm.weight_hh_l0.copy_(_t(W[op["weight_hh"]]).reshape(4 * H, H))
                lstm.bias_ih_l0.copy_(_t(W[op["bias"]]).reshape(4 * H))
                lstm.bias_hh_l0.zero_()
            layers.append(_LSTM(op["state"], lstm))
        else:
            raise ValueError(f"unknown op '{k}' in the policy description")
    return layers


class RlhostPolicyModule(nn.Module):
    """forward(obs, state=None) -> (output, state): for discrete actions the
    values the greedy action is the argmax of; for a box the greedy action
    itself, clipped into the box (SAC's and TD3's squashed actor, PPO's
    Gaussian mean); for a hybrid action the components' values, then its
    box's part clipped."""

    def __init__(self, spec, observation, W, box=None, box_from=0):
        super().__init__()
        greedy = spec["greedy"]
        from ._spec import greedy_output

        self.output_name = greedy_output(greedy)
        if self.output_name not in spec["outputs"]:
            raise ValueError(f"the policy description's greedy output {greedy!r} is not among its outputs")
        self.net = _Seq(_ops(spec["outputs"][self.output_name], W))
        # a hybrid action's box: the outputs from box_from on, after the components' logits
        self.box = box is not None and ("identity" in greedy or "sample_gaussian" in greedy or "box" in greedy)
        self.box_from = int(box_from)
        if self.box:
            self.register_buffer("low", _t(box[0]))
            self.register_buffer("high", _t(box[1]))
        # a composite observation: forward takes its network input (Policy.inputs), already scaled
        self.register_buffer("scale", torch.tensor(1.0 if "parts" in observation else float(observation["scale"])))
        norm = spec["input"].get("normalize")
        self.clip = float(norm["clip"]) if norm else None
        if norm:
            mean = np.asarray(W[norm["mean"]], np.float64)
            inv = 1.0 / np.sqrt(np.asarray(W[norm["var"]], np.float64) + norm["eps"])
            self.register_buffer("mean", _t(mean))
            self.register_buffer("inv_std", _t(inv))

    def forward(self, obs, state=None):
        x = obs.to(torch.float32).reshape(obs.shape[0], -1) * self.scale
        if self.clip is not None:
            x = torch.clamp((x - self.mean) * self.inv_std, -self.clip, self.clip)
        out, state = self.net(x, state or {})
        if self.box and self.box_from:
            b = torch.maximum(torch.minimum(out[:, self.box_from :], self.high), self.low)
            out = torch.cat([out[:, : self.box_from], b], dim=1)
        elif self.box:
            out = torch.maximum(torch.minimum(out, self.high), self.low)
        return out, state


def build(spec, observation, W, box=None, box_from=0):
    return RlhostPolicyModule(spec, observation, W, box, box_from)
