#!/usr/bin/env python3
"""The rlhost Python package against the rlhost executable: Gymnasium
spaces and check_env, observations bit-identical to `rlhost eval --trace`
for the same seed and actions, zero-copy buffers, same-step autoreset,
load() reproducing eval, run() training in-process, refusals.
Usage: binding.py RLHOST SOURCE_ROOT   (TAP on stdout; RLHOST_LIB_DIR and
PYTHONPATH point at the build and python/)"""

import csv
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
from gymnasium.utils.env_checker import check_env

import rlhost

RL, SRC = sys.argv[1:3]
n = failed = 0
T = tempfile.mkdtemp()
EVAL_SEED = 1 ^ 0x5EED5EED5EED5EED  # eval's seed stream for run seed 1 (eval.c)


def ok(cond, desc, why=""):
    global n, failed
    n += 1
    failed += not cond
    print(("ok" if cond else "not ok"), n, "-", desc)
    if not cond and why:
        print("#  ", str(why).replace("\n", "\n#   "))


def rl(*args):
    return subprocess.run([RL, *args], capture_output=True, text=True)


# ---- what `import rlhost` needs ------------------------------------------
# NumPy alone: Gymnasium comes with the first env; and the project's .venv
# (scripts/pydeps.sh) imports the checkout's package without any variable
probe = (
    "import sys, rlhost; from rlhost import Policy, load; "
    "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'pygame') if m in sys.modules))"
)
r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
ok(
    r.returncode == 0 and r.stdout.strip() == "[]",
    "import rlhost imports no Gymnasium, PettingZoo or pygame",
    r.stdout + r.stderr,
)
env = {k: v for k, v in os.environ.items() if k not in ("RLHOST_LIB_DIR", "PYTHONPATH")}
venv_py = os.path.join(SRC, ".venv", "bin", "python")
r = subprocess.run(
    [venv_py, "-c", "import rlhost; print(rlhost.make('cartpole').reset(seed=1)[0].shape)"],
    capture_output=True,
    text=True,
    env=env,
    cwd="/",
)
ok(
    r.returncode == 0 and r.stdout.strip() == "(4,)",
    "the project's .venv imports rlhost and makes an env",
    r.stdout + r.stderr,
)

# ---- spaces, check_env --------------------------------------------------
cases = [
    ("cartpole", {}, (4,), np.float32, 2),
    ("snake", {"observation": "grid", "width": 8, "height": 8}, (3, 8, 8), np.uint8, 4),
    ("snake", {"observation": "features", "flood_fill": True}, None, np.float32, 4),
    ("gridworld", {"layout": "tmaze", "observation": "view"}, None, np.uint8, None),
]
for name, opts, shape, dtype, nact in cases:
    v = rlhost.make_vec(name, 16, seed=3, **opts)
    s = v.single_observation_space
    good = (
        s.dtype == dtype and (shape is None or s.shape == shape) and (nact is None or v.single_action_space.n == nact)
    )
    good = (
        good
        and v.observation_space.shape == (16,) + s.shape
        and list(v.action_space.nvec) == [v.single_action_space.n] * 16
    )
    ok(good, f"{name} {opts}: spaces {s}, {v.single_action_space}", (s, v.action_space))
    o, _ = v.reset()
    ok(
        o.shape == v.observation_space.shape and o.dtype == dtype and v.observation_space.contains(o),
        f"{name}: reset's observations lie in the space",
    )
    v.close()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unbounded Box of float observations
        try:
            check_env(rlhost.make(name, seed=5, **opts), skip_render_check=True)
            ok(True, f"{name} {opts}: gymnasium check_env passes")
        except Exception as e:  # noqa: BLE001
            ok(False, f"{name} {opts}: gymnasium check_env passes", e)

# ---- zero-copy, same-step autoreset ---------------------------------------
v = rlhost.make_vec("cartpole", 8, seed=7, copy=False, autoreset_mode="SameStep")
o1, _ = v.reset(seed=7)
rng = np.random.default_rng(0)
addr = o1.__array_interface__["data"][0]
same_mem, ends, layout_ok, final_ok = True, 0, True, True
for t in range(400):
    o2, r, term, trunc, info = v.step(rng.integers(0, 2, 8))
    same_mem &= o2.__array_interface__["data"][0] == addr and o2 is o1
    done = term | trunc
    if done.any():
        ends += int(done.sum())
        layout_ok &= "episode" not in info and bool(np.all(info["_final_obs"] == done))
        # the ended episode's last observation is the terminal one: a pole past 12 degrees or a cart past 2.4
        for i in np.flatnonzero(term):
            f = info["final_obs"][i]
            final_ok &= bool(abs(f[2]) > 0.2094 or abs(f[0]) > 2.4)
