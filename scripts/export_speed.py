#!/usr/bin/env python3
"""Actions per second at batch 1 on one core, side by side, for the ways a
trained rlhost policy acts: the C file `rlhost export --format c` writes
(compiled with cc -O2, and with -O3 -march=native), rlhost's own
rlh_policy_act (the embedding API), both timed in one C program; then
onnxruntime on the exported ONNX model (one thread, through its Python
API, beside the same call on a model that only copies the observation:
what a run costs before any layer), rlhost.Policy from Python, and
the NumPy reader of the policy description (tests/python/numpy_policy.py).
The observations are 512 the policy met playing its own env.  Each way
runs ROUNDS times, interleaved round by round; the median is reported.
Also the size of each artifact: the checkpoint, the .onnx file, the .c
file and its compiled object.

    .venv/bin/python scripts/export_speed.py RUN_DIR... [--rounds R] [--record NAME]

--record writes docs/results/NAME.json (rows and provenance) for
scripts/results.py's tables.  The suite's Python (.venv) has everything;
run from a built checkout (build/)."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
os.environ.setdefault("RLHOST_LIB_DIR", os.path.join(ROOT, "build"))
import export_replay  # noqa: E402
from numpy_policy import NumpyPolicy  # noqa: E402

import rlhost  # noqa: E402

N_OBS = 512

BENCH_C = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <rlhost/host.h>
#include "policy.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* argv: checkpoint, observations file (N rows of ROW bytes), masks file or
   "-", N, ROW, MASK, rounds.  Prints per round: seconds per action of the
   exported file, then of rlh_policy_act. */
int main(int argc, char **argv)
{
    char err[512];
    int n = atoi(argv[4]), row = atoi(argv[5]), maskw = atoi(argv[6]), rounds = atoi(argv[7]), r, i;
    unsigned char *obs = malloc((size_t)n * row + 16), *mask = malloc((size_t)n * (maskw + 1));
    FILE *f = fopen(argv[2], "rb");
    policy_state *st = calloc(1, sizeof *st);
    POLICY_ACT_T act[POLICY_ACTION_DIM];
    unsigned char start = 0;
    volatile double sink = 0;
    if (!f || fread(obs, 1, (size_t)n * row, f) != (size_t)n * row) return 2;
    fclose(f);
    if (maskw) {
        f = fopen(argv[3], "rb");
        if (!f || fread(mask, 1, (size_t)n * maskw, f) != (size_t)n * maskw) return 2;
        fclose(f);
    }
    rlh_host *h = rlh_open(NULL, err, sizeof err);
    rlh_policy *p = h ? rlh_policy_open(h, argv[1], 1, NULL, 0, err, sizeof err) : NULL;
    if (!p) {
        fprintf(stderr, "%s\n", err);
        return 3;
    }
    for (r = 0; r < rounds; r++) {
        double t0 = now();
        for (i = 0; i < n; i++) {
            policy_act(st, (const void *)(obs + (size_t)i * row), maskw ? mask + (size_t)i * maskw : NULL, act);
            sink += act[0];
        }
        double t1 = now();
        for (i = 0; i < n; i++) {
            if (rlh_policy_act_masked(p, obs + (size_t)i * row, &start, maskw ? mask + (size_t)i * maskw : NULL, act, 1,
                                      err, sizeof err) != 0) {
                fprintf(stderr, "%s\n", err);
                return 4;
            }
            sink += act[0];
        }
        double t2 = now();
        printf("%.9g %.9g\n", (t1 - t0) / n, (t2 - t1) / n);
    }
    rlh_policy_close(p);
    return 0;
}
"""


def collect(run):
    """N_OBS observations (rows as the C policy reads them, the env's own
    form, masks) from the policy playing its env."""
    p = rlhost.load(run, num_envs=1)
    _, got = export_replay.play(p, 1, N_OBS, 5)
    masks = [None if m is None else m[0] for m in got["masks"]]
    return p, [r[0] for r in got["rows"]], got["natives"], masks


