"""Models whose outputs are no classifier's, for ``--model tests.degenerate_models:NanProba``.

One home for every test that checks a degenerate model is refused rather than measured.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression


class NanProba(LogisticRegression):
    """A logistic regression whose probabilities are all NaN (a fit that diverged)."""

    def predict_proba(self, X):
        proba = super().predict_proba(X)
        proba[:] = np.nan
        return proba


class WideProba(LogisticRegression):
    """A logistic regression whose 'probabilities' run from 0 to 2."""

    def predict_proba(self, X):
        return 2.0 * super().predict_proba(X)


class FitRaises(LogisticRegression):
    """A classifier whose ``fit`` always fails (e.g. a library bug or a missing resource)."""

    def fit(self, X, y, sample_weight=None):
        raise RuntimeError("the solver could not start")


class OneColumnProba(LogisticRegression):
    """A logistic regression whose ``predict_proba`` has one column instead of two."""

    def predict_proba(self, X):
        return super().predict_proba(X)[:, 1:]


class InitRaises(LogisticRegression):
    """A classifier whose constructor fails (e.g. a licence or a device it cannot find)."""

    def __init__(self, C=1.0):
        raise RuntimeError("no licence for this solver")
