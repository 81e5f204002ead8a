#!/usr/bin/env python3
"""Reads a run's TensorBoard event file with TensorBoard's own reader and
checks that every number of metrics.csv ("train/COLUMN") and evals.csv
("eval/COLUMN") is there, at its step, as the float32 TensorBoard stores.
Usage: tensorboard_read.py RUN_DIR   (TAP on stdout)"""

import csv
import math
import os
import struct
import sys

from tensorboard.backend.event_processing import event_accumulator

run = sys.argv[1]
n = 0
failed = 0


def ok(cond, desc):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok"), n, "-", desc)


acc = event_accumulator.EventAccumulator(run, size_guidance={event_accumulator.SCALARS: 0})
acc.Reload()
tags = set(acc.Tags()["scalars"])


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


for name, prefix in (("metrics.csv", "train"), ("evals.csv", "eval")):
    path = os.path.join(run, name)
    with open(path) as f:
        rows = list(csv.DictReader(f))
    want = {}
    for row in rows:
        step = int(row["step"])
        for col, text in row.items():
            if col in ("step", "wall_s"):
                continue
            v = float(text)
            if math.isfinite(v):
                want.setdefault(prefix + "/" + col, []).append((step, f32(v)))
    ok(len(want) > 0, f"{name}: {len(rows)} rows, {len(want)} columns to find")
    missing = [t for t in want if t not in tags]
    ok(not missing, f"{name}: every column is a scalar tag" + (f" (missing {missing[:3]})" if missing else ""))
    bad = []
    for tag, pts in want.items():
        got = [(e.step, e.value) for e in acc.Scalars(tag)] if tag in tags else []
        if got != pts:
            bad.append((tag, pts[:2], got[:2]))
    ok(not bad, f"{name}: every value at its step, bit for bit in float32" + (f" (first: {bad[0]})" if bad else ""))

print(f"1..{n}")
sys.exit(1 if failed else 0)
