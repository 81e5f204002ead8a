"""A policy as one C99 source file and its header: the weights as static
const arrays, no allocation, no BLAS, nothing beyond <math.h> (and not
even that with -DRLHOST_NO_LIBM, which brings its own expf and tanhf).

Every layer is a loop nest with its sizes as literals, each output an
independent running sum in input order (weights stored input-major), so a
compiler vectorizes it at -O2 without reordering any sum: the result does
not depend on the compiler's flags.  Each op writes a region of its own in
the caller's state struct, so ops that share an input (a dueling head's
streams, a composite observation's parts) never see it changed."""

import json
import re

import numpy as np

from .._spec import batchnorm_arrays, conv_out
from ._model import Refused, apply_ops

_CTYPE = {"F32": "float", "U8": "unsigned char", "I32": "int"}


def c_name(s):
    """A C identifier from a file stem: letters, digits and _."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", s)
    if not s or s[0].isdigit():
        s = "policy_" + s
    return s


def comment(text):
    """Text read from a run or a checkpoint as it may stand inside a C block
    comment: data, never code.  Control characters (a newline that would
    splice lines) become '?', and neither a comment's end nor its start can
    form."""
    s = "".join(ch if ch.isprintable() else "?" for ch in str(text))
    return s.replace("*/", "*\\/").replace("/*", "/\\*")


def _f(v):
    """A float32 as a C literal that reads back to the same float: nine
    significant digits always do (FLT_DECIMAL_DIG)."""
    v = float(np.float32(v))
    if v != v or v in (float("inf"), float("-inf")):
        raise Refused("a constant of the policy is not finite")
    r = "%.9g" % v
    if "e" not in r and "." not in r:
        r += ".0"
    return r + "f"


def _array(name, a):
    a = np.asarray(a, np.float32).reshape(-1)
    if not np.isfinite(a).all():
        raise Refused("a constant of the policy is not finite")
    vals = ["%.9g" % x for x in a.tolist()]  # tolist: the float32 values, exactly, as Python floats
    vals = [v + ("f" if "e" in v or "." in v else ".0f") for v in vals]
    lines = [", ".join(vals[i : i + 8]) for i in range(0, len(vals), 8)]
    return f"static const float {name}[{len(vals)}] = {{\n    " + ",\n    ".join(lines) + "\n};\n"


class _Gen:
    def __init__(self, m, name):
        self.m, self.name = m, name
        self.consts = []  # static arrays
        self.body = []  # statements of act()
        self.scratch = 0  # floats of the state's scratch region
        self.nconst = 0
        self.used = set()  # the helpers the body calls
        self.int_consts = []  # static int arrays (the components' sizes)
        self.by_value = {}  # (what, shape, bytes) -> the array already written with them
        self.done = {}  # (op, input, width) -> its output and width

    def const(self, a, what):
        """A static const float array of a: its name, one array for equal
        contents (a trunk the policy and the value head share)."""
        a = np.ascontiguousarray(a, np.float32)
        key = (what, a.shape, a.tobytes())
        if key in self.by_value:
            return self.by_value[key]
        self.nconst += 1
        cname = f"{what}{self.nconst}"
        self.consts.append(_array(cname, a))
        self.by_value[key] = cname
        return cname

    def ints(self, v):
        """A static const int array of v: its name."""
        cname = f"nvec{len(self.int_consts)}"
        self.int_consts.append(f"static const int {cname}[{len(v)}] = {{{', '.join(str(int(x)) for x in v)}}};\n")
        return cname

    def buf(self, n):
        """A scratch region of n floats: an expression for its start."""
        off = self.scratch
        self.scratch += int(n)
        return f"(s->scratch + {off})"

    def emit(self, line):
        self.body.append("    " + line)

    def call(self, fn, args):
        self.used.add(fn)
        self.emit(f"{fn}({args});")

    # ---- the ops: each takes (input expression, width), returns the same --
    def ops(self, ops, x, w):
        return apply_ops(ops, x, w, self.done, self.op)

    def op(self, op, x, w):
        k = op["op"]
        m = self.m
        if k == "linear":
            i, o = int(op["in"]), int(op["out"])
            Wt = m.tensor(op["weight"], (o, i)).T  # input-major: W^T, [in][out]
            cw, cb = self.const(Wt, "w"), self.const(m.tensor(op["bias"]), "b")
            y = self.buf(o)
            self.call("linear", f"{x}, {cw}, {cb}, {y}, {i}, {o}")
            return y, o
        if k in ("relu", "tanh"):
            y = self.buf(w)
            self.call(f"{k}_", f"{x}, {y}, {w}")
            return y, w
        if k == "flatten":
            return x, w
        if k == "slice":
            return f"({x} + {int(op['start'])})", int(op["len"])
        if k == "clip":
            y = self.buf(w)
            self.call("clip_", f"{x}, {y}, {w}, {_f(np.float32(op['min']))}, {_f(np.float32(op['max']))}")
            return y, w
        if k == "batchnorm":
            n = int(op["size"])
            mean, sd, scale, bias = batchnorm_arrays(op, m.W)
            cm, cs, ca, cb = (
                self.const(a, what) for a, what in ((mean, "mean"), (sd, "sd"), (scale, "scale"), (bias, "bias"))
            )
            y = self.buf(n)
            self.call("batchnorm", f"{x}, {cm}, {cs}, {ca}, {cb}, {y}, {n}")
            return y, n
        if k == "rescale":
            lo, hi = (np.asarray(op[b], np.float32) for b in ("low", "high"))
            cl, ch = self.const(lo, "lo"), self.const(hi, "hi")
            y = self.buf(w)
            self.call("rescale", f"{x}, {cl}, {ch}, {y}, {w}")
            return y, w
        if k == "mean":
            r, c = (int(v) for v in op["shape"])
            axis = int(op["axis"])
            n = r if axis == 1 else c
            y = self.buf(n)
            # axis 1: a mean per row (of its cols); axis 0: a mean per column
            self.call("mean_", f"{x}, {y}, {r}, {c}, {c}, 1" if axis == 1 else f"{x}, {y}, {c}, {r}, 1, {c}")
            return y, n
        if k == "concat":
            outs = [self.ops(part, x, w) for part in op["parts"]]
            total = sum(n for _, n in outs)
            y = self.buf(total)
            off = 0
            for px, n in outs:
                self.call("copy", f"{px}, {y} + {off}, {n}")
                off += n
            return y, total
        if k == "residual":
            r, _ = self.ops(op["ops"], x, w)
            y = self.buf(w)
            self.call("add_", f"{x}, {r}, {y}, {w}")
            return y, w
        if k == "dueling":
            v, _ = self.ops(op["value"], x, w)
            a, n = self.ops(op["advantage"], x, w)
            y = self.buf(n)
            self.call("dueling", f"{v}, {a}, {y}, {n}")
            return y, n
        if k == "conv2d":
            c, h, ww, oc, kk, st, pad = (
                int(op[q]) for q in ("in_c", "in_h", "in_w", "out_c", "kernel", "stride", "pad")
            )
            oh, ow = conv_out(op)
            # [oc][c][ky][kx] as PyTorch stores it, to [c][ky][kx][oc]
            Wc = m.tensor(op["weight"], (oc, c, kk, kk)).transpose(1, 2, 3, 0)
            cw, cb = self.const(Wc, "w"), self.const(m.tensor(op["bias"]), "b")
            y = self.buf(oc * oh * ow)
            acc = self.buf(oc)
            self.call("conv2d", f"{x}, {cw}, {cb}, {y}, {acc}, {c}, {h}, {ww}, {oc}, {kk}, {st}, {pad}, {oh}, {ow}")
            return y, oc * oh * ow
        if k == "lstm":
            H = int(op["hidden"])
            Wih = m.tensor(op["weight_ih"], (4 * H, w)).T
            Whh = m.tensor(op["weight_hh"], (4 * H, H)).T
            ci, ch, cb = self.const(Wih, "wih"), self.const(Whh, "whh"), self.const(m.tensor(op["bias"]), "b")
            g = self.buf(4 * H)
            y = self.buf(H)
            key = c_name(op["state"])
            self.call("lstm", f"{x}, {ci}, {ch}, {cb}, s->{key}_h, s->{key}_c, {g}, {y}, {w}, {H}")
            return y, H
        raise Refused(f"the policy description has an op {k!r} that the C exporter does not know")


_HELPERS = {
    "linear": r"""
