"""A seeded generator of crafted policy descriptions for the exporter: each
mutation of a real checkpoint's algo.policy (a number made huge,
negative, fractional or a string, a key dropped, an op renamed, repeated
or nested, the greedy rule changed) is either refused with one sentence
(rlhost.RlhostError, never another exception) or exported, and every C
file exported compiles with -Werror.
Usage: export_fuzz.py RLHOST SOURCE_ROOT [MUTATIONS]  (TAP; RLHOST_LIB_DIR and PYTHONPATH set)"""

import json
import os
import random
import struct
import subprocess
import sys
import tempfile

import rlhost

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

RL, SRC = sys.argv[1:3]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 160
T = tempfile.mkdtemp()
CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c"]

# one run of each kind of network: an MLP over discrete actions, a CNN, a
# composite observation with masks, a Gaussian box policy, batchnorm ops,
# a residual tower
RUNS = {
    "dqn": ("cartpole_dqn.cfg", 600, []),
    "cnn": ("gridworld_cnn_ppo.cfg", 512, []),
    "parts": ("snake_dict_ppo.cfg", 512, []),
    "box": ("pendulum_sac.cfg", 400, []),
    "renorm": ("pendulum_crossq.cfg", 400, []),
    "resnet": (
        "connect_four_alphazero.cfg",
        640,
        ["algo.network=resnet", "algo.channels=8", "algo.blocks=1", "algo.hidden=[16]", "search.simulations=8"],
    ),
}
runs = {}
for name, (cfg, steps, sets) in RUNS.items():
    out = os.path.join(T, name)
    r = subprocess.run(
        [RL, "run", os.path.join(SRC, "configs", cfg), "--set", f"run.steps={steps}", "--set", "run.eval_episodes=1"]
        + ["--set", "run.quiet=true", "--out", out]
        + [a for kv in sets for a in ("--set", kv)],
        capture_output=True,
        text=True,
    )
    ok(r.returncode == 0, f"a {name} run to mutate ({cfg})")
    if r.returncode == 0:
        runs[name] = os.path.join(out, "checkpoint.safetensors")


def read(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    return json.loads(raw[8 : 8 + n]), raw[8 + n :]


def write(path, header, data):
    hb = json.dumps(header).encode()
    hb += b" " * (-len(hb) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)) + hb + data)


VALUES = [0, -1, 1, 2, 3, 7, 2.5, 1e999, -1e999, 2**31, 2**40, 1 << 24, "4", None, True, [], [4], {}]


def ops_of(node, found):
    """Every op dict of a description (outputs, concat parts, dueling streams,
    residual ops)."""
    if isinstance(node, dict):
        if "op" in node:
            found.append(node)
        for v in node.values():
            ops_of(v, found)
    elif isinstance(node, list):
        for v in node:
            ops_of(v, found)
    return found


def mutate(rng, spec):
    """One random edit of the description, in place; what it did."""
    ops = ops_of(spec["outputs"], [])
    kind = rng.randrange(6)
    if kind == 0 and ops:  # a number (or any field) of an op replaced
        op = rng.choice(ops)
        key = rng.choice(sorted(op))
        op[key] = rng.choice(VALUES)
        return f"{op.get('op')}.{key} = {op[key]!r}"
    if kind == 1 and ops:  # a field dropped
        op = rng.choice(ops)
        key = rng.choice(sorted(op))
        del op[key]
        return f"{op.get('op')} without {key}"
    if kind == 2 and ops:  # an op renamed
        op = rng.choice(ops)
        op["op"] = rng.choice(
            ["linear", "conv2d", "concat", "lstm", "mean", "slice", "batchnorm", "residual", "gelu", 3]
        )
        return f"an op renamed {op['op']!r}"
    if kind == 3:  # an output's ops repeated or nested
        name = rng.choice(sorted(spec["outputs"]))
        spec["outputs"][name] = rng.choice(
            [spec["outputs"][name] * 2, [{"op": "concat", "parts": [spec["outputs"][name]] * rng.randrange(1, 4)}]]
        )
        return f"output {name!r} repeated or nested"
    if kind == 4:  # the greedy rule
        spec["greedy"] = rng.choice(
            [{"argmax": "nope"}, {"identity": "q"}, {}, "argmax", {"argmax": rng.choice(sorted(spec["outputs"]))}]
        )
        return f"greedy {spec['greedy']!r}"
    spec["input"]["size"] = rng.choice(VALUES)  # the input's width
    return f"input.size {spec['input']['size']!r}"


rng = random.Random(20261129)
refused = exported = 0
bad = []
names = sorted(runs)
for i in range(N if runs else 0):
    name = names[i % len(names)]
    header, data = read(runs[name])
    spec = json.loads(header["__metadata__"]["algo.policy"])
    what = mutate(rng, spec)
    header["__metadata__"]["algo.policy"] = json.dumps(spec)
    path = os.path.join(T, f"m{i}.safetensors")
    write(path, header, data)
    fmt = "c" if i % 4 else "onnx"
    out = os.path.join(T, f"m{i}.{fmt}")
    try:
        files = rlhost.export(path, fmt, out, name=f"m{i}")
    except rlhost.RlhostError as e:
        refused += 1
        if "\n" in str(e) or not str(e):
            bad.append(f"{name}: {what}: a refusal of more or less than one line: {e!r}")
        continue
    except Exception as e:  # noqa: BLE001 - any other exception is the defect this looks for
        bad.append(f"{name}: {what}: {type(e).__name__}: {e}")
        continue
    exported += 1
    if fmt == "c":
        r = subprocess.run(["cc", *CFLAGS, files[0], "-o", out + ".o"], capture_output=True, text=True)
        if r.returncode != 0:
            bad.append(f"{name}: {what}: the export does not compile: {r.stderr.strip()[:300]}")
    os.unlink(path)
print(f"# {N} mutations: {refused} refused, {exported} exported")
for b in bad[:10]:
    print(f"#   {b}")
ok(runs and not bad, f"{N} crafted descriptions: each refused in one sentence or exported, every C export compiles")
ok(refused > N // 2, f"most crafted descriptions are refused ({refused} of {N})")
done()
