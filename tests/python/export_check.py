#!/usr/bin/env python3
"""Exported policies act as rlhost does: exports a run's checkpoint to ONNX
and to C (`rlhost export`), then replays the observations of `rlhost eval
--trace` of the same checkpoint through onnxruntime and through the C file
compiled with `cc -std=c99 -O2 -Wall -Wextra -Werror -pedantic` (with libm,
and again with -DRLHOST_NO_LIBM, its own expf and tanhf), episode by
episode (recurrent state cleared at t = 0, masks from the trace), and
compares their actions with the ones rlhost took.

Discrete actions must be identical on every step, except where the
exported policy's two best values lie within 1e-4 of each other (a float
near-tie: rlhost's BLAS sums in another order), which may be at most 0.1%
of the steps.  Box actions must agree within 1e-5 of the box's width: the
sums are the same products added in another order, float32 rounding.
The C file also compiles to freestanding WebAssembly (clang --target=wasm32
-nostdlib), where clang is present.
Usage: export_check.py RLHOST RUN_DIR TRACE_CSV NAME WORKDIR   (TAP on stdout)"""
import csv
import json
import os
import shutil
import subprocess
import sys

import numpy as np

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

# ---- the trace ------------------------------------------------------------
with open(os.path.join(run, "checkpoint.safetensors"), "rb") as f:
    meta = json.loads(f.read(int.from_bytes(f.read(8), "little")))["__metadata__"]
obs_meta = json.loads(meta["rlhost.observation"])
space = json.loads(meta["rlhost.action_space"])
spec = json.loads(meta["algo.policy"])
rows = list(csv.DictReader(open(trace)))
cols = rows[0].keys()
obs_cols = [k for k in cols if k.startswith("obs_")]
mask_cols = [k for k in cols if k.startswith("mask_")]
box = space["type"] == "box"
act_cols = ["action"] if space["type"] == "discrete" else [k for k in cols if k.startswith("action_")]
parts = obs_meta.get("parts")
DT = {"F32": np.float32, "U8": np.uint8, "I32": np.int32}
obs_dt = np.uint8 if parts else DT[obs_meta["dtype"]]
obs = np.array([[float(r[c]) for c in obs_cols] for r in rows]).astype(obs_dt)
masks = np.array([[int(r[c]) for c in mask_cols] for r in rows], np.uint8) if mask_cols else None
envs = np.array([int(r["env"]) for r in rows])
starts = np.array([int(r["t"]) == 0 for r in rows])
theirs = np.array([[float(r[c]) for c in act_cols] for r in rows], np.float64)
recurrent = any(op.get("op") == "lstm" for op in spec["outputs"][spec["greedy"].get("argmax") or
                                                                 spec["greedy"].get("identity")])
nvec = [space["n"]] if space["type"] == "discrete" else space.get("nvec")
ok(len(rows) >= 1000, f"the trace holds {len(rows)} steps (at least 1000)")


def compare(mine, params, what):
    """mine: [rows][dim] actions; params: [rows][width] greedy outputs."""
    if box:
        width = np.maximum(np.array(space["high"]) - np.array(space["low"]), 1.0)
        worst = float(np.max(np.abs(mine - theirs) / width))
        ok(worst <= 1e-5, f"{what}: box actions within 1e-5 of the box's width on {len(rows)} steps "
                          f"(largest difference {worst:.2g} of the width)")
        return
    same = np.all(mine == theirs, axis=1)
    ties = 0
    far = []
    for i in np.flatnonzero(~same):
        off, tie = 0, False
        for k in nvec:
            v = params[i, off:off + k].astype(np.float64)
            if masks is not None:
                v = np.where(masks[i, off:off + k] != 0, v, -np.inf)
            top = np.sort(v[np.isfinite(v)])[-2:]
            tie |= len(top) == 2 and top[1] - top[0] < 1e-4
            off += k
        if tie:
            ties += 1
        else:
            far.append(i)
    ok(not far and ties <= 0.001 * len(rows),
       f"{what}: rlhost's action on {int(same.sum())} of {len(rows)} steps ({ties} float near-ties)" +
       (f"; first miss at row {far[0]}: {mine[far[0]].tolist()} for rlhost's {theirs[far[0]].tolist()}" if far else ""))


