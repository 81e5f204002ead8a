"""rlhost study CONFIG... --seeds N: N seeds of each config side by side on
the cores, then the statistics rliable defines over the final greedy
returns: median, IQM and mean with 95% stratified-bootstrap confidence
intervals, the probability that one config improves on another, score
distributions (performance profiles), and IQM learning curves with
confidence bands.  Markdown, JSON, CSV and SVG in OUT.

    rlhost study configs/pendulum_ppo.cfg runs/tune-pend/best.cfg --seeds 10 --out runs/study-pend

Every seed is an ordinary run directory (OUT/runs/LABEL/seed-S); a study
stopped (Ctrl-C, kill) and started again with the same arguments finishes
the runs that are not done, resuming each from its checkpoint."""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

from . import _stats, _svg
from . import _trials as T
from ._overrides import as_sets


def _parser():
    ap = argparse.ArgumentParser(
        prog="rlhost study",
        description="Run N seeds of each config and compare them with rliable's statistics.",
        epilog="Reference: docs/tune.md.",
    )
    ap.add_argument("configs", nargs="+", metavar="CONFIG")
    ap.add_argument("--seeds", type=int, required=True, metavar="N", help="seeds per config: run.seed, +1, ...")
    ap.add_argument("--out", metavar="DIR", help="default runs/study")
    ap.add_argument("--jobs", type=int, metavar="J", help="runs side by side (default: the cores)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override for every run")
    ap.add_argument("--label", action="append", default=[], metavar="NAME", help="a name per config, in order")
    ap.add_argument("--plugin-path", action="append", default=[], metavar="DIR")
    ap.add_argument("--reps", type=int, default=50000, help="bootstrap replicates (default 50000, as rliable)")
    ap.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default 0)")
    ap.add_argument("--taus", type=int, default=50, help="thresholds of the performance profile (default 50)")
    ap.add_argument("--report-only", action="store_true", help="run nothing: report on the runs in OUT")
    return ap


def _labels(args):
    labels = list(args.label)
    if len(labels) > len(args.configs):
        T.refuse("rlhost: study: more --label than configs")
    for c in args.configs[len(labels) :]:
        stem = Path(c).stem if Path(c).suffix == ".cfg" else Path(c).name
        base, k = stem, 2
        while stem in labels:
            stem, k = f"{base}-{k}", k + 1
        labels.append(stem)
    for lab in labels:
        if not re.fullmatch(r"[A-Za-z0-9_.+-]+", lab):
            T.refuse(f"rlhost: study: label '{lab}': use letters, digits and . _ + -")
    return labels


def _check(exe, env, cfg, sets, paths):
    """The resolved config (refused configs stop the study before any run)."""
    argv = [exe, "check", cfg] + T.set_args(sets) + T.flags("--plugin-path", paths)
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        T.refuse(p.stderr.strip() or f"rlhost: {cfg}: refused")
    run = re.search(r"run:\s*\{(.*?)\};", p.stdout, re.S).group(1)

    def val(k):
        return int(re.search(rf"\b{k}\s*=\s*(\d+)", run).group(1))

    return {
        "steps": val("steps"),
        "seed": val("seed"),
        "eval_interval": val("eval_interval"),
        "eval_episodes": val("eval_episodes"),
        "task": _task(p.stdout),
    }


def _task(resolved):
    """The env a resolved config trains on: its plugin and options, less
    num_envs and the optimizations (which leave the task as it is)."""
    env = re.search(r"^env:\s*\{\n(.*?)^\};", resolved, re.S | re.M).group(1)
    env = re.sub(r"^\s*optimizations:\s*\{.*?^\s*\};\n", "", env, flags=re.S | re.M)
    return " ".join(ln.strip() for ln in env.splitlines() if ln.strip() and not ln.strip().startswith("num_envs"))


def _tasks_note(labels, info):
    """A sentence when the configs train on different envs, else None."""
    tasks = {}
    for lab in labels:
        tasks.setdefault(info[lab]["task"], []).append(lab)
    if len(tasks) < 2:
        return None
    groups = "; ".join(f"{', '.join(labs)}: {t.split(';')[0]}" for t, labs in tasks.items())
    return (
        f"the configs train on different envs or env options ({groups}): their returns are on different "
        "scales, and the comparisons below compare numbers, not skill"
    )


