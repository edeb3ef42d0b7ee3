"""Classifiers whose outputs are no classifier's, passed to the CLI as ``--model module:Class``.

``--model tests.models._degenerate:NanProba`` gives NaN probabilities,
``--model tests.models._degenerate:WideProba`` probabilities outside [0, 1].
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class _Degenerate(ClassifierMixin, BaseEstimator):
    """Fits (learns the classes) but answers ``predict_proba`` with :meth:`_proba`."""

    def fit(self, X: Any, y: Any) -> _Degenerate:
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        return self._proba(len(X))

    def predict(self, X: Any) -> np.ndarray:
        return self.classes_[(self.predict_proba(X)[:, 1] >= 0.5).astype(int)]

    def _proba(self, n: int) -> np.ndarray:
        raise NotImplementedError


class NanProba(_Degenerate):
    """Every probability is NaN (a fit that diverged)."""

    def _proba(self, n: int) -> np.ndarray:
        return np.full((n, 2), np.nan)


class WideProba(_Degenerate):
    """Raw margins from -3 to 3 returned as if they were probabilities."""

    def _proba(self, n: int) -> np.ndarray:
        margin = np.linspace(-3, 3, n)
        return np.column_stack([-margin, margin])
