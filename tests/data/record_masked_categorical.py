"""Records sb3-contrib's masked distributions on random logits and masks
into masked_categorical.txt, which test_dist reads (the suite runs no
torch).  Run once, in a venv with sb3-contrib (and torch):

    python tests/data/record_masked_categorical.py > tests/data/masked_categorical.txt

Each line: nvec's length K, then nvec, then the logits, the mask (0/1),
the action (one index per component), sb3-contrib's log-probability and
entropy (float64, %.9g).  K = 1 is MaskableCategorical; K > 1 is
MaskableMultiCategoricalDistribution (a product of categoricals, each
component masked)."""

import numpy as np
import sb3_contrib
import torch
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableMultiCategoricalDistribution

rng = np.random.default_rng(2026)
print(f"# sb3-contrib {sb3_contrib.__version__}, torch {torch.__version__}")
cases = [[1], [2], [3], [5], [18], [3, 2, 4], [7, 7], [2, 2, 2, 2, 5]]
for nvec in cases:
    for row in range(40):
        n = sum(nvec)
        scale = [0.1, 1.0, 10.0, 50.0][row % 4]
        logits = (rng.standard_normal(n) * scale).astype(np.float32)
        mask = np.zeros(n, bool)
        action = []
        off = 0
        for k in nvec:  # every component keeps at least one valid choice
            m = rng.random(k) < (0.5 if row % 5 else 0.05)
            m[rng.integers(k)] = True
            mask[off : off + k] = m
            action.append(int(rng.choice(np.flatnonzero(m))))
            off += k
        lt = torch.tensor(logits)[None]
        mt = torch.tensor(mask)[None]
        if len(nvec) == 1:
            d = MaskableCategorical(logits=lt, masks=mt)
            lp = d.log_prob(torch.tensor([action[0]]))[0].item()
            h = d.entropy()[0].item()
        else:
            dist = MaskableMultiCategoricalDistribution(nvec)
            dist.proba_distribution(lt)
            dist.apply_masking(mt)
            lp = dist.log_prob(torch.tensor([action]))[0].item()
            h = dist.entropy()[0].item()
        fields = [len(nvec), *nvec, *(f"{x:.9g}" for x in logits), *mask.astype(int), *action, f"{lp:.9g}", f"{h:.9g}"]
        print(" ".join(str(f) for f in fields))
