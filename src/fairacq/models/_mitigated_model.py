"""A fitted "collect nothing" comparator and the metrics of its 0/1 predictions.

Kept apart from :mod:`fairacq.models._mitigation` (which fits the comparators) so that the
group-threshold rule, one of those comparators, can build a :class:`MitigatedModel` without
importing the module that imports it.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState, derive_int_seed
from fairacq._typing import ArrayLike
from fairacq.data import FairDataset
from fairacq.metrics import compute
from fairacq.models._evaluate import DEFAULT_METRICS, _protected

__all__ = ["MitigatedModel", "prediction_metrics", "quiet_fairlearn"]


@dataclass(frozen=True)
class MitigatedModel:
    """A fitted comparator.

    Attributes
    ----------
    name : str
        A key of :data:`MITIGATIONS`.
    model : estimator
        The fitted fairlearn object, or the reweighted learner.
    learner : str
        The base learner, as :func:`~fairacq.models.describe_learner` names it.
    """

    name: str
    model: Any
    learner: str

    def predict(self, dataset: FairDataset, *, random_state: RandomState = 0) -> NDArray[np.int64]:
        """Return the 0/1 prediction of each row of ``dataset`` (drawn with ``random_state``)."""
        X = dataset.to_numpy()
        seed = derive_int_seed(random_state)
        with quiet_fairlearn():
            if self.name.startswith("threshold"):
                pred = self.model.predict(X, sensitive_features=dataset.s, random_state=seed)
            elif self.name.startswith("expgrad"):
                pred = self.model.predict(X, random_state=seed)
            else:
                pred = self.model.predict(X)
        return np.asarray(pred, dtype=np.int64)


@contextlib.contextmanager
def quiet_fairlearn() -> Iterator[None]:
    """Silence the pandas deprecation warnings fairlearn raises inside its own code."""
    with warnings.catch_warnings():
        for category in (DeprecationWarning, FutureWarning):
            warnings.filterwarnings("ignore", category=category, module=r"fairlearn\.")
        warnings.filterwarnings("ignore", message="Setting a", category=DeprecationWarning)
        yield


def prediction_metrics(
    y_pred: ArrayLike,
    dataset: FairDataset,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    scores: ArrayLike | None = None,
) -> dict[str, float]:
    """Compute ``metrics`` of 0/1 predictions ``y_pred`` of ``dataset``'s rows.

    The same numbers :func:`fairacq.models.evaluate` gives for a model's thresholded
    predictions; metrics that need scores (AUC) need ``scores``, each row's P(y=1).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(200)
    >>> prediction_metrics(ds.y, ds, ["accuracy"])
    {'accuracy': 1.0}
    """
    pred = np.asarray(y_pred, dtype=np.int64)
    protected = _protected(dataset)
    return {
        name: float(compute(name, dataset.y, pred, dataset.s, scores=scores, protected=protected))
        for name in metrics
    }
