"""Trained rlhost policies: actions computed by the algorithm plugin itself
(the numbers `rlhost eval` gets), the weights as NumPy arrays, and an
equivalent torch.nn.Module built from the checkpoint's own description of
its network (metadata algo.policy, format rlhost.policy/1)."""

import ctypes as C
import dataclasses
import json
import os
import struct
import tempfile
import threading
import weakref

import numpy as np

from . import _native as N

_DT = {"F32": np.float32, "F64": np.float64, "U8": np.uint8, "I32": np.int32, "U64": np.uint64}


def read_safetensors(path):
    """(tensors, metadata) of a safetensors file, with NumPy only."""
    with open(path, "rb") as f:
        return parse_safetensors(f.read(), path)


def parse_safetensors(raw, where="checkpoint"):
    """(tensors, metadata) of a safetensors file's bytes."""
    if len(raw) < 8:
        raise ValueError(f"{where} is not a safetensors file (shorter than its header length)")
    hlen = struct.unpack("<Q", raw[:8])[0]
    if hlen > len(raw) - 8:
        raise ValueError(f"{where}: header length {hlen} runs past the end of the file")
    header = json.loads(bytes(raw[8 : 8 + hlen]))
    meta = header.pop("__metadata__", {})
    data = memoryview(raw)[8 + hlen :]
    tensors = {}
    for name, t in header.items():
        a, b = t["data_offsets"]
        tensors[name] = np.frombuffer(data[a:b], dtype=_DT[t["dtype"]]).reshape(t["shape"]).copy()
    return tensors, meta


_NP_OF_DTYPE = {1: np.float32, 2: np.uint8, 3: np.int32, 4: np.uint64, 5: np.float64}  # rl_dtype


def _loaded(h):
    """(tensors, metadata) of the checkpoint a C policy loaded: copies of its
    tensors as NumPy arrays, and its metadata strings."""
    tensors, meta = {}, {}
    t = N.Tensor(struct_size=C.sizeof(N.Tensor))
    i = 0
    while N.lib.rlh_policy_tensor(h, i, C.byref(t)) == N.RL_OK:
        shape = tuple(int(t.shape[k]) for k in range(t.ndim))
        raw = C.string_at(t.data, t.bytes) if t.bytes else b""
        tensors[t.name.decode()] = np.frombuffer(raw, dtype=_NP_OF_DTYPE[t.dtype]).reshape(shape).copy()
        i += 1
    key, val = C.c_char_p(), C.c_char_p()
    i = 0
    while N.lib.rlh_policy_meta(h, i, C.byref(key), C.byref(val)) == N.RL_OK:
        meta[key.value.decode()] = val.value.decode()
        i += 1
    return tensors, meta


def _parse_spec(text):
    """The network's description (metadata algo.policy) as a dict, or a sentence."""
    try:
        spec = json.loads(text)
    except ValueError as e:
        raise N.RlhostError(f"the checkpoint's policy description (algo.policy) is not valid JSON: {e}") from None
    except RecursionError:
        raise N.RlhostError("the checkpoint's policy description (algo.policy) nests too deep to read") from None
    if not isinstance(spec, dict):
        raise N.RlhostError("the checkpoint's policy description (algo.policy) is not a JSON object")
    return spec


def _output_width(info):
    """The width of the network output an action is taken from: the box's
    dimensions, every MultiDiscrete component's choices, or the actions; a
    hybrid action's choices, then its box's dimensions."""
    if info.action_kind == 1:
        return int(info.action_dim)
    if info.action_kind in (2, 3):
        box = int(info.action_box_dim) if info.action_kind == 3 else 0
        return int(sum(info.action_nvec[k] for k in range(info.action_dim))) + box
    return int(info.n_actions)


def _mask_width(info):
    """Bytes of a mask row: one per choice of the discrete part."""
    if not info.action_mask or info.action_kind == 1:
        return 0
    return _output_width(info) - (int(info.action_box_dim) if info.action_kind == 3 else 0)


