#!/usr/bin/env python3
"""Hostile checkpoints: every tensor of a real run's checkpoint (and replay)
is overwritten with out-of-range contents, then `rlhost run --resume` and
`rlhost eval` load it.  Each must end cleanly -- exit 0 or a refusal (exit 1)
with one sentence naming the file -- and never crash or trip a sanitizer;
the tensors that index memory must be refused, and so must an all-zero
random generator (its rejection sampling would never end: the fuzzer found
a snake placing food forever).  (TAP; also runs under
ASan/UBSan in CI.)

Usage: corrupt_state.py RLHOST SOURCE_ROOT
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

RLHOST, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests"))
from resign import resign  # noqa: E402

n = failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {what}", flush=True)
    if not cond:
        failed += 1


def header(path):
    with open(path, "rb") as f:
        hl = struct.unpack("<Q", f.read(8))[0]
        return hl, json.loads(f.read(hl))


def overwrite(path, name, fill):
    """Overwrites a tensor, then makes the CRC-32s match again: a file
    crafted to pass the CRC check, so what refuses it is the loaders' own
    checks of what a tensor holds."""
    hl, h = header(path)
    begin, end = h[name]["data_offsets"]
    with open(path, "r+b") as f:
        f.seek(8 + hl + begin)
        f.write(bytes([fill]) * (end - begin))
    resign(path)


def rlhost(*args):
    p = subprocess.run([RLHOST, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr


def sane(rc, err, what):
    """Exit 0, or 1 with a message; no signal, no sanitizer report."""
    bad = "Sanitizer" in err or "runtime error:" in err
    ok(rc in (0, 1) and not bad, f"{what}: ends cleanly (exit {rc})")
    if rc not in (0, 1) or bad:
        print("#   " + "\n#   ".join(err.strip().splitlines()[:6]))


# name, config, overrides, tensors that index memory (must be refused when
# filled with 0xff: -1 as int32, huge as uint32/uint64, NaN as float/double),
# and optionally the prefixes of the tensors to corrupt (default: every
# state tensor; a case whose algorithm's state another case corrupts, PPO's
# in cartpole_ppo_norm and pendulum_ppo_box, corrupts its env's only)
CASES = [
    (
        "snake_per",
        "configs/snake_dqn.cfg",
        [
            "algo.plugin=per_dqn",
            "algo.save_replay=true",
            "run.steps=3000",
            "algo.learning_starts=500",
            "algo.buffer_size=4000",
            "env.num_envs=4",
            "run.eval_episodes=2",
            "run.eval_interval=1000",
        ],
        [
            "host/episode_stats",
            "env/snake/scalars",
            "env/snake/body",
            "env/snake/cells",
            "replay/actions",
            "replay/steps",
            "replay/priority_sum",
            "replay/priority_min",
            "state/vector_steps",
            "state/epsilon",
            "state/max_priority",
        ],
    ),
    (
        "tmaze_rppo",
        "configs/tmaze_rppo.cfg",
        ["run.steps=3000", "run.eval_episodes=2", "run.eval_interval=1000", "algo.n_epochs=2"],
        ["host/episode_stats", "env/gridworld/state", "state/accumulators", "rollout/actions", "state/updates"],
    ),
    (
        "snake_boards",
        "configs/snake_multi_ppo.cfg",
        [
            "run.steps=8192",
            "run.eval_episodes=8",
            "env.num_envs=4",
            "algo.batch_size=256",
            "algo.n_steps=32",
            'env.observation="grid"',
        ],
        ["env/snake/scalars", "env/snake/body", "env/snake/cells", "env/snake/food"],
        ("env/", "eval_env/"),
    ),
    (
        "gridworld_agents",
        "configs/gridworld_cnn_ppo.cfg",
        ["run.steps=2048", "run.eval_episodes=4", "env.agents=3"],
        ["env/gridworld/state"],
        ("env/", "eval_env/"),
    ),
    (
        "cartpole_ppo_norm",
        "configs/cartpole_ppo.cfg",
        ["run.steps=3000", "run.eval_episodes=2", "algo.normalize_obs=true", "algo.n_steps=64"],
        ["state/obs_count", "state/obs_var", "host/last_eval"],
    ),
    (
        "pendulum_sac",
        "configs/pendulum_sac.cfg",
        [
            "run.steps=2000",
            "run.eval_episodes=2",
            "algo.learning_starts=500",
            "algo.save_replay=true",
            "algo.buffer_size=4000",
            "algo.hidden=[32]",
        ],
        ["replay/steps", "state/vector_steps", "state/grad_steps", "env/classic/state"],
    ),
    (
        "pendulum_tqc",
        "configs/pendulum_tqc.cfg",
        [
            "run.steps=2000",
            "run.eval_episodes=2",
            "algo.learning_starts=500",
            "algo.save_replay=true",
            "algo.buffer_size=4000",
            "algo.hidden=[32]",
            "algo.n_quantiles=5",
            "algo.top_quantiles_to_drop_per_net=1",
        ],
        ["replay/steps", "state/log_alpha", "state/grad_steps"],
    ),
    # CrossQ: running variances (square roots take them; keep_best's too) and
    # the warm-up counts
    (
        "pendulum_crossq",
        "configs/pendulum_crossq.cfg",
        [
            "run.steps=1500",
            "run.eval_episodes=2",
            "algo.learning_starts=500",
            "algo.save_replay=true",
            "algo.buffer_size=4000",
            "algo.hidden=[16]",
            "algo.critic_hidden=[16]",
            "algo.keep_best=true",
            "run.eval_interval=500",
        ],
        ["actor/layer1.bn_var", "critic/q1/layer0.bn_var", "best/actor/layer0.bn_var", "state/renorm_steps_critic"],
        ("actor/layer1.bn_var", "critic/q1/layer0.bn_var", "best/actor/layer0.bn_var", "state/renorm_steps"),
    ),
    (
        "mountain_car_sac_sde",
        "configs/mountain_car_continuous_sac_sde.cfg",
        [
            "run.steps=1500",
            "run.eval_episodes=1",
            "algo.save_replay=true",
            "algo.hidden=[16]",
        ],
        ["state/sde_matrices", "state/vector_steps"],
    ),
    (
        "mountain_car_ppo_sde",
        "configs/mountain_car_continuous_ppo_sde.cfg",
        ["run.steps=1004", "run.eval_episodes=1", "algo.hidden=[16]"],
        ["state/sde_matrices", "rollout/box_actions", "state/accumulators"],
        ("state/sde_matrices", "rollout/box_actions", "state/accumulators", "actor/log_std"),
    ),
    # the SDK's examples: the env template under the off-policy example
    (
        "catch_mini_dqn",
        "examples/offpolicy/cartpole.cfg",
        [
            'env.plugin="catch"',
            "env.num_envs=2",
            "run.steps=3000",
            "run.eval_episodes=2",
            "algo.learning_starts=500",
            "algo.buffer_size=4000",
            "algo.hidden=[32]",
            "algo.train_freq=64",
            "algo.gradient_steps=4",
            "algo.save_replay=true",
        ],
        ["env/catch/state", "replay/actions", "replay/steps"],
    ),
    (
        "pendulum_ppo_box",
        "configs/pendulum_ppo.cfg",
        ["run.steps=2048", "run.eval_episodes=2", "algo.n_steps=128", "algo.hidden=[32]"],
        ["state/obs_count", "state/obs_var", "rollout/box_actions"],
    ),
    # a hybrid action: the rollout's moves and parameters, and Platform's state
    (
        "platform_ppo_hybrid",
        "configs/platform_ppo.cfg",
        ["run.steps=1024", "run.eval_episodes=2", "algo.n_steps=64", "algo.batch_size=256", "algo.hidden=[16]"],
        ["rollout/actions", "rollout/box_actions", "env/platform/state"],
    ),
]

# The atari env (where ALE is built): its state is ALE's own bytes behind a
# header and a hash.
if subprocess.run([RLHOST, "info", "atari"], capture_output=True).returncode == 0:
    CASES.append(
        (
            "breakout",
            "configs/breakout_ppo.cfg",
            [
                "run.steps=1280",
                "run.eval_episodes=1",
                "env.num_envs=2",
                "env.max_frames=2000",
                "algo.n_steps=64",
                "algo.batch_size=64",
                "algo.n_epochs=1",
                "algo.cnn_channels=[4, 4, 4]",
                "algo.hidden=[16]",
            ],
            ["env/atari/state", "env/atari/ale_cap"],
            ("env/", "eval_env/"),
        )
    )

work = tempfile.mkdtemp()
try:
    for name, cfg, sets, must, *only in CASES:
        prefixes = (
            only[0] if only else ("host/", "env/", "eval_env/", "state/", "rollout/", "replay/", "best/", "adam/t")
        )
        run = os.path.join(work, name)
        args = [
            "run",
            os.path.join(SRC, cfg),
            "--out",
            run,
            "--set",
            "run.quiet=true",
            "--set",
            "run.checkpoint_interval=1000",
        ]
        for s in sets:
            args += ["--set", s]
        rc, err = rlhost(*args)
        ok(rc == 0, f"{name}: train a run to corrupt (exit {rc})")
        if rc:
            print("#   " + err.strip().replace("\n", "\n#   "))
            continue
        files = ["checkpoint.safetensors"]
        if os.path.exists(os.path.join(run, "replay.safetensors")):
            files.append("replay.safetensors")
        step = int(header(os.path.join(run, "checkpoint.safetensors"))[1]["__metadata__"]["rlhost.step"])
        refused = {}
        for fname in files:
            names = [k for k in header(os.path.join(run, fname))[1] if k != "__metadata__"]
            for tensor in names:
                if not tensor.startswith(prefixes):
                    continue  # weights: NaN loads and the NaN guard takes over; covered by the fuzzer
                for fill in (0xFF, 0x41, 0x00):
                    bad = os.path.join(work, "bad")
                    shutil.rmtree(bad, ignore_errors=True)
                    shutil.copytree(run, bad)
                    os.remove(os.path.join(bad, "checkpoint.prev.safetensors"))
                    if os.path.exists(os.path.join(bad, "replay.prev.safetensors")):
                        os.remove(os.path.join(bad, "replay.prev.safetensors"))
                    overwrite(os.path.join(bad, fname), tensor, fill)
                    rc, err = rlhost("run", "--resume", bad, "--set", f"run.steps={step + 256}")
                    sane(rc, err, f"{name}: resume with {tensor} filled with {fill:#x}")
                    if rc == 1:
                        lines = [l for l in err.splitlines() if l.startswith("rlhost: error")]
                        ok(
                            len(lines) == 1 and bad in lines[0],
                            f"{name}: {tensor} {fill:#x}: one sentence naming the file",
                        )
                    if fill == 0xFF:
                        refused[tensor] = rc == 1 and tensor.split("/", 1)[1] in err
                    if fill == 0x00 and "rng" in tensor:  # an all-zero generator never produces
                        ok(
                            rc == 1 and "all-zero random generator state" in err,
                            f"{name}: {tensor} all zero is refused",
                        )
                    if fname == "checkpoint.safetensors" and fill == 0xFF:
                        rc, err = rlhost("eval", bad, "--episodes", "1")
                        sane(rc, err, f"{name}: eval with {tensor} filled with {fill:#x}")
        for tensor in must:
            ok(refused.get(tensor, False), f"{name}: {tensor} out of range is refused, the tensor named")
finally:
    shutil.rmtree(work, ignore_errors=True)

print(f"1..{n}")
sys.exit(1 if failed else 0)
