"""Aggregate statistics of RL runs as rliable defines them (Agarwal et al.,
"Deep RL at the Edge of the Statistical Precipice", NeurIPS 2021), in
NumPy alone: interquartile mean, median and mean over a (runs x tasks)
score matrix, percentile confidence intervals from the stratified
bootstrap, the probability of improvement, and performance profiles.

Every function reproduces rliable 1.2 exactly, resampling included: a
bootstrap draws its indices with RandomState.choice(runs, (runs, tasks)),
one draw per replicate (per matrix, in order, for the independent
bootstrap of two matrices), from one RandomState consumed in the order
the calls are made; the statistic of each replicate is computed with the
same NumPy calls on the same arrays; the interval is np.percentile at
100 * (1 - size) / 2 and 100 * (1 - (1 - size) / 2).  So a report and
rliable fed the same matrices from np.random.seed(S) agree to the bit
(tests/tune/study.sh checks it)."""

import numpy as np


def iqm(scores):
    """Interquartile mean of all runs and tasks: the mean of the middle 50%
    (scipy.stats.trim_mean(scores, 0.25, axis=None), as rliable)."""
    a = np.asarray(scores, dtype=float).ravel()
    lo = int(0.25 * a.shape[0])
    hi = a.shape[0] - lo
    part = np.partition(a, (lo, hi - 1), 0)
    return np.mean(part[lo:hi], axis=0)


def mean(scores):
    """Mean over tasks of each task's mean over runs."""
    return np.mean(np.mean(scores, axis=0), axis=0)


def median(scores):
    """Median over tasks of each task's mean over runs."""
    return np.median(np.mean(scores, axis=0), axis=0)


def aggregates(scores):
    """[median, IQM, mean]: the order of rliable's own examples."""
    return np.array([median(scores), iqm(scores), mean(scores)])


def probability_of_improvement(x, y):
    """P(X > Y) averaged over tasks: per task the Mann-Whitney U of x over
    y divided by runs_x * runs_y (ties count a half), 0.5 for equal runs."""
    probs = []
    for t in range(x.shape[1]):
        a, b = x[:, t], y[:, t]
        if np.array_equal(a, b):
            probs.append(0.5)
            continue
        u = np.sum(a[:, None] > b[None, :]) + 0.5 * np.sum(a[:, None] == b[None, :])
        probs.append(float(u) / (a.shape[0] * b.shape[0]))
    return np.mean(probs)


def _percentiles(results, size):
    alpha = (1.0 - size) / 2
    per = np.array([alpha, 1.0 - alpha]) * 100
    out = np.zeros((2, results.shape[1]))
    for i in range(results.shape[1]):
        out[0, i], out[1, i] = np.percentile(results[:, i], list(per))
    return out


def interval(rs, scores, func, reps, size=0.95):
    """(point, [lower, upper]) of func over a (runs x tasks) matrix; the
    stratified bootstrap resamples runs within each task."""
    scores = np.asarray(scores, dtype=float)
    point = np.atleast_1d(func(scores))
    runs, tasks = scores.shape
    cols = np.ogrid[slice(0), slice(tasks)][1]
    results = np.zeros((reps, point.shape[0]))
    for r in range(reps):
        idx = rs.choice(runs, scores.shape, replace=True)
        results[r] = func(scores[idx, cols])
    return point, _percentiles(results, size)


def interval_pair(rs, x, y, func, reps, size=0.95):
    """The same for a statistic of two matrices resampled independently
    (rliable's StratifiedIndependentBootstrap)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    point = np.atleast_1d(func(x, y))
    cx = np.ogrid[slice(0), slice(x.shape[1])][1]
    cy = np.ogrid[slice(0), slice(y.shape[1])][1]
    results = np.zeros((reps, point.shape[0]))
    for r in range(reps):
        ix = rs.choice(x.shape[0], x.shape, replace=True)
        iy = rs.choice(y.shape[0], y.shape, replace=True)
        results[r] = func(x[ix, cx], y[iy, cy])
    return point, _percentiles(results, size)


def profile(scores, taus):
    """Score distribution: the fraction of runs (all tasks) above each tau."""
    return np.array([np.mean(scores > t) for t in taus])
