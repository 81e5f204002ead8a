#!/usr/bin/env python3
"""OpenSpiel's C++ MCTSBot (pyspiel) with a random-rollout evaluator on
Connect Four, the peer of `rlhost bench search connect_four`: from POSITIONS
positions of OPENING uniformly random moves (none that ends the game), one
search of SIMULATIONS simulations each, one rollout a leaf, UCT's c = 2, one
thread.  Prints one JSON line: simulations per second.

  python openspiel_mcts.py [--positions 64] [--opening 8] [--simulations 1000] [--seed 1]

Needs the open_spiel wheel (pip install open_spiel), in a venv of its own."""

import argparse
import json
import random
import time

import pyspiel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=64)
    ap.add_argument("--opening", type=int, default=8)
    ap.add_argument("--simulations", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    game = pyspiel.load_game("connect_four")
    rng = random.Random(a.seed)
    states = []
    while len(states) < a.positions:
        s = game.new_initial_state()
        for _ in range(a.opening):
            s.apply_action(rng.choice(s.legal_actions()))
            if s.is_terminal():
                break
        if not s.is_terminal():
            states.append(s)
    ev = pyspiel.RandomRolloutEvaluator(1, a.seed)
    bot = pyspiel.MCTSBot(game, ev, 2.0, a.simulations, 1 << 30, False, a.seed, False)
    t0 = time.perf_counter()
    for s in states:
        bot.step(s)
    dt = time.perf_counter() - t0
    print(
        json.dumps(
            {
                "peer": "openspiel_mcts",
                "version": pyspiel.__version__ if hasattr(pyspiel, "__version__") else "",
                "positions": len(states),
                "simulations": a.simulations,
                "simulations_per_s": len(states) * a.simulations / dt,
            }
        )
    )


if __name__ == "__main__":
    main()
