#!/usr/bin/env python3
"""Every shipped config exports, and its exports act as rlhost does: each
config under configs/ is run for a few hundred
steps (its network as initialized, or barely trained), exported to ONNX
and to C with rlhost.export, and stepped in the env it trained on
(Policy.make_env, as `rlhost eval` opens it) by rlhost's own policy
(rlhost.load); onnxruntime and the compiled C file get the same
observations, masks and episode starts and must pick the same actions
(export_replay.compare's rule).  A config whose algorithm describes no
network (random) must be refused with its sentence.
Usage: export_configs.py RLHOST SOURCE_ROOT [CONFIG...]   (TAP)"""

import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_replay as X  # noqa: E402

import rlhost  # noqa: E402

rlhost_exe, src = sys.argv[1:3]
configs = sys.argv[3:] or sorted(glob.glob(os.path.join(src, "configs", "*.cfg")))
n = failed = 0
STEPS = 200  # env steps per row the policies are compared on
ROWS = 4


def ok(cond, desc):
    global n, failed
    n += 1
    failed += not cond
    print(("ok" if cond else "not ok"), n, "-", desc, flush=True)


def record(run, sampled):
    """Steps of the policy in its env: what rlhost's own policy did."""
    # a config with deterministic_eval = false samples; the exports are its greedy policy
    p = rlhost.load(run, num_envs=ROWS, overrides=["algo.deterministic_eval=true"] if sampled else [])
    n, got = X.play(p, ROWS, STEPS, 11)
    meta = p.description.metadata
    p.close()
    masks = got["masks"]
    return X.Steps(
        meta,
        np.concatenate(got["rows"]),
        None if masks[0] is None else np.concatenate(masks),
        np.tile(np.arange(n), STEPS),
        np.concatenate(got["starts"]),
        np.concatenate(got["actions"]),
    )


tmp = tempfile.TemporaryDirectory(prefix="rlhost-export-")
work = tmp.name
for cfg in configs:
    rel = os.path.relpath(cfg, os.path.join(src, "configs"))
    if rel.startswith(os.pardir):  # a config of the caller's: its file's name
        rel = os.path.basename(cfg)
    name = os.path.splitext(rel)[0].replace(os.sep, "_")
    run = os.path.join(work, name)
    r = subprocess.run(
        [
            rlhost_exe,
            "run",
            cfg,
            "--set",
            "run.steps=256",
            "--set",
            "run.eval_episodes=0",
            "--set",
            "run.quiet=true",
            "--set",
            "run.eval_interval=0",
            "--out",
            run,
            "--force",
        ],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0 and ("unknown env plugin 'atari'" in r.stderr or "unknown env plugin 'mujoco'" in r.stderr):
        # the two envs whose libraries scripts/deps.sh fetches; their own tests say the same
        ok(
            True,
            f"{name}: # SKIP this build has no {'atari' if 'atari' in r.stderr else 'mujoco'} env "
            "(scripts/deps.sh builds it)",
        )
        continue
    if r.returncode != 0:
        ok(False, f"{name}: rlhost run: {r.stderr.strip()[-300:]}")
        continue
    meta = X.read_meta(os.path.join(run, "checkpoint.safetensors"))
    if "algo.policy" not in meta:
        try:
            rlhost.export(run, "c", os.path.join(work, f"{name}.c"))
            ok(False, f"{name}: a policy without a description is refused")
        except rlhost.RlhostError as e:
            ok(
                "describes no network" in str(e) and not os.path.exists(os.path.join(work, f"{name}.c")),
                f"{name}: refused, nothing written: {e}",
            )
        continue
    try:
        onnx_path = rlhost.export(run, "onnx", os.path.join(work, f"{name}.onnx"))[0]
        c_path = rlhost.export(run, "c", os.path.join(work, f"{name}.c"))[0]
    except rlhost.RlhostError as e:
        ok(False, f"{name}: export: {e}")
        continue
    greedy = X.json.loads(meta["algo.policy"])["greedy"]
    steps = record(run, "sample_softmax" in greedy or "sample_gaussian" in greedy)
    acts, params, _ = X.run_onnx(onnx_path, steps)
    good, desc = X.compare(steps, acts, params)
    ok(good, f"{name}: onnxruntime: {desc}")
    exe, msg, dims = X.build_c(c_path, steps)
    if exe is None:
        ok(False, f"{name}: the C file compiles: {msg[:400]}")
        continue
    acts, params, values = X.run_c(exe, dims, steps)
    good, desc = (False, f"the driver failed: {params}") if acts is None else X.compare(steps, acts, params)
    ok(good, f"{name}: the C file: {desc}")
    if values is not None:  # a value head: the C file's and onnxruntime's agree
        theirs = X.run_onnx_values(onnx_path, steps)
        err = float(np.max(np.abs(values - theirs)))
        ok(err < 1e-4 * (1 + float(np.max(np.abs(theirs)))), f"{name}: the C file's value is onnxruntime's ({err:.2g})")
    for f in glob.glob(os.path.join(work, f"{name}*")):  # the Atari files are large
        if os.path.isfile(f) and not f.endswith(".safetensors"):
            os.unlink(f)

tmp.cleanup()
print(f"1..{n}")
sys.exit(1 if failed else 0)
