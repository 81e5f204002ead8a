#!/usr/bin/env python3
"""Every config `rlhost check` accepts yields a checkpoint every reader
loads: a seeded sample of configs (algorithms, replica and env counts,
networks, replay saving, lists that make the config text larger than 64
KiB, a 3,000-byte out_dir) is checked, and each one accepted is trained briefly,
then read by `eval` of the run directory and of the bare checkpoint, `play`,
the Python package's load() (when the suite's .venv has it) and `--resume`.
Evaluating a run of any replica count reproduces its final evaluation.
Inference allocates what acting needs: a checkpoint whose config asks for a
replay larger than the machine loads for eval, while `check` refuses that
config with its estimate.  (TAP)

Usage: ckpt_readers.py RLHOST SOURCE_ROOT BUILD_ROOT
"""

import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

RLHOST, SRC, BUILD = sys.argv[1], sys.argv[2], sys.argv[3]
n = failed = 0


def ok(cond, what, detail=""):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {what}", flush=True)
    if not cond:
        failed += 1
        for line in str(detail).strip().splitlines()[-4:]:
            print(f"#   {line}")


def rl(*args, timeout=300):
    return subprocess.run([RLHOST, *args], capture_output=True, text=True, timeout=timeout)


PY = os.path.join(SRC, ".venv", "bin", "python")
HAVE_PY = (
    os.path.exists(PY) and subprocess.run([PY, "-c", "import gymnasium, numpy"], capture_output=True).returncode == 0
)
PY_ENV = dict(os.environ, RLHOST_LIB_DIR=BUILD, PYTHONPATH=os.path.join(SRC, "python"))
PY_ENV.pop("RLHOST_PLUGIN_PATH", None)


def sanitizer_preload():
    """A sanitizer build (CI's ASan pass): Python is not instrumented, so the
    runtimes go first, and Python's own leaks at exit are not reported."""
    lib = os.path.join(BUILD, "core", "runtime", "librlhost.so")
    try:
        out = subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
    except OSError:
        return
    libs = [ln.split()[2] for ln in out.splitlines() if ("libasan" in ln or "libubsan" in ln) and "=>" in ln]
    if libs:
        PY_ENV["LD_PRELOAD"] = " ".join(libs)
        PY_ENV["ASAN_OPTIONS"] = "detect_leaks=0" + (
            ":" + os.environ["ASAN_OPTIONS"] if "ASAN_OPTIONS" in os.environ else ""
        )


sanitizer_preload()


def py_load(ckpt):
    code = (
        "import sys, numpy as np, rlhost\n"
        "p = rlhost.load(sys.argv[1])\n"
        "obs = np.zeros((1,) + p.observation_space.shape, dtype=p.observation_space.dtype)\n"
        "a = p(obs)\n"
        "print(np.asarray(a).shape)\n"
    )
    return subprocess.run([PY, "-c", code, ckpt], capture_output=True, text=True, env=PY_ENV, timeout=120)


def long_list(rng, lo, hi):
    return "[" + ", ".join(str(rng.randint(lo, hi)) for _ in range(4096)) + "]"


