"""Replays observations through an exported policy: onnxruntime on the ONNX
model, and the C file compiled with a small driver.  Shared by
export_check.py (observations from `rlhost eval --trace`) and
export_configs.py (every shipped config).

A Steps holds, per step: the env row it came from, whether an episode
starts there (recurrent state cleared), the observation row as the env
wrote it (bytes of its parts for a composite one), the mask, and the
action rlhost took.  Actions come back as float64 [steps][dim], with the
greedy output ("params") beside them."""

import json
import os
import shutil
import subprocess

import numpy as np

DT = {"F32": np.float32, "U8": np.uint8, "I32": np.int32}
CFLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic"]


class Steps:
    def __init__(self, meta, obs, masks, envs, starts, actions):
        self.obs_meta = json.loads(meta["rlhost.observation"])
        self.space = json.loads(meta["rlhost.action_space"])
        spec = json.loads(meta["algo.policy"])
        g = spec["greedy"]
        ops = spec["outputs"][next(g[k] for k in ("argmax", "identity", "sample_softmax", "sample_gaussian") if k in g)]
        self.recurrent = '"lstm"' in json.dumps(ops)
        self.parts = self.obs_meta.get("parts")
        self.obs, self.masks, self.envs, self.starts = obs, masks, envs, starts
        self.actions = np.asarray(actions, np.float64).reshape(len(obs), -1)
        self.box = self.space["type"] == "box"
        self.nvec = [self.space["n"]] if self.space["type"] == "discrete" else self.space.get("nvec")
        # a hybrid action: its components, then its box's floats, in one row of actions
        self.floats = int(self.space["dim"]) if self.space["type"] == "hybrid" else 0

    def __len__(self):
        return len(self.obs)

    def rows(self):
        """The observation rows as bytes, [steps][row bytes]."""
        return np.ascontiguousarray(self.obs).view(np.uint8).reshape(len(self.obs), -1)


def play(policy, num_envs, steps, seed):
    """rlhost's own policy (an rlhost.Policy) playing its env (make_env, as
    `rlhost eval` opens it) for `steps` steps: (rows per step, and per step
    the observation as the env gave it, its rows as the C policy reads them,
    the masks or None, the episode starts and the actions taken)."""
    env = policy.make_env(num_envs=num_envs, seed=seed)
    obs, _ = env.reset(seed=seed)
    n = policy._rows(obs)[0].shape[0]  # an env with several agents has a row for each
    start = np.ones(n, bool)
    out = {"natives": [], "rows": [], "masks": [], "starts": [], "actions": []}
    for _ in range(steps):
        m = env.action_masks() if policy.mask_width else None
        a = policy(obs, episode_start=start, action_masks=m)
        out["natives"].append(obs)
        out["rows"].append(policy._rows(obs)[0].copy())
        out["masks"].append(None if m is None else np.asarray(m).reshape(n, -1).astype(np.uint8))
        out["starts"].append(start.copy())
        if isinstance(a, tuple):  # a hybrid action's pair: its components, then its floats
            out["actions"].append(np.concatenate([np.asarray(x, np.float64).reshape(n, -1) for x in a], axis=1))
        else:
            out["actions"].append(np.asarray(a, np.float64).reshape(n, -1))
        obs, _, term, trunc, _ = env.step(a)
        start = np.asarray(term) | np.asarray(trunc)
    env.close()
    return n, out


def read_meta(checkpoint):
    with open(checkpoint, "rb") as f:
        return json.loads(f.read(int.from_bytes(f.read(8), "little")))["__metadata__"]


