#!/usr/bin/env python3
"""Writes env_config.h and config.js for the snake page from a run's
config.cfg (the fully resolved config rlhost writes into every run
directory): the env's options as the snake plugin reads them, and the
run's evaluation seed (rlhost eval's: run.seed ^ 0x5eed5eed5eed5eed).
Usage: env_config.py CONFIG_CFG OUT_DIR"""
import json
import re
import sys

cfg_path, out = sys.argv[1:3]
text = open(cfg_path).read()


def group(name):
    m = re.search(rf"^{name}: {{\n(.*?)^}};", text, re.S | re.M)
    if not m:
        sys.exit(f"{cfg_path}: no {name} group (not a config rlhost wrote?)")
    return {k: v.strip().strip('"') for k, v in re.findall(r"^  (\w+) = (.*?);$", m.group(1), re.M)}


env, run, algo = group("env"), group("run"), group("algo")
if env.get("plugin") != "snake":
    sys.exit(f"{cfg_path}: env '{env.get('plugin')}': the page plays snake")
if env["snakes"] != "1":
    sys.exit(f"{cfg_path}: snakes = {env['snakes']}: the page plays one snake")
modes = ["features", "grid", "window", "dict"]
W, H = int(env["width"]), int(env["height"])
relative = env["actions"] == "relative"
macros = {
    "SN_W": W, "SN_H": H,
    "SN_PAD": int(env["vision"]) if env["observation"] == "window" else 1,
    "SN_INITIAL_LENGTH": int(env["initial_length"]),
    "SN_MAX_IDLE": 2 * W * H if env["max_idle_steps"] == "auto" else int(env["max_idle_steps"]),
    "SN_RELATIVE": int(relative),
    "SN_FOOD_REWARD": float(env["food_reward"]), "SN_DEATH_REWARD": float(env["death_reward"]),
    "SN_STEP_REWARD": float(env["step_reward"]), "SN_DISTANCE_SHAPING": float(env["distance_shaping"]),
    "SN_MODE": modes.index(env["observation"]),
    "SN_ORDER": int(env["body_order"] == "true"), "SN_FLOOD": int(env["flood_fill"] == "true"),
    "SN_TAIL": int(env["tail_reach"] == "true"),
    "SN_MASK": ["none", "reverse", "deadly"].index(env["action_mask"]),
    "SN_ACTIONS": 3 if relative else 4,
}
with open(f"{out}/env_config.h", "w") as f:
    f.write(f"/* The snake env's options, from {cfg_path} (env_config.py). */\n")
    for k, v in macros.items():
        f.write(f"#define {k} {repr(v) + 'f' if isinstance(v, float) else v}\n")
seed = int(run["seed"]) & (2**64 - 1)
info = {"evalSeed": f"{seed ^ 0x5eed5eed5eed5eed:016x}", "algo": algo["plugin"], "width": W, "height": H,
        "observation": env["observation"]}
with open(f"{out}/config.js", "w") as f:
    f.write(f"// The run the page plays (env_config.py).\nconst RUN = {json.dumps(info)};\n")