ok(same_mem, "copy=False: observations are the same array every step (no copy)")
ok(
    ends > 10 and layout_ok,
    f"infos leave 'episode' to RecordEpisodeStatistics; masks mark ended rows ({ends} episodes)",
)
ok(final_ok, "same-step autoreset: infos['final_obs'] holds the terminal observation")
ok(
    getattr(v.metadata["autoreset_mode"], "value", v.metadata["autoreset_mode"]) == "SameStep",
    "metadata declares same-step autoreset",
)
c = rlhost.make_vec("cartpole", 8, seed=7)
c1, _ = c.reset(seed=7)
c2 = c.step(np.zeros(8, int))[0]
ok(not np.shares_memory(c1, c2), "copy=True (the default) gives a fresh array per step")

# determinism: the same seed, the same episodes, whatever the thread count
a = rlhost.make_vec("snake", 64, seed=11, observation="window")
b = rlhost.make_vec("snake", 64, seed=99, observation="window", optimizations={"threads": 2})
b.reset(seed=11)
a.reset()
same = True
for t in range(200):
    act = rng.integers(0, 4, 64)
    same &= np.array_equal(a.step(act)[0], b.step(act)[0])
ok(same and b.threads == 2, "reset(seed=11) on 2 threads replays make_vec(seed=11) on 1, bit for bit")

# refusals, with the config's sentences
for call, want in [
    (lambda: rlhost.make_vec("snake", 4, width=2), "env.width: expected an integer in [4, 64]"),
    (lambda: rlhost.make_vec("snak", 4), "snake"),
    (lambda: rlhost.make_vec("cartpole", 4, gravity_x=1.0), "unknown key"),
    (lambda: rlhost.load(os.path.join(T, "nowhere")), "does not exist"),
]:
    try:
        call()
        ok(False, f"refused: {want}")
    except rlhost.RlhostError as e:
        ok(want in str(e), f"refused with a sentence: {e}", e)
try:
    rlhost.make_vec("cartpole", 2).step([0, 5])
    ok(False, "an action out of range refused")
except ValueError as e:
    ok("outside [0, 2)" in str(e), f"an action out of range refused: {e}")


# ---- load() and the env against `rlhost eval --trace` --------------------
def trace_rows(path):
    return list(csv.DictReader(open(path)))


def replay(run_dir, dtype, greedy_name):
    tr = os.path.join(T, os.path.basename(run_dir) + ".csv")
    r = rl("eval", run_dir, "--episodes", "1", "--trace", tr)
    ok(r.returncode == 0, f"{greedy_name}: rlhost eval --trace", r.stderr)
    rows = trace_rows(tr)
    p = rlhost.load(run_dir)
    env = p.make_env(1, seed=EVAL_SEED)
    obs, _ = env.reset()
    cols = [k for k in rows[0] if k.startswith("obs_")]
    obs_same = act_same = rew_same = True
    for row in rows:
        want = np.array([float(row[k]) for k in cols]).astype(dtype)
        obs_same &= np.array_equal(obs.reshape(-1), want)
        a = p(obs[0])
        act_same &= a == int(row["action"])
        obs, rew, term, trunc, _ = env.step([a])
        rew_same &= np.float32(rew[0]) == np.float32(float(row["reward"]))
    ok(obs_same, f"{greedy_name}: every observation bit-identical to rlhost's ({len(rows)} steps)")
    ok(act_same and rew_same, f"{greedy_name}: load() picks rlhost eval's action at every step, same rewards")
    return p


pol = rlhost.run(
    os.path.join(SRC, "configs/cartpole_ppo.cfg"),
    run__steps=20000,
    run__quiet=True,
    run__out_dir=os.path.join(T, "ppo"),
)
ok(pol.summary["steps"] == 20000 and pol.run_dir.endswith("ppo"), "rlhost.run trains in-process and returns the policy")
replay(os.path.join(T, "ppo"), np.float32, "CartPole PPO")
# a non-finite observation is refused, not turned into an action
for bad in (np.nan, np.inf):
    try:
        pol(np.array([0.0, bad, 0.0, 0.0], np.float32))
        ok(False, f"an observation holding {bad} is refused")
    except rlhost.RlhostError as e:
        ok("observation row 0, element 1 holds" in str(e), f"an observation holding {bad} is refused: {e}")