def sample(rng, k, tmp):
    """One config: (base, overrides)."""
    kind = rng.choice(["dqn", "ppo", "rppo", "sac", "td3", "lists"])
    reps = rng.choice([1, 2, 4])
    hidden = "[" + ", ".join(str(rng.choice([8, 16, 32])) for _ in range(rng.randint(1, 3))) + "]"
    out = os.path.join(tmp, f"run{k}")
    if rng.random() < 0.25:  # a long out_dir
        out = os.path.join(tmp, *(["d" * 200] * 15), f"run{k}")
    ov = {
        "run.out_dir": out,
        "run.quiet": "true",
        "run.replicas": str(reps),
        "run.eval_episodes": "5",
        "run.seed": str(rng.randint(1, 1000)),
    }
    if kind == "dqn":
        base = "cartpole_dqn.cfg"
        ov.update(
            {
                "env.num_envs": str(rng.choice([1, 2, 4, 8])),
                "algo.hidden": hidden,
                "algo.batch_size": "32",
                "algo.learning_starts": "100",
                "algo.train_freq": "4",
                "algo.gradient_steps": "1",
                "algo.prioritized": rng.choice(["true", "false"]),
                "algo.dueling": rng.choice(["true", "false"]),
                "algo.save_replay": rng.choice(["true", "false"]),
            }
        )
        steps = 800
    elif kind in ("ppo", "rppo"):
        base = "cartpole_ppo.cfg" if kind == "ppo" else "tmaze_rppo.cfg"
        envs = rng.choice([4, 8])
        ov.update(
            {
                "env.num_envs": str(envs),
                "algo.hidden": hidden,
                "algo.n_steps": "32",
                "algo.batch_size": str(rng.choice([32, 64, 128])),
            }
        )
        steps = 32 * envs * 2
    elif kind in ("sac", "td3"):
        base = f"pendulum_{kind}.cfg"
        ov.update(
            {
                "env.num_envs": str(rng.choice([2, 4])),
                "algo.hidden": hidden,
                "algo.batch_size": "64",
                "algo.learning_starts": "100",
                "algo.save_replay": rng.choice(["true", "false"]),
            }
        )
        steps = 400
    else:  # the convolution lists an MLP encoder ignores, long: a config text far above 64 KiB
        base = "cartpole_dqn.cfg"
        ov.update(
            {
                "algo.cnn_channels": long_list(rng, 1000, 4096),
                "algo.cnn_kernels": long_list(rng, 10, 64),
                "algo.cnn_strides": long_list(rng, 10, 64),
                "algo.cnn_padding": long_list(rng, 10, 64),
                "algo.learning_starts": "100",
            }
        )
        steps = 500
    ov["run.steps"] = str(steps)
    ov["run.checkpoint_interval"] = str(steps // 2)
    return kind, os.path.join(SRC, "configs", base), ov


def sets(ov):
    out = []
    for key, val in ov.items():
        out += ["--set", f"{key}={val}"]
    return out


def summary(out):
    try:
        return json.load(open(os.path.join(out, "summary.json")))
    except (OSError, ValueError):
        return {}


def trial(rng, k, tmp):
    kind, base, ov = sample(rng, k, tmp)
    label = f"{kind} R={ov['run.replicas']} envs={ov.get('env.num_envs', '-')}"
    c = rl("check", base, *sets(ov))
    if c.returncode != 0:
        ok(c.returncode == 2 and c.stderr.count("\n") >= 1, f"{label}: check refuses with a sentence", c.stderr)
        return 0
    out = ov["run.out_dir"]
    r = rl("run", base, *sets(ov))
    ok(r.returncode == 0, f"{label}: trains", r.stderr)
    if r.returncode != 0:
        return 1
    ckpt = os.path.join(out, "checkpoint.safetensors")
    e = rl("eval", out, "--json")
    ok(e.returncode == 0, f"{label}: eval of the run directory", e.stderr)
    want = summary(out).get("eval_return_mean")
    if e.returncode == 0 and want is not None:
        got = json.loads(e.stdout)["return_mean"]
        ok(
            abs(got - want) <= 1e-6 * max(1.0, abs(want)),
            f"{label}: eval reproduces the final evaluation ({got} vs {want})",
        )
    e = rl("eval", ckpt, "--episodes", "2")
    ok(e.returncode == 0, f"{label}: eval of the bare checkpoint", e.stderr)
    p = rl("play", out, "--episodes", "1", "--fps", "1000")
    ok(p.returncode == 0, f"{label}: play", p.stderr)
    if HAVE_PY:
        pl = py_load(ckpt)
        ok(pl.returncode == 0, f"{label}: Python load() and act", pl.stderr)
    res = rl("run", "--resume", out, "--set", f"run.steps={int(ov['run.steps']) * 2}")
    ok(res.returncode == 0, f"{label}: resume", res.stderr)
    return 1


def memory(tmp):
    huge = "900000000"  # about 35 GB of cartpole transitions
    c = rl("check", os.path.join(SRC, "configs", "cartpole_dqn.cfg"), "--set", f"algo.buffer_size={huge}")
    ok(
        c.returncode == 2 and re.search(r"the replay buffer needs [0-9.]+ GiB; this machine has [0-9.]+ GiB", c.stderr),
        "check refuses a replay larger than the machine, with the estimate",
        c.stderr,
    )
    c = rl(
        "run",
        os.path.join(SRC, "configs", "cartpole_dqn.cfg"),
        "--set",
        f"algo.buffer_size={huge}",
        "--out",
        os.path.join(tmp, "never"),
    )
    ok(c.returncode == 2 and not os.path.exists(os.path.join(tmp, "never")), "so does run, before anything", c.stderr)
    # a small run's checkpoint whose config names that replay still evaluates
    out = os.path.join(tmp, "small")
    r = rl(
        "run",
        os.path.join(SRC, "configs", "cartpole_dqn.cfg"),
        "--set",
        "run.steps=500",
        "--set",
        "run.quiet=true",
        "--out",
        out,
    )
    raw = open(os.path.join(out, "checkpoint.safetensors"), "rb").read()
    hl = struct.unpack("<Q", raw[:8])[0]
    head = json.loads(raw[8 : 8 + hl])
    meta = head["__metadata__"]
    meta["rlhost.config"] = re.sub(r"buffer_size = \d+;", f"buffer_size = {huge};", meta["rlhost.config"])
    h = json.dumps(head).encode()
    h += b" " * (-len(h) % 8)
    big = os.path.join(tmp, "asks_for_35GB.safetensors")
    open(big, "wb").write(struct.pack("<Q", len(h)) + h + raw[8 + hl :])
    e = rl("eval", big, "--episodes", "2", timeout=60)
    ok(
        r.returncode == 0 and e.returncode == 0,
        "eval of a checkpoint whose config asks for a 35 GB replay allocates only what acting needs",
        e.stderr,
    )
    if HAVE_PY:
        pl = py_load(big)
        ok(pl.returncode == 0, "and Python loads it", pl.stderr)


def main():
    tmp = tempfile.mkdtemp()
    try:
        rng = random.Random(20261124)
        trained = 0
        for k in range(14):
            trained += trial(rng, k, tmp)
        ok(trained >= 8, f"at least 8 of the 14 sampled configs were accepted and trained ({trained})")
        memory(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{n}")
    sys.exit(1 if failed else 0)


main()
