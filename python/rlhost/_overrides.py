"""Config overrides: the one form every entry point takes (rlhost.run, tune,
study, load, Policy, export).  A dict of keys to values,
{"algo.lr": 3e-4, "run.steps": 50000} (a key may spell the dot "__", as
keyword arguments must: algo__lr), where a string value is config text as
--set takes it (algo__hidden="[64, 64]") and any other value is a Python
value written as libconfig reads it; or, as --set takes them, "K=V"
strings (a list of them, or one)."""

import json
import math

import numpy as np


def cfg_value(v):
    """A Python value as a libconfig value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            raise ValueError(f"option value {v} is not a finite number")
        r = repr(float(v))
        return r if any(c in r for c in ".eE") else r + ".0"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # UTF-8, with \\ and \" escapes, as libconfig reads them
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(cfg_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + " ".join(f"{k} = {cfg_value(x)};" for k, x in v.items()) + " }"
    raise TypeError(f"option value {v!r} has type {type(v).__name__}: use bool, int, float, str, list or dict")


def as_dict(overrides):
    """overrides in any of the forms above as {"section.key": value}; "K=V"
    strings keep V as config text."""
    if overrides is None:
        return {}
    if isinstance(overrides, dict):
        return {str(k).replace("__", "."): v for k, v in overrides.items()}
    if isinstance(overrides, str):
        overrides = [overrides]
    out = {}
    for s in overrides:
        if not isinstance(s, str) or "=" not in s or s.startswith("="):
            raise TypeError(f"override {s!r} is not KEY=VALUE (or give a dict: {{'algo.lr': 3e-4}})")
        k, v = s.split("=", 1)
        out[k.strip().replace("__", ".")] = v
    return out


def as_sets(overrides):
    """overrides as the "K=V" strings of --set: string values as they are
    (config text), other values written by cfg_value."""
    return [f"{k}={v}" if isinstance(v, str) else f"{k}={cfg_value(v)}" for k, v in as_dict(overrides).items()]