# observations normalized by float64 statistics (PPO's and A2C's normalize_obs): the policy loads
for cfg in ("pendulum_ppo", "pendulum_a2c"):
    try:
        p = rlhost.run(
            os.path.join(SRC, f"configs/{cfg}.cfg"),
            run__steps=4096,
            run__quiet=True,
            run__out_dir=os.path.join(T, cfg),
            algo__normalize_obs=True,
        )
        w = p.weights
        ok(
            any(v.dtype == np.float64 for v in w.values()),
            f"{cfg}, normalize_obs: rlhost.run returns the policy, its float64 normalizer statistics among the weights",
        )
    except rlhost.RlhostError as e:
        ok(False, f"{cfg}, normalize_obs: rlhost.run returns the policy", e)


def named_tensors(node, names):
    """Every string of the description that names one of the checkpoint's tensors."""
    if isinstance(node, dict):
        node = list(node.values())
    if isinstance(node, list):
        return set().union(*(named_tensors(v, names) for v in node))
    return {node} if isinstance(node, str) and node in names else set()


# weights holds every tensor the description names: CrossQ's batchnorm statistics, a
# composite observation's CNN inside a concat op
for what, cfg, kw in (
    ("crossq", "pendulum_crossq", dict(algo__hidden=[16], algo__critic_hidden=[16])),
    (
        "composite CNN",
        "snake_dict_ppo",
        dict(env__num_envs=4, algo__n_steps=64, algo__batch_size=128, algo__encoder="cnn"),
    ),
):
    try:
        p = rlhost.run(
            os.path.join(SRC, f"configs/{cfg}.cfg"),
            run__steps=600 if what == "crossq" else 512,
            run__quiet=True,
            run__eval_episodes=1,
            run__out_dir=os.path.join(T, "named_" + cfg),
            **kw,
        )
        named, w = named_tensors(p.spec, set(p._tensors)), p.weights
        ok(
            named and named <= set(w),
            f"weights ({what}): every tensor the description names ({len(named)}), missing "
            f"{sorted(named - set(w))[:3]}",
        )
    except rlhost.RlhostError as e:
        ok(False, f"weights ({what}): rlhost.run returns the policy", e)
r = rl(
    "run",
    os.path.join(SRC, "configs/tmaze_rppo.cfg"),
    "--out",
    os.path.join(T, "rppo"),
    "--set",
    "run.steps=20000",
    "--set",
    "run.quiet=true",
)
ok(r.returncode == 0, "train T-maze recurrent PPO", r.stderr)
replay(os.path.join(T, "rppo"), np.uint8, "T-maze recurrent PPO (LSTM state per row)")
r = rl(
    "run",
    os.path.join(SRC, "configs/snake_dqn.cfg"),
    "--out",
    os.path.join(T, "dqn"),
    "--set",
    "run.steps=20000",
    "--set",
    "run.quiet=true",
    "--set",
    'env.observation="grid"',
)
ok(r.returncode == 0, "train snake DQN on grid observations", r.stderr)
replay(os.path.join(T, "dqn"), np.uint8, "snake grid DQN")

# the weights, and greedy=False sampling
w = pol.weights
ok(
    all(isinstance(x, np.ndarray) for x in w.values())
    and "actor/mlp/layer0.weight" in w
    and w["actor/mlp/layer0.weight"].shape == (64, 4),
    f"weights: a dict of arrays ({len(w)} tensors)",
)
s = rlhost.load(os.path.join(T, "ppo"), num_envs=64, greedy=False)
g = rlhost.load(os.path.join(T, "ppo"), num_envs=64)
x = np.tile(np.array([0.0, 0.0, 0.02, 0.0], np.float32), (64, 1))
ok(
    len(set(s(x).tolist())) == 2 and len(set(g(x).tolist())) == 1,
    "greedy=False samples (both actions on 64 equal rows), greedy does not",
)
try:
    rlhost.load(os.path.join(T, "dqn"), greedy=False)
    ok(False, "greedy=False on DQN refused")
except rlhost.RlhostError as e:
    ok("eval_epsilon" in str(e), "greedy=False on DQN refused, pointing at eval_epsilon")

try:
    import torch
except ImportError:
    torch = None
if torch is None:
    print("ok", n + 1, "- # SKIP to_torch: PyTorch is not installed in this Python")
    n += 1