def compare(s, mine, params):
    """(passed, description) of actions `mine` against the ones rlhost took.
    Discrete: identical, except where the exported policy's two best
    allowed values lie within 1e-4 (a float near-tie), at most 0.1% of the
    steps.  Box: within 1e-5 of the box's width.  Hybrid: both, each on
    its part."""
    if s.box or s.floats:
        width = np.maximum(np.array(s.space["high"]) - np.array(s.space["low"]), 1.0)
        worst = float(np.max(np.abs(mine[:, -width.size :] - s.actions[:, -width.size :]) / width))
        box = (
            worst <= 1e-5,
            (
                f"box actions within 1e-5 of the box's width on {len(s)} steps (largest "
                f"difference {worst:.2g} of the width)"
            ),
        )
        if s.box:
            return box
        k = len(s.nvec)
        good, desc = _discrete(s, mine[:, :k], s.actions[:, :k], params)
        return good and box[0], f"{desc}; {box[1]}"
    return _discrete(s, mine, s.actions, params)


def _discrete(s, mine, theirs, params):
    same = np.all(mine == theirs, axis=1)
    ties, far = 0, []
    for i in np.flatnonzero(~same):
        off, tie = 0, False
        for k in s.nvec:
            v = params[i, off : off + k].astype(np.float64)
            if s.masks is not None:
                v = np.where(s.masks[i, off : off + k] != 0, v, -np.inf)
            top = np.sort(v[np.isfinite(v)])[-2:]
            tie |= len(top) == 2 and top[1] - top[0] < 1e-4
            off += k
        if tie:
            ties += 1
        else:
            far.append(i)
    return (
        not far and ties <= 0.001 * len(s),
        f"rlhost's action on {int(same.sum())} of {len(s)} steps ({ties} float near-ties)"
        + (
            f"; first miss at step {far[0]}: {mine[far[0]].tolist()} for rlhost's {theirs[far[0]].tolist()}"
            if far
            else ""
        ),
    )


def part_inputs(parts, rows):
    """A composite observation's rows of bytes ([n][row bytes]) as the
    ONNX model's inputs: one array per part, by name, of the part's dtype."""
    out = {}
    for p in parts:
        dt = DT[p["dtype"]]
        nb = int(np.prod(p["shape"])) * np.dtype(dt).itemsize
        raw = np.ascontiguousarray(rows[:, p["offset"] : p["offset"] + nb])
        out[p["name"]] = raw.view(dt).reshape((len(rows),) + tuple(p["shape"]))
    return out


def run_onnx(path, s):
    """(actions, params, model) from onnxruntime, one thread."""
    import onnx
    import onnxruntime as ort

    model = onnx.load(path)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]

    def feed(idx, state):
        if s.parts:
            f = part_inputs(s.parts, s.rows()[idx])
        else:
            f = {"obs": s.obs[idx].reshape((len(idx),) + tuple(s.obs_meta["shape"]))}
        if s.masks is not None and "action_mask" in names:
            f["action_mask"] = s.masks[idx] != 0
        f.update(state)
        return f

    n = len(s)
    acts = np.zeros_like(s.actions)
    box = ["box_action"] if s.floats else []  # a hybrid action's floats, after its components

    def joined(r):
        return np.concatenate(
            [np.asarray(x, np.float64).reshape(len(r[0]), -1) for x in [r[0]] + r[2 : 2 + len(box)]], 1
        )

    if not s.recurrent:
        r = sess.run(["action", "params"] + box, feed(np.arange(n), {}))
        acts[:] = joined(r)
        return acts, r[1], model
    # a recurrent policy's critic keeps its own LSTM state: no value output
    st = [i for i in sess.get_inputs() if i.name.startswith("state_")]
    outs = ["action", "params"] + box + ["next_" + i.name for i in st]
    params = np.zeros((n, sess.get_outputs()[1].shape[1]), np.float32)
    state = {}
    for i in range(n):
        e = s.envs[i]
        if s.starts[i] or e not in state:
            state[e] = {x.name: np.zeros((1, x.shape[1]), np.float32) for x in st}
        r = sess.run(outs, feed(np.array([i]), state[e]))
        acts[i] = joined(r).reshape(-1)
        params[i] = r[1][0]
        state[e] = dict(zip((x.name for x in st), r[2 + len(box) :]))
    return acts, params, model


