"""AUC-ROC and AUC-PR are computed without scikit-learn, to the same values."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from fairacq.metrics import auc_pr, auc_roc


@pytest.mark.parametrize("kind", ["continuous", "few_levels", "rounded", "float32"])
def test_equal_to_scikit_learn_with_and_without_ties(kind):
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(2, 200))
        y = rng.integers(0, 2, n)
        if y.min() == y.max():
            y[0] = 1 - y[0]
        if kind == "continuous":
            s = rng.random(n)
        elif kind == "few_levels":
            s = rng.integers(0, 4, n) / 3
        elif kind == "rounded":
            s = np.round(rng.normal(size=n), 1)
        else:
            s = rng.random(n).astype(np.float32).astype(float)
        assert auc_roc(y, s) == roc_auc_score(y, s)
        assert auc_pr(y, s) == average_precision_score(y, s)
