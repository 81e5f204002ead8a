"""rlhost study's report against rliable itself (the package, in .venv): the
same score matrices through rliable's get_interval_estimates, probability
of improvement and create_performance_profile, from np.random.seed(S) in
the order the report draws them.  Point estimates and intervals must agree
exactly.  (TAP)   Usage: study_rliable.py STUDY_DIR"""

import json
import sys

import numpy as np
from rliable import library as rly
from rliable import metrics

n = 0
failed = 0


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + f" {n} - {what}")
    failed += not cond


rep = json.load(open(f"{sys.argv[1]}/report.json"))
labels = list(rep["configs"])
scores = {lab: np.array(rep["configs"][lab]["scores"], dtype=float).reshape(-1, 1) for lab in labels}
reps, seed = rep["reps"], rep["bootstrap_seed"]
np.random.seed(seed)


def agg(x):
    return np.array([metrics.aggregate_median(x), metrics.aggregate_iqm(x), metrics.aggregate_mean(x)])


point, ci = rly.get_interval_estimates(scores, agg, reps=reps)
pairs = {f"{a},{b}": [scores[a], scores[b]] for a in labels for b in labels if a != b}
poi, poi_ci = (
    rly.get_interval_estimates(pairs, metrics.probability_of_improvement, reps=min(reps, 2000)) if pairs else ({}, {})
)
taus = np.array(rep["profile_taus"])
prof, prof_ci = rly.create_performance_profile(scores, taus, reps=2000)
for lab in labels:
    c = rep["configs"][lab]
    for i, name in enumerate(["median", "iqm", "mean"]):
        ok(c[name]["value"] == point[lab][i], f"{lab} {name}: {c[name]['value']} == rliable's {point[lab][i]}")
        ok(
            c[name]["ci"] == [ci[lab][0][i], ci[lab][1][i]],
            f"{lab} {name} 95% CI: {c[name]['ci']} == rliable's {[ci[lab][0][i], ci[lab][1][i]]}",
        )
    ok(np.array_equal(np.array(c["profile"]), prof[lab]), f"{lab}: performance profile equal to rliable's")
    ok(np.array_equal(np.array(c["profile_ci"]), prof_ci[lab]), f"{lab}: its 95% band equal to rliable's")
for k, v in rep["probability_of_improvement"].items():
    ok(v["value"] == poi[k], f"P({k.replace(',', ' > ')}) = {v['value']} == rliable's {poi[k]}")
    ok(v["ci"] == [poi_ci[k][0][0], poi_ci[k][1][0]], f"its CI {v['ci']} == rliable's")
print(f"1..{n}")
sys.exit(1 if failed else 0)
