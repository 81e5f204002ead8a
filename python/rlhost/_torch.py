"""torch.nn.Module from an rlhost.policy/1 description (imported only by
Policy.to_torch, so PyTorch stays optional)."""
import numpy as np
import torch
from torch import nn


class _Dueling(nn.Module):
    def __init__(self, value, advantage):
        super().__init__()
        self.value, self.advantage = value, advantage

    def forward(self, x, state):
        v, state = self.value(x, state)
        a, state = self.advantage(x, state)
        return v + a - a.mean(dim=-1, keepdim=True), state


class _Seq(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(self, x, state):
        for layer in self.layers:
            if isinstance(layer, (_Seq, _Dueling, _LSTM)):
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


def _t(a):
    return torch.from_numpy(np.array(a, dtype=np.float32))


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
        elif k == "dueling":
            layers.append(_Dueling(_Seq(_ops(op["value"], W)), _Seq(_ops(op["advantage"], W))))
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
    def __init__(self, spec, observation, W):
        super().__init__()
        self.output_name = spec["greedy"]["argmax"]
        self.net = _Seq(_ops(spec["outputs"][self.output_name], W))
        self.register_buffer("scale", torch.tensor(float(observation["scale"])))
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
        return self.net(x, state or {})


def build(spec, observation, W):
    return RlhostPolicyModule(spec, observation, W)
