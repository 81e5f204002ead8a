#!/usr/bin/env python3
"""The results tables of docs/learning.md and docs/performance.md, from
recorded runs.

    scripts/results.py record NAME CONFIG --seeds 1,2,3 --field eval_return_mean [--set K=V]...
    scripts/results.py bench NAME BENCH_ARGS...
    scripts/results.py table [--check]

`record` trains CONFIG once per seed with build/core/rlhost (RLHOST overrides
it), two runs at a time, and writes docs/results/NAME.json: the command that
reproduces each run, the field read from every run's summary.json and its
wall time, and the machine (CPU model and vector width, OpenBLAS's kernels),
the date and the commit.  `bench` runs `rlhost bench BENCH_ARGS --json` and
writes docs/results/NAME.json with its output lines, the machine, the date,
the commit and the command.  A record of runs made otherwise (a study whose
runs were not kept, a machine not at hand, a peer's side-by-side table) has
the same fields, with the `source` it was read from and no wall time.
`table` regenerates every block of docs/learning.md (and spaces.md) between
`<!-- results NAME... -->` and `<!-- /results -->` from those files:
one row per record, with the score of each seed, the interquartile mean and
the mean with 95% bootstrap intervals (percentile, 2000 resamples drawn from
a fixed seed, so the table is the same wherever it is made), the wall time
per run, the machine and the command.  `table --check` fails when a block
differs from what the records give (the unit suite runs it), so a number in
the guide always has its record.  docs/performance.md's blocks,
`<!-- bench NAME... -->`, are tables of the bench records' lines (KINDS
says how each kind of line reads), with the command, machine and date
under each.  Standard library only."""

import datetime
import json
import os
import platform
import random
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results")
GUIDES = [
    os.path.join(ROOT, "docs", g) for g in ("learning.md", "performance.md", "spaces.md", "seats.md", "export.md")
]


def machine():
    flags, model = "", platform.processor()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") and model in ("", platform.processor()):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                flags = line
                break
    except OSError:
        pass
    width = "AVX-512" if " avx512f" in flags else "AVX2" if " avx2" in flags else "SSE"
    return f"{os.cpu_count()}-core {model}, {width}"


def rlhost_path():
    return os.environ.get("RLHOST", os.path.join(ROOT, "build", "core", "rlhost"))


def commit():
    return subprocess.run(
        ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


def run_one(rlhost, config, seed, sets, field):
    with tempfile.TemporaryDirectory() as out:
        cmd = [
            rlhost,
            "run",
            config,
            "--set",
            f"run.seed={seed}",
            *sum((["--set", s] for s in sets), []),
            "--out",
            os.path.join(out, "run"),
            "--set",
            "run.quiet=true",
        ]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"results.py: seed {seed} failed: {p.stderr.strip().splitlines()[-1:]}")
        s = json.load(open(os.path.join(out, "run", "summary.json")))
        return {
            "seed": seed,
            "value": s[field],
            "wall_s": round(s["wall_s"], 2),
            "steps": s["steps"],
            "blas": s.get("stages", {}).get("blas.core"),
        }


def record(args):
    name, config = args[0], args[1]
    seeds, field, sets, i = None, "eval_return_mean", [], 2
    while i < len(args):
        if args[i] == "--seeds":
            seeds = [int(x) for x in args[i + 1].split(",")]
        elif args[i] == "--field":
            field = args[i + 1]
        elif args[i] == "--set":
            sets.append(args[i + 1])
        else:
            sys.exit(f"results.py: unknown argument {args[i]}")
        i += 2
    if not seeds:
        sys.exit("results.py: record needs --seeds")
    rlhost = rlhost_path()
    cfg = os.path.relpath(os.path.abspath(config), ROOT)
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda s: run_one(rlhost, os.path.join(ROOT, cfg), s, sets, field), seeds))
    rec = {
        "name": name,
        "config": cfg,
        "set": sets,
        "field": field,
        "command": " ".join(["rlhost run", cfg, "--set run.seed=SEED"] + [f"--set {shlex.quote(s)}" for s in sets]),
        "machine": machine(),
        "blas": runs[0]["blas"],
        "date": datetime.date.today().isoformat(),
        "commit": commit(),
        "runs": [{k: r[k] for k in ("seed", "value", "wall_s", "steps")} for r in runs],
    }
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, name + ".json"), "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    print(f"{name}: " + ", ".join(f"{r['value']:.4g}" for r in runs))


