#!/usr/bin/env python3
"""Exported policies act as rlhost does: exports a run's checkpoint to ONNX
and to C (`rlhost export`), then replays the observations of `rlhost eval
--trace` of the same checkpoint through onnxruntime and through the C file
compiled with `cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic` (with libm,
and again with -DRLHOST_NO_LIBM, its own expf and tanhf), episode by
episode (recurrent state cleared at t = 0, masks from the trace), and
compares their actions with the ones rlhost took (export_replay.compare
states the rule: discrete identical but for float near-ties, box within
1e-5 of the box's width).  The C file also compiles to freestanding
WebAssembly (clang --target=wasm32 -nostdlib), where clang is present.
Usage: export_check.py RLHOST RUN_DIR TRACE_CSV NAME WORKDIR   (TAP on stdout)"""

import csv
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_replay as X  # noqa: E402

rlhost, run, trace, name, work = sys.argv[1:6]
n = failed = 0


def ok(cond, desc):
    global n, failed
    n += 1
    failed += not cond
    print(("ok" if cond else "not ok"), n, "-", f"{name}: {desc}", flush=True)


def export(fmt, out):
    r = subprocess.run([rlhost, "export", run, "--format", fmt, "-o", out], capture_output=True, text=True)
    ok(r.returncode == 0, f"rlhost export --format {fmt}" + (f": {r.stderr.strip()}" if r.returncode else ""))
    return r.returncode == 0


os.makedirs(work, exist_ok=True)
onnx_path, c_path = os.path.join(work, f"{name}.onnx"), os.path.join(work, f"{name}.c")
have_onnx, have_c = export("onnx", onnx_path), export("c", c_path)

meta = X.read_meta(os.path.join(run, "checkpoint.safetensors"))
obs_meta = json.loads(meta["rlhost.observation"])
space = json.loads(meta["rlhost.action_space"])
rows = list(csv.DictReader(open(trace)))
cols = list(rows[0].keys())
obs_cols = [k for k in cols if k.startswith("obs_")]
mask_cols = [k for k in cols if k.startswith("mask_")]
act_cols = ["action"] if space["type"] == "discrete" else [k for k in cols if k.startswith("action_")]
obs_dt = np.uint8 if obs_meta.get("parts") else X.DT[obs_meta["dtype"]]
steps = X.Steps(
    meta,
    np.array([[float(r[c]) for c in obs_cols] for r in rows]).astype(obs_dt),
    np.array([[int(r[c]) for c in mask_cols] for r in rows], np.uint8) if mask_cols else None,
    np.array([int(r["env"]) for r in rows]),
    np.array([int(r["t"]) == 0 for r in rows]),
    [[float(r[c]) for c in act_cols] for r in rows],
)
ok(len(steps) >= 1000, f"the trace holds {len(steps)} steps (at least 1000)")

if have_onnx:
    import onnx

    acts, params, model = X.run_onnx(onnx_path, steps)
    sess_outs = [o.name for o in model.graph.output]
    onnx.checker.check_model(model, full_check=True)
    ok(model.opset_import[0].version >= 17, f"opset {model.opset_import[0].version}, checked by onnx.checker")
    props = {p.key: p.value for p in model.metadata_props}
    ok(
        json.loads(props.get("rlhost.action_space", "{}")) == space
        and json.loads(props.get("rlhost.observation", "{}")) == obs_meta,
        "its metadata states both spaces",
    )
    good, desc = X.compare(steps, acts, params)
    ok(good, f"onnxruntime: {desc}")
    onnx_values = X.run_onnx_values(onnx_path, steps) if "value" in sess_outs else None
    spec = json.loads(meta["algo.policy"]) if "algo.policy" in meta else {}
    value_ops = spec.get("outputs", {}).get("value")
    feedforward = value_ops and not any(op.get("op") == "lstm" for op in value_ops)
    ok(bool(feedforward) == (onnx_values is not None), "a value output exactly where the value head is feed-forward")
    plain = not obs_meta.get("parts") and obs_meta["dtype"] == "F32" and obs_meta.get("scale", 1) == 1
    plain = plain and not spec.get("input", {}).get("normalize")
    if onnx_values is not None and plain:  # the value recomputed from the tensors, for an MLP critic
        ref = X.mlp_reference(value_ops, X.read_tensors(os.path.join(run, "checkpoint.safetensors")), steps.obs)
        if ref is not None:
            err = float(np.max(np.abs(ref.reshape(-1) - onnx_values)))
            ok(
                err < 1e-4 * (1 + float(np.max(np.abs(ref)))),
                f"onnxruntime's value matches the critic's tensors ({err:.2g})",
            )

if have_c:
    for own, variant in ((False, "libm"), (True, "its own expf and tanhf")):
        exe, msg, dims = X.build_c(c_path, steps, own)
        ok(
            exe is not None,
            f"the C file compiles with cc {' '.join(X.CFLAGS)}{' -DRLHOST_NO_LIBM' if own else ''}"
            + (f": {msg[:400]}" if exe is None else ""),
        )
        if exe is None:
            continue
        acts, params, values = X.run_c(exe, dims, steps)
        if acts is None:
            ok(False, f"the compiled C file ({variant}) ran: {params}")
            continue
        good, desc = X.compare(steps, acts, params)
        ok(good, f"the C file ({variant}): {desc}")
        if have_onnx and (values is not None or onnx_values is not None):
            same = values is not None and onnx_values is not None
            err = float(np.max(np.abs(values - onnx_values))) if same else float("inf")
            scale = 1 + float(np.max(np.abs(onnx_values))) if same else 1
            ok(same and err < 1e-4 * scale, f"the C file's value ({variant}) is onnxruntime's ({err:.2g})")
    for good, desc in X.wasm_check(c_path):
        ok(good, desc)

print(f"1..{n}")
sys.exit(1 if failed else 0)
