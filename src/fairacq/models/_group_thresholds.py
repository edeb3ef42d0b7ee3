"""Group thresholds placed at the quantiles of unlabelled rows: demographic parity, less noise.

Demographic parity compares the groups' *selection rates*, which need no labels. Hardt et
al.'s thresholds (fairlearn's ``ThresholdOptimizer``) choose each group's rate and place its
threshold on the same labelled validation rows; with a few thousand of them the placement
alone moves a group's realised rate by about a point. :func:`place_on_unlabelled` keeps the
rates the labelled rows chose (the accuracy trade-off needs labels) and places each group's
threshold at the matching quantile of the model's probabilities over many more rows whose
labels are not needed (a pool of candidates), so the realised rates follow the chosen ones
more closely. The rule is deterministic: one threshold per group, no coin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._typing import ArrayLike, Classifier
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidParameterError

__all__ = ["GroupThresholds", "place_on_unlabelled", "thresholds_at_rates"]


@dataclass
class GroupThresholds:
    """Predict 1 where the model's P(y=1) exceeds its group's threshold.

    Attributes
    ----------
    estimator : estimator
        The fitted model (``predict_proba``), left unchanged.
    thresholds : ndarray of shape (n_groups,)
        One threshold per group code.
    note : str or None
        Set when a group's rate fell back (one label in its validation rows): the warning's
        text (:mod:`fairacq.models._threshold_fallback`).
    """

    estimator: Classifier
    thresholds: NDArray[np.float64]
    note: str | None = None

    def chances(self, X: ArrayLike, *, sensitive_features: ArrayLike) -> NDArray[np.float64]:
        """Return each row's chance of a positive prediction (0 or 1: the rule has no coin)."""
        scores = self.estimator.predict_proba(X)[:, 1]
        groups = np.asarray(sensitive_features, dtype=np.int64)
        out: NDArray[np.float64] = (scores > self.thresholds[groups]).astype(np.float64)
        return out

    def predict(
        self, X: ArrayLike, *, sensitive_features: ArrayLike, random_state: RandomState = None
    ) -> NDArray[np.int64]:
        """Return the 0/1 predictions (``random_state`` is accepted and unused)."""
        return self.chances(X, sensitive_features=sensitive_features).astype(np.int64)


def place_on_unlabelled(
    model: Classifier, rates: NDArray[np.float64], unlabelled: FairDataset | Sequence[FairDataset]
) -> GroupThresholds:
    """Return thresholds giving each group its ``rates`` share of positives on ``unlabelled``.

    Group ``g``'s threshold is the ``1 - rates[g]`` quantile of ``model``'s P(y=1) over the
    group's rows of ``unlabelled`` (their labels, if any, are not read), so that a share
    ``rates[g]`` of them lies above it.

    Parameters
    ----------
    model : estimator
        A fitted classifier with ``predict_proba``.
    rates : ndarray of shape (n_groups,)
        The selection rate wanted in each group, in [0, 1].
    unlabelled : FairDataset or sequence of FairDataset
        Rows of every group, drawn like the rows the model will predict (several datasets
        count as one, without copying them together).

    Returns
    -------
    GroupThresholds

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> from fairacq.models import make_learner
    >>> ds = load_toy(400, random_state=0)
    >>> lr = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    >>> rule = place_on_unlabelled(lr, np.array([0.3, 0.3]), ds)
    >>> pred = rule.predict(ds.to_numpy(), sensitive_features=ds.s)
    >>> [round(float(pred[ds.s == g].mean()), 2) for g in (0, 1)]
    [0.3, 0.3]
    """
    parts = [unlabelled] if isinstance(unlabelled, FairDataset) else list(unlabelled)
    scores = np.concatenate([model.predict_proba(d.to_numpy())[:, 1] for d in parts])
    groups = np.concatenate([np.asarray(d.s, dtype=np.int64) for d in parts])
    return GroupThresholds(model, thresholds_at_rates(scores, groups, rates, parts[0].group_names))


def thresholds_at_rates(
    scores: NDArray[np.float64],
    groups: NDArray[np.int64],
    rates: NDArray[np.float64],
    group_names: Sequence[str],
) -> NDArray[np.float64]:
    """Return per group the ``1 - rate`` quantile of its ``scores``: ``rate`` of them above.

    Examples
    --------
    >>> thresholds_at_rates(np.arange(10) / 10, np.repeat([0, 1], 5), np.array([0.4, 0.0]),
    ...                     ["a", "b"]).tolist()
    [0.2, 0.9]
    """
    thresholds = np.empty(len(rates), dtype=np.float64)
    for g, rate in enumerate(np.clip(np.asarray(rates, dtype=np.float64), 0.0, 1.0)):
        own = scores[groups == g]
        if own.size == 0:
            raise InvalidParameterError(
                f"group thresholds: the unlabelled rows hold no row of group "
                f"{group_names[g]!r}; give rows of every group."
            )
        # 'lower' keeps a threshold that is one of the scores: '>' then selects at most
        # the wanted share (ties aside), and rate 0 selects nothing
        thresholds[g] = np.quantile(own, 1.0 - rate, method="lower") if rate < 1 else -np.inf
    return thresholds
