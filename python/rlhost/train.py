"""Training from Python: rlhost.run(config, **overrides) trains in this
process through librlhost, as `rlhost run CONFIG --set ...` does."""

import ctypes
import json
import os

from . import _native as N
from ._overrides import as_dict, as_sets, cfg_value
from .policy import Policy


def _config_path(config, resume):
    """config as given, or a shipped one: "configs/NAME.cfg" (the README's
    spelling) or "NAME" finds the package's copy when no such file is here."""
    path = os.fspath(config)
    if resume or os.path.exists(path):
        return path
    from . import configs

    name = os.path.basename(path)
    if (os.path.dirname(path) in ("", "configs")) and name.removesuffix(".cfg") in configs.names():
        return configs.path(name)
    return path


def run(
    config,
    force: bool = False,
    num_envs: int = 1,
    overrides=None,
    resume: bool = False,
    env=None,
    eval_env=None,
    **kw,
) -> Policy:
    """Trains CONFIG (a libconfig file) and returns its Policy (run_dir,
    summary and all).  Overrides as keyword arguments with "__" for the dot
    (run__steps=20000, algo__lr=1e-3) or as a dict ({"run.out_dir": "runs/x"}).
    resume=True continues the run directory CONFIG names from its
    checkpoint, as `rlhost run --resume DIR` (run__steps=N trains it on to
    N steps).  A refused config or a failed run raises RlhostError with the
    reason; Ctrl-C stops the run with its outputs written and raises
    KeyboardInterrupt.

    env= trains on your own env instead of the config's: a Gymnasium env
    factory (a callable returning a gymnasium.Env; evaluation gets envs of
    its own from it), a gymnasium.vector.VectorEnv or a Stable-Baselines3
    VecEnv (num_envs is theirs; evaluation needs eval_env=, a factory, or
    is left out with a warning).  Observations: Box, Discrete, and Dict,
    Tuple, MultiDiscrete or MultiBinary (as named parts); actions:
    Discrete, MultiDiscrete or a Box; action masks from a Dict
    observation's "action_mask" key, info["action_mask"] or an
    action_masks() method, in that order (docs/spaces.md).  The env's name in
    the run is "py_" + its spec id; the exception an env raises is re-raised
    here."""
    ov = {**as_dict(overrides), **as_dict(kw)}
    bridge = None
    if env is not None:
        from . import userenv

        if resume:
            raise N.RlhostError(
                "a run on a Python env cannot be resumed: the env's state is not in the "
                "checkpoint; start a new run (its policy loads with rlhost.load)"
            )
        name = userenv.registered(env, eval_env)
        bridge = userenv.bridge(name)
        ov["env.plugin"] = cfg_value(name)
        if bridge.kind != "factory":
            ov["env.num_envs"] = int(env.num_envs)
            if eval_env is None:
                import warnings

                warnings.warn(
                    "a vector env trains without evaluation (run.eval_episodes = 0): pass "
                    "eval_env= (an env factory) to evaluate",
                    N.RlhostWarning,
                    stacklevel=2,
                )
                ov["run.eval_episodes"] = 0
        bridge.error = None
    items = as_sets(ov)
    arr, n = N.strings(items)
    out = ctypes.create_string_buffer(4200)
    err = N.err_buf()
    opts = N.RunOptions(
        ctypes.sizeof(N.RunOptions),
        arr,
        n,
        int(bool(force)),
        ctypes.cast(out, ctypes.c_char_p),
        4200,
        int(bool(resume)),
    )
    rc = N.lib.rlh_run(N.host(), _config_path(config, resume).encode(), ctypes.byref(opts), err, N.ERR_LEN)
    if rc == N.RL_EINTR:
        raise KeyboardInterrupt(err.value.decode(errors="replace"))
    if rc != 0:
        if bridge is not None and bridge.error is not None:
            raise bridge.error from N.RlhostError(err.value.decode(errors="replace"))
        N.fail(err)
    run_dir = out.value.decode()
    p = Policy(run_dir, num_envs=num_envs)
    if bridge is not None and bridge.sp is not None:
        p.use_env_space(bridge.sp)  # the env's own observation space: Dict, Tuple, MultiDiscrete, Discrete
    p.run_dir = run_dir
    with open(os.path.join(run_dir, "summary.json")) as f:
        p.summary = json.load(f)
    return p
