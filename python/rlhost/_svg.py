"""Plots as SVG text, with nothing but the standard library: panels of
lines, dots and bands on linear or log axes, laid out in a grid.  What
`rlhost tune` and `rlhost study` draw."""

import math
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
W, H = 420, 300
ML, MR, MT, MB = 62, 16, 30, 44


def _ticks(lo, hi, log):
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10.0**e for e in range(a, b + 1) if lo <= 10.0**e <= hi] or [lo, hi]
    span = hi - lo
    step = 10 ** math.floor(math.log10(span / 5)) if span > 0 else 1
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    t = math.ceil(lo / step) * step
    out = []
    while t <= hi + 1e-9 * step:
        out.append(t)
        t += step
    return out


def _fmt(v):
    return f"{v:.3g}" if v != 0 else "0"


def panel(title, xlabel, ylabel, series, xlog=False, categories=None):
    """One panel: a dict the grid draws.  series: [{"label", "points":
    [(x, y)], "style": "line" | "dots", "band": [(x, lo, hi)]}].
    categories: x tick labels at x = 0, 1, ... (a choice parameter)."""
    return {
        "title": title,
        "xlabel": xlabel,
        "ylabel": ylabel,
        "series": series,
        "xlog": xlog,
        "categories": categories,
    }


def _draw(p, ox, oy, out):
    xs, ys = [], []
    for s in p["series"]:
        for x, y in s.get("points", []):
            if y is not None and math.isfinite(y):
                xs.append(x), ys.append(y)
        for x, lo, hi in s.get("band", []):
            xs.append(x), ys.extend([lo, hi])
    log = p["xlog"] and xs and min(xs) > 0
    if not xs:
        xs, ys = [0, 1], [0, 1]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if p["categories"]:
        x0, x1 = -0.5, len(p["categories"]) - 0.5
    if x1 == x0:
        x0, x1 = (x0 / 2, x0 * 2) if log else (x0 - 1, x1 + 1)
    if y1 == y0:
        y0, y1 = y0 - 1, y1 + 1
    pad = (y1 - y0) * 0.05
    y0, y1 = y0 - pad, y1 + pad
    pw, ph = W - ML - MR, H - MT - MB

    def X(v):
        if log:
            return ox + ML + (math.log10(v) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * pw
        return ox + ML + (v - x0) / (x1 - x0) * pw

    def Y(v):
        return oy + MT + (1 - (v - y0) / (y1 - y0)) * ph

    out.append(f'<rect x="{ox + ML}" y="{oy + MT}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{ox + W / 2}" y="{oy + 18}" text-anchor="middle" font-size="13">{escape(p["title"])}</text>')
    out.append(
        f'<text x="{ox + ML + pw / 2}" y="{oy + H - 8}" text-anchor="middle" font-size="11">'
        f"{escape(p['xlabel'])}</text>"
    )
    out.append(
        f'<text x="{ox + 12}" y="{oy + MT + ph / 2}" text-anchor="middle" font-size="11" '
        f'transform="rotate(-90 {ox + 12} {oy + MT + ph / 2})">{escape(p["ylabel"])}</text>'
    )
    xt = list(range(len(p["categories"]))) if p["categories"] else _ticks(x0, x1, log)
    for i, t in enumerate(xt):
        label = p["categories"][i] if p["categories"] else _fmt(t)
        out.append(
            f'<text x="{X(t):.1f}" y="{oy + MT + ph + 14}" text-anchor="middle" font-size="10">'
            f"{escape(str(label))}</text>"
        )
    for t in _ticks(y0, y1, False):
        out.append(f'<line x1="{ox + ML}" x2="{ox + ML + pw}" y1="{Y(t):.1f}" y2="{Y(t):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{ox + ML - 4}" y="{Y(t) + 3:.1f}" text-anchor="end" font-size="10">{_fmt(t)}</text>')
    ly = oy + MT + 12
    for i, s in enumerate(p["series"]):
        c = s.get("color", COLORS[i % len(COLORS)])
        band = s.get("band", [])
        if band:
            pts = [(X(x), Y(hi)) for x, lo, hi in band] + [(X(x), Y(lo)) for x, lo, hi in reversed(band)]
            out.append(
                '<polygon points="'
                + " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
                + f'" fill="{c}" fill-opacity="0.18" stroke="none"/>'
            )
        pts = [(x, y) for x, y in s.get("points", []) if y is not None and math.isfinite(y)]
        if s.get("style", "line") == "line" and len(pts) > 1:
            out.append(
                f'<polyline fill="none" stroke="{c}" stroke-width="1.6" points="'
                + " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in pts)
                + '"/>'
            )
        else:
            for x, y in pts:
                out.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3" fill="{c}" fill-opacity="0.75"/>')
        if s.get("label"):
            out.append(f'<text x="{ox + ML + 8}" y="{ly}" font-size="10" fill="{c}">{escape(s["label"])}</text>')
            ly += 12


def write(path, panels, cols=None):
    """Writes the panels as one SVG, in a grid cols wide."""
    cols = cols or min(len(panels), 3) or 1
    rows = max(1, math.ceil(len(panels) / cols))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W * cols}" height="{H * rows}" font-family="sans-serif">',
        f'<rect width="{W * cols}" height="{H * rows}" fill="white"/>',
    ]
    for i, p in enumerate(panels):
        _draw(p, (i % cols) * W, (i // cols) * H, out)
    out.append("</svg>\n")
    from ._trials import write_atomic

    write_atomic(path, "\n".join(out))
