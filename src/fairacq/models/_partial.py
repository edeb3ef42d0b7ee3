"""Incremental updates of a fitted learner with new rows only (``partial_fit``)."""

from __future__ import annotations

import copy
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike
from sklearn.pipeline import Pipeline

from fairacq._typing import Classifier
from fairacq.exceptions import InvalidParameterError

__all__ = ["partial_update"]

_Model = TypeVar("_Model", bound=Classifier)


@runtime_checkable
class _Incremental(Protocol):
    """A classifier that learns from new rows only."""

    def partial_fit(self, X: Any, y: Any, /) -> Any:
        """One pass over ``(X, y)``."""


def partial_update(model: _Model, X: ArrayLike, y: ArrayLike) -> _Model:
    """Return a copy of a fitted ``model`` updated by one ``partial_fit`` pass over ``(X, y)``.

    The copy's scaler (the steps before the classifier of a :func:`make_learner` pipeline)
    keeps the statistics of the first fit; only the classifier learns from the new rows.
    ``model`` itself is left unchanged, so a rejected update costs nothing to undo.

    Parameters
    ----------
    model : estimator
        A fitted classifier with ``partial_fit``, or a pipeline ending in one.
    X : array-like of shape (n_rows, n_features)
        The new rows only.
    y : array-like of shape (n_rows,)
        Their labels (any subset of the classes the model was first fitted on).

    Returns
    -------
    estimator
        The updated copy.

    Raises
    ------
    InvalidParameterError
        If the classifier has no ``partial_fit`` (refit it from scratch instead).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import make_learner
    >>> ds = load_toy()
    >>> X = ds.to_numpy()
    >>> model = make_learner("mlp", random_state=0, max_iter=2000).fit(X[:100], ds.y[:100])
    >>> updated = partial_update(model, X[100:], ds.y[100:])
    >>> updated is model
    False
    """
    updated = copy.deepcopy(model)
    clf = updated[-1] if isinstance(updated, Pipeline) else updated
    if not isinstance(clf, _Incremental):
        raise InvalidParameterError(
            f"{type(clf).__name__} has no partial_fit, so it cannot be updated with new rows "
            "only. Refit it from scratch (refit='scratch') or use a learner with "
            "LearnerSpec.partial_fit (e.g. 'mlp')."
        )
    X_arr = np.asarray(X, dtype=np.float64)
    if isinstance(updated, Pipeline):
        X_arr = updated[:-1].transform(X_arr)
    clf.partial_fit(X_arr, np.asarray(y))
    return updated
