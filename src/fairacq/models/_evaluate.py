"""Evaluate a fitted classifier on a FairDataset with any registered metrics."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from fairacq._typing import Classifier
from fairacq.data import FairDataset
from fairacq.metrics import compute
from fairacq.models._health import check_probabilities

__all__ = ["DEFAULT_METRICS", "evaluate", "predict_scores"]

#: Metrics tracked by default: fairness beside accuracy, as every family reports.
DEFAULT_METRICS: tuple[str, ...] = (
    "accuracy",
    "demographic_parity_diff_abs",
    "equalized_odds_diff",
    "equal_opportunity_diff",
)


def predict_scores(model: Classifier, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """Probability of the positive class for each row.

    Raises
    ------
    DegenerateModelError
        When the model's probabilities are NaN, outside [0, 1] or not one column per class.
    """
    return check_probabilities(model.predict_proba(X), where="the model")


def evaluate(
    model: Classifier,
    dataset: FairDataset,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    threshold: float = 0.5,
    include_sensitive: bool = False,
    scores: NDArray[np.float64] | None = None,
) -> dict[str, float]:
    """Compute ``metrics`` for a fitted ``model`` on ``dataset``.

    Parameters
    ----------
    model : estimator
        Fitted classifier with ``predict_proba``.
    dataset : FairDataset
        Rows to evaluate on.
    metrics : sequence of str, default=DEFAULT_METRICS
        Names from :func:`fairacq.metrics.available`.
    threshold : float, default=0.5
        Decision threshold on the positive-class probability.
    include_sensitive : bool, default=False
        Whether the model was trained with the group indicator columns.
    scores : ndarray of shape (len(dataset),) or None, default=None
        ``model``'s probabilities of the positive class for ``dataset``'s rows, when the
        caller has them already (a loop that holds the features as an array); None
        predicts them.

    Returns
    -------
    dict
        Metric name -> value.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import make_learner
    >>> ds = load_toy()
    >>> model = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    >>> sorted(evaluate(model, ds, ["accuracy"]))
    ['accuracy']
    """
    if scores is None:
        scores = predict_scores(model, dataset.to_numpy(include_sensitive=include_sensitive))
    y_pred = (scores >= threshold).astype(np.int64)
    y, s = dataset.y, dataset.s
    return {
        name: float(compute(name, y, y_pred, s, scores=scores, protected=_protected(dataset)))
        for name in metrics
    }


def _protected(dataset: FairDataset) -> int | None:
    """Code of the protected group for signed binary metrics (the non-privileged one)."""
    priv = dataset.privileged_code
    if priv is None or dataset.n_groups != 2:
        return None
    return 1 - priv