else:
    for d in ("ppo", "rppo", "dqn"):
        p = rlhost.load(os.path.join(T, d))
        m = p.to_torch()
        env = p.make_env(1, seed=EVAL_SEED)
        obs, _ = env.reset()
        state, agree = None, 0
        for t in range(200):
            with torch.no_grad():
                out, state = m(torch.from_numpy(obs.copy()), state)
            a = p(obs[0])
            agree += int(torch.argmax(out[0])) == a
            obs, _, term, trunc, _ = env.step([a])
            if term[0] or trunc[0]:
                state = None
        ok(agree >= 199, f"to_torch ({d}): the module's argmax is the policy's action ({agree}/200)")
# ---- box actions (ABI 1.2) ----------------------------------------------
from gymnasium import spaces

env = rlhost.make("pendulum", seed=1)
ok(
    isinstance(env.action_space, spaces.Box)
    and env.action_space.shape == (1,)
    and env.action_space.low[0] == -2
    and env.action_space.high[0] == 2,
    "pendulum: a Box action space [-2, 2]",
)
ok(np.allclose(env.observation_space.high, [1, 1, 8]), "and a bounded observation space")
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)
    ok(True, "pendulum passes check_env")
except Exception as e:
    ok(False, "pendulum passes check_env", e)
vb = rlhost.make_vec("pendulum", 3, seed=1)
vb.reset()
obs, rew, term, trunc, info = vb.step(np.array([[0.5], [-1.0], [2.0]], np.float32))
ok(
    obs.shape == (3, 3) and rew.dtype == np.float64,
    "a box vector env steps with float actions (float64 rewards, as SyncVectorEnv)",
)
for bad, why in ((np.array([[0.5], [3.0], [0.0]]), "outside the box"), (np.array([[np.nan], [0], [0]]), "NaN")):
    try:
        vb.step(bad)
        ok(False, f"an action {why} is refused")
    except ValueError as e:
        ok("outside the box" in str(e), f"an action {why} is refused with the sentence", e)
try:
    vb.step(np.zeros(3))
    ok(False, "a box action of the wrong shape is refused")
except ValueError as e:
    ok("shape" in str(e), "a box action of the wrong shape is refused", e)
vb.close()
sac = rlhost.run(
    os.path.join(SRC, "configs/pendulum_sac.cfg"),
    num_envs=3,
    force=True,
    run__steps=600,
    run__quiet=True,
    run__eval_episodes=2,
    run__out_dir=os.path.join(T, "sac"),
    algo__hidden=[32],
)
a = sac(obs)
ok(
    a.dtype == np.float32 and a.shape == (3, 1) and np.all(np.abs(a) <= 2),
    "a SAC policy's actions are floats in the box",
)
ok(sac(obs[0]).shape == (1,), "and one row gives one action vector")
if torch is None:
    print("ok", n + 1, "- # SKIP to_torch of box policies: PyTorch is not installed in this Python")
    n += 1
else:
    rlhost.run(
        os.path.join(SRC, "configs/pendulum_ppo.cfg"),
        force=True,
        run__steps=4096,
        run__quiet=True,
        run__eval_episodes=2,
        run__out_dir=os.path.join(T, "ppo_box"),
    )
    ppo_box = rlhost.load(os.path.join(T, "ppo_box"), num_envs=3)
    for name, pol in (("sac", sac), ("ppo", ppo_box)):
        m = pol.to_torch()
        with torch.no_grad():
            out, _ = m(torch.from_numpy(obs.copy()))
        worst = float(np.max(np.abs(out.numpy() - pol(obs))))
        ok(
            out.shape == (3, 1) and worst < 1e-4,
            f"to_torch ({name}, a box): the module's output is the policy's action (largest difference {worst:.2g})",
        )

# ---- policies: any batch, the bytes C loaded, the description checked ----
import json
import struct

from rlhost.policy import read_safetensors

p1 = rlhost.load(os.path.join(T, "ppo"))  # one row to start with
pn = rlhost.load(os.path.join(T, "ppo"), num_envs=300)
xs = np.random.default_rng(3).normal(0, 0.1, (300, 4)).astype(np.float32)
ok(np.array_equal(p1(xs), pn(xs)), "a feed-forward policy loaded for 1 row acts on a batch of 300")
r1 = rlhost.load(os.path.join(T, "rppo"))
r5 = rlhost.load(os.path.join(T, "rppo"), num_envs=5)
env = r5.make_env(5, seed=9, copy=True)
obs, _ = env.reset()
same_r, start = True, None
for t in range(60):
    a1, a5 = r1(obs, start), r5(obs, start)
    same_r &= np.array_equal(a1, a5)
    obs, _, term, trunc, _ = env.step(a5)
    start = term | trunc  # same-step autoreset: obs begins the next episode there
