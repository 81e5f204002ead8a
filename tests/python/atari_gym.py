"""The atari env against Gymnasium + ale-py, byte for byte.

Gymnasium's reference: gymnasium.make("ALE/<Game>-v5", frameskip=1) under
AtariPreprocessing(noop_max=30, frame_skip=4, screen_size=84) and
FrameStackObservation(4), env i reset with seed s + i, then reset() without
a seed whenever an episode ends.  rlhost's: make_vec("atari", n, seed=s)
with same-step autoreset.  Both get the same actions (a fixed random
sequence); every observation (and every final observation), reward,
terminated and truncated flag must be equal, and rlhost's score must be
the game's raw score.  Games: Pong (a short frame limit, so truncations
and resets come often) and Breakout (games end as lives run out), with
sticky actions (the default 0.25), and Breakout again with the full
action set and other sizes.  Then rgb_array frames against ale-py's
screens, and a trained policy's env (make_env) without the training
options.  With --record FILE it also writes the reference's steps as
sha256 digests of the observations: no ROM byte is stored.
Usage: atari_gym.py RLHOST SOURCE_ROOT [--record FILE]  (TAP on stdout; RLHOST_LIB_DIR and PYTHONPATH set)"""

import hashlib
import os
import sys
import tempfile

import ale_py
import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation
from tap import done, ok  # tests/python/tap.py

import rlhost

SRC = sys.argv[2]  # the source root (binding.sh passes RLHOST SRC)

gym.register_envs(ale_py)

CASES = [
    # (game, env options, seed, envs, steps)
    ("pong", {"max_frames": 1200}, 3, 2, 900),
    ("breakout", {}, 11, 2, 1200),
    (
        "breakout",
        {"full_action_space": True, "screen_size": 64, "frame_stack": 2, "noop_max": 5, "max_frames": 3000},
        5,
        1,
        700,
    ),
    # a lost life ends the episode at that frame, the next is a new game
    ("breakout", {"terminal_on_life_loss": True}, 13, 2, 600),
    # a frame limit inside the first reset's no-ops: Gymnasium's inner
    # reset is seeded again
    ("qbert", {"max_frames": 20}, 91, 2, 120),
    # a whole-scale size: OpenCV's integer path, rounding ties included
    ("ms_pacman", {"screen_size": 10}, 79, 1, 400),
]


def reference(game, opts, seed):
    name = "".join(w.capitalize() for w in game.split("_"))
    env = gym.make(
        f"ALE/{name}-v5",
        frameskip=1,
        full_action_space=opts.get("full_action_space", False),
        max_num_frames_per_episode=opts.get("max_frames", 108000),
    )
    env = AtariPreprocessing(
        env,
        noop_max=opts.get("noop_max", 30),
        frame_skip=4,
        screen_size=opts.get("screen_size", 84),
        terminal_on_life_loss=opts.get("terminal_on_life_loss", False),
    )
    env = FrameStackObservation(env, opts.get("frame_stack", 4))
    return env


