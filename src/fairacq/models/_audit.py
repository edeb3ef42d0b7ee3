"""Audit a baseline model: per-group table and fairness metrics on a held-out split."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from fairacq._random import derive_int_seed
from fairacq._validation import Interval, validate_parameter_constraints
from fairacq.data import FairDataset
from fairacq.metrics import group_table
from fairacq.models._evaluate import DEFAULT_METRICS, evaluate, predict_scores
from fairacq.models._registry import make_learner

__all__ = ["AuditReport", "audit"]


@dataclass(frozen=True)
class AuditReport:
    """The result of :func:`audit`.

    Attributes
    ----------
    dataset, model : str
        What was audited.
    sensitive : tuple of str
        The sensitive attribute(s) defining the groups.
    n_train, n_test : int
        Split sizes.
    metrics : dict
        Metric name -> value on the test split.
    groups : pandas.DataFrame
        Per-group size, base rate, selection rate, accuracy, TPR, FPR and AUC.
    y_test, y_pred, s_test : ndarray
        Test labels, predictions and group codes (for cross-checks).
    """

    dataset: str
    model: str
    sensitive: tuple[str, ...]
    n_train: int
    n_test: int
    metrics: dict[str, float]
    groups: pd.DataFrame
    y_test: np.ndarray = field(repr=False)
    y_pred: np.ndarray = field(repr=False)
    s_test: np.ndarray = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the per-row arrays)."""
        return {
            "dataset": self.dataset,
            "model": self.model,
            "sensitive": list(self.sensitive),
            "n_train": self.n_train,
            "n_test": self.n_test,
            "metrics": self.metrics,
            "groups": [
                {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in row.items()}
                for row in self.groups.to_dict("records")
            ],
        }


def audit(
    dataset: FairDataset,
    model: str = "lr",
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    test_size: float = 0.3,
    random_state: Any = 0,
) -> AuditReport:
    """Train ``model`` on a stratified split of ``dataset`` and report its fairness.

    Parameters
    ----------
    dataset : FairDataset
        Data to audit; groups are its sensitive attribute(s).
    model : str, default="lr"
        A name from :func:`fairacq.models.available_learners`.
    metrics : sequence of str, default=DEFAULT_METRICS
        Metric names from :func:`fairacq.metrics.available`.
    test_size : float, default=0.3
        Fraction held out for evaluation (stratified on label and group).
    random_state : int, Generator, SeedSequence or None, default=0
        Controls the split and the learner.

    Returns
    -------
    AuditReport

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> report = audit(load_toy(), "lr", metrics=["accuracy"])
    >>> list(report.groups["group"])
    ['g0', 'g1']
    """
    validate_parameter_constraints(
        {"test_size": [Interval(float, 0, 1, closed="neither")]},
        {"test_size": test_size},
        "audit",
    )
    seed = derive_int_seed(random_state)
    strata = dataset.s * 2 + dataset.y
    idx_train, idx_test = train_test_split(
        np.arange(len(dataset)), test_size=test_size, random_state=seed, stratify=strata
    )
    train, test = dataset.subset(idx_train), dataset.subset(idx_test)
    clf = make_learner(model, random_state=seed).fit(train.to_numpy(), train.y)
    values = evaluate(clf, test, metrics)
    scores = predict_scores(clf, test.to_numpy())
    y_pred = (scores >= 0.5).astype(np.int64)
    table = group_table(test.y, y_pred, test.s, scores=scores, group_names=test.group_names)
    return AuditReport(
        dataset=dataset.name,
        model=model,
        sensitive=dataset.sensitive_attrs,
        n_train=len(train),
        n_test=len(test),
        metrics=values,
        groups=table,
        y_test=test.y,
        y_pred=y_pred,
        s_test=test.s,
    )