def c_bench(run, work, rows, masks, rounds, flags):
    ckpt = os.path.join(run, "checkpoint.safetensors")
    policy_c = os.path.join(work, "policy.c")
    hdr = open(os.path.join(work, "policy.h")).read()
    box = "float *action" in hdr.split("policy_act(")[1].split(")")[0]
    with open(os.path.join(work, "bench.c"), "w") as f:
        f.write(f"#define POLICY_ACT_T {'float' if box else 'int'}\n" + BENCH_C)
    exe = os.path.join(work, "bench_" + "_".join(x.strip("-").replace("=", "") for x in flags))
    lib = os.path.join(ROOT, "build", "core", "runtime")
    cmd = [
        "cc",
        *flags,
        "-I" + os.path.join(ROOT, "include"),
        "-I" + work,
        "-o",
        exe,
        os.path.join(work, "bench.c"),
        policy_c,
        "-L" + lib,
        "-lrlhost",
        "-Wl,-rpath," + lib,
        "-lm",
    ]
    subprocess.run(cmd, check=True)
    np.concatenate(rows).tofile(os.path.join(work, "obs.bin"))
    maskw = 0 if masks[0] is None else len(masks[0])
    if maskw:
        np.concatenate(masks).tofile(os.path.join(work, "mask.bin"))
    out = subprocess.run(
        [
            "taskset",
            "-c",
            "0",
            exe,
            ckpt,
            os.path.join(work, "obs.bin"),
            os.path.join(work, "mask.bin") if maskw else "-",
            str(len(rows)),
            str(rows[0].nbytes),
            str(maskw),
            str(rounds),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, OPENBLAS_NUM_THREADS="1"),
    )  # noqa
    if out.returncode != 0:
        sys.exit(f"export_speed: the C bench failed (exit {out.returncode}): {out.stderr.strip()}")
    return [tuple(float(x) for x in line.split()) for line in out.stdout.split("\n") if line]


def ort_session(path):
    import onnxruntime as ort

    o = ort.SessionOptions()
    o.intra_op_num_threads = o.inter_op_num_threads = 1
    o.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(path, o, providers=["CPUExecutionProvider"])


def identity_model(src, out):
    """A model with src's inputs whose one output "action" is a copy of
    its first input: the floor of a run() through the same API."""
    import onnx

    m = onnx.load(src)
    g = m.graph
    first = g.input[0]
    node = onnx.helper.make_node("Identity", [first.name], ["action"])
    out_vi = onnx.helper.make_tensor_value_info("action", first.type.tensor_type.elem_type, None)
    graph = onnx.helper.make_graph([node], "floor", list(g.input), [out_vi])
    model = onnx.helper.make_model(graph, opset_imports=list(m.opset_import))
    model.ir_version = m.ir_version
    onnx.save(model, out)
    return out


def ort_feeds(sess, p, rows, natives, masks):
    names = [i.name for i in sess.get_inputs()]
    parts = json.loads(p.description.metadata["rlhost.observation"]).get("parts")
    feeds = []
    for row, obs, m in zip(rows, natives, masks):
        if parts:  # the parts of the row, each of its own dtype, as the model's inputs
            f = export_replay.part_inputs(parts, row.reshape(1, -1).view(np.uint8))
        else:
            f = {"obs": np.ascontiguousarray(obs)}
        if "action_mask" in names:
            f["action_mask"] = (m != 0).reshape(1, -1)
        for i in sess.get_inputs():
            if i.name.startswith("state_"):
                f[i.name] = np.zeros((1, i.shape[1]), np.float32)
        feeds.append(f)
    return feeds


def table_rows(label, med, size):
    """The record's rows of one policy: each route's median speed and what it ships."""
    rows_out = []
    names = {
        "c_O2": "exported C file, cc -O2",
        "c_native": "exported C file, cc -O3 -march=native",
        "rlh_policy_act": "rlhost's rlh_policy_act (C)",
        "ort_py": "onnxruntime (its Python API)",
        "ort_floor": "onnxruntime, a model that only copies its input (the floor)",
        "policy_py": "rlhost.Policy, Python call",
        "numpy": "NumPy reader (numpy_policy.py)",
    }
    for k in ("c_O2", "c_native", "rlh_policy_act", "ort_py", "ort_floor", "policy_py", "numpy"):
        rows_out.append(
            {
                "policy": label,
                "route": names[k],
                "actions/s": round(1 / med[k]),
                "us/action": round(med[k] * 1e6, 2),
                "artifact bytes": {
                    "c_O2": f"{size['c']:,} (.c), {size['o']:,} (.o)",
                    "ort_py": f"{size['onnx']:,} (.onnx)",
                    "rlh_policy_act": f"{size['checkpoint']:,} (checkpoint)",
                }.get(k, ""),
            }
        )
    return rows_out


