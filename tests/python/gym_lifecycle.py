"""The Python package's lifecycle and its checks, and Gymnasium's wrappers
on single rlhost envs: calls after close() raise, arrays stay valid,
garbage collection frees the C side (threads and memory), two threads on
one env are serialized, actions and counts are refused before any cast,
render() in both modes, RecordEpisodeStatistics, NormalizeObservation,
ClipAction and RecordVideo.
Usage: gym_lifecycle.py  (TAP on stdout; RLHOST_LIB_DIR and PYTHONPATH set)"""

import gc
import os
import tempfile
import threading
import warnings

import gymnasium as gym
import numpy as np
from gymnasium.wrappers import vector as vw
from tap import done, ok, skip  # tests/python/tap.py

import rlhost


def raises(call, exc, words, what):
    try:
        call()
    except exc as e:
        return ok(all(w in str(e) for w in words), f"{what}: {type(e).__name__}: {e}")
    except Exception as e:  # noqa: BLE001
        return ok(False, f"{what}: raised {type(e).__name__}: {e}, not {exc.__name__}")
    return ok(False, f"{what}: nothing raised")


def proc_status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def closed_calls():
    v = rlhost.make_vec("cartpole", 4, seed=1, copy=False, optimizations={"threads": 2})
    obs, _ = v.reset()
    obs, *_ = v.step(np.zeros(4, np.int64))
    keep = obs.copy()
    v.close()
    v.close()  # twice is fine
    ok(np.array_equal(obs, keep), "copy=False: an observation array handed out stays readable after close()")
    raises(lambda: v.step(np.zeros(4, np.int64)), rlhost.RlhostError, ["closed"], "step() after close()")
    raises(lambda: v.reset(), rlhost.RlhostError, ["closed"], "reset() after close()")
    ok(v.closed, "VectorEnv.closed says so")
    e = rlhost.make("cartpole", render_mode="ansi")
    e.reset()
    e.close()
    raises(lambda: e.step(0), rlhost.RlhostError, ["closed"], "Env.step() after close()")
    raises(lambda: e.render(), rlhost.RlhostError, ["closed"], "Env.render() after close()")


def garbage_collection():
    for _ in range(20):  # warm up allocators and the plugin registry
        rlhost.make_vec("snake", 8, optimizations={"threads": 2}).reset()
    gc.collect()
    threads0, rss0 = proc_status("Threads"), proc_status("VmRSS")
    live = rlhost.make_vec("snake", 8, optimizations={"threads": 2})
    live.reset()
    ok(
        proc_status("Threads") > threads0,
        f"a live env of 2 threads holds worker threads ({proc_status('Threads')} threads, {threads0} without it)",
    )
    del live
    for i in range(300):
        v = rlhost.make_vec("snake", 8, seed=i, optimizations={"threads": 2})
        v.reset()
        v.step(np.zeros(8, np.int64))
        del v
    gc.collect()
    threads1, rss1 = proc_status("Threads"), proc_status("VmRSS")
    ok(threads1 <= threads0, f"300 envs of 2 worker threads dropped without close(): threads {threads0} -> {threads1}")
    ok(rss1 - rss0 < 20_000, f"... and memory {rss0} kB -> {rss1} kB (under 20 MB of growth)")