def _done(d):
    try:
        with open(Path(d) / "summary.json") as f:
            return json.load(f).get("status") == "done"
    except (OSError, ValueError):
        return False


def run_all(args, exe, env, labels, info):
    jobs = []
    for cfg, lab in zip(args.configs, labels):
        for s in range(args.seeds):
            seed = info[lab]["seed"] + s
            jobs.append((cfg, lab, seed, Path(args.out) / "runs" / lab / f"seed-{seed}"))
    todo = [j for j in jobs if not _done(j[3])]
    n = args.jobs or T.cores()
    if n > T.cores():
        T.refuse(f"rlhost: study: --jobs {n} on {T.cores()} cores: at most --jobs {T.cores()}")
    print(
        f"rlhost study: {len(args.configs)} configs x {args.seeds} seeds, {len(jobs) - len(todo)} done, "
        f"{len(todo)} to run, {n} at a time -> {args.out}",
        file=sys.stderr,
        flush=True,
    )
    lock, stop, failed = threading.Lock(), T.Stop(), []

    def work(i):
        while not stop():
            with lock:
                if not todo:
                    return
                cfg, lab, seed, d = todo.pop(0)
            extra = []
            if not info[lab]["eval_interval"]:  # curves need periodic evaluations
                extra.append(f"run.eval_interval={max(info[lab]['steps'] // 20, 1)}")
            if (d / "checkpoint.safetensors").exists():
                argv = [exe, "run", "--resume", str(d)]
            else:
                argv = [exe, "run", cfg] + T.set_args(args.set + extra + [f"run.seed={seed}"])
                argv += ["--out", str(d), "--force"]
            argv += T.flags("--plugin-path", args.plugin_path)
            run = T.Run(argv, d, Path(args.out) / "logs" / f"{lab}-seed-{seed}.log", env)
            rc = T.watch(run, None, stop)
            if rc == 0:
                s = run.summary()
                print(f"rlhost study: {lab} seed {seed}: {s.get('eval_return_mean')}", file=sys.stderr, flush=True)
            elif run.stopped_by != "interrupted":
                with lock:
                    failed.append(f"{lab} seed {seed}: {run.error()}")

    rc = T.run_workers(n, work, stop)
    if rc:
        print("rlhost study: stopped; the same command resumes it", file=sys.stderr)
        return rc
    if failed:
        print("rlhost study: runs failed:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    return 0


def _curve(run_dirs):
    """{step: [return of each seed]} from the periodic evaluations."""
    out = {}
    for d in run_dirs:
        for step, value in T.periodic_evals(d):
            out.setdefault(step, []).append(value)
    n = len(run_dirs)
    return {s: v for s, v in sorted(out.items()) if len(v) == n}


def _final_scores(args, labels, info, out):
    """Each config's final greedy returns, (runs x 1 task), and its seeds' run directories."""
    scores, dirs = {}, {}
    for lab in labels:
        ds = [out / "runs" / lab / f"seed-{info[lab]['seed'] + s}" for s in range(args.seeds)]
        vals = []
        for d in ds:
            try:
                with open(d / "summary.json") as f:
                    v = json.load(f).get("eval_return_mean")
            except (OSError, ValueError):
                v = None
            if v is None or not math.isfinite(v):
                T.refuse(f"rlhost: study: {d} has no final evaluation (run.eval_episodes = 0, or not done)")
            vals.append(float(v))
        scores[lab] = np.array(vals).reshape(-1, 1)  # (runs x tasks): one task per config
        dirs[lab] = ds
    return scores, dirs


def report(args, labels, info):
    out = Path(args.out)
    scores, dirs = _final_scores(args, labels, info, out)
    rs = np.random.RandomState(args.seed)  # one stream, consumed in rliable's order (see _stats)
    agg = {lab: _stats.interval(rs, scores[lab], _stats.aggregates, args.reps) for lab in labels}
    pairs = [(a, b) for a in labels for b in labels if a != b]
    poi = {
        f"{a},{b}": _stats.interval_pair(
            rs, scores[a], scores[b], _stats.probability_of_improvement, min(args.reps, 2000)
        )
        for a, b in pairs
    }
    allv = np.concatenate([scores[lab].ravel() for lab in labels])
    taus = np.linspace(allv.min(), allv.max(), args.taus)
    prof = {lab: _stats.interval(rs, scores[lab], lambda s: _stats.profile(s, taus), 2000) for lab in labels}
    crs = np.random.RandomState(args.seed + 1)
    curves = {}
    for lab in labels:
        c = _curve(dirs[lab])
        curves[lab] = [
            (
                step,
                *(lambda p, ci: (float(p[0]), float(ci[0, 0]), float(ci[1, 0])))(
                    *_stats.interval(crs, np.array(v).reshape(-1, 1), _stats.iqm, 500)
                ),
            )
            for step, v in c.items()
        ]
    names = ["median", "iqm", "mean"]
    js = {
        "seeds": args.seeds,
        "reps": args.reps,
        "bootstrap_seed": args.seed,
        "configs": {},
        "probability_of_improvement": {},
        "profile_taus": taus.tolist(),
        "note": "95% percentile CIs from the stratified bootstrap, as rliable 1.2",
    }
    differ = _tasks_note(labels, info)
    if differ:
        js["tasks_differ"] = differ
    for lab, cfg in zip(labels, args.configs):
        p, ci = agg[lab]
        js["configs"][lab] = {
            "config": cfg,
            "scores": scores[lab].ravel().tolist(),
            **{n: {"value": float(p[i]), "ci": [float(ci[0, i]), float(ci[1, i])]} for i, n in enumerate(names)},
            "profile": prof[lab][0].tolist(),
            "profile_ci": prof[lab][1].tolist(),
            "curve": [{"step": s, "iqm": v, "ci": [lo, hi]} for s, v, lo, hi in curves[lab]],
        }
    for k, (p, ci) in poi.items():
        js["probability_of_improvement"][k] = {"value": float(p[0]), "ci": [float(ci[0, 0]), float(ci[1, 0])]}
    T.write_atomic(out / "report.json", json.dumps(js, indent=1) + "\n")
    T.write_csv(
        out / "scores.csv",
        ["label", "seed", "final_return"],
        [[lab, info[lab]["seed"] + s, repr(float(v))] for lab in labels for s, v in enumerate(scores[lab].ravel())],
    )
    md = _markdown(args, labels, scores, agg, pairs, poi, differ)
    T.write_atomic(out / "report.md", "\n".join(md) + "\n")
    _plots(out, labels, names, agg, taus, prof, curves)
    return "\n".join(md[: 6 + (2 if differ else 0) + len(labels)])


def _markdown(args, labels, scores, agg, pairs, poi, differ):
    """report.md's lines: the aggregates, the probabilities of improvement, the seeds' returns."""
    md = (
        [
            f"# rlhost study: {args.seeds} seeds per config",
            "",
            f"Final greedy returns; 95% stratified-bootstrap confidence intervals ({args.reps} replicates, seed "
            f"{args.seed}), as rliable computes them. rliable's median is over tasks, of each task's mean "
            "over its runs: a study of one task has it equal to the mean (the seeds' own median is in the last "
            "table's column).",
            "",
        ]
        + ([f"**Note:** {differ}.", ""] if differ else [])
        + ["| config | median | IQM | mean |", "| --- | --- | --- | --- |"]
    )
    for lab in labels:
        p, ci = agg[lab]
        md.append(f"| {lab} | " + " | ".join(f"{p[i]:.4g} [{ci[0, i]:.4g}, {ci[1, i]:.4g}]" for i in range(3)) + " |")
    if pairs:
        md += ["", "Probability of improvement, P(X > Y):", "", "| X | Y | P | 95% CI |", "| --- | --- | --- | --- |"]
        for a, b in pairs:
            p, ci = poi[f"{a},{b}"]
            md.append(f"| {a} | {b} | {p[0]:.3f} | [{ci[0, 0]:.3f}, {ci[1, 0]:.3f}] |")
    md += [
        "",
        "Plots: intervals.svg (aggregates), profiles.svg (score distributions), curves.svg (IQM "
        "learning curves with 95% bands).",
        "",
        "| config | seeds' median | seeds' final returns |",
        "| --- | --- | --- |",
    ]
    for lab in labels:
        v = scores[lab].ravel()
        md.append(f"| {lab} | {np.median(v):.4g} | " + ", ".join(f"{x:.4g}" for x in v) + " |")
    return md


def _plots(out, labels, names, agg, taus, prof, curves):
    """intervals.svg, profiles.svg and curves.svg."""
    panels = []
    for i, n in enumerate(names):
        series = []
        for j, lab in enumerate(labels):
            p, ci = agg[lab]
            series.append(
                {
                    "label": f"{lab}: {p[i]:.4g}",
                    "points": [(j, p[i])],
                    "style": "dots",
                    "band": [(j - 0.2, ci[0, i], ci[1, i]), (j + 0.2, ci[0, i], ci[1, i])],
                }
            )
        panels.append(_svg.panel(n.upper() if n == "iqm" else n, "config", "final return", series, categories=labels))
    _svg.write(out / "intervals.svg", panels)
    _svg.write(
        out / "profiles.svg",
        [
            _svg.panel(
                "score distributions",
                "return tau",
                "fraction of runs > tau",
                [
                    {
                        "label": lab,
                        "points": list(zip(taus.tolist(), prof[lab][0].tolist())),
                        "band": [
                            (t, lo, hi)
                            for t, lo, hi in zip(taus.tolist(), prof[lab][1][0].tolist(), prof[lab][1][1].tolist())
                        ],
                    }
                    for lab in labels
                ],
            )
        ],
        cols=1,
    )
    _svg.write(
        out / "curves.svg",
        [
            _svg.panel(
                "IQM learning curves",
                "env steps",
                "greedy return",
                [
                    {
                        "label": lab,
                        "points": [(s, v) for s, v, _, _ in curves[lab]],
                        "band": [(s, lo, hi) for s, _, lo, hi in curves[lab]],
                    }
                    for lab in labels
                ],
            )
        ],
        cols=1,
    )


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.seeds < 1 or args.reps < 1 or args.taus < 2:
        T.refuse("rlhost: study: --seeds and --reps must be at least 1, --taus at least 2")
    args.out = args.out or "runs/study"
    exe, env = T.command()
    labels = _labels(args)
    info = {lab: _check(exe, env, cfg, args.set, args.plugin_path) for cfg, lab in zip(args.configs, labels)}
    for lab, i in info.items():
        if i["eval_episodes"] == 0:
            T.refuse(f"rlhost: study: {lab}: run.eval_episodes = 0: a study compares final evaluations")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        rc = run_all(args, exe, env, labels, info)
        if rc:
            return rc
    differ = _tasks_note(labels, info)
    if differ:
        print(f"rlhost study: note: {differ}", file=sys.stderr)
    print(report(args, labels, info))
    print(f"rlhost study: report in {Path(args.out) / 'report.md'}", file=sys.stderr)
    return 0


def study(
    configs,
    seeds: int,
    out=None,
    jobs=None,
    labels=None,
    overrides=None,
    reps: int = 50000,
    seed: int = 0,
) -> dict:
    """Runs `rlhost study` on the configs and returns its report.json as a
    dict (per config: scores, median, IQM and mean with CIs, profile and
    curve; the probability of improvement of each pair)."""
    argv = [os.fspath(c) for c in configs] + ["--seeds", str(seeds), "--reps", str(reps), "--seed", str(seed)]
    out = os.fspath(out or "runs/study")
    argv += ["--out", out] + (["--jobs", str(jobs)] if jobs else [])
    for lab in labels or []:
        argv += ["--label", lab]
    for s in as_sets(overrides):
        argv += ["--set", s]
    T.api_call(lambda: main(argv), "study", lambda: f"rlhost study: runs failed (logs in {out}/logs)")
    with open(Path(out) / "report.json") as f:
        return json.load(f)


if __name__ == "__main__":
    sys.exit(T.cli(main))