def run_onnx_values(path, s):
    """The "value" output of a feed-forward policy for every step, from onnxruntime."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    idx = np.arange(len(s))
    f = (
        part_inputs(s.parts, s.rows()[idx])
        if s.parts
        else {"obs": s.obs.reshape((len(s),) + tuple(s.obs_meta["shape"]))}
    )
    if s.masks is not None and "action_mask" in names:
        f["action_mask"] = s.masks != 0
    return np.asarray(sess.run(["value"], f)[0], np.float32).reshape(-1)


DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "%(name)s.h"
/* stdin: per step an int env, a byte (episode start), the observation row
   and the mask; stdout: per step the action (a hybrid one's components,
   then its floats), the params and (where the policy has one) the value,
   as floats. */
int main(int argc, char **argv)
{
    int envs, e, k;
    unsigned char start;
    %(name)s_state *st;
    unsigned char *row = malloc(%(row)d + 16), mask[%(maskn)d + 1];
    %(act_t)s action[%(adim)d];
    float box_action[%(bd)d + 1] = {0};
    float out[%(adim)d + %(bd)d + %(pw)d + %(vw)d];
    if (argc < 2 || !row) return 2;
    envs = atoi(argv[1]);
    if (!(st = calloc((size_t)envs, sizeof *st))) return 2;
    while (fread(&e, sizeof e, 1, stdin) == 1) {
        if (fread(&start, 1, 1, stdin) != 1 || fread(row, 1, %(row)d, stdin) != %(row)d ||
            fread(mask, 1, %(maskn)d, stdin) != %(maskn)d || e < 0 || e >= envs)
            return 3;
        if (start) %(name)s_reset(&st[e]);
        if (%(name)s_act(&st[e], (const %(obs_t)s *)row, %(maskarg)s, action%(boxarg)s) != 0) return 4;
        for (k = 0; k < %(adim)d; k++) out[k] = (float)action[k];
        for (k = 0; k < %(bd)d; k++) out[%(adim)d + k] = box_action[k];
        for (k = 0; k < %(pw)d; k++) out[%(adim)d + %(bd)d + k] = %(name)s_params(&st[e])[k];
%(value)s        fwrite(out, sizeof out, 1, stdout);
    }
    free(st);
    free(row);
    return 0;
}
"""


def header_macro(text, macro):
    for line in text.splitlines():
        if line.startswith(f"#define {macro} "):
            return int(line.split()[2])
    raise KeyError(macro)


def build_c(c_path, s, own_math=False):
    """(executable or None, compiler output) of the C file with the driver."""
    work, stem = os.path.dirname(c_path), os.path.splitext(os.path.basename(c_path))[0]
    hdr = open(os.path.join(work, f"{stem}.h")).read()
    up = stem.upper()
    pw, adim = header_macro(hdr, f"{up}_PARAMS_SIZE"), header_macro(hdr, f"{up}_ACTION_DIM")
    bd = header_macro(hdr, f"{up}_BOX_DIM")
    vw = 1 if f"#define {up}_HAS_VALUE 1" in hdr else 0
    maskn = s.masks.shape[1] if s.masks is not None else 0
    obs_t = (
        "void"
        if s.parts
        else {np.dtype(np.float32): "float", np.dtype(np.uint8): "unsigned char", np.dtype(np.int32): "int"}[
            s.obs.dtype
        ]
    )
    drv = os.path.join(work, f"{stem}_driver.c")
    with open(drv, "w") as f:
        f.write(
            DRIVER
            % {
                "name": stem,
                "row": s.rows().shape[1],
                "maskn": maskn,
                "adim": adim,
                "pw": pw,
                "vw": vw,
                "value": f"        out[{adim + bd + pw}] = {stem}_value(&st[e]);\n" if vw else "",
                "bd": bd,
                "boxarg": ", box_action" if bd else "",
                "act_t": "float" if s.box else "int",
                "obs_t": obs_t,
                "maskarg": "mask" if maskn else "NULL",
            }
        )
    exe = os.path.join(work, f"{stem}_{'own' if own_math else 'libm'}")
    extra = ["-DRLHOST_NO_LIBM"] if own_math else []
    r = subprocess.run(["cc", *CFLAGS, *extra, "-o", exe, c_path, drv, "-lm"], capture_output=True, text=True)
    return (exe if r.returncode == 0 else None), r.stderr.strip(), (adim + bd, pw, vw)


