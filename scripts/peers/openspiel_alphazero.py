#!/usr/bin/env python3
"""OpenSpiel's AlphaZero (open_spiel.python.algorithms.alpha_zero, JAX) on
Connect Four, the peer of configs/connect_four_alphazero.cfg: the same
network (an MLP of two 256-wide layers), SIMULATIONS simulations a move,
UCT's c = 2, root noise Dir(1.0) at 0.25, ACTORS self-play processes.  It
runs for SECONDS, then reads the actors' logs: every finished game's moves
and the time it ended, and prints one JSON line: self-play states (moves)
per second, from the first game's start to the last game's end.

  python openspiel_alphazero.py [--simulations 200] [--actors 1] [--seconds 240]

Needs the open_spiel wheel with JAX (pip install open_spiel "jax[cpu]" flax
optax chex orbax-checkpoint), in a venv of its own."""

import argparse
import datetime
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import tempfile


def child(a, path):
    import pyspiel
    from open_spiel.python.algorithms.alpha_zero import alpha_zero

    game = pyspiel.load_game("connect_four")
    config = alpha_zero.Config(
        game="connect_four",
        path=path,
        learning_rate=1e-3,
        weight_decay=1e-5,
        decouple_weight_decay=False,
        train_batch_size=512,
        replay_buffer_size=2**12,
        replay_buffer_reuse=4,
        max_steps=0,
        checkpoint_freq=1000,
        actors=a.actors,
        evaluators=0,
        evaluation_window=100,
        eval_levels=7,
        uct_c=2.0,
        max_simulations=a.simulations,
        policy_alpha=1.0,
        policy_epsilon=0.25,
        temperature=1.0,
        temperature_drop=8,
        nn_model="mlp",
        nn_width=256,
        nn_depth=2,
        observation_shape=game.observation_tensor_shape(),
        output_size=game.num_distinct_actions(),
        verbose=False,
        quiet=True,
    )
    alpha_zero.alpha_zero(config)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--simulations", type=int, default=200)
    ap.add_argument("--actors", type=int, default=1)
    ap.add_argument("--seconds", type=int, default=240)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a, a.path)
        return
    with tempfile.TemporaryDirectory(prefix="osp-az-") as path:
        cmd = [sys.executable, __file__, "--child", "--path", path]
        cmd += ["--simulations", str(a.simulations), "--actors", str(a.actors)]
        # its own session, so that the actors it spawns end with it
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(timeout=a.seconds)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        states, games, t0, t1 = 0, 0, None, None
        for name in os.listdir(path):
            if not name.startswith("log-actor-"):
                continue
            with open(os.path.join(path, name)) as f:
                for line in f:
                    m = re.match(r"\[([0-9-]+ [0-9:.]+)\] (.*)", line)
                    if not m:
                        continue
                    t = datetime.datetime.fromisoformat(m.group(1)).timestamp()
                    if t0 is None or t < t0:
                        t0 = t  # the actor's first line: its start
                    g = re.match(r"Game \d+: Returns: .*; Actions: (.*)", m.group(2))
                    if g:
                        states += len(g.group(1).split())
                        games += 1
                        t1 = t if t1 is None else max(t1, t)
    rate = states / (t1 - t0) if games and t1 > t0 else None
    print(
        json.dumps(
            {
                "peer": "openspiel_alphazero",
                "simulations": a.simulations,
                "actors": a.actors,
                "games": games,
                "states": states,
                "states_per_s": rate,
            }
        )
    )


if __name__ == "__main__":
    multiprocessing.freeze_support()
    main()
