"""A policy as an ONNX model, written with the onnx package and checked by
onnx.checker.

Inputs: the observation ("obs", or one input per part of a composite
observation, by the part's name), "action_mask" (bool) where the env
masks its actions, and each LSTM's state ("state_<name>_h", "_c").
Outputs: "action" (int64 choices, or floats clipped into the box),
"params" (the greedy output: the logits or Q values the action is the
argmax of, or the mean before clipping), "log_std" for PPO's Gaussian,
"value" where the policy has a feed-forward value head (PPO's critic,
AlphaZero's value), and each LSTM's next state ("next_state_<name>_h",
"_c").  The first dimension
of every input and output is the batch."""

import numpy as np

from .._spec import batchnorm_arrays, conv_out
from ._model import MIN_OPSET, Refused, apply_ops


class _Graph:
    def __init__(self, onnx, opset):
        self.onnx, self.h, self.opset = onnx, onnx.helper, opset
        from onnx import numpy_helper

        self.nh = numpy_helper
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.done = {}  # (op, input, width) -> its output and width
        self.n = 0
        self.by_value = {}  # (what, dtype, shape, bytes) -> the initializer already made of them

    def name(self, what):
        self.n += 1
        return f"{what}_{self.n}"

    def const(self, a, what="c", dtype=np.float32):
        """An initializer of a: its name, one initializer for equal contents
        (a trunk the policy and the value head share)."""
        a = np.array(a, dtype)  # a 0-d array stays a scalar
        key = (what, a.dtype.str, a.shape, a.tobytes())
        if key not in self.by_value:
            self.by_value[key] = nm = self.name(what)
            self.inits.append(self.nh.from_array(a, nm))
        return self.by_value[key]

    def node(self, op, ins, what=None, **attrs):
        out = self.name(what or op.lower())
        self.nodes.append(self.h.make_node(op, ins, [out], name=out, **attrs))
        return out

    def multi(self, op, ins, n, **attrs):
        outs = [self.name(op.lower()) for _ in range(n)]
        self.nodes.append(self.h.make_node(op, ins, outs, name=outs[0], **attrs))
        return outs

    def ints(self, v):
        return self.const(v, "shape", np.int64)

    def reduce_mean(self, x, axis, keepdims):
        if self.opset >= 18:
            return self.node("ReduceMean", [x, self.ints([axis])], keepdims=keepdims)
        return self.node("ReduceMean", [x], axes=[axis], keepdims=keepdims)


def _ops(g, m, ops, x, w):
    return apply_ops(ops, x, w, g.done, lambda op, x, w: _op(g, m, op, x, w))