def run_c(exe, dims, s):
    """(actions, params, values or None) or (None, error, None) from the compiled driver."""
    adim, pw, vw = dims
    rows = s.rows()
    maskn = s.masks.shape[1] if s.masks is not None else 0
    stream = bytearray()
    for i in range(len(s)):
        stream += np.int32(s.envs[i]).tobytes() + bytes([int(s.starts[i])]) + rows[i].tobytes()
        if maskn:
            stream += s.masks[i].astype(np.uint8).tobytes()
    r = subprocess.run([exe, str(int(s.envs.max()) + 1)], input=bytes(stream), capture_output=True)
    if r.returncode != 0:
        return None, f"exit {r.returncode}", None
    out = np.frombuffer(r.stdout, np.float32).reshape(len(s), adim + pw + vw)
    return out[:, :adim].astype(np.float64), out[:, adim : adim + pw], (out[:, adim + pw] if vw else None)


def read_tensors(checkpoint):
    """Every float32 tensor of a checkpoint, by name."""
    raw = open(checkpoint, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    head = json.loads(raw[8 : 8 + n])
    out = {}
    for k, t in head.items():
        if k != "__metadata__" and t["dtype"] == "F32":
            a, b = t["data_offsets"]
            out[k] = np.frombuffer(raw[8 + n + a : 8 + n + b], np.float32).reshape(t["shape"])
    return out


def mlp_reference(ops, W, x):
    """ops of linear, relu and tanh alone over the network input x [n][in] in float64, or None
    for any other op: the value head recomputed without an exporter."""
    x = np.asarray(x, np.float64)
    for op in ops:
        if op["op"] == "linear":
            x = x @ W[op["weight"]].astype(np.float64).reshape(int(op["out"]), int(op["in"])).T
            x = x + W[op["bias"]].astype(np.float64).reshape(-1)
        elif op["op"] == "relu":
            x = np.maximum(x, 0)
        elif op["op"] == "tanh":
            x = np.tanh(x)
        else:
            return None
    return x


def wasm_check(c_path):
    """[(passed, description)] for the freestanding WebAssembly build, or []
    where clang or its wasm linker is absent."""
    if not (shutil.which("clang") and shutil.which("wasm-ld")):
        return []
    obj = os.path.splitext(c_path)[0] + ".wasm.o"
    r = subprocess.run(
        [
            "clang",
            "--target=wasm32",
            "-nostdlib",
            "-ffreestanding",
            "-DRLHOST_NO_LIBM",
            *CFLAGS,
            "-c",
            "-o",
            obj,
            c_path,
        ],
        capture_output=True,
        text=True,
    )
    out = [
        (
            r.returncode == 0,
            "the C file compiles to freestanding WebAssembly (clang --target=wasm32 -nostdlib "
            "-DRLHOST_NO_LIBM)" + (f": {r.stderr.strip()[:400]}" if r.returncode else ""),
        )
    ]
    nm = shutil.which("llvm-nm") or shutil.which("llvm-nm-14")
    if r.returncode == 0 and nm:
        u = subprocess.run([nm, "-u", obj], capture_output=True, text=True)
        undef = sorted(set(u.stdout.split()) - {"U"})
        out.append(
            (
                u.returncode == 0 and set(undef) <= {"memset", "memcpy"},
                f"the WebAssembly object needs nothing beyond memset and memcpy (it needs {undef or 'nothing'})",
            )
        )
    return out