def write_record(args, rows_out):
    """docs/results/RECORD.json, the guide's table's source."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import results

    rec = {
        "name": args.record,
        "kind": "table",
        "command": ".venv/bin/python scripts/export_speed.py " + " ".join(args.runs) + f" --rounds {args.rounds}",
        "machine": results.machine(),
        "date": time.strftime("%Y-%m-%d"),
        "commit": subprocess.run(
            ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "source": f"{N_OBS} observations each policy met in its env, batch 1, one core (taskset 0), "
        f"medians of {args.rounds} interleaved rounds; onnxruntime "
        f"{__import__('onnxruntime').__version__} with one thread; "
        "the NumPy reader sums in float64 (64 observations for CNNs)",
        "rows": rows_out,
    }
    with open(os.path.join(ROOT, "docs", "results", f"{args.record}.json"), "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--record")
    args = ap.parse_args()
    rows_out = []
    for run in args.runs:
        p, rows, natives, masks = collect(run)
        label = f"{p.algo_name} on {p.env_name}"
        with tempfile.TemporaryDirectory() as work:
            onnx_path = rlhost.export(run, "onnx", os.path.join(work, "policy.onnx"))[0]
            rlhost.export(run, "c", os.path.join(work, "policy.c"))
            subprocess.run(
                ["cc", "-O2", "-c", "-o", os.path.join(work, "policy.o"), os.path.join(work, "policy.c")], check=True
            )
            size = {
                "checkpoint": os.path.getsize(os.path.join(run, "checkpoint.safetensors")),
                "onnx": os.path.getsize(onnx_path),
                "c": os.path.getsize(os.path.join(work, "policy.c")),
                "o": int(
                    subprocess.run(["size", "-B", os.path.join(work, "policy.o")], capture_output=True, text=True)
                    .stdout.split("\n")[1]
                    .split()[3]
                ),
            }
            sess = ort_session(onnx_path)
            feeds = ort_feeds(sess, p, rows, natives, masks)
            floor = ort_session(identity_model(onnx_path, os.path.join(work, "floor.onnx")))
            npp = NumpyPolicy(os.path.join(run, "checkpoint.safetensors"))
            times = {k: [] for k in ("c_O2", "c_native", "rlh_policy_act", "ort_py", "ort_floor", "policy_py", "numpy")}
            os.sched_setaffinity(0, {0})
            for r in range(args.rounds):
                for a, b in c_bench(run, work, rows, masks, 1, ["-O2"]):
                    times["c_O2"].append(a)
                    times["rlh_policy_act"].append(b)
                for a, b in c_bench(run, work, rows, masks, 1, ["-O3", "-march=native"]):
                    times["c_native"].append(a)
                t0 = time.perf_counter()
                for f in feeds:
                    sess.run(["action"], f)
                times["ort_py"].append((time.perf_counter() - t0) / len(feeds))
                t0 = time.perf_counter()
                for f in feeds:
                    floor.run(["action"], f)
                times["ort_floor"].append((time.perf_counter() - t0) / len(feeds))
                t0 = time.perf_counter()
                for obs, m in zip(natives, masks):
                    p(obs, action_masks=m)
                times["policy_py"].append((time.perf_counter() - t0) / len(natives))
                k = min(len(rows), 64 if "cnn" in json.dumps(npp.policy) or len(rows[0]) > 4096 else len(rows))
                t0 = time.perf_counter()
                for obs, m in zip(rows[:k], masks[:k]):
                    npp.act(
                        obs
                        if "parts" in npp.obs_meta
                        else np.frombuffer(
                            obs.tobytes(), dtype={"F32": np.float32, "U8": np.uint8}[npp.obs_meta["dtype"]]
                        ),
                        {},
                        m,
                    )
                times["numpy"].append((time.perf_counter() - t0) / k)
            p.close()
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"{label}: " + ", ".join(f"{k} {1 / v:,.0f}/s" for k, v in med.items()), flush=True)
        print(f"  sizes: {size}", flush=True)
        rows_out += table_rows(label, med, size)
    if args.record:
        write_record(args, rows_out)


if __name__ == "__main__":
    main()
