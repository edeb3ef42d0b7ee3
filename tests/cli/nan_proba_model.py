"""A classifier whose probabilities are NaN, for ``--model tests.cli.nan_proba_model:NanProba``."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class NanProba(ClassifierMixin, BaseEstimator):
    """Fits like any classifier, then answers NaN for every probability."""

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.full((len(X), 2), np.nan)

    def predict(self, X):
        return np.zeros(len(X), dtype=np.int64)
