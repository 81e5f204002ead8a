"""rlhost from Python: C-speed vectorized envs behind Gymnasium's API,
trained policies as NumPy callables (and torch modules), training runs.

    import rlhost
    envs = rlhost.make_vec("snake", 64, seed=1, observation="grid")
    policy = rlhost.run("configs/cartpole_ppo.cfg", run__out_dir="runs/py")
    policy = rlhost.load("runs/py"); action = policy(obs)
"""

from . import configs
from ._native import RlhostError, RlhostWarning
from ._native import lib as _lib
from .policy import Policy, PolicyDescription, load, read_safetensors
from .train import run

# Gymnasium is imported where an env is made: these names load rlhost.envs
# (or rlhost.userenv) on first use, so `import rlhost` needs NumPy alone.
_FROM_ENVS = ("Env", "VectorEnv", "info", "list_plugins", "make", "make_vec")


def __getattr__(name):
    import importlib

    if name in _FROM_ENVS:
        return getattr(importlib.import_module(".envs", __name__), name)
    if name == "userenv":
        return importlib.import_module(".userenv", __name__)
    raise AttributeError(f"module 'rlhost' has no attribute {name!r}")


def tune(config, trials=20, jobs=1, out=None, **kw):
    """Searches CONFIG's hyperparameters with Optuna (rlhost tune); see
    rlhost.tune.tune for the options."""
    from ._tune import tune as _tune

    return _tune(config, trials, jobs, out, **kw)


def export(path, format="onnx", output=None, opset=None, name=None, overrides=()):
    """Writes the greedy policy of a run directory or checkpoint as an ONNX
    model (format="onnx") or as NAME.c and NAME.h (format="c"), as
    `rlhost export` does; returns the paths written (docs/export.md)."""
    from ._export import export as _export

    return _export(path, format, output, opset, name, overrides)


def study(configs, seeds, out=None, **kw):
    """Seeds of each config and rliable's statistics (rlhost study)."""
    from ._study import study as _study

    return _study(configs, seeds, out, **kw)


__version__ = _lib.rlh_version().decode()


def make_sb3_vec(name, num_envs=1, seed=0, **options):
    """A Stable-Baselines3 VecEnv of rlhost envs (needs stable_baselines3)."""
    from .sb3 import SB3VecEnv

    return SB3VecEnv(name, num_envs, seed, **options)


__all__ = [
    "Env",
    "VectorEnv",
    "Policy",
    "PolicyDescription",
    "RlhostError",
    "RlhostWarning",
    "make",
    "make_vec",
    "make_sb3_vec",
    "load",
    "run",
    "tune",
    "study",
    "export",
    "read_safetensors",
    "list_plugins",
    "info",
    "configs",
    "userenv",
]