def part_inputs(rows_bytes):
    """A composite row's parts as ONNX inputs, by name."""
    out = {}
    for p in parts:
        dt = DT[p["dtype"]]
        size = int(np.prod(p["shape"]))
        nb = size * np.dtype(dt).itemsize
        raw = np.ascontiguousarray(rows_bytes[:, p["offset"]:p["offset"] + nb])
        out[p["name"]] = raw.view(dt).reshape((len(rows_bytes),) + tuple(p["shape"]))
    return out


# ---- onnxruntime ----------------------------------------------------------
if have_onnx:
    import onnx
    import onnxruntime as ort
    model = onnx.load(onnx_path)
    onnx.checker.check_model(model, full_check=True)
    ok(model.opset_import[0].version >= 17, f"opset {model.opset_import[0].version}, checked by onnx.checker")
    props = {p.key: p.value for p in model.metadata_props}
    ok(json.loads(props.get("rlhost.action_space", "{}")) == space and
       json.loads(props.get("rlhost.observation", "{}")) == obs_meta, "its metadata states both spaces")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(onnx_path, opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]

    def feed(idx, state):
        f = part_inputs(obs[idx]) if parts else {"obs": obs[idx].reshape((len(idx),) + tuple(obs_meta["shape"]))}
        if masks is not None and "action_mask" in names:
            f["action_mask"] = masks[idx] != 0
        f.update(state)
        return f

    acts = np.zeros_like(theirs)
    params = None
    if not recurrent:
        a, p = sess.run(["action", "params"], feed(np.arange(len(rows)), {}))
        acts[:] = np.asarray(a, np.float64).reshape(len(rows), -1)
        params = p
    else:
        st_names = [i.name for i in sess.get_inputs() if i.name.startswith("state_")]
        outs = ["action", "params"] + ["next_" + s for s in st_names]
        width = sess.get_outputs()[1].shape[1]
        params = np.zeros((len(rows), width), np.float32)
        state = {}
        for i in range(len(rows)):
            e = envs[i]
            if starts[i] or e not in state:
                state[e] = {s: np.zeros((1, i_.shape[1]), np.float32) for s, i_ in
                            ((s, next(x for x in sess.get_inputs() if x.name == s)) for s in st_names)}
            r = sess.run(outs, feed(np.array([i]), state[e]))
            acts[i] = np.asarray(r[0], np.float64).reshape(-1)
            params[i] = r[1][0]
            state[e] = dict(zip(st_names, r[2:]))
    compare(acts, params, "onnxruntime")

# ---- the C file -----------------------------------------------------------
DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "%(name)s.h"
/* stdin: per row an int env, a byte (episode start), the observation row and
   the mask; stdout: per row the action and the params, as floats. */
