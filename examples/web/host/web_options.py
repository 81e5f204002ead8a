#!/usr/bin/env python3
"""Writes web_options.h and config.js for the page from a run's config.cfg
(the fully resolved config rlhost writes into every run directory): the
env plugin's name and each of its options and stages as a value the web
host hands the plugin (host/web_host.c matches them to the plugin's own
option table by name), whether the env is a game of seats (then the page
is a game against the searched policy, host/web_versus.c) and the value
scale its search uses, and for the page the run's evaluation seed.  The
seats and the seed are what rlhost wrote into the run's summary.json: the
env's own seats, whether or not the config has a seats group, and what
`rlhost eval` plays from.
Usage: web_options.py CONFIG_CFG OUT_DIR"""

import json
import math
import os
import re
import sys

cfg_path, out = sys.argv[1:3]
text = open(cfg_path).read()


def group(name, body=text, indent=""):
    m = re.search(rf"^{indent}{name}: {{\n(.*?)^{indent}}};", body, re.S | re.M)
    if not m:
        sys.exit(f"web_options.py: {cfg_path} has no {name} group (not a config rlhost wrote?)")
    return m.group(1)


def settings(body, indent):
    return re.findall(rf"^{indent}(\w+) = (.*?);$", body, re.M)


def c_str(s):
    return json.dumps(s)  # a C string literal: JSON's escapes are C's


env_body = group("env")
run = dict(settings(group("run"), "  "))
algo = dict(settings(group("algo"), "  "))
env = settings(env_body, "  ")
opt = settings(group("optimizations", env_body, "  "), "    ") if "optimizations:" in env_body else []
name = dict(env)["plugin"].strip('"')
summary = os.path.join(os.path.dirname(cfg_path), "summary.json")
try:
    with open(summary) as f:
        facts = json.load(f)
    eval_seed, seats = facts["eval_seed"], facts["seats"]
    int(eval_seed, 16)
except (OSError, ValueError, KeyError, TypeError) as e:
    sys.exit(f"web_options.py: {summary} gives no eval_seed or seats ({e}): run or resume the run with this rlhost")
if not re.fullmatch(r"[0-9a-f]{16}", eval_seed):
    sys.exit(f"web_options.py: {summary}: eval_seed {eval_seed!r} is not 16 hex digits")
if type(seats) is not int or not 0 <= seats <= 64:
    sys.exit(f"web_options.py: {summary}: seats {seats!r} is not a count of seats")
versus = seats >= 2
try:
    value_scale = float(algo.get("value_scale", "1.0"))
except ValueError:
    value_scale = math.nan
if not (math.isfinite(value_scale) and value_scale > 0):
    sys.exit(f"web_options.py: {cfg_path}: algo.value_scale {algo.get('value_scale')!r} is not a positive number")
lines, entries = [], []
for k, (key, val) in enumerate([kv for kv in env + opt if kv[0] not in ("plugin", "num_envs")]):
    v = val.strip()
    fields = {"is_auto": 0, "i": 0, "f": "0.0", "s": "NULL", "n": 0, "ilist": "NULL", "slist": "NULL"}
    if v == '"auto"':
        fields.update(is_auto=1, s=c_str("auto"))
    elif v.startswith('"'):
        fields["s"] = c_str(json.loads(v))
    elif v in ("true", "false"):
        fields["i"] = int(v == "true")
    elif v.startswith("[") or v.startswith("("):
        items = [x.strip() for x in v[1:-1].split(",") if x.strip()]
        fields["n"] = len(items)
        if items and items[0].startswith('"'):
            lines.append(f"static const char *const list{k}[] = {{{', '.join(c_str(json.loads(x)) for x in items)}}};")
            fields["slist"] = f"list{k}"
        elif items:
            lines.append(f"static const int64_t list{k}[] = {{{', '.join(str(int(x)) for x in items)}}};")
            fields["ilist"] = f"list{k}"
    else:
        f = float(v)
        fields.update(f=repr(f), i=int(f))
    entries.append(
        f"    {{{c_str(key)}, {fields['is_auto']}, {fields['i']}, {fields['f']}, {fields['s']}, "
        f"{fields['n']}, {fields['ilist']}, {fields['slist']}}},"
    )
with open(f"{out}/web_options.h", "w") as f:
    # the path stays out: a string read from the run is data, never code
    f.write(
        "/* The env's options from the run's config.cfg (host/web_options.py). */\n"
        "#include <stddef.h>\n#include <stdint.h>\n\n"
    )
    f.write(f"#define WEB_ENV_NAME {c_str(name)}\n\n")
    # a game of seats: the page where a person plays the searched policy
    # (host/web_versus.c), its values scaled as the algorithm scales them
    if versus:
        f.write(f"#define WEB_VERSUS 1\n#define WEB_VALUE_SCALE {value_scale!r}\n\n")
    f.write(
        "typedef struct web_option {\n    const char *name;\n    int is_auto;\n    int64_t i;\n    double f;\n"
        "    const char *s;\n    size_t n;\n    const int64_t *ilist;\n    const char *const *slist;\n"
        "} web_option;\n\n"
    )
    f.write("\n".join(lines) + ("\n" if lines else ""))
    f.write("static const web_option web_options[] = {\n" + "\n".join(entries) + "\n};\n")
    f.write("#define WEB_N_OPTIONS (sizeof web_options / sizeof web_options[0])\n")
info = {"evalSeed": eval_seed, "algo": algo["plugin"].strip('"'), "env": name, "versus": versus}
with open(f"{out}/config.js", "w") as f:
    f.write(f"// The run the page plays (host/web_options.py).\nconst RUN = {json.dumps(info)};\n")
