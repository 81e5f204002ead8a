"""Trained rlhost policies: actions computed by the algorithm plugin itself
(the numbers `rlhost eval` gets), the weights as NumPy arrays, and an
equivalent torch.nn.Module built from the checkpoint's own description of
its network (metadata algo.policy, format rlhost.policy/1)."""
import json
import os
import struct

import numpy as np

from . import _native as N

_DT = {"F32": np.float32, "F64": np.float64, "U8": np.uint8, "I32": np.int32, "U64": np.uint64}


def read_safetensors(path):
    """(tensors, metadata) of a safetensors file, with NumPy only."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ValueError(f"{path} is not a safetensors file (shorter than its header length)")
    hlen = struct.unpack("<Q", raw[:8])[0]
    if hlen > len(raw) - 8:
        raise ValueError(f"{path}: header length {hlen} runs past the end of the file")
    header = json.loads(raw[8:8 + hlen])
    meta = header.pop("__metadata__", {})
    data = memoryview(raw)[8 + hlen:]
    tensors = {}
    for name, t in header.items():
        a, b = t["data_offsets"]
        tensors[name] = np.frombuffer(data[a:b], dtype=_DT[t["dtype"]]).reshape(t["shape"]).copy()
    return tensors, meta


def _ops_tensors(ops, out):
    for op in ops:
        for k in ("weight", "bias", "weight_ih", "weight_hh"):
            if k in op:
                out.append(op[k])
        for k in ("value", "advantage"):
            if k in op:
                _ops_tensors(op[k], out)
    return out


class Policy:
    """A trained policy: policy(obs) -> actions.

    obs is one observation (returns an int) or a batch of up to num_envs
    rows (returns an int32 array); row i keeps its own recurrent state
    between calls.  episode_start marks rows whose episode begins with this
    observation (their state is cleared); reset() clears every row.
    greedy=False samples from a PPO policy instead of taking its most likely
    action.  overrides: config changes as `--set` takes them."""

    def __init__(self, path, num_envs=1, greedy=True, overrides=()):
        self.path = os.fspath(path)
        self.num_envs = int(num_envs)
        ov = list(overrides)
        if not greedy:
            ov.append("algo.deterministic_eval=false")
        self._h = None
        err = N.err_buf()
        arr, n = N.strings(ov)
        h = N.lib.rlh_policy_open(N.host(), self.path.encode(), self.num_envs, arr, n, err, N.ERR_LEN)
        if not h:
            msg = err.value.decode(errors="replace")
            if not greedy and "deterministic_eval" in msg:
                raise N.RlhostError(f"greedy=False: this algorithm's policy is greedy ({msg}); "
                                    "DQN explores with overrides=['algo.eval_epsilon=0.05']")
            N.fail(err)
        self._h = h
        info = N.lib.rlh_policy_info(h).contents
        from .envs import _action_space, _obs_space
        self.observation_space = _obs_space(info)
        self.action_space = _action_space(info)
        self.n_actions = int(info.n_actions)
        self.env_name = N.lib.rlh_policy_env_name(h).decode()
        self.algo_name = N.lib.rlh_policy_algo_name(h).decode()
        self.step = int(N.lib.rlh_policy_step(h))
        self._start = np.ones(self.num_envs, np.uint8)  # the first call begins every row's episode
        box = info.action_kind == 1
        self._actions = (np.zeros((self.num_envs, int(info.action_dim)), np.float32) if box
                         else np.zeros(self.num_envs, np.int32))
        self._err = N.err_buf()
        self._ckpt = os.path.join(self.path, "checkpoint.safetensors") if os.path.isdir(self.path) else self.path
        self._tensors = self._meta = None

    def reset(self):
        self._start[:] = 1

    def __call__(self, obs, episode_start=None):
        obs = np.ascontiguousarray(obs, dtype=self.observation_space.dtype)
        single = obs.shape == self.observation_space.shape
        if single:
            obs = obs[None]
        if obs.shape[1:] != self.observation_space.shape:
            raise ValueError(f"observations have shape {obs.shape}; the policy takes "
                             f"{self.observation_space.shape} or a batch of them")
        n = obs.shape[0]
        if n > self.num_envs:
            raise ValueError(f"{n} rows; the policy was loaded for num_envs={self.num_envs}")
        start = self._start[:n].copy()
        if episode_start is not None:
            start |= np.asarray(episode_start, dtype=bool).reshape(n).astype(np.uint8)
        act = self._actions[:n]
        rc = N.lib.rlh_policy_act(self._h, obs.ctypes.data, start.ctypes.data, act.ctypes.data, n,
                                  self._err, N.ERR_LEN)
        if rc != N.RL_OK:
            N.fail(self._err)
        self._start[:n] = 0
        if single:
            return act[0].copy() if act.ndim > 1 else int(act[0])
        return act.copy()

    def make_env(self, num_envs=1, seed=0, copy=False):
        """A VectorEnv of the env this policy was trained on, with its options."""
        from .envs import VectorEnv, _Vec
        err = N.err_buf()
        h = N.lib.rlh_policy_vec(self._h, int(num_envs), int(seed) & ((1 << 64) - 1), err, N.ERR_LEN)
        if not h:
            N.fail(err)
        return VectorEnv._of(_Vec(h), self.env_name, copy)

    # ---- the network, from the checkpoint alone -------------------------
    def _load(self):
        if self._tensors is None:
            self._tensors, self._meta = read_safetensors(self._ckpt)
        return self._tensors, self._meta

    @property
    def spec(self):
        """The checkpoint's description of the network (algo.policy)."""
        return json.loads(self._load()[1]["algo.policy"])

    @property
    def observation(self):
        """dtype, shape and scale of the observations (rlhost.observation)."""
        return json.loads(self._load()[1]["rlhost.observation"])

    @property
    def weights(self):
        """The network's tensors by name (float32 NumPy arrays), normalization included."""
        t, _ = self._load()
        spec = self.spec
        names = []
        for ops in spec["outputs"].values():
            _ops_tensors(ops, names)
        norm = spec["input"].get("normalize")
        if norm:
            names += [norm["mean"], norm["var"]]
        return {k: t[k] for k in dict.fromkeys(names)}

    def to_torch(self):
        """An equivalent torch.nn.Module: forward(obs, state=None) ->
        (output, state).  For discrete actions, output holds the values the
        greedy action is the argmax of (PPO's logits, DQN's Q-values); for a
        Box action space, the greedy action itself, clipped into the box
        (SAC's and TD3's squashed actor, PPO's Gaussian mean).  LSTM layers
        are torch.nn.LSTM with rlhost's bias in bias_ih and zeros in
        bias_hh."""
        from gymnasium import spaces
        from ._torch import build
        box = self.action_space if isinstance(self.action_space, spaces.Box) else None
        return build(self.spec, self.observation, self.weights, None if box is None else (box.low, box.high))

    def close(self):
        if self._h:
            N.lib.rlh_policy_close(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return f"rlhost.Policy({self.algo_name} on {self.env_name}, step {self.step}, {self.path!r})"


def load(path, num_envs=1, greedy=True, overrides=()):
    """The policy of a run directory (its newest good checkpoint) or of a checkpoint file."""
    return Policy(path, num_envs, greedy, overrides)