int main(int argc, char **argv)
{
    int envs = atoi(argv[1]), e, k;
    unsigned char start;
    %(name)s_state *st = calloc((size_t)envs, sizeof *st);
    unsigned char *row = malloc(%(row)d + 16), mask[%(maskn)d + 1];
    %(act_t)s action[%(adim)d];
    float out[%(adim)d + %(pw)d];
    if (!st || !row || argc < 2) return 2;
    while (fread(&e, sizeof e, 1, stdin) == 1) {
        if (fread(&start, 1, 1, stdin) != 1 || fread(row, 1, %(row)d, stdin) != %(row)d ||
            fread(mask, 1, %(maskn)d, stdin) != %(maskn)d || e < 0 || e >= envs)
            return 3;
        if (start) %(name)s_reset(&st[e]);
        if (%(name)s_act(&st[e], (const %(obs_t)s *)row, %(maskarg)s, action) != 0) return 4;
        for (k = 0; k < %(adim)d; k++) out[k] = (float)action[k];
        for (k = 0; k < %(pw)d; k++) out[%(adim)d + k] = %(name)s_params(&st[e])[k];
        fwrite(out, sizeof out, 1, stdout);
    }
    free(st);
    free(row);
    return 0;
}
"""


def header_macro(text, macro):
    for line in text.splitlines():
        if line.startswith(f"#define {macro} "):
            return int(line.split()[2])
    raise KeyError(macro)


if have_c:
    cname = name
    hdr = open(os.path.join(work, f"{cname}.h")).read()
    up = cname.upper()
    pw, adim = header_macro(hdr, f"{up}_PARAMS_SIZE"), header_macro(hdr, f"{up}_ACTION_DIM")
    row_bytes = obs.shape[1] * np.dtype(obs_dt).itemsize
    maskn = masks.shape[1] if masks is not None else 0
    obs_t = "void" if parts else {np.float32: "float", np.uint8: "unsigned char", np.int32: "int"}[obs_dt]
    drv = os.path.join(work, f"{cname}_driver.c")
    with open(drv, "w") as f:
        f.write(DRIVER % {"name": cname, "row": row_bytes, "maskn": maskn, "adim": adim, "pw": pw,
                          "act_t": "float" if box else "int", "obs_t": obs_t,
                          "maskarg": "mask" if maskn else "NULL"})
    stream = bytearray()
    raw = np.ascontiguousarray(obs).view(np.uint8).reshape(len(rows), -1)
    for i in range(len(rows)):
        stream += np.int32(envs[i]).tobytes() + bytes([int(starts[i])]) + raw[i].tobytes()
        if maskn:
            stream += masks[i].tobytes()
    flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic"]
    for variant, extra in (("libm", []), ("its own expf and tanhf", ["-DRLHOST_NO_LIBM"])):
        exe = os.path.join(work, f"{cname}_{'own' if extra else 'libm'}")
        r = subprocess.run(["cc", *flags, *extra, "-o", exe, c_path, drv, "-lm"], capture_output=True, text=True)
        ok(r.returncode == 0, f"the C file compiles with cc {' '.join(flags + extra)}" +
           (f": {r.stderr.strip()[:400]}" if r.returncode else ""))
        if r.returncode:
            continue
        r = subprocess.run([exe, str(int(envs.max()) + 1)], input=bytes(stream), capture_output=True)
        if r.returncode != 0:
            ok(False, f"the compiled C file ({variant}) ran: exit {r.returncode}")
            continue
        out = np.frombuffer(r.stdout, np.float32).reshape(len(rows), adim + pw)
        compare(out[:, :adim].astype(np.float64), out[:, adim:], f"the C file ({variant})")
    if shutil.which("clang") and shutil.which("wasm-ld"):
        wasm = os.path.join(work, f"{cname}.o")
        r = subprocess.run(["clang", "--target=wasm32", "-nostdlib", "-ffreestanding", "-DRLHOST_NO_LIBM", *flags,
                            "-c", "-o", wasm, c_path], capture_output=True, text=True)
        ok(r.returncode == 0, "the C file compiles to freestanding WebAssembly (clang --target=wasm32 -nostdlib "
                              "-DRLHOST_NO_LIBM)" + (f": {r.stderr.strip()[:400]}" if r.returncode else ""))
        nm = subprocess.run(["llvm-nm-14" if shutil.which("llvm-nm-14") else "llvm-nm", "-u", wasm],
                            capture_output=True, text=True) if (shutil.which("llvm-nm") or
                                                               shutil.which("llvm-nm-14")) else None
        if nm is not None and nm.returncode == 0:
            undef = sorted(set(nm.stdout.split()) - {"U"})
            ok(set(undef) <= {"memset", "memcpy"}, f"the WebAssembly object needs nothing beyond memset and "
                                                    f"memcpy (it needs {undef or 'nothing'})")

print(f"1..{n}")
sys.exit(1 if failed else 0)