/* y = b + x W^T, W stored input-major ([in][out]): each y[j] sums its
   terms in input order. */
static void linear(const float *x, const float *w, const float *b, float *y, int in, int out)
{
    int i, j;
    for (j = 0; j < out; j++) y[j] = b[j];
    for (i = 0; i < in; i++) {
        const float xi = x[i];
        const float *wi = w + (long)i * out;
        for (j = 0; j < out; j++) y[j] += wi[j] * xi;
    }
}

""",
    "relu_": r"""
static void relu_(const float *x, float *y, int n)
{
    int i;
    for (i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

""",
    "add_": r"""
static void add_(const float *x, const float *r, float *y, int n)
{
    int i;
    for (i = 0; i < n; i++) y[i] = x[i] + r[i];
}

""",
    "copy": r"""
static void copy(const float *x, float *y, int n)
{
    int i;
    for (i = 0; i < n; i++) y[i] = x[i];
}

""",
    "clip_": r"""
static void clip_(const float *x, float *y, int n, float lo, float hi)
{
    int i;
    for (i = 0; i < n; i++) y[i] = x[i] < lo ? lo : x[i] > hi ? hi : x[i];
}

""",
    "batchnorm": r"""
/* Batch renormalization by running statistics: sd = sqrt(var + eps). */
static void batchnorm(const float *x, const float *mean, const float *sd, const float *scale, const float *bias,
                      float *y, int n)
{
    int i;
    for (i = 0; i < n; i++) y[i] = (x[i] - mean[i]) / sd[i] * scale[i] + bias[i];
}

""",
    "rescale": r"""
static void rescale(const float *x, const float *lo, const float *hi, float *y, int n)
{
    int i;
    for (i = 0; i < n; i++) y[i] = lo[i] + (x[i] + 1.0f) * 0.5f * (hi[i] - lo[i]);
}

""",
    "mean_": r"""
/* The values as a [rows][cols] matrix, each of n outputs the mean of m
   of them: output o sums x[o * step_out + k * step_in] over k < m. */
static void mean_(const float *x, float *y, int n, int m, int step_out, int step_in)
{
    int o, k;
    for (o = 0; o < n; o++) {
        float sum = 0.0f;
        for (k = 0; k < m; k++) sum += x[o * step_out + k * step_in];
        y[o] = sum / (float)m;
    }
}

""",
    "dueling": r"""
static void dueling(const float *v, const float *a, float *y, int n)
{
    int i;
    float sum = 0.0f, mean;
    for (i = 0; i < n; i++) sum += a[i];
    mean = sum / (float)n;
    for (i = 0; i < n; i++) y[i] = v[0] + a[i] - mean;
}

""",
    "conv2d": r"""
/* x: [c][h][w]; w: [c][k][k][oc]; y: [oc][oh][ow].  acc holds one output
   position's channels, so the innermost loop runs over output channels. */
static void conv2d(const float *x, const float *w, const float *b, float *y, float *acc, int c, int h, int wd,
                   int oc, int k, int st, int pad, int oh, int ow)
{
    int oy, ox, ic, ky, kx, o;
    for (oy = 0; oy < oh; oy++)
        for (ox = 0; ox < ow; ox++) {
            for (o = 0; o < oc; o++) acc[o] = b[o];
            for (ic = 0; ic < c; ic++)
                for (ky = 0; ky < k; ky++) {
                    const int iy = oy * st + ky - pad;
                    if (iy < 0 || iy >= h) continue;
                    for (kx = 0; kx < k; kx++) {
                        const int ix = ox * st + kx - pad;
                        const float *wk = w + (((long)ic * k + ky) * k + kx) * oc;
                        float xv;
                        if (ix < 0 || ix >= wd) continue;
                        xv = x[((long)ic * h + iy) * wd + ix];
                        for (o = 0; o < oc; o++) acc[o] += wk[o] * xv;
                    }
                }
            for (o = 0; o < oc; o++) y[((long)o * oh + oy) * ow + ox] = acc[o];
        }
}
""",
}


_HELPERS["tanh_"] = r"""
static void tanh_(const float *x, float *y, int n)
{
    int i;
    for (i = 0; i < n; i++) y[i] = TANHF(x[i]);
}
"""

_HELPERS["lstm"] = r"""
static float sigmoid(float x) { return 1.0f / (1.0f + EXPF(-x)); }

/* PyTorch's gate order i, f, g, o; one bias; (h, c) carried in the state. */
static void lstm(const float *x, const float *wih, const float *whh, const float *b, float *h, float *c, float *g,
                 float *y, int in, int H)
{
    int i, j, n = 4 * H;
    for (j = 0; j < n; j++) g[j] = b[j];
    for (i = 0; i < in; i++) {
        const float xi = x[i];
        const float *wi = wih + (long)i * n;
        for (j = 0; j < n; j++) g[j] += wi[j] * xi;
    }
    for (i = 0; i < H; i++) {
        const float hi = h[i];
        const float *wi = whh + (long)i * n;
        for (j = 0; j < n; j++) g[j] += wi[j] * hi;
    }
    for (j = 0; j < H; j++) {
        const float ig = sigmoid(g[j]), fg = sigmoid(g[H + j]), gg = TANHF(g[2 * H + j]), og = sigmoid(g[3 * H + j]);
        c[j] = fg * c[j] + ig * gg;
        h[j] = og * TANHF(c[j]);
        y[j] = h[j];
    }
}
"""

# expf and tanhf of our own for targets without a C library (-DRLHOST_NO_LIBM):
# within a few float ulps of libm's, so continuous actions stay within the
# exporter's stated tolerance and argmax picks change only at near-ties.
_MATH = r"""
#ifdef RLHOST_NO_LIBM
static float own_expf(float x)
{
    union { float f; unsigned int u; } s;
    float r, p;
    int n;
    if (x > 88.7f) { s.u = 0x7f800000u; return s.f; }
    if (x < -87.3f) return 0.0f;
    n = (int)(x * 1.44269504f + (x < 0.0f ? -0.5f : 0.5f));
    r = (x - (float)n * 0.693145752f) - (float)n * 1.42860677e-6f;
    p = 1.0f + r * (1.0f + r * (0.5f + r * (1.66666672e-1f + r * (4.16666679e-2f + r * (8.33333377e-3f +
        r * (1.38888892e-3f + r * 1.98412701e-4f))))));
    s.u = (unsigned int)(n + 127) << 23;
    return p * s.f;
}

static float own_tanhf(float x)
{
    float a = x < 0.0f ? -x : x, t;
    if (a < 0.125f) {
        float a2 = a * a;
        t = a * (1.0f + a2 * (-3.33333343e-1f + a2 * (1.33333340e-1f + a2 * (-5.39682545e-2f +
            a2 * 2.18694881e-2f))));
    } else if (a > 9.0f) {
        t = 1.0f;
    } else {
        float e = own_expf(-2.0f * a);
        t = (1.0f - e) / (1.0f + e);
    }
    return x < 0.0f ? -t : t;
}
#define EXPF own_expf
#define TANHF own_tanhf
#else
#include <math.h>
#define EXPF expf
#define TANHF tanhf
#endif
"""


def _input(g, m):
    """Statements that turn the observation into the network's input x."""
    if m.parts is None:
        x = g.buf(m.in_width)
        scale = float(m.scale)
        mul = "" if scale == 1.0 else f" * {_f(scale)}"
        g.emit(f"for (i = 0; i < {m.in_width}; i++) {x}[i] = (float)obs[i]{mul};")
        return x
    x = g.buf(m.in_width)
    off = 0
    for p in m.parts:
        ct = _CTYPE[p.dtype]
        size = np.dtype(p.np_dtype).itemsize
        read = f"row[{p.offset} + i]" if size == 1 else f"load_{p.dtype.lower()}(row + {p.offset} + {size} * i)"
        if p.kind == "box":
            mul = "" if p.scale == 1.0 else f" * {_f(p.scale)}"
            g.emit(f"for (i = 0; i < {p.size}; i++) {x}[{off} + i] = (float)({ct}){read}{mul};")
            off += p.size
            continue
        # discrete: one-hot per element, each over its own categories (from 0)
        nv = g.ints(p.nvec)
        g.emit(f"for (i = 0, k = {off}; i < {p.size}; k += {nv}[i], i++) {{")
        g.emit(f"    int j, v = (int){read};")
        g.emit(f"    if (v < 0 || v >= {nv}[i]) return -2;")
        g.emit(f"    for (j = 0; j < {nv}[i]; j++) {x}[k + j] = j == v ? 1.0f : 0.0f;")
        g.emit("}")
        off += p.width
    return x


def generate(m, name):
    """(header text, source text) of the policy m under the C prefix name."""
    g = _Gen(m, name)
    x = _input(g, m)
    if m.norm is not None:
        shift, mul, clip = m.norm
        cs, cm = g.const(shift, "shift"), g.const(mul, "mul")
        y = g.buf(m.in_width)
        g.emit(f"for (i = 0; i < {m.in_width}; i++) {{")
        g.emit(f"    const float v = ({x}[i] - {cs}[i]) * {cm}[i];")
        g.emit(f"    {y}[i] = v > {_f(clip)} ? {_f(clip)} : v < {_f(-clip)} ? {_f(-clip)} : v;")
        g.emit("}")
        x = y
    out, width = g.ops(m.ops, x, m.in_width)
    params = g.buf(width)
    g.call("copy", f"{out}, {params}, {width}")
    value = None
    if m.value_ops is not None:  # before the action: a mask allowing nothing returns early
        v, vw = g.ops(m.value_ops, x, m.in_width)
        m.value_width(vw)
        value = g.buf(1)
        g.emit(f"{value}[0] = {v}[0];")
    if m.kind == "box":
        lo, hi = g.const(m.low, "alow"), g.const(m.high, "ahigh")
        g.emit(f"for (i = 0; i < {m.adim}; i++)")
        g.emit(f"    action[i] = {params}[i] < {lo}[i] ? {lo}[i] : {params}[i] > {hi}[i] ? {hi}[i] : {params}[i];")
    else:
        nv = g.ints(m.nvec)
        g.emit(f"for (i = 0, k = 0; i < {m.adim}; k += {nv}[i], i++) {{")
        g.emit("    int j, best = -1;")
        g.emit(f"    for (j = 0; j < {nv}[i]; j++)")
        allowed = "(!mask || mask[k + j]) && " if m.masked else ""
        g.emit(f"        if ({allowed}(best < 0 || {params}[k + j] > {params}[k + best])) best = j;")
        g.emit("    if (best < 0) return -1;")
        g.emit("    action[i] = best;")
        g.emit("}")
    if m.box_dim:  # a hybrid action's floats: the outputs after the logits, clipped into the box
        lo, hi = g.const(m.low, "alow"), g.const(m.high, "ahigh")
        c = sum(m.nvec)
        g.emit(f"for (i = 0; i < {m.box_dim}; i++)")
        g.emit(
            f"    box_action[i] = {params}[{c} + i] < {lo}[i] ? {lo}[i] : {params}[{c} + i] > {hi}[i] ? {hi}[i] "
            f": {params}[{c} + i];"
        )
    obs_t, act_t, states = _signature(m)
    header = _header(m, name, g, width)
    math = _MATH if g.used & {"tanh_", "lstm"} else ""  # the helpers that call expf or tanhf
    src = [
        f"/* {name}.c: written by `rlhost export --format c` from {comment(m.path)}. */\n",
        f'#include "{name}.h"\n',
        math,
        "".join(_HELPERS[k] for k in _HELPERS if k in g.used),
    ]
    for dt in ("f32", "i32"):  # the loaders the observation's parts read with
        if any(f"load_{dt}(" in line for line in g.body):
            src.append(_LOADS[dt])
    src += g.int_consts + g.consts
    if m.log_std is not None:
        src.append(_array("log_std_", m.tensor(m.log_std)))
        src.append(f"\nconst float *{name}_log_std(void) {{ return log_std_; }}\n")
    reset = "".join(f"    for (i = 0; i < {H}; i++) s->{k}_h[i] = s->{k}_c[i] = 0.0f;\n" for k, H in states)
    src.append(f"""
void {name}_reset({name}_state *s)
{{
{"    int i;" + chr(10) + reset if states else "    (void)s;" + chr(10)}}}

const float *{name}_params(const {name}_state *s) {{ return {params}; }}
{f"{chr(10)}float {name}_value(const {name}_state *s) {{ return {value}[0]; }}{chr(10)}" if value else ""}
int {name}_act({name}_state *s, {obs_t}, const unsigned char *mask, {act_t} *action{_box_arg(m)})
{{
    int i, k;
""")
    if m.parts:
        src.append("    const unsigned char *row = (const unsigned char *)obs_row;\n")
    src.append("    (void)k;\n")
    if not m.masked:
        src.append("    (void)mask;\n")
    src.append("\n".join(g.body) + "\n    return 0;\n}\n")
    return header, "".join(src)


def _box_arg(m):
    """A hybrid action's second output of act: its floats."""
    return ", float *box_action" if m.box_dim else ""


def _signature(m):
    """The act function's observation and action types, and the LSTMs' (C name, width)."""
    obs_t = "const void *obs_row" if m.parts else f"const {_CTYPE[m.obs_dtype]} *obs"
    act_t = "float" if m.kind == "box" else "int"
    return obs_t, act_t, [(c_name(k), H) for k, H in m.lstms]


def _header(m, name, g, width):
    """NAME.h: the state type, the functions, and what they take, in comments (data from the
    checkpoint through comment())."""
    obs_t, act_t, states = _signature(m)
    N = name.upper()
    fields = "".join(f"    float {k}_h[{H}], {k}_c[{H}]; /* the {k} LSTM's state */\n" for k, H in states)
    obs_doc = (
        f"the observation row as the env writes it: {m.row_bytes} bytes, its parts at their offsets"
        if m.parts
        else f"{m.obs_size} values of shape {m.obs_shape}"
    )
    mask_doc = (
        f"mask: {m.mask_width} bytes, nonzero where a choice is allowed (NULL allows every choice)"
        if m.masked
        else "mask: unused (the env did not mask its actions); pass NULL"
    )
    act_doc = (
        f"action: {m.adim} floats, clipped into the box"
        if m.kind == "box"
        else f"action: {m.adim} int{'s' if m.adim > 1 else ''}, the argmax of each component's "
        f"{'allowed ' if m.masked else ''}{m.nvec} values"
    )
    if m.box_dim:
        act_doc += f";\n   box_action: {m.box_dim} floats, the box's part of the hybrid action, clipped into it"
    what = f"{comment(m.algo)} on {comment(m.env)}, step {m.step}"
    return f"""/* {name}.h: the greedy policy of an rlhost checkpoint ({what}),
   written by `rlhost export --format c`.  C99; no allocation; <math.h> its one
   dependency, and none with -DRLHOST_NO_LIBM (its own expf and tanhf).
   Observation space: {comment(json.dumps(m.observation))}
   Action space: {comment(json.dumps(m.action))} */
#ifndef {N}_H
#define {N}_H

#define {N}_OBS_SIZE {m.row_bytes if m.parts else m.obs_size}
#define {N}_MASK_SIZE {m.mask_width if m.masked else 0}
#define {N}_ACTION_DIM {m.adim}
#define {N}_ACTION_BOX {1 if m.kind == "box" else 0}
#define {N}_BOX_DIM {m.box_dim}
#define {N}_PARAMS_SIZE {width}
#define {N}_RECURRENT {1 if states else 0}

/* Everything one stream of observations needs: the recurrent state and the
   working memory of a call.  One per env; static, on the stack, or inside
   a struct of the caller's: it holds {g.scratch + sum(2 * H for _, H in states)} floats. */
typedef struct {name}_state {{
{fields}    float scratch[{g.scratch}];
}} {name}_state;

/* Clears the recurrent state: call it before an episode's first observation. */
void {name}_reset({name}_state *s);

/* The greedy action for one observation.
   obs: {obs_doc};
   {mask_doc};
   {act_doc}.
   Returns 0; -1 when a mask allows no choice of a component; -2 when a
   discrete observation part holds a value outside its categories. */
int {name}_act({name}_state *s, {obs_t}, const unsigned char *mask, {act_t} *action{_box_arg(m)});

/* The last call's greedy output, {width} floats: {comment(_params_doc(m, name))}. */
const float *{name}_params(const {name}_state *s);
{_log_std_decl(m, name)}{_value_decl(m, name)}
#endif
"""


# A part's element from the row, whatever its alignment (the row is in the
# host's byte order, as the env wrote it): one loader per 4-byte dtype.
_LOAD = r"""
static {t} load_{n}(const unsigned char *p)
{{
    {t} v;
    unsigned char *d = (unsigned char *)&v;
    int i;
    for (i = 0; i < 4; i++) d[i] = p[i];
    return v;
}}
"""
_LOADS = {"f32": _LOAD.format(t="float", n="f32"), "i32": _LOAD.format(t="int", n="i32")}


def _params_doc(m, name):
    if m.box_dim:
        return (
            f"the '{m.greedy}' output: the logits each component's action is the argmax of, then the "
            f"box's {m.box_dim} values before clipping"
            + (f"; their Gaussian's log std is {name}_log_std()" if m.log_std else "")
        )
    if m.kind == "box":
        return f"the '{m.greedy}' output before clipping" + (
            f"; the Gaussian's log std is {name}_log_std()" if m.log_std else ""
        )
    return f"the '{m.greedy}' values the action is the argmax of"


def _value_decl(m, name):
    if m.value_ops is None:
        return ""
    return (
        f"\n/* The value head's estimate for the last call's observation (PPO's critic; AlphaZero's value in\n"
        f"   [-1, 1] from the mover's side, before its value_scale). */\n"
        f"#define {name.upper()}_HAS_VALUE 1\n"
        f"float {name}_value(const {name}_state *s);\n"
    )


def _log_std_decl(m, name):
    if m.log_std is None:
        return ""
    return (
        f"\n/* The Gaussian's log standard deviations, {m.box_dim or m.adim} floats (independent of the "
        f"observation). */\n"
        f"const float *{name}_log_std(void);\n"
    )
