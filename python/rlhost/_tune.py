"""rlhost tune CONFIG: Optuna searches the config's hyperparameters, and
every trial is an ordinary `rlhost run` (a run directory under OUT/trials
with its summary, metrics and checkpoint), side by side on the cores.

    rlhost tune configs/cartpole_ppo.cfg --trials 40 --jobs 2 --out runs/tune-cp
    rlhost tune configs/pendulum_ppo.cfg --space space.cfg --seeds 3 --timeout 3600

The space comes from --space FILE, else the config's `tune` group, else
the plugins' declared defaults; `rlhost tune` (C) reads and checks it
against the schemas before the first trial and hands it here as JSON.
The study lives in an Optuna storage (OUT/study.db by default, any URL
with --storage for workers on many machines); a stopped study resumes
where it was.  Reference: docs/tune.md."""
import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

from . import _stats, _svg
from . import _trials as T

NEEDS_OPTUNA = ("rlhost tune needs Optuna: `pip install optuna` (in this checkout scripts/pydeps.sh puts it "
                "in .venv, which rlhost tune uses)")


def _parser():
    ap = argparse.ArgumentParser(
        prog="rlhost tune", description="Search a config's hyperparameters with Optuna; each trial is an "
        "ordinary rlhost run under OUT/trials.", epilog="Reference: docs/tune.md.")
    ap.add_argument("config", help="the config every trial starts from")
    ap.add_argument("--space-json", help=argparse.SUPPRESS)
    ap.add_argument("--print-space", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--space", metavar="FILE", help="the search space (default: the config's tune group, else the "
                    "plugins' declared spaces)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override for every trial")
    ap.add_argument("--plugin-path", action="append", default=[], metavar="DIR", help="look for plugins here first")
    ap.add_argument("--trials", type=int, default=20, metavar="N", help="trials in the study, counting earlier "
                    "sessions' (default 20)")
    ap.add_argument("--timeout", type=float, metavar="SECONDS", help="start no trial after this wall time")
    ap.add_argument("--jobs", type=int, default=1, metavar="J", help="trials side by side (default 1)")
    ap.add_argument("--out", metavar="DIR", help="the study's directory (default runs/tune-CONFIGNAME)")
    ap.add_argument("--storage", metavar="URL", help="Optuna storage URL (default sqlite:///OUT/study.db)")
    ap.add_argument("--study-name", metavar="NAME", help="default: the config's file name")
    ap.add_argument("--seeds", type=int, default=1, metavar="K", help="seeds per trial: run.seed, +1, ... (default 1)")
    ap.add_argument("--objective", choices=["mean", "iqm"], default="mean",
                    help="of the seeds' final greedy returns (default mean)")
    ap.add_argument("--direction", choices=["maximize", "minimize"], default="maximize")
    ap.add_argument("--sampler", choices=["tpe", "random"], default="tpe")
    ap.add_argument("--pruner", choices=["median", "halving", "none"], default="median")
    ap.add_argument("--startup-trials", type=int, default=5, metavar="N",
                    help="trials the sampler draws at random and the median pruner never prunes (default 5)")
    ap.add_argument("--seed", type=int, metavar="S", help="the sampler's seed (give each worker its own)")
    ap.add_argument("--eval-interval", type=int, metavar="STEPS",
                    help="intermediate evaluations for the pruner (default: the config's, else steps / 10)")
    ap.add_argument("--cost", type=float, metavar="SECONDS",
                    help="score each run at this wall time: stopped there, its checkpoint evaluated")
    ap.add_argument("--heartbeat", type=int, default=10, metavar="SECONDS",
                    help="a trial whose worker is silent for 3x this is failed and retried (default 10)")
    return ap


def _optuna():
    try:
        import optuna
    except ImportError:
        sys.exit(f"rlhost: {NEEDS_OPTUNA}")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    warnings.filterwarnings("ignore", message=".*out of the range.*")
    warnings.filterwarnings("ignore", message=".*is out of range.*")
    warnings.filterwarnings("ignore", message="Heartbeat of storage.*")
    return optuna


def _space(args, exe, env):
    if args.space_json:
        return json.loads(args.space_json)
    argv = [exe, "tune", args.config, "--print-space"] + (["--space", args.space] if args.space else [])
    argv += T.set_args(args.set) + T.flags("--plugin-path", args.plugin_path)
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        T.refuse(p.stderr.strip() or f"rlhost: {exe} tune --print-space failed")
    return json.loads(p.stdout)


def _number(text, kind):
    v = float(text.rstrip("L"))
    return int(v) if kind == "int" else v


def _base_value(k):
    """The config's own value of a space key as Optuna's parameter, or None
    where the distribution cannot hold it (0 on a log scale): the trial of
    the config as given then leaves that key at the config's value."""
    if k["kind"] == "choice":
        return k["base"]
    try:
        v = _number(k["base"], k.get("type"))
    except ValueError:
        return None
    return None if k.get("log") and v <= 0 else v


def _retried(make):
    """make(), tried 5 times: workers that start together race to make the
    storage's tables and the study, and the loser finds them made."""
    for attempt in range(5):
        try:
            return make()
        except Exception:
            if attempt == 4:
                raise
            time.sleep(0.5 + attempt)


class Tuner:
    def __init__(self, args, space, exe, env, launcher=None):
        self.args, self.space, self.exe, self.env = args, space, exe, env
        self.launcher = launcher  # rlhost.tune(env=...): runs in forked children instead of the executable
        self.optuna = optuna = _optuna()
        self.out = Path(args.out or f"runs/tune-{Path(args.config).stem}")
        self.out.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.stop = T.Stop()
        self.t0 = time.monotonic()
        self.best_number = None
        for k in space["keys"]:  # a choice always offers the config's own value
            if k["kind"] == "choice" and k["base"] not in k["choices"]:
                k["choices"] = [k["base"]] + k["choices"]
        url = args.storage or f"sqlite:///{(self.out / 'study.db').resolve()}"
        # a trial whose worker died (kill -9, a lost machine) is failed by the
        # next worker that looks, and enqueued again
        kw = {"heartbeat_interval": args.heartbeat, "grace_period": 3 * args.heartbeat}
        if hasattr(optuna.storages, "RetryHeartbeatStaleTrialCallback"):  # Optuna >= 4.9
            kw["heartbeat_stale_trial_callback"] = optuna.storages.RetryHeartbeatStaleTrialCallback(max_retry=3)
        else:
            kw["failed_trial_callback"] = optuna.storages.RetryFailedTrialCallback(max_retry=3)
        if url.startswith("sqlite"):
            kw["engine_kwargs"] = {"connect_args": {"timeout": 60}}
        self.storage = _retried(lambda: optuna.storages.RDBStorage(url, **kw))
        if args.sampler == "tpe":
            sampler = optuna.samplers.TPESampler(seed=args.seed, n_startup_trials=args.startup_trials)
        else:
            sampler = optuna.samplers.RandomSampler(seed=args.seed)
        pruner = {"median": lambda: optuna.pruners.MedianPruner(n_startup_trials=args.startup_trials),
                  "halving": lambda: optuna.pruners.SuccessiveHalvingPruner(),
                  "none": lambda: optuna.pruners.NopPruner()}[args.pruner]()
        name = args.study_name or Path(args.config).stem
        self.study = _retried(lambda: optuna.create_study(
            study_name=name, storage=self.storage, sampler=sampler, pruner=pruner, direction=args.direction,
            load_if_exists=True))
        keys = [{k: v for k, v in e.items() if k != "where"} for e in space["keys"]]
        old = self.study.user_attrs.get("space")
        if old is not None and old != keys:
            T.refuse(f"rlhost: study '{name}' in {url} was made with another search space: give it "
                             "another --study-name or --out")
        if old is None:
            self.study.set_user_attr("space", keys)
            self.study.set_user_attr("config", os.path.abspath(args.config))
        if not self.study.trials:  # the config as given comes first: the best is never worse
            base = {k["key"]: v for k in space["keys"] if (v := _base_value(k)) is not None}
            self.study.enqueue_trial(base, user_attrs={"as_given": True})
        # one core per trial: one env thread, one BLAS thread (T.command), the
        # config's replicas (each a core; "auto" becomes 1)
        self.forced = ["env.optimizations.threads=1"]
        self.cores_per_trial = space.get("replicas", 1) or 1
        if space.get("replicas", 1) == 0:
            self.forced.append("run.replicas=1")
        if space.get("eval_episodes", 1) == 0:
            self.forced.append("run.eval_episodes=10")
        interval = args.eval_interval or space.get("eval_interval") or 0
        if not interval and args.pruner != "none":
            interval = max(space["steps"] // 10, 1)
        if interval and interval != space.get("eval_interval"):
            self.forced.append(f"run.eval_interval={interval}")

    # -- one trial -------------------------------------------------------------
    def _suggest(self, trial, k):
        key = k["key"]
        if k["kind"] == "choice":
            return trial.suggest_categorical(key, k["choices"])
        if k["kind"] == "int":
            return str(trial.suggest_int(key, int(k["low"]), int(k["high"]), log=k["log"]))
        v = trial.suggest_float(key, k["low"], k["high"], log=k["log"])
        return str(int(round(v))) if k.get("type") == "int" else repr(float(v))

    def _run_dir(self, number, seed):
        d = self.out / "trials" / f"{number:05d}"
        return d / f"seed-{seed}" if self.args.seeds > 1 else d

    def _count(self):
        """Trials that count against --trials: all but the waiting ones and
        those failed by an interruption (they run again)."""
        S = self.optuna.trial.TrialState
        n = 0
        for t in self.study.get_trials(deepcopy=False):
            if t.state == S.WAITING or (t.state == S.FAIL and "error" not in t.user_attrs):
                continue
            n += 1
        return n

    def trial(self, trial):
        S = self.optuna.trial.TrialState
        params, values = {}, {}  # the --set ones; every key's value, for the conditions
        as_given = trial.user_attrs.get("as_given")
        for k in self.space["keys"]:
            w = k.get("when")
            if w and values.get(w["key"]) not in w["in"]:
                continue
            if as_given and _base_value(k) is None:
                values[k["key"]] = k["base"]  # the config's value, which the space cannot express
                continue
            params[k["key"]] = values[k["key"]] = self._suggest(trial, k)
        sets = self.args.set + [f"{k}={v}" for k, v in params.items()] + self.forced
        trial.set_user_attr("sets", sets)
        base_seed = self.space.get("seed", 1)
        steps_span = self.space["steps"] + 1
        scores, wall, steps = [], 0.0, 0
        last_beat = [0.0]

        def beat():
            if time.monotonic() - last_beat[0] > self.args.heartbeat:
                self.storage.record_heartbeat(trial._trial_id)
                last_beat[0] = time.monotonic()

        for s in range(self.args.seeds):
            seed = base_seed + s
            d = self._run_dir(trial.number, seed)
            log = self.out / "logs" / f"{trial.number:05d}-seed-{seed}.log"
            argv = [self.exe, "run", self.args.config] + T.set_args(sets + [f"run.seed={seed}"])
            argv += ["--out", str(d), "--force"] + T.flags("--plugin-path", self.args.plugin_path)
            spawn = self.launcher(sets + [f"run.seed={seed}", f"run.out_dir={d}"]) if self.launcher else None
            run = T.Run(argv, d, log, self.env, spawn)

            def on_eval(step, value, off=s * steps_span):
                if not math.isfinite(value):
                    return False
                trial.report(value, off + step)
                return self.args.pruner != "none" and trial.should_prune()

            rc = T.watch(run, on_eval, self.stop, self.args.cost, beat)
            wall += run.elapsed()
            steps += int(run.summary().get("steps") or 0)
            trial.set_user_attr("wall_s", round(wall, 3))
            trial.set_user_attr("steps", steps)
            if run.stopped_by == "pruned":
                return self._tell(trial, S.PRUNED, f"pruned at step {steps}")
            if run.stopped_by == "interrupted":
                self.study.enqueue_trial(trial.params, user_attrs={"retry_of": trial.number})
                trial.set_user_attr("interrupted", True)
                return self._tell(trial, S.FAIL, "interrupted: it runs again when the study resumes")
            if run.stopped_by == "budget":
                try:
                    scores.append(T.evaluate(self.exe, self.env, d, None))
                except RuntimeError as e:
                    trial.set_user_attr("error", str(e))
                    return self._tell(trial, S.FAIL, str(e))
                continue
            if rc != 0:
                err = run.error()
                trial.set_user_attr("error", err)
                return self._tell(trial, S.FAIL, err)
            score = run.summary().get("eval_return_mean")
            if score is None or not math.isfinite(score):
                err = f"{d}: the run ended without a final evaluation"
                trial.set_user_attr("error", err)
                return self._tell(trial, S.FAIL, err)
            scores.append(score)
        trial.set_user_attr("seed_scores", scores)
        value = _stats.iqm(scores) if self.args.objective == "iqm" else float(sum(scores) / len(scores))
        return self._tell(trial, S.COMPLETE, None, float(value))

    def _tell(self, trial, state, note, value=None):
        S = self.optuna.trial.TrialState
        if state == S.COMPLETE:
            self.study.tell(trial, value)
        else:
            self.study.tell(trial, state=state)
        ps = " ".join(f"{k.split('.', 1)[1]}={v}" for k, v in trial.params.items())
        what = f"{value:.6g}" if state == S.COMPLETE else note
        print(f"rlhost tune: trial {trial.number}: {what}  ({ps})", file=sys.stderr, flush=True)
        with self.lock:
            self.write_outputs()

    # -- the workers ---------------------------------------------------------------
    def work(self, i):
        while not self.stop():
            with self.lock:
                if self.args.timeout and time.monotonic() - self.t0 > self.args.timeout:
                    return
                # a dead worker's trial fails (and is enqueued again) before the count
                self.optuna.storages.fail_stale_trials(self.study)
                S = self.optuna.trial.TrialState
                waiting = any(t.state == S.WAITING for t in self.study.get_trials(deepcopy=False))
                if self._count() >= self.args.trials and not waiting:
                    return
                trial = self.study.ask()
            try:
                self.trial(trial)
            except Exception as e:  # a bug here must not leave the trial running forever
                try:
                    trial.set_user_attr("error", f"{type(e).__name__}: {e}")
                    self.study.tell(trial, state=self.optuna.trial.TrialState.FAIL)
                except Exception:
                    pass
                print(f"rlhost tune: trial {trial.number} failed in the driver: {type(e).__name__}: {e}",
                      file=sys.stderr)

    def run(self):
        per_trial = self.cores_per_trial
        if self.args.jobs < 1 or self.args.trials < 1 or self.args.seeds < 1:
            T.refuse("rlhost: tune: --jobs, --trials and --seeds must be at least 1")
        if self.args.jobs * per_trial > T.cores():
            T.refuse(f"rlhost: tune: --jobs {self.args.jobs} would run {self.args.jobs} trials of {per_trial} "
                     f"core(s) each on {T.cores()} cores: at most --jobs {max(1, T.cores() // per_trial)}")
        print(f"rlhost tune: {self.space['algo']} on {self.space['env']}, {len(self.space['keys'])} keys "
              f"from {self.space['source']}, {self.args.trials} trials, {self.args.jobs} at a time -> {self.out}",
              file=sys.stderr, flush=True)
        rc = T.run_workers(self.args.jobs, self.work, self.stop)
        with self.lock:
            self.write_outputs()
        S = self.optuna.trial.TrialState
        done = [t for t in self.study.get_trials(deepcopy=False) if t.state == S.COMPLETE]
        if rc:
            print(f"rlhost tune: stopped; `rlhost tune {self.args.config} --out {self.out}` resumes the study",
                  file=sys.stderr)
            return rc
        if not done:
            print("rlhost tune: no trial completed (see trials.csv for why)", file=sys.stderr)
            return 1
        b = self.study.best_trial
        print(f"rlhost tune: best trial {b.number}: {b.value:.6g} -> {self.out / 'best.cfg'}", file=sys.stderr)
        return 0

    # -- outputs -----------------------------------------------------------------------
    def write_outputs(self):
        S = self.optuna.trial.TrialState
        trials = self.study.get_trials(deepcopy=False)
        keys = [k["key"] for k in self.space["keys"]]
        rows = []
        for t in trials:
            rows.append([t.number, t.state.name.lower(), "" if t.value is None else repr(t.value),
                         t.user_attrs.get("wall_s", ""), t.user_attrs.get("steps", ""),
                         t.user_attrs.get("error", "")] + [t.params.get(k, "") for k in keys])
        T.write_csv(self.out / "trials.csv", ["number", "state", "value", "wall_s", "steps", "error"] + keys, rows)
        done = [t for t in trials if t.state == S.COMPLETE and t.value is not None]
        if not done:
            return
        sign = 1 if self.args.direction == "maximize" else -1
        # the Pareto front of score against wall time
        front, best = [], -math.inf
        for t in sorted(done, key=lambda t: (t.user_attrs.get("wall_s", 0), -sign * t.value)):
            if sign * t.value > best:
                best = sign * t.value
                front.append([t.number, repr(t.value), t.user_attrs.get("wall_s", "")])
        T.write_csv(self.out / "pareto.csv", ["number", "value", "wall_s"], front)
        b = max(done, key=lambda t: sign * t.value)
        if b.number != self.best_number:
            self._best_cfg(b)
        hist, best_line, cur = [], [], None
        for t in sorted(done, key=lambda t: t.number):
            hist.append((t.number, t.value))
            cur = t.value if cur is None else (max(cur, t.value) if sign > 0 else min(cur, t.value))
            best_line.append((t.number, cur))
        _svg.write(self.out / "history.svg", [_svg.panel(
            "trials", "trial", "objective", [{"label": "trial", "points": hist, "style": "dots"},
                                             {"label": "best so far", "points": best_line}])], cols=1)
        panels = []
        for k in self.space["keys"]:
            key = k["key"]
            pts = [(t.params[key], t.value) for t in done if key in t.params]
            if k["kind"] == "choice":
                cats = k["choices"]
                pts = [(cats.index(x), y) for x, y in pts if x in cats]
                panels.append(_svg.panel(key, key, "objective", [{"points": pts, "style": "dots"}],
                                         categories=cats))
            else:
                panels.append(_svg.panel(key, key, "objective", [{"points": pts, "style": "dots"}],
                                         xlog=bool(k.get("log"))))
        _svg.write(self.out / "params.svg", panels)

    def _best_cfg(self, b):
        """The config with the trial's settings, resolved by `rlhost check`
        (so it runs as is: the trial's run minus its directory)."""
        name = Path(self.args.config).stem
        argv = [self.exe, "check", self.args.config] + T.set_args(b.user_attrs.get("sets", []))
        argv += ["--set", f'run.out_dir="runs/{name}-tuned"']
        argv += T.flags("--plugin-path", self.args.plugin_path)
        p = subprocess.run(argv, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            print(f"rlhost tune: best.cfg not written: {p.stderr.strip()}", file=sys.stderr)
            return
        ps = ", ".join(f"{k} = {v}" for k, v in b.params.items())
        seeds = b.user_attrs.get("seed_scores", [])
        head = [f"# rlhost tune: trial {b.number} of study '{self.study.study_name}', "
                f"{self.args.objective} over {len(seeds)} seed(s): {b.value:.6g}",
                f"# from {self.args.config}; tuned: {ps}",
                f"# seeds' final greedy returns: {', '.join(f'{s:.6g}' for s in seeds)}"]
        T.write_atomic(self.out / "best.cfg", "\n".join(head) + "\n" + p.stdout)
        self.best_number = b.number


def main(argv=None, launcher=None, result=None):
    args = _parser().parse_args(argv)
    exe, env = T.command()
    space = _space(args, exe, env)
    if args.print_space:
        print(json.dumps(space))
        return 0
    tuner = Tuner(args, space, exe, env, launcher)
    if result is not None:
        result.append(tuner)
    return tuner.run()


class TuneResult:
    """What rlhost.tune returns: the best trial's value, params and config
    (best.cfg), the study directory, and the Optuna study itself."""

    def __init__(self, tuner):
        self.out = tuner.out
        self.study = tuner.study
        b = tuner.study.best_trial
        self.best_value, self.best_params, self.best_number = b.value, dict(b.params), b.number
        self.best_config = tuner.out / "best.cfg"

    def __repr__(self):
        return f"TuneResult(best_value={self.best_value!r}, best_params={self.best_params!r}, out={str(self.out)!r})"


def _forked(config, env, eval_env):
    """A launcher for rlhost.tune(env=...): each run is rlhost.run in a
    forked child (the env is Python, in this process)."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")

    def child(log_fd, overrides):
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        T._die_with_parent()
        code = 0
        try:
            from .train import run
            run(config, force=True, overrides=overrides, env=env, eval_env=eval_env)
        except KeyboardInterrupt:
            code = 143
        except BaseException as e:  # the child's one sentence, where the driver reads it
            print(f"rlhost: error: {e}", file=sys.stderr)
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    class Child:
        def __init__(self, p):
            self.p = p

        @property
        def returncode(self):
            c = self.p.exitcode
            return 128 - c if c is not None and c < 0 else c

        def poll(self):
            return self.returncode

        def send_signal(self, sig):
            os.kill(self.p.pid, sig)

        def wait(self):
            self.p.join()
            return self.returncode

    def launcher(sets):
        overrides = dict(s.split("=", 1) for s in sets)

        def spawn(logf):
            p = ctx.Process(target=child, args=(logf.fileno(), overrides), daemon=False)
            p.start()
            return Child(p)
        return spawn
    return launcher


def tune(config, trials: int = 20, jobs: int = 1, out=None, space=None, env=None, eval_env=None,
         overrides: "dict | None" = None, **options) -> TuneResult:
    """Tunes CONFIG as `rlhost tune` does and returns the best trial.
    options are the command's, with "_" for "-": seeds=3, pruner="halving",
    storage="postgresql://...", timeout=3600, objective="iqm", seed=1.
    space= a space file; overrides= {"run.steps": 50000} for every trial.
    env= tunes on your own env (a Gymnasium env factory, as rlhost.run
    takes; the config's env plugin is still what the space's env keys are
    checked against): every trial then runs rlhost.run in a forked child.
    A refused space raises RlhostError; Ctrl-C stops the study (it
    resumes) and raises KeyboardInterrupt."""
    from .train import _config_path
    config = _config_path(config, False)
    argv = [os.fspath(config), "--trials", str(trials), "--jobs", str(jobs)]
    if out is not None:
        argv += ["--out", os.fspath(out)]
    if space is not None:
        argv += ["--space", os.fspath(space)]
    for k, v in (overrides or {}).items():
        argv += ["--set", f"{k}={v}"]
    for k, v in options.items():
        argv += [f"--{k.replace('_', '-')}", str(v)]
    launcher = _forked(config, env, eval_env) if env is not None else None
    result = []
    T.api_call(lambda: main(argv, launcher, result), "tune",
               lambda: f"rlhost tune: no trial completed (see {result[0].out / 'trials.csv'})")
    return TuneResult(result[0])


if __name__ == "__main__":
    sys.exit(T.cli(main))