def bench(args):
    name, rest = args[0], args[1:]
    p = subprocess.run([rlhost_path(), "bench", *rest, "--json"], capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        sys.exit(f"results.py: rlhost bench failed: {p.stderr.strip().splitlines()[-1:]}")
    lines = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    rec = {
        "name": name,
        "kind": "bench",
        "command": " ".join(["rlhost bench"] + [shlex.quote(a) for a in rest]),
        "machine": machine(),
        "date": datetime.date.today().isoformat(),
        "commit": commit(),
        "lines": lines,
    }
    with open(os.path.join(RESULTS, name + ".json"), "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    print(f"{name}: {len(lines)} lines")


def cell(x):
    if isinstance(x, float):
        return num(x) if abs(x) < 1e5 else f"{x:.3g}"
    return str(x)


def rng(line, key="ratio"):
    return f"{line[key]:.2f}x ({line[key + '_min']:.2f}-{line[key + '_max']:.2f})"


def cfg(line):
    return f"`{os.path.basename(line['config'])}`"


# How each kind of `rlhost bench --json` line reads as a table row: the
# columns, and a function from the line (and the record's other lines) to
# the cells.  Lines of other kinds, and records of rows, show every field.
KINDS = {
    "floor": (
        [
            "config",
            "steps",
            "run",
            "floor (its products in cblas_sgemm alone)",
            "run / floor",
            "run GFLOP/s",
            "sgemm GFLOP/s",
        ],
        lambda l, _: [
            cfg(l),
            f"{l['steps']:,}",
            f"{l['run_s']:.3f} s",
            f"{l['floor_s']:.3f} s",
            rng(l),
            f"{l['run_gflops']:.0f}",
            f"{l['floor_gflops']:.0f}",
        ],
    ),
    "stage": (
        ["config", "stage", "off -> on", "steps/s off", "steps/s on", "on / off"],
        lambda l, _: [
            cfg(l),
            f"`{l['stage']}`",
            f"{l['off']} -> {l['on']}",
            f"{l['off_sps']:,.0f}",
            f"{l['on_sps']:,.0f}",
            rng(l),
        ],
    ),
    "replicas": (
        [
            "config",
            "steps/s, 1 replica",
            "steps/s, R replicas",
            "R",
            "whole run",
            "update phase",
            "final return, 1 -> R",
        ],
        lambda l, all_: [
            cfg(l),
            f"{all_['stage']['off_sps']:,.0f}",
            f"{all_['stage']['on_sps']:,.0f}",
            str(l["replicas"]),
            rng(all_["stage"]),
            rng(l, "update_ratio"),
            f"{cell(l['off_return'])} -> {cell(l['on_return'])}",
        ],
    ),
    "env": (
        ["env", "envs", "threads", "M steps/s", "M steps/s per thread", "min-max"],
        lambda l, _: [
            f"`{l['env']}`",
            str(l["num_envs"]),
            str(l["threads"]),
            num(l["steps_per_s"] / 1e6),
            num(l["steps_per_s_per_thread"] / 1e6),
            f"{num(l['min'] / 1e6)}-{num(l['max'] / 1e6)}",
        ],
    ),
    "nn_update": (
        ["MLP update, batch", "hidden", "sgemm GFLOP/s", "update GFLOP/s", "update / sgemm"],
        lambda l, _: [
            str(l["batch"]),
            str(l["hidden"]),
            f"{l['sgemm_gflops']:.0f}",
            f"{l['update_gflops']:.0f}",
            f"{l['ratio']:.2f}",
        ],
    ),
    "nn_inference": (
        ["inference, batch", "hidden", "us a call", "of it in BLAS", "row-wise kernel, us"],
        lambda l, _: [
            str(l["batch"]),
            str(l["hidden"]),
            f"{l['us_per_call']:.2f}",
            f"{l['blas_us']:.2f} us",
            f"{l['rowwise_us']:.2f}",
        ],
    ),
    "nn_leaves": (
        ["search leaves, batch", "sgemm alone, us", "packed forward, us", "rl_trunk_forward, us", "packed / sgemm"],
        lambda l, _: [
            str(l["batch"]),
            f"{l['sgemm_us']:.2f}",
            f"{l['packed_us']:.2f}",
            f"{l['forward_us']:.2f}",
            f"{l['ratio']:.2f}",
        ],
    ),
    "nn_conv_update": (
        ["CNN update (Nature CNN), batch", "sgemm GFLOP/s", "update GFLOP/s", "update / sgemm"],
        lambda l, _: [str(l["batch"]), f"{l['sgemm_gflops']:.0f}", f"{l['update_gflops']:.0f}", f"{l['ratio']:.2f}"],
    ),
}


def bench_block(names):
    """A table per kind of line, every record's rows under one header, each
    record's command, machine and date under the table."""
    tables = {}  # kind -> [columns, rows, provenance]
    for n in names:
        rec = json.load(open(os.path.join(RESULTS, n + ".json")))
        lines = rec.get("rows") or rec["lines"]
        first = {}
        for l in lines:
            first.setdefault(l.get("bench", "row"), l)
        # a replicas record's stage line is read by its replicas line, and
        # the floor that ends a record of stages belongs to the floor table
        skip = {"stage"} if "replicas" in first else {"floor"} if "stage" in first else set()
        prov = f"{rec['machine']}; {rec['date']}; commit {rec['commit']}: `{rec['command']}`" + (
            f" ({rec['source']})" if rec.get("source") else ""
        )
        for l in lines:
            k = l.get("bench", "row")
            if k in skip:
                continue
            fields = [key for key in l if key not in ("bench", "repeat")]
            # rows of other kinds share a table only when their fields agree
            t = tables.setdefault(k if k in KINDS else tuple(fields), [KINDS[k][0] if k in KINDS else fields, [], []])
            t[1].append(KINDS[k][1](l, first) if k in KINDS else [cell(l[key]) for key in fields])
            if prov not in t[2]:
                t[2].append(prov)
    out = []
    for cols, rows, provs in tables.values():
        out.append("| " + " | ".join(cols) + " |")
        out.append("| " + " | ".join("---" for _ in cols) + " |")
        out += ["| " + " | ".join(r) + " |" for r in rows]
        out += [""] + [p + ("  " if i + 1 < len(provs) else "") for i, p in enumerate(provs)] + [""]
    return "\n".join(out).rstrip("\n")


def iqm(v):
    v = sorted(v)
    lo = int(0.25 * len(v))
    mid = v[lo : len(v) - lo]
    return sum(mid) / len(mid)


def mean(v):
    return sum(v) / len(v)


def ci(v, stat, reps=2000):
    """95% percentile bootstrap interval of stat over the runs."""
    rng = random.Random(0)
    s = sorted(stat([rng.choice(v) for _ in v]) for _ in range(reps))
    return s[int(0.025 * reps)], s[int(0.975 * reps) - 1]


def num(x):
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:.0f}"


def row(rec):
    v = [r["value"] for r in rec["runs"]]
    seeds = ", ".join(str(r["seed"]) for r in rec["runs"])
    if len(v) >= 3:
        (a, b), (c, d) = ci(v, iqm), ci(v, mean)
        stats = f"{num(iqm(v))} [{num(a)}, {num(b)}] | {num(mean(v))} [{num(c)}, {num(d)}]"
    else:
        stats = f"- | {num(mean(v))}"
    walls = [r["wall_s"] for r in rec["runs"] if r["wall_s"] is not None]
    wall = f"{mean(walls):.1f} s" if walls else "-"
    steps = rec["runs"][0]["steps"]
    steps = f"{steps // 1000000}M" if steps % 1000000 == 0 else f"{steps // 1000}k"
    return (
        f"| `{rec['name']}` | {steps} | {seeds} | {', '.join(num(x) for x in v)} | {stats} | "
        f"{wall} | {rec['machine']}; {rec['date']} | `{rec['command']}` |"
    )


HEAD = (
    "| run | steps | seeds | {field} per seed | IQM [95% CI] | mean [95% CI] | wall time a run | machine; date "
    "| command |\n| --- | ---: | --- | --- | --- | --- | ---: | --- | --- |"
)


def block(names):
    recs = [json.load(open(os.path.join(RESULTS, n + ".json"))) for n in names]
    fields = {r["field"] for r in recs}
    field = fields.pop() if len(fields) == 1 else "score"
    return "\n".join([HEAD.format(field=f"`{field}`")] + [row(r) for r in recs])


def table(check):
    pat = re.compile(r"(<!-- (results|bench) ([a-z0-9_ ]+) -->\n)(.*?)(<!-- /\2 -->)", re.S)
    for guide in GUIDES:
        text = open(guide).read()
        new = pat.sub(
            lambda m: (
                m.group(1) + (block if m.group(2) == "results" else bench_block)(m.group(3).split()) + "\n" + m.group(5)
            ),
            text,
        )
        where = os.path.relpath(guide, ROOT)
        if check:
            if new != text:
                sys.exit(f"results.py: {where}'s tables differ from docs/results/: run scripts/results.py table")
            print(f"results.py: {len(pat.findall(text))} tables in {where} agree with docs/results/")
        elif new != text:
            with open(guide, "w") as f:
                f.write(new)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "record":
        record(sys.argv[2:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "bench":
        bench(sys.argv[2:])
    elif len(sys.argv) in (2, 3) and sys.argv[1] == "table":
        table(sys.argv[2:] == ["--check"])
    else:
        sys.exit(__doc__)