def _op(g, m, op, x, w):
    k = op["op"]
    if k == "linear":
        o, i = int(op["out"]), int(op["in"])
        W = g.const(m.tensor(op["weight"], (o, i)), "weight")
        b = g.const(m.tensor(op["bias"]), "bias")
        return g.node("Gemm", [x, W, b], transB=1), o
    if k == "relu":
        return g.node("Relu", [x]), w
    if k == "tanh":
        return g.node("Tanh", [x]), w
    if k == "flatten":
        return x, w
    if k == "slice":
        s, n = int(op["start"]), int(op["len"])
        return g.node("Slice", [x, g.ints([s]), g.ints([s + n]), g.ints([1])]), n
    if k == "clip":
        return g.node("Clip", [x, g.const(np.float32(op["min"])), g.const(np.float32(op["max"]))]), w
    if k == "batchnorm":
        # as rlhost computes it, step by step: (x - mean) / sqrt(var + eps) * scale + bias
        mean, sd, scale, bias = batchnorm_arrays(op, m.W)
        y = g.node("Sub", [x, g.const(mean, "mean")])
        y = g.node("Div", [y, g.const(sd, "sd")])
        y = g.node("Mul", [y, g.const(scale, "scale")])
        return g.node("Add", [y, g.const(bias, "bias")]), w
    if k == "rescale":
        lo, hi = (np.asarray(op[b], np.float32) for b in ("low", "high"))
        y = g.node("Add", [x, g.const(np.float32(1))])
        y = g.node("Mul", [y, g.const(np.float32(0.5))])
        y = g.node("Mul", [y, g.const(hi - lo)])
        return g.node("Add", [g.const(lo), y]), w
    if k == "mean":
        r, c = (int(v) for v in op["shape"])
        y = g.node("Reshape", [x, g.ints([0, r, c])])
        axis = int(op["axis"])
        return g.reduce_mean(y, 2 if axis == 1 else 1, 0), (r if axis == 1 else c)
    if k == "concat":
        outs = [_ops(g, m, part, x, w) for part in op["parts"]]
        return g.node("Concat", [y for y, _ in outs], axis=1), sum(n for _, n in outs)
    if k == "residual":
        r, _ = _ops(g, m, op["ops"], x, w)
        return g.node("Add", [x, r]), w
    if k == "dueling":
        v, _ = _ops(g, m, op["value"], x, w)
        a, n = _ops(g, m, op["advantage"], x, w)
        mean = g.reduce_mean(a, 1, 1)
        return g.node("Sub", [g.node("Add", [v, a]), mean]), n
    if k == "conv2d":
        c, h, ww, oc, kk, st, pad = (int(op[q]) for q in ("in_c", "in_h", "in_w", "out_c", "kernel", "stride", "pad"))
        oh, ow = conv_out(op)
        img = g.node("Reshape", [x, g.ints([0, c, h, ww])])
        W = g.const(m.tensor(op["weight"], (oc, c, kk, kk)), "weight")
        b = g.const(m.tensor(op["bias"]), "bias")
        y = g.node("Conv", [img, W, b], kernel_shape=[kk, kk], strides=[st, st], pads=[pad] * 4)
        return g.node("Flatten", [y], axis=1), oc * oh * ow
    if k == "lstm":
        H = int(op["hidden"])
        key = op["state"]
        # PyTorch's gate order (i, f, g, o) to ONNX's (i, o, f, c)
        order = np.concatenate([np.arange(0, H), np.arange(3 * H, 4 * H), np.arange(H, 2 * H), np.arange(2 * H, 3 * H)])
        Wih = m.tensor(op["weight_ih"], (4 * H, w))[order][None]
        Whh = m.tensor(op["weight_hh"], (4 * H, H))[order][None]
        B = np.concatenate([m.tensor(op["bias"])[order], np.zeros(4 * H, np.float32)])[None]
        hin, cin = f"state_{key}_h", f"state_{key}_c"
        for nm in (hin, cin):
            g.inputs.append(g.h.make_tensor_value_info(nm, g.onnx.TensorProto.FLOAT, ["batch", H]))
        zero = g.ints([0])
        X = g.node("Unsqueeze", [x, zero])
        h0, c0 = g.node("Unsqueeze", [hin, zero]), g.node("Unsqueeze", [cin, zero])
        _, yh, yc = g.multi(
            "LSTM", [X, g.const(Wih, "W"), g.const(Whh, "R"), g.const(B, "B"), "", h0, c0], 3, hidden_size=H
        )
        hout = g.node("Squeeze", [yh, zero])
        cout = g.node("Squeeze", [yc, zero])
        for src, nm in ((hout, f"next_state_{key}_h"), (cout, f"next_state_{key}_c")):
            g.nodes.append(g.h.make_node("Identity", [src], [nm], name=nm))
            g.outputs.append(g.h.make_tensor_value_info(nm, g.onnx.TensorProto.FLOAT, ["batch", H]))
        return hout, H
    raise Refused(f"the policy description has an op {k!r} that the ONNX exporter does not know")


_TP = {"F32": 1, "U8": 2, "I32": 6}  # TensorProto FLOAT, UINT8, INT32


def _input(g, m):
    TP = g.onnx.TensorProto
    if m.parts is None:
        g.inputs.append(g.h.make_tensor_value_info("obs", _TP[m.obs_dtype], ["batch"] + m.obs_shape))
        x = g.node("Flatten", [g.node("Cast", ["obs"], to=TP.FLOAT)], axis=1)
        if float(m.scale) != 1.0:
            x = g.node("Mul", [x, g.const(m.scale)])
        return x
    pieces = []
    for p in m.parts:
        g.inputs.append(g.h.make_tensor_value_info(p.name, _TP[p.dtype], ["batch"] + p.shape))
        if p.kind == "box":
            x = g.node("Flatten", [g.node("Cast", [p.name], to=TP.FLOAT)], axis=1)
            if p.scale != 1.0:
                x = g.node("Mul", [x, g.const(np.float32(p.scale))])
            pieces.append(x)
            continue
        v = g.node("Flatten", [g.node("Cast", [p.name], to=TP.INT64)], axis=1)
        for e, n in enumerate(p.nvec):  # each element one-hot over its own categories
            col = g.node("Gather", [v, g.const(np.int64(e), "index", np.int64)], axis=1)
            pieces.append(
                g.node("OneHot", [col, g.const([n], "depth", np.int64), g.const([0.0, 1.0], "values")], axis=-1)
            )
    return g.node("Concat", pieces, axis=1) if len(pieces) > 1 else pieces[0]


