"""The Atari env's INTER_AREA resize (envs/atari/area.c, through
test_area --resize) against OpenCV's cv2.resize, byte for byte: every
square screen_size from 1 to 160 (the whole-scale sizes 1, 2, 5 and 10 take
OpenCV's integer path) and a few other shapes, grayscale and RGB, on random
screens and on screens built so that every cell's mean is a rounding tie.
Usage: area_cv2.py RLHOST (build/core/rlhost: test_area is build/tests/'s)"""

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

exe = str(Path(sys.argv[1]).resolve().parents[1] / "tests" / "test_area")
n = 0
failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    failed += not cond
    print(f"{'ok' if cond else 'not ok'} {n} - {what}", flush=True)


def ties(rng, h, w, cn, iy, ix):
    """A screen whose every iy x ix cell sums to area * (k + 1/2): OpenCV's
    integer path then rounds a tie in every pixel."""
    area = iy * ix
    img = np.zeros((h, w, cn), np.uint8)
    for y in range(0, h, iy):
        for x in range(0, w, ix):
            for c in range(cn):
                total = (
                    area * (2 * int(rng.integers(0, 255)) + 1) // 2
                    if area % 2 == 0
                    else int(rng.integers(0, 255 * area))
                )
                base, extra = divmod(total, area)
                cell = np.full(area, base, np.int64)
                cell[:extra] += 1
                img[y : y + iy, x : x + ix, c] = rng.permutation(cell).reshape(iy, ix)
    return img


def resized(imgs, dh, dw):
    h, w, cn = imgs[0].shape
    p = subprocess.run(
        [exe, "--resize", str(h), str(w), str(dh), str(dw), str(cn)],
        input=b"".join(i.tobytes() for i in imgs),
        stdout=subprocess.PIPE,
        check=True,
    )
    return np.frombuffer(p.stdout, np.uint8).reshape(len(imgs), dh, dw, cn)


rng = np.random.default_rng(7)
shapes = [(s, s) for s in range(1, 161)] + [(105, 80), (42, 32), (21, 16), (70, 40), (7, 150), (84, 9)]
for cn in (1, 3):
    screens = [rng.integers(0, 256, (210, 160, cn), np.uint8) for _ in range(3)]
    screens.append(np.repeat(np.arange(160, dtype=np.uint8)[None, :, None], 210, 0).repeat(cn, 2) // 2)
    bad = []
    for dh, dw in shapes:
        got = resized(screens, dh, dw)
        imgs = list(screens)
        if 210 % dh == 0 and 160 % dw == 0:  # whole scales: tie screens too
            imgs = [ties(rng, 210, 160, cn, 210 // dh, 160 // dw) for _ in range(2)]
            got = np.concatenate([got, resized(imgs, dh, dw)])
            imgs = screens + imgs
        want = np.stack(
            [
                cv2.resize(i[..., 0] if cn == 1 else i, (dw, dh), interpolation=cv2.INTER_AREA).reshape(dh, dw, cn)
                for i in imgs
            ]
        )
        if not np.array_equal(got, want):
            bad.append(f"{dh}x{dw}: {int((got != want).sum())} bytes")
    ok(
        not bad,
        f"{cn} channel(s): {len(shapes)} sizes as cv2.resize INTER_AREA, ties included"
        + (f" (differ: {', '.join(bad[:6])})" if bad else ""),
    )
for s in (1, 2, 5, 10):
    img = ties(rng, 210, 160, 1, 210 // s, 160 // s)
    cells = img.reshape(s, 210 // s, s, 160 // s).sum(axis=(1, 3)) / ((210 // s) * (160 // s))
    ok(np.all(cells % 1 == 0.5), f"size {s}: every cell of the tie screen is a tie")
print(f"1..{n}")
sys.exit(failed != 0)