def two_threads():
    v = rlhost.make_vec("cartpole", 16, seed=2)
    v.reset()
    errors = []

    def hammer(k):
        try:
            for t in range(2000):
                obs, r, term, trunc, _ = v.step(np.full(16, k % 2))
                if obs.shape != (16, 4) or not np.isfinite(obs).all():
                    errors.append(f"thread {k} step {t}: bad observation")
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    ts = [threading.Thread(target=hammer, args=(k,)) for k in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    ok(not errors, f"two threads stepping one env 2000 times each: serialized, no error {errors[:1]}")
    v.close()


def refusals():
    v = rlhost.make_vec("cartpole", 2)
    v.reset()
    raises(lambda: v.step(np.array([0.5, 1.0])), ValueError, ["0.5", "integers"], "a fractional discrete action")
    raises(lambda: v.step(np.array([2**40, 0])), ValueError, ["outside [0, 2)"], "a huge integer action (no wrap)")
    raises(lambda: v.step(np.array([-1, 0])), ValueError, ["outside [0, 2)"], "a negative action")
    raises(lambda: v.step(np.array([np.nan, 0])), ValueError, ["integers"], "a NaN discrete action")
    raises(lambda: v.step(np.array([True, False])), TypeError, ["bool"], "boolean actions")
    raises(lambda: v.step(["a", "b"]), TypeError, ["integers"], "string actions")
    raises(lambda: v.step([0, 1, 0]), ValueError, ["shape"], "three actions for two envs")
    ok(v.step(np.array([1.0, 0.0]))[0].shape == (2, 4), "integral floats are taken as the integers they are")
    v.close()
    p = rlhost.make_vec("pendulum", 2)
    p.reset()
    raises(lambda: p.step(np.array([[2.5], [0.0]])), ValueError, ["outside the box"], "a box action past high")
    raises(lambda: p.step(np.array([[np.inf], [0.0]])), ValueError, ["outside the box"], "an infinite box action")
    raises(lambda: p.step(np.array([["x"], ["y"]])), TypeError, ["numbers"], "string box actions")
    p.close()
    raises(lambda: rlhost.make_vec("cartpole", 2.5), TypeError, ["num_envs", "int"], "num_envs=2.5")
    raises(lambda: rlhost.make_vec("cartpole", 0), ValueError, ["num_envs", "outside"], "num_envs=0")
    raises(lambda: rlhost.make_vec("cartpole", True), TypeError, ["num_envs"], "num_envs=True")
    raises(lambda: rlhost.make_vec("cartpole", 2**33), ValueError, ["num_envs"], "num_envs=2**33 (no wrap)")
    raises(lambda: rlhost.make_vec("cartpole", 2, seed=-1), ValueError, ["seed"], "seed=-1")
    raises(lambda: rlhost.make_vec("cartpole", 2, seed=2**64), ValueError, ["seed"], "seed=2**64")
    raises(
        lambda: rlhost.make_vec("cartpole", 2, autoreset_mode="Disabled"),
        ValueError,
        ["autoreset_mode"],
        "autoreset_mode='Disabled'",
    )
    raises(
        lambda: rlhost.make_vec("snake", 2, snakes=2, autoreset_mode="NextStep"),
        rlhost.RlhostError,
        ["agents", "same step"],
        "next-step autoreset of a multi-agent env",
    )
    raises(
        lambda: rlhost.make_vec("cartpole", 2, render_mode="human"), ValueError, ["render_mode"], "render_mode='human'"
    )


def rendering():
    for name, opts in (
        ("cartpole", {}),
        ("pendulum", {}),
        ("mountain_car_continuous", {}),
        ("snake", {"width": 8, "height": 8}),
        ("snake", {"snakes": 3}),
        ("gridworld", {}),
    ):
        v = rlhost.make_vec(name, 2, seed=4, render_mode="rgb_array", autoreset_mode="SameStep", **opts)
        v.reset()
        f0 = v.render()
        for _ in range(5):
            v.step(v.action_space.sample())
        f1 = v.render()
        shapes = {f.shape for f in f0 + f1}
        good = (
            len(f0) == v.num_envs
            and len(shapes) == 1
            and all(f.dtype == np.uint8 for f in f0)
            and all(len(np.unique(f.reshape(-1, 3), axis=0)) > 1 for f in f0)
        )
        ok(
            good and any(not np.array_equal(a, b) for a, b in zip(f0, f1)),
            f"{name} {opts}: rgb_array frames {shapes} per env, drawn, and moving",
        )
        v.close()
    e = rlhost.make("snake", render_mode="ansi", width=6, height=6)
    e.reset()
    text = e.render()
    ok(isinstance(text, str) and "@" in text and "#" in text, "snake render_mode='ansi': the text board")
    e.close()


def single_wrappers():
    e = gym.wrappers.RecordEpisodeStatistics(rlhost.make("cartpole", seed=3))
    e.reset()
    rng = np.random.default_rng(0)
    total, good, episodes = 0.0, True, 0
    for _ in range(600):
        _, r, term, trunc, info = e.step(int(rng.integers(0, 2)))
        total += r
        if term or trunc:
            good &= info["episode"]["r"] == total and info["episode"]["l"] == int(total)
            total, episodes = 0.0, episodes + 1
            e.reset()
    ok(good and episodes > 10, f"RecordEpisodeStatistics on Env: returns as summed ({episodes} episodes)")
    n = gym.wrappers.NormalizeObservation(rlhost.make("cartpole", seed=3))
    n.reset()
    for _ in range(200):
        obs, _, term, trunc, _ = n.step(1)
        if term or trunc:
            n.reset()
    ok(n.obs_rms.count > 200 and np.isfinite(obs).all(), "NormalizeObservation on Env")
    a, b = rlhost.make("pendulum", seed=5), gym.wrappers.ClipAction(rlhost.make("pendulum", seed=5))
    a.reset()
    b.reset()
    same = all(np.array_equal(a.step(np.array([2.0], np.float32))[0], b.step(np.array([7.5]))[0]) for _ in range(20))
    ok(same, "ClipAction on Env: 7.5 reaches the env as 2.0")
    va = rlhost.make_vec("pendulum", 3, seed=5)
    vb_ = vw.ClipAction(rlhost.make_vec("pendulum", 3, seed=5))
    va.reset()
    vb_.reset()
    same = all(np.array_equal(va.step(np.full((3, 1), -2.0))[0], vb_.step(np.full((3, 1), -9.0))[0]) for _ in range(20))
    ok(same, "ClipAction on VectorEnv")
    try:
        import moviepy  # noqa: F401
    except ImportError:
        skip("RecordVideo: moviepy is not installed (scripts/pydeps.sh installs it)")
        return
    d = os.path.join(tempfile.mkdtemp(), "videos")
    r = gym.wrappers.RecordVideo(
        rlhost.make("cartpole", seed=1, render_mode="rgb_array"), d, episode_trigger=lambda k: True, disable_logger=True
    )
    r.reset()
    ends = 0
    while ends < 2:
        _, _, term, trunc, _ = r.step(int(np.random.default_rng(ends).integers(0, 2)))
        if term or trunc:
            ends += 1
            r.reset()
    r.close()
    vids = [f for f in os.listdir(d) if f.endswith(".mp4")]
    ok(
        len(vids) >= 2 and all(os.path.getsize(os.path.join(d, f)) > 1000 for f in vids),
        f"RecordVideo on Env writes a video per episode ({sorted(vids)})",
    )
    d = os.path.join(tempfile.mkdtemp(), "videos")
    v = vw.RecordVideo(
        rlhost.make_vec("pendulum", 4, seed=1, render_mode="rgb_array"), d, episode_trigger=lambda k: k == 0
    )
    v.reset(seed=1)
    for _ in range(210):  # one Pendulum episode (200 steps) and a bit
        v.step(v.action_space.sample())
    v.close()
    vids = [f for f in os.listdir(d) if f.endswith(".mp4")]
    ok(
        len(vids) == 1 and os.path.getsize(os.path.join(d, vids[0])) > 1000,
        f"vector RecordVideo on VectorEnv tiles the 4 envs' frames into a video ({sorted(vids)})",
    )


def main():
    warnings.simplefilter("ignore", DeprecationWarning)
    closed_calls()
    garbage_collection()
    two_threads()
    refusals()
    rendering()
    single_wrappers()
    done()


if __name__ == "__main__":
    main()