def _describe(h, path):
    """The PolicyDescription of an open C policy, its spec checked against
    its tensors."""
    from ._spec import check, describe_info

    info = N.lib.rlh_policy_info(h).contents
    # what the env the C loader opened says it observes and takes, never the
    # checkpoint's own word for it
    env_observation, env_action = describe_info(info)
    tensors, meta = _loaded(h)
    spec = None
    if "algo.policy" in meta:  # else an algorithm that describes no network (random)
        try:
            spec = _parse_spec(meta["algo.policy"])
            check(spec, json.loads(meta["rlhost.observation"]), tensors, _output_width(info))
        except N.RlhostError as e:
            raise N.RlhostError(f"{path}: {e}") from None
    return PolicyDescription(
        path=path,
        algo=N.lib.rlh_policy_algo_name(h).decode(),
        env=N.lib.rlh_policy_env_name(h).decode(),
        step=int(N.lib.rlh_policy_step(h)),
        spec=spec,
        env_observation=env_observation,
        env_action=env_action,
        mask_width=_mask_width(info),
        tensors=tensors,
        metadata=meta,
    )


def describe(path, overrides=()):
    """The PolicyDescription of a run directory or checkpoint, opened and
    validated by librlhost, with NumPy alone (no Gymnasium): what `rlhost
    export` reads.  overrides as Policy takes them."""
    from ._overrides import as_sets

    path = os.fspath(path)
    arr, n = N.strings(as_sets(overrides))
    err = N.err_buf()
    h = N.lib.rlh_policy_open(N.host(), path.encode(), 1, arr, n, err, N.ERR_LEN)
    if not h:
        N.fail(err)
    try:
        return _describe(h, path)
    finally:
        N.lib.rlh_policy_close(h)


# the keys of rlhost.policy/1's ops that name a tensor (_spec's walk checks each)
_TENSOR_KEYS = ("weight", "bias", "weight_ih", "weight_hh", "scale", "mean", "var")


def _ops_tensors(ops, out):
    """The tensors an op list names, nested lists (a dueling op's streams, a
    concat op's parts, a residual op's ops) included, appended to out."""
    for op in ops:
        out += [op[k] for k in _TENSOR_KEYS if k in op]
        for k in ("value", "advantage", "ops"):
            if k in op:
                _ops_tensors(op[k], out)
        for part in op.get("parts", ()):
            _ops_tensors(part, out)
    return out


def _close_parts(close, parts, tmp=None):
    """weakref.finalize's callback: the C policies, then the temporary copy
    of the checkpoint that extra row blocks were opened from."""
    for h, _ in parts:
        close(h)
    parts.clear()
    if tmp:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _flags(values, what):
    """Booleans or finite numbers (nonzero: set) as an array, or a sentence."""
    a = np.asarray(values)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{what} must be booleans or numbers, got dtype {a.dtype}")
    if a.dtype.kind == "f" and not np.isfinite(a).all():
        raise ValueError(f"{what} hold a value that is not finite")
    return a


@dataclasses.dataclass(frozen=True)
class PolicyDescription:
    """A policy's network as its checkpoint describes it (Policy.description):
    spec, the network (metadata algo.policy, format rlhost.policy/1, checked
    against the tensors when the policy opened; None for an algorithm that
    describes none); env_observation and
    env_action, the spaces as the env the loader opened gives them; tensors,
    every tensor of the checkpoint by name (NumPy arrays); metadata, its
    strings; mask_width, the width of the action masks (0: none)."""

    path: str
    algo: str
    env: str
    step: int
    spec: dict
    env_observation: dict
    env_action: dict
    mask_width: int
    tensors: dict
    metadata: dict