def build(m, opset=MIN_OPSET):
    """The onnx.ModelProto of the policy m, checked."""
    try:
        import onnx
    except ImportError as e:
        raise Refused(f"the ONNX exporter needs the onnx package ({e}): pip install onnx") from None
    newest = onnx.defs.onnx_opset_version()
    if opset < MIN_OPSET:
        raise Refused(f"opset {opset} is too old: rlhost writes ONNX opset {MIN_OPSET} or newer")
    if opset > newest:
        raise Refused(f"opset {opset} is newer than the onnx package here knows ({newest})")
    g = _Graph(onnx, opset)
    TP = onnx.TensorProto
    x = _input(g, m)
    if m.norm is not None:
        shift, mul, clip = m.norm
        x = g.node("Mul", [g.node("Sub", [x, g.const(shift)]), g.const(mul)])
        x = g.node("Clip", [x, g.const(-clip), g.const(clip)])
    out, width = _ops(g, m, m.ops, x, m.in_width)
    g.nodes.append(g.h.make_node("Identity", [out], ["params"], name="params"))
    outs = [None, g.h.make_tensor_value_info("params", TP.FLOAT, ["batch", width])]
    if m.value_ops is not None:
        v, vw = _ops(g, m, m.value_ops, x, m.in_width)
        m.value_width(vw)
        g.nodes.append(g.h.make_node("Squeeze", [v, g.ints([1])], ["value"], name="value"))
        outs.append(g.h.make_tensor_value_info("value", TP.FLOAT, ["batch"]))
    if m.kind == "box":
        y = g.node("Max", [g.node("Min", ["params", g.const(m.high)]), g.const(m.low)])
        g.nodes.append(g.h.make_node("Identity", [y], ["action"], name="action"))
        outs[0] = g.h.make_tensor_value_info("action", TP.FLOAT, ["batch", m.adim])
        if m.log_std is not None:  # the Gaussian's log std: the same for every observation
            ones = g.node("Slice", ["params", g.ints([0]), g.ints([1]), g.ints([1])])
            ones = g.node("Mul", [ones, g.const(np.float32(0))])
            g.nodes.append(g.h.make_node("Add", [ones, g.const(m.tensor(m.log_std))], ["log_std"], name="log_std"))
            outs.append(g.h.make_tensor_value_info("log_std", TP.FLOAT, ["batch", m.adim]))
    else:
        if m.masked:
            g.inputs.append(g.h.make_tensor_value_info("action_mask", TP.BOOL, ["batch", m.mask_width]))
        picks, off = [], 0
        for n in m.nvec:
            v = g.node("Slice", ["params", g.ints([off]), g.ints([off + n]), g.ints([1])])
            if m.masked:
                allowed = g.node("Slice", ["action_mask", g.ints([off]), g.ints([off + n]), g.ints([1])])
                v = g.node("Where", [allowed, v, g.const(np.float32(-np.inf))])
            picks.append(g.node("ArgMax", [v], axis=1, keepdims=1))
            off += n
        y = g.node("Concat", picks, axis=1) if len(picks) > 1 else picks[0]
        if m.box_dim:  # a hybrid action's floats: the last box_dim outputs, clipped into the box
            c = off
            b = g.node("Slice", ["params", g.ints([c]), g.ints([c + m.box_dim]), g.ints([1])])
            b = g.node("Max", [g.node("Min", [b, g.const(m.high)]), g.const(m.low)])
            g.nodes.append(g.h.make_node("Identity", [b], ["box_action"], name="box_action"))
            outs.append(g.h.make_tensor_value_info("box_action", TP.FLOAT, ["batch", m.box_dim]))
            if m.log_std is not None:
                ones = g.node("Slice", ["params", g.ints([0]), g.ints([1]), g.ints([1])])
                ones = g.node("Mul", [ones, g.const(np.float32(0))])
                g.nodes.append(g.h.make_node("Add", [ones, g.const(m.tensor(m.log_std))], ["log_std"], name="log_std"))
                outs.append(g.h.make_tensor_value_info("log_std", TP.FLOAT, ["batch", m.box_dim]))
        if m.kind == "discrete":
            y = g.node("Squeeze", [y, g.ints([1])])
            outs[0] = g.h.make_tensor_value_info("action", TP.INT64, ["batch"])
        else:
            outs[0] = g.h.make_tensor_value_info("action", TP.INT64, ["batch", m.adim])
        g.nodes.append(g.h.make_node("Identity", [y], ["action"], name="action"))
    graph = g.h.make_graph(g.nodes, f"rlhost_{m.algo}_{m.env}", g.inputs, outs + g.outputs, g.inits)
    model = g.h.make_model(
        graph, opset_imports=[g.h.make_opsetid("", opset)], producer_name="rlhost", doc_string=_doc(m)
    )
    # the oldest IR version the opset allows: what the most runtimes read
    model.ir_version = g.h.find_min_ir_version_for(list(model.opset_import))
    for k, v in m.meta().items():
        e = model.metadata_props.add()
        e.key, e.value = f"rlhost.{k}", v
    try:
        onnx.checker.check_model(model, full_check=True)
    except onnx.checker.ValidationError as e:
        raise Refused(f"the ONNX model failed onnx.checker: {str(e).splitlines()[0]}") from None
    return model


def _doc(m):
    if m.kind == "box":
        what = f"action: the '{m.greedy}' output clipped into the box; params: that output before clipping"
    else:
        what = (
            f"action: the argmax of each component of the '{m.greedy}' output"
            f"{' among the choices action_mask allows' if m.masked else ''}; params: those values"
        )
    return f"The greedy policy of {m.algo} on {m.env} (step {m.step}), exported by rlhost. {what}."