ok(
    same_r and r1.num_envs >= 5,
    f"a recurrent policy grows from 1 to {r1.num_envs} rows, each with its own state (acts as one loaded for 5)",
)
try:
    r1(np.full(r1.observation_space.shape, 300.0))
    ok(False, "an observation a uint8 cast would wrap is refused")
except ValueError as e:
    ok("300.0" in str(e) and "[0, 255]" in str(e), f"an observation a uint8 cast would wrap is refused: {e}")
env.close()


def write_safetensors(path, tensors, meta):
    header, blobs, off = {"__metadata__": meta}, [], 0
    for k, a in tensors.items():
        b = np.ascontiguousarray(a).tobytes()
        header[k] = {
            "dtype": {np.float32: "F32", np.float64: "F64", np.uint8: "U8", np.int32: "I32", np.uint64: "U64"}[
                a.dtype.type
            ],
            "shape": list(a.shape),
            "data_offsets": [off, off + len(b)],
        }
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


# the newest checkpoint damaged: C falls back to checkpoint.prev; weights are prev's
import shutil

d = os.path.join(T, "fallback")
r = rl(
    "run",
    os.path.join(SRC, "configs/cartpole_ppo.cfg"),
    "--out",
    d,
    "--set",
    "run.steps=8192",
    "--set",
    "run.quiet=true",
    "--set",
    "run.checkpoint_interval=2048",
)
ok(
    r.returncode == 0 and os.path.exists(os.path.join(d, "checkpoint.prev.safetensors")),
    "a run with two checkpoints",
    r.stderr,
)
prev_w, _ = read_safetensors(os.path.join(d, "checkpoint.prev.safetensors"))
with open(os.path.join(d, "checkpoint.safetensors"), "r+b") as f:
    f.seek(200)
    f.write(b"\xff" * 64)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fb = rlhost.load(d)
ok(
    any(issubclass(w.category, rlhost.RlhostWarning) and "previous checkpoint" in str(w.message) for w in caught),
    "the fallback to checkpoint.prev is a Python warning (RlhostWarning), not C's stderr",
)
w = fb.weights
ok(all(np.array_equal(w[k], prev_w[k]) for k in w), "weights are the previous checkpoint's: the bytes C loaded")
shutil.copy(os.path.join(d, "checkpoint.prev.safetensors"), os.path.join(d, "other.safetensors"))
with open(os.path.join(d, "checkpoint.prev.safetensors"), "wb") as f:
    f.write(b"gone")
ok(all(np.array_equal(fb.weights[k], prev_w[k]) for k in w), "... and stay so when the files change afterwards")
# a description that does not fit the tensors
t, meta = read_safetensors(os.path.join(d, "other.safetensors"))
spec = json.loads(meta["algo.policy"])
first = spec["outputs"][spec["greedy"]["argmax"]][0]
first["in"] = 5
meta["algo.policy"] = json.dumps(spec)
write_safetensors(os.path.join(T, "lying.safetensors"), t, meta)
try:
    rlhost.load(os.path.join(T, "lying.safetensors"))
    ok(False, "a description that does not fit the weights is refused")
except rlhost.RlhostError as e:
    ok("linear op takes 5 inputs" in str(e), f"a description that does not fit the weights is refused: {e}")
fb.close()
try:
    fb(np.zeros(4, np.float32))
    ok(False, "a closed policy refuses to act")
except rlhost.RlhostError as e:
    ok("closed" in str(e), f"a closed policy refuses to act: {e}")

# run(): resume, and a failure's reason in the exception
more = rlhost.run(os.path.join(T, "ppo"), resume=True, run__steps=30000)
ok(
    more.summary["steps"] == 30000,
    f"run(DIR, resume=True, run__steps=30000) continues the run to {more.summary['steps']} steps",
)
try:
    rlhost.run(os.path.join(SRC, "configs/cartpole_ppo.cfg"), run__out_dir=os.path.join(T, "ppo"), run__steps=1000)
    ok(False, "a run into another run's directory is refused")
except rlhost.RlhostError as e:
    ok("was refused: " in str(e) and "--force" in str(e), f"the refusal's reason is in the exception: {e}")

print(f"1..{n}")
sys.exit(1 if failed else 0)