class Policy:
    """A trained policy: policy(obs) -> actions.

    obs is one observation (returns an int, an int array for MultiDiscrete,
    or a float32 array for a Box action space) or a batch of any number of
    rows (returns an array).  A composite observation (a Dict of its parts)
    is a dict of arrays, batched or not.  action_masks (one row of the mask
    width per observation, or a dict observation's "action_mask" key) keeps
    each action to the choices its mask allows, as the env's masks did in
    training; without masks every action is allowed.
    Row i keeps its own recurrent state between calls; episode_start marks
    rows whose episode begins with this observation (their state is
    cleared); reset() clears every row.  greedy=False samples from a PPO
    policy instead of taking its most likely action.  overrides: config
    changes, as every entry point takes them (rlhost._overrides: a dict
    {"algo.eval_epsilon": 0.05}, or "K=V" strings as `--set` takes them).  Calls are serialized by a lock; any
    call after close() raises."""

    def __init__(self, path, num_envs=1, greedy=True, overrides=()):
        from ._checks import check_int

        self.path = os.fspath(path)
        self.num_envs = check_int(num_envs, "num_envs", 1, 1 << 24)
        from ._overrides import as_sets

        self._ov = as_sets(overrides)
        if not greedy:
            self._ov.append("algo.deterministic_eval=false")
        self._lock = threading.RLock()
        self._parts = []  # (handle, rows): row blocks, each on its own C policy
        self._err = N.err_buf()
        self._tmp = None
        h = self._open(self.path, self.num_envs, greedy)
        self._parts.append((h, self.num_envs))
        self._finalizer = weakref.finalize(self, _close_parts, N.lib.rlh_policy_close, self._parts)
        try:
            self._desc = _describe(h, self.path)
        except N.RlhostError:
            self.close()
            raise
        d = self._desc
        self.env_observation, self.env_action = d.env_observation, d.env_action
        self.env_name, self.algo_name, self.step = d.env, d.algo, d.step
        self.mask_width = d.mask_width
        self._tensors, self._meta = d.tensors, d.metadata
        info = N.lib.rlh_policy_info(h).contents
        self._info = info  # lives while the policy is open
        self.box = info.action_kind == 1
        self.multi = info.action_kind == 2
        self.hybrid = info.action_kind == 3
        self.n_actions = int(info.n_actions)
        self._row_bytes = int(info.obs_size)
        self._layout = None
        if info.n_obs_parts:  # a composite observation: read by its parts (Gymnasium's spaces)
            from . import _spaces as S

            self._layout = S.layout_of_parts(S.parts_of(info), int(info.obs_size))
        self._start = np.ones(self.num_envs, np.uint8)  # the first call begins every row's episode

    _observation_space = _action_space = None

    @property
    def observation_space(self):
        """The observations as a Gymnasium space (made on first use)."""
        if self._observation_space is None:
            from .envs import _obs_space

            self._observation_space = _obs_space(self._info)
        return self._observation_space

    @observation_space.setter
    def observation_space(self, space):
        self._observation_space = space

    @property
    def action_space(self):
        """The actions as a Gymnasium space (made on first use)."""
        if self._action_space is None:
            from .envs import _action_space

            self._action_space = _action_space(self._info)
        return self._action_space

    def _open(self, path, rows, greedy=True):
        arr, n = N.strings(self._ov)
        h = N.lib.rlh_policy_open(N.host(), path.encode(), rows, arr, n, self._err, N.ERR_LEN)
        if not h:
            msg = self._err.value.decode(errors="replace")
            if not greedy and "deterministic_eval" in msg:
                raise N.RlhostError(
                    f"greedy=False: this algorithm's policy is greedy ({msg}); "
                    "DQN explores with overrides=['algo.eval_epsilon=0.05']"
                )
            N.fail(self._err)
        return h

    def _grow(self, rows):
        """Room for `rows` rows: another block on a C policy opened from the
        same checkpoint bytes (so every block has the same weights), the
        existing rows' recurrent state untouched."""
        have = sum(r for _, r in self._parts)
        if rows <= have:
            return
        if self._tmp is None:
            data, size = C.c_void_p(), C.c_size_t()
            if N.lib.rlh_policy_checkpoint(self._parts[0][0], C.byref(data), C.byref(size), self._err, N.ERR_LEN):
                N.fail(self._err)
            fd, self._tmp = tempfile.mkstemp(prefix="rlhost-policy-", suffix=".safetensors")
            with os.fdopen(fd, "wb") as f:
                f.write(C.string_at(data, size.value))
            self._finalizer.detach()
            self._finalizer = weakref.finalize(self, _close_parts, N.lib.rlh_policy_close, self._parts, self._tmp)
        extra = max(rows - have, have)
        self._parts.append((self._open(self._tmp, extra), extra))
        self._start = np.concatenate([self._start, np.ones(extra, np.uint8)])
        self.num_envs = have + extra

    def _check_open(self):
        if not self._parts:
            raise N.RlhostError(f"the policy of {self.path!r} is closed")

    def reset(self):
        with self._lock:
            self._check_open()
            self._start[:] = 1

    def use_env_space(self, sp):
        """Reads observations in the form of the env it trained on (a Gymnasium
        space's Dict, Tuple, MultiDiscrete or Discrete, with their starts), as
        rlhost.run(env=...) sets it; else as the checkpoint says them (a Dict
        of its parts, one-hot rows for a Discrete)."""
        if sp.layout is not None:
            self._layout = sp.layout
            self.observation_space = sp.layout.space
        elif sp.onehot is not None:
            self._onehot = (int(sp.obs_space.n), sp.onehot)
            self.observation_space = sp.obs_space

    def _single(self, obs):
        """Whether a composite observation is one (else a batch)."""
        p = self._layout.parts[0]
        if isinstance(obs, dict):
            v = obs.get(p.name)
        elif isinstance(obs, tuple):
            v = obs[0] if obs else None
        else:
            v = obs
        if v is None:
            raise ValueError(f"the observation lacks its part {p.name!r}")
        from gymnasium import spaces

        return np.ndim(v) == (0 if isinstance(p.space, spaces.Discrete) else len(p.shape))

    _onehot = None  # (n, start): a Discrete observation, one-hot rows for the C policy

    def _rows(self, obs):
        """(rows as the C policy reads them, whether obs was one observation)."""
        if self._onehot is not None:
            n, start = self._onehot
            v = np.asarray(obs, np.int64)
            single = v.ndim == 0
            v = v.reshape(-1) - start
            if ((v < 0) | (v >= n)).any():
                raise ValueError(
                    f"observation {int(v[(v < 0) | (v >= n)][0]) + start} is outside the Discrete "
                    f"space {self.observation_space}"
                )
            return np.ascontiguousarray(np.eye(n, dtype=np.float32)[v]), single
        if self._layout is not None:
            from ._spaces import SpaceError

            single = self._single(obs)
            if single:
                batch = [obs]
            elif isinstance(obs, dict):
                n = len(next(iter(obs.values())))
                batch = [{k: v[i] for k, v in obs.items()} for i in range(n)]
            elif isinstance(obs, tuple):
                batch = [tuple(v[i] for v in obs) for i in range(len(obs[0]))]
            else:
                batch = list(np.asarray(obs))
            rows = np.zeros((len(batch), self._row_bytes), np.uint8)
            try:
                for i, o in enumerate(batch):
                    self._layout.put(rows[i], o)
                    for p in self._layout.parts:  # a category outside its part: the caller's mistake, said here
                        if p.kind == 1:
                            v = rows[i, p.offset : p.offset + p.nbytes].view(np.int32 if p.dtype == 3 else np.uint8)
                            if ((v < 0) | (v >= p.nvec)).any():
                                raise SpaceError(
                                    f"part {p.name!r} of row {i} holds a value outside its space {p.space}"
                                )
            except SpaceError as e:
                raise ValueError(str(e)) from None
            return rows, single
        obs = np.asarray(obs)
        if obs.dtype.kind not in "iuf":
            raise TypeError(f"observations must be numbers, got dtype {obs.dtype}")
        single = obs.shape == self.observation_space.shape
        if single:
            obs = obs[None]
        if obs.shape[1:] != self.observation_space.shape:
            raise ValueError(
                f"observations have shape {obs.shape}; the policy takes "
                f"{self.observation_space.shape} or a batch of them"
            )
        if self.observation_space.dtype == np.uint8 and obs.dtype != np.uint8:
            bad = ~np.isfinite(obs) | (obs != np.round(obs)) | (obs < 0) | (obs > 255)
            if bad.any():  # a cast would wrap or truncate it
                raise ValueError(
                    f"observation value {obs.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]]!r} is not "
                    "an integer in [0, 255], which this policy's uint8 observations hold"
                )
        return np.ascontiguousarray(obs, dtype=self.observation_space.dtype), single

    def _masks(self, obs, masks, n):
        if masks is None and isinstance(obs, dict) and "action_mask" in obs:
            masks = obs["action_mask"]
        if masks is None:
            return None
        if not self.mask_width:
            raise ValueError("this policy's env did not mask its actions: it takes no action_masks")
        m = _flags(masks, "action_masks")
        if m.size != n * self.mask_width:
            raise ValueError(f"action_masks have {m.size} values; {n} rows of this policy take {n} x {self.mask_width}")
        m = np.ascontiguousarray(m.reshape(n, self.mask_width) != 0, np.uint8)
        empty = ~m.any(axis=1)
        if empty.any():
            raise ValueError(f"the action mask of row {int(np.flatnonzero(empty)[0])} allows no action")
        return m

    def __call__(self, obs, episode_start=None, action_masks=None):
        with self._lock:
            self._check_open()
            rows, single = self._rows(obs)
            n = rows.shape[0]
            masks = self._masks(obs, action_masks, n)
            self._grow(n)
            start = self._start[:n].copy()
            if episode_start is not None:
                es = _flags(episode_start, "episode_start")
                if es.size != n:
                    raise ValueError(f"episode_start has {es.size} values for {n} rows")
                start |= es.reshape(n).astype(bool).astype(np.uint8)
            if self.hybrid:  # host rows: the components' int32s, then the box's float32s
                act = np.zeros((n, int(self._info.action_dim) + int(self._info.action_box_dim)), np.int32)
            else:
                act = np.zeros((n,) + self.action_space.shape, np.float32 if self.box else np.int32)
            first = 0
            for h, rows_in in self._parts:
                if first >= n:
                    break
                k = min(rows_in, n - first)
                m = masks[first:].ctypes.data if masks is not None else None
                rc = N.lib.rlh_policy_act_masked(
                    h,
                    rows[first:].ctypes.data,
                    start[first:].ctypes.data,
                    m,
                    act[first:].ctypes.data,
                    k,
                    self._err,
                    N.ERR_LEN,
                )
                if rc != N.RL_OK:
                    N.fail(self._err)
                first += k
            self._start[:n] = 0
            if self.hybrid:
                return self._hybrid(act, single)
            if single:
                return act[0] if self.box or self.multi else int(act[0])
            return act

    def _hybrid(self, act, single):
        """Host rows of a hybrid action as its Tuple space's pair: the
        discrete part ([n], or [n, components]) and the box ([n, floats])."""
        k = int(self._info.action_dim)
        ints, floats = act[:, :k].copy(), act[:, k:].view(np.float32).copy()
        if k == 1:
            ints = ints[:, 0]
        if single:
            return (int(ints[0]) if k == 1 else ints[0]), floats[0]
        return ints, floats

    def search(self, env, simulations=100, **keys):
        """Moves searched for the rows of env to move: Monte Carlo tree
        search through the env's own rules (an env that declares itself
        searchable, such as connect_four), this policy's probabilities and
        value head guiding it.  env: a VectorEnv of this policy's env (or
        the vec inside one), as make_env gives it.  keys: c_puct,
        temperature, max_mib, threads (docs/search.md).  Returns int32
        [num_envs x agents]: each row's move, -1 for a row not to move."""
        from ._checks import check_int

        v = getattr(env, "_v", env)
        if not hasattr(v, "handle") or not hasattr(v, "to_move"):
            raise TypeError(f"search takes a VectorEnv of rlhost's (make_env gives one), not {type(env).__name__}")
        spec = {"simulations": check_int(simulations, "simulations", 1, 1_000_000)}
        for k, val in keys.items():
            if not isinstance(val, (int, float)) or isinstance(val, bool):
                raise TypeError(f"search key {k}={val!r}: a number")
            spec[k] = val
        text = ",".join(f"{k}={val}" for k, val in spec.items()).encode()
        with self._lock, v.lock:
            self._check_open()
            v.check_open()
            rows = v.n
            handle = next((h for h, cap in self._parts if cap >= rows), None)
            if handle is None:
                self._grow(sum(cap for _, cap in self._parts) + rows)
                handle = next(h for h, cap in self._parts if cap >= rows)
            out = np.full(rows, -1, np.int32)
            if N.lib.rlh_policy_search(handle, v.handle, text, out.ctypes.data, self._err, N.ERR_LEN) != N.RL_OK:
                N.fail(self._err)
            return out

    def inputs(self, obs):
        """The network input of observations (what to_torch's module takes
        for a composite observation): float32 [n][width], each part in order,
        boxes scaled, discrete parts one-hot."""
        rows, _ = self._rows(obs)
        if self._layout is None:
            return rows.reshape(rows.shape[0], -1).astype(np.float32) * np.float32(self.observation["scale"])
        out = []
        for p in self._layout.parts:
            if p.kind == 1:  # discrete: one-hot per element of its categories (the row's, from 0)
                v = (
                    np.ascontiguousarray(rows[:, p.offset : p.offset + p.nbytes])
                    .view(np.int32 if p.dtype == 3 else np.uint8)
                    .reshape(rows.shape[0], -1)
                )
                out += [np.eye(int(k), dtype=np.float32)[v[:, e]] for e, k in enumerate(p.nvec)]
                continue
            v = p.get_batch(rows)
            out.append(v.reshape(v.shape[0], -1).astype(np.float32) * np.float32(p.scale))
        return np.concatenate(out, axis=1)

    def make_env(self, num_envs=1, seed=0, copy=True):
        """A VectorEnv of the env this policy was trained on, with its options
        as `rlhost eval` opens and steps it: same-step autoreset, and the
        options that only shape training (`rlhost info` marks them: reward
        clipping, a lost life ending the episode) at their defaults."""
        from ._checks import check_int, check_seed
        from .envs import VectorEnv, _Vec

        with self._lock:
            self._check_open()
            err = N.err_buf()
            h = N.lib.rlh_policy_vec(
                self._parts[0][0], check_int(num_envs, "num_envs", 1, 1 << 24), check_seed(seed), err, N.ERR_LEN
            )
            if not h:
                N.fail(err)
            return VectorEnv._of(_Vec(h, self.env_name), self.env_name, copy, seed)

    # ---- the network, from the checkpoint the C side loaded ---------------
    @property
    def spec(self):
        """The checkpoint's description of the network (algo.policy)."""
        if "algo.policy" not in self._meta:
            raise N.RlhostError(f"{self.path}: algo '{self.algo_name}' describes no network (no algo.policy)")
        return _parse_spec(self._meta["algo.policy"])

    @property
    def description(self):
        """What a reader of the network needs, from the checkpoint this
        policy loaded (an exporter reads nothing else): a PolicyDescription."""
        with self._lock:
            self._check_open()
            d = self._desc
            return dataclasses.replace(d, tensors=dict(d.tensors), metadata=dict(d.metadata))

    @property
    def observation(self):
        """dtype, shape and scale of the observations (rlhost.observation)."""
        return json.loads(self._meta["rlhost.observation"])

    @property
    def weights(self):
        """The network's tensors by name (float32 NumPy arrays), normalization
        included: copies of what the policy acts with."""
        spec = self.spec
        names = []
        for ops in spec["outputs"].values():
            _ops_tensors(ops, names)
        norm = spec["input"].get("normalize")
        if norm:
            names += [norm["mean"], norm["var"]]
        return {k: self._tensors[k].copy() for k in dict.fromkeys(names)}

    def to_torch(self):
        """An equivalent torch.nn.Module: forward(obs, state=None) ->
        (output, state).  For discrete actions, output holds the values the
        greedy action is the argmax of (PPO's logits, DQN's Q-values); for a
        Box action space, the greedy action itself, clipped into the box
        (SAC's and TD3's squashed actor, PPO's Gaussian mean); for a hybrid
        action, the components' logits, then the box's part clipped into
        it.  LSTM layers are torch.nn.LSTM with rlhost's bias in bias_ih and
        zeros in bias_hh."""
        from gymnasium import spaces

        from . import _spaces as S
        from ._torch import build

        sp = self.action_space
        if isinstance(sp, spaces.Tuple):  # hybrid: the box after the components' logits
            box, at = sp.spaces[1], S.mask_width(sp.spaces[0])
        else:
            box, at = (sp if isinstance(sp, spaces.Box) else None), 0
        return build(self.spec, self.observation, self.weights, None if box is None else (box.low, box.high), at)

    def close(self):
        with self._lock:
            if self._parts:
                self._finalizer()
                self._parts = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"rlhost.Policy({self.algo_name} on {self.env_name}, step {self.step}, {self.path!r})"


def load(path, num_envs: int = 1, greedy: bool = True, overrides=()) -> Policy:
    """The policy of a run directory (its newest good checkpoint) or of a checkpoint file."""
    return Policy(path, num_envs, greedy, overrides)
