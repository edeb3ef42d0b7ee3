"""Audit a baseline model: per-group table and fairness metrics on a held-out split."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from fairacq._random import derive_int_seed
from fairacq._validation import Interval, validate_parameter_constraints
from fairacq.data import as_fair_dataset
from fairacq.exceptions import InvalidDataError, ResultWarning
from fairacq.metrics import group_table
from fairacq.models._evaluate import DEFAULT_METRICS, evaluate, predict_scores
from fairacq.models._registry import describe_learner, make_learner

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
        Per-group size, base rate, selection rate, accuracy with its 95 % Wilson interval
        (``accuracy_low``, ``accuracy_high``), TPR, FPR and AUC.
    y_test, y_pred, s_test : ndarray
        Test labels, predictions and group codes (for cross-checks).
    warnings : tuple of str
        Where the numbers cannot be trusted as asked (small groups, a one-class model).
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
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the per-row arrays)."""
        return {
            "dataset": self.dataset,
            "model": self.model,
            "sensitive": list(self.sensitive),
            "n_train": self.n_train,
            "n_test": self.n_test,
            "metrics": self.metrics,
            "warnings": list(self.warnings),
            "groups": [
                {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in row.items()}
                for row in self.groups.to_dict("records")
            ],
        }


def audit(
    dataset: Any,
    model: Any = "lr",
    *,
    y: Any = None,
    sensitive_features: Any = None,
    positive: str | None = None,
    metrics: Sequence[str] = DEFAULT_METRICS,
    test_size: float = 0.3,
    random_state: Any = 0,
) -> AuditReport:
    """Train ``model`` on a stratified split of ``dataset`` and report its fairness.

    Parameters
    ----------
    dataset : FairDataset, pandas.DataFrame or array-like
        Data to audit; groups are its sensitive attribute(s). Raw features (string columns
        one-hot encoded) with ``y`` and ``sensitive_features``, as fairlearn takes them.
    model : str or estimator, default="lr"
        A name from :func:`fairacq.models.available_learners`, ``"module:Class"``, or any
        scikit-learn classifier (a Pipeline too), cloned before fitting.
    y, sensitive_features : array-like, optional
        Labels and group column(s) when ``dataset`` holds raw features.
    positive : str or None, default=None
        The favourable value of a ``y`` that is not 0/1.
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
    >>> report = audit(load_toy(400), "lr", metrics=["accuracy"])
    >>> list(report.groups["group"])
    ['g0', 'g1']
    """
    validate_parameter_constraints(
        {"test_size": [Interval(float, 0, 1, closed="neither")]},
        {"test_size": test_size},
        "audit",
    )
    dataset = as_fair_dataset(dataset, y, sensitive_features=sensitive_features, positive=positive)
    seed = derive_int_seed(random_state)
    if len(np.unique(dataset.y)) < 2:
        raise InvalidDataError(
            f"audit: every label of '{dataset.name}' is {int(dataset.y[0])}, so no classifier "
            "can be trained. Give rows of both classes (or check --label/--positive)."
        )
    strata = dataset.s * 2 + dataset.y
    try:
        idx_train, idx_test = train_test_split(
            np.arange(len(dataset)), test_size=test_size, random_state=seed, stratify=strata
        )
    except ValueError as exc:  # a group and label with too few rows for both parts
        raise InvalidDataError(
            f"audit: cannot split '{dataset.name}' ({len(dataset)} rows) into training and "
            f"test rows of every group and label ({exc}). Give more rows, or another "
            "--test-size (test_size)."
        ) from None
    train, test = dataset.subset(idx_train), dataset.subset(idx_test)
    clf = make_learner(model, random_state=seed).fit(train.to_numpy(), train.y)
    values = evaluate(clf, test, metrics)
    scores = predict_scores(clf, test.to_numpy())
    y_pred = (scores >= 0.5).astype(np.int64)
    table = _with_intervals(
        group_table(test.y, y_pred, test.s, scores=scores, group_names=test.group_names)
    )
    problems = _audit_warnings(table, y_pred)
    for problem in problems:
        warnings.warn(problem, ResultWarning, stacklevel=2)
    return AuditReport(
        dataset=dataset.name,
        model=describe_learner(model),
        sensitive=dataset.sensitive_attrs,
        n_train=len(train),
        n_test=len(test),
        metrics=values,
        groups=table,
        y_test=test.y,
        y_pred=y_pred,
        s_test=test.s,
        warnings=tuple(problems),
    )


#: Fewer test rows than this in a group make its numbers too noisy to compare.
SMALL_GROUP = 30


def _with_intervals(table: pd.DataFrame) -> pd.DataFrame:
    """Add the 95 % Wilson interval of each group's accuracy (NaN for an empty group)."""
    n = table["size"].to_numpy(dtype=float)
    p = table["accuracy"].to_numpy(dtype=float)
    z = 1.959963984540054
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    at = list(table.columns).index("accuracy") + 1
    table.insert(at, "accuracy_low", centre - half)
    table.insert(at + 1, "accuracy_high", centre + half)
    return table


def _audit_warnings(table: pd.DataFrame, y_pred: np.ndarray) -> list[str]:
    out = []
    small = table[table["size"] < SMALL_GROUP]
    if len(small):
        listed = ", ".join(
            f"{g} ({int(n)} rows, accuracy {lo:.2f}-{hi:.2f})"
            for g, n, lo, hi in small[
                ["group", "size", "accuracy_low", "accuracy_high"]
            ].itertuples(index=False)
        )
        out.append(
            f"groups with fewer than {SMALL_GROUP} test rows: {listed}; their rates are too "
            "noisy to compare (95 % intervals shown). Collect more rows of them or merge groups."
        )
    if len(np.unique(y_pred)) < 2:
        out.append(
            f"the model predicts {int(y_pred[0])} for every test row, so its parity gaps say "
            "nothing about fairness. Check the label balance, the features or the model."
        )
    return out