def digest(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def run_case(game, opts, seed, n, steps, record):
    refs = [reference(game, opts, seed) for _ in range(n)]
    ref_obs = [r.reset(seed=seed + i)[0] for i, r in enumerate(refs)]
    v = rlhost.make_vec("atari", n, seed=seed, autoreset_mode=AutoresetMode.SAME_STEP, game=game, **opts)
    obs, _ = v.reset()
    label = f"{game} {opts} seed {seed}"
    same = all(np.array_equal(obs[i], ref_obs[i]) for i in range(n))
    ok(same, f"{label}: first observations equal ({obs.shape})")
    if record is not None:
        for i in range(n):
            record.write(f"reset {i} {digest(ref_obs[i])}\n")
    rng = np.random.default_rng(seed)
    bad, ends, scores = [], 0, [0.0] * n
    for t in range(steps):
        acts = rng.integers(0, v.single_action_space.n, n)
        obs, rew, term, trunc, info = v.step(acts)
        for i in range(n):
            o, r, te, tr, ref_info = refs[i].step(int(acts[i]))
            mine = info["final_info"] if te or tr else info
            for key in ("lives", "episode_frame_number", "frame_number"):
                if mine[key][i] != ref_info[key]:
                    bad.append(f"step {t} env {i}: info {key} {mine[key][i]} against {ref_info[key]}")
            scores[i] += r
            line = f"step {t} {i} {acts[i]} {r:g} {int(te)} {int(tr)} {digest(o)}"
            if rew[i] != r or bool(term[i]) != te or bool(trunc[i]) != tr:
                bad.append(f"step {t} env {i}: rlhost ({rew[i]}, {term[i]}, {trunc[i]}) gym ({r}, {te}, {tr})")
            if te or tr:
                ends += 1
                if not np.array_equal(info["final_obs"][i], o):
                    bad.append(f"step {t} env {i}: final observations differ")
                got = info["final_info"]["score"][i]
                if got != scores[i]:
                    bad.append(f"step {t} env {i}: score {got} against the game's {scores[i]}")
                scores[i] = 0.0
                o, _ = refs[i].reset()
                line += f" reset {digest(o)}"
            if not np.array_equal(obs[i], o):
                bad.append(f"step {t} env {i}: observations differ in {int((obs[i] != o).sum())} bytes")
            if record is not None:
                record.write(line + "\n")
        if len(bad) > 5:
            break
    v.close()
    for b in bad[:5]:
        print(f"# {b}")
    ok(not bad, f"{label}: {steps} steps x {n} envs equal, {ends} episode ends")
    return ends


def render_check():
    """rgb_array frames (RecordVideo's) are ale-py's screens."""
    ref = reference("breakout", {}, 7)
    ref.unwrapped.render_mode = "rgb_array"
    ref.reset(seed=7)
    env = rlhost.make("atari", seed=7, render_mode="rgb_array", game="breakout")
    env.reset()
    rng = np.random.default_rng(7)
    same = True
    for _ in range(60):
        a = int(rng.integers(0, 4))
        env.step(a)
        ref.step(a)
        f, g = env.render(), ref.render()
        same &= f.shape == (210, 160, 3) and np.array_equal(f, g)
    env.close()
    ok(same, "render_mode rgb_array gives ale-py's own frames (210 x 160 x 3), 60 steps")


def first_end(v):
    """Steps v (one env) with random actions to its first episode end: the steps and its score."""
    v.reset()
    rng = np.random.default_rng(0)
    for t in range(30000):
        _, _, term, trunc, info = v.step(rng.integers(0, v.single_action_space.n, 1))
        if term[0] or trunc[0]:
            return t, info["final_info"]["score"][0]
    return t, None


def training_options_check():
    """A trained policy's env (make_env) is opened as `rlhost eval` opens it:
    Breakout trained with episodic_life ends an episode at a lost life with
    no score, the policy's env plays whole games with their scores."""
    with tempfile.TemporaryDirectory() as d:
        p = rlhost.run(
            os.path.join(SRC, "configs", "breakout_ppo.cfg"),
            run__steps=128,
            run__quiet=True,
            run__eval_episodes=0,
            run__out_dir=d,
            env__num_envs=2,
            algo__n_steps=64,
            algo__batch_size=64,
            algo__n_epochs=1,
            algo__cnn_channels=[4, 4, 4],
            algo__hidden=[16],
            force=True,
        )
        t, score = first_end(
            rlhost.make_vec(
                "atari",
                1,
                seed=3,
                autoreset_mode=AutoresetMode.SAME_STEP,
                game="breakout",
                repeat_action_probability=0.0,
                episodic_life=True,
                reward_clip=True,
                fire_reset=True,
            )
        )
        ok(
            score is not None and np.isnan(score),
            f"the training env: a lost life ends the episode at step {t}, score NaN (no game ended)",
        )
        t, score = first_end(p.make_env(1, seed=3))
        ok(
            score is not None and np.isfinite(score),
            f"the policy's env (make_env) plays a whole game: {t + 1} steps, score {score}",
        )


def main():
    record = None
    if len(sys.argv) > 4 and sys.argv[3] == "--record":
        record = open(sys.argv[4], "w")
        record.write(
            f"# atari env reference: gymnasium {gym.__version__}, ale-py {ale_py.__version__}; "
            "made by tests/python/atari_gym.py --record; sha256[:16] of the observations\n"
        )
    total = 0
    for game, opts, seed, n, steps in CASES:
        if record is not None:
            record.write(f"case {game} {seed} {n} {steps} {' '.join(f'{k}={v}' for k, v in opts.items())}\n")
        total += run_case(game, opts, seed, n, steps, record)
    ok(total >= 6, f"the cases ended {total} episodes (terminations and truncations both seen)")
    render_check()
    training_options_check()
    done()


main()
