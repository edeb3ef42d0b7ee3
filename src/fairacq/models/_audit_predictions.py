"""Audit predictions the user's own model made: no model is trained, every row is a test row.

:func:`audit_predictions` follows fairlearn's ``MetricFrame(y_true=..., y_pred=...,
sensitive_features=...)``: give the true labels, the model's 0/1 decisions (or labels, with
the favourable one named) and the groups, and get the same per-group table, metrics and
warnings as :func:`~fairacq.models.audit`. Scores in [0, 1] may come beside the decisions
(for the AUC) or in their place (thresholded).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._typing import ArrayLike
from fairacq._validation import Interval, validate_parameter_constraints
from fairacq.data import FairDataset, as_fair_dataset
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.models._audit_report import AuditReport, _build_report
from fairacq.models._evaluate import DEFAULT_METRICS

__all__ = ["audit_predictions"]

#: How a prediction column must look, said once for every refusal.
_EXPECTED = (
    "Give 0/1 decisions, values of the label column (naming the favourable one), or scores "
    "from 0 to 1."
)


def audit_predictions(
    y_true: ArrayLike,
    y_pred: ArrayLike | None = None,
    *,
    sensitive_features: ArrayLike,
    scores: ArrayLike | None = None,
    positive: str | None = None,
    threshold: float = 0.5,
    metrics: Sequence[str] = DEFAULT_METRICS,
    name: str = "data",
    model: str = "predictions",
) -> AuditReport:
    """Report the fairness of predictions made elsewhere, on every row given.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True labels: 0/1, booleans, or any values with ``positive`` naming the favourable one.
    y_pred : array-like of shape (n,) or None, default=None
        The model's decisions: 0/1, booleans, or values of ``y_true`` (compared with
        ``positive``). None: decide from ``scores``.
    sensitive_features : array-like, Series or DataFrame
        One group column, or several for intersectional groups.
    scores : array-like of shape (n,) or None, default=None
        The model's probability of the favourable label, in [0, 1]: fills the AUC column and,
        without ``y_pred``, gives the decisions (``scores >= threshold``).
    positive : str or None, default=None
        The favourable value when the labels (and predictions) are not 0/1.
    threshold : float, default=0.5
        Decision threshold on ``scores`` when ``y_pred`` is None.
    metrics : sequence of str, default=DEFAULT_METRICS
        Metric names from :func:`fairacq.metrics.available`.
    name, model : str
        What the report calls the data and the model.

    Returns
    -------
    AuditReport
        With ``n_train`` 0 and ``source`` ``"predictions"``.

    Raises
    ------
    InvalidDataError
        On lengths that differ, missing predictions, or predictions that are neither 0/1,
        values of the label, nor scores in [0, 1].
    InvalidParameterError
        When neither ``y_pred`` nor ``scores`` is given, or ``threshold`` is outside (0, 1].

    See Also
    --------
    fairacq.models.audit : Train a model (or take a fitted one) and audit it.

    Examples
    --------
    >>> groups = ["a"] * 40 + ["b"] * 40
    >>> report = audit_predictions([1, 0] * 40, [1, 0] * 20 + [0] * 40, sensitive_features=groups)
    >>> report.metrics["demographic_parity_diff_abs"], report.n_test
    (0.5, 80)
    """
    validate_parameter_constraints(
        {"threshold": [Interval(float, 0, 1, closed="right")]},
        {"threshold": threshold},
        "audit_predictions",
    )
    if y_pred is None and scores is None:
        raise InvalidParameterError(
            "audit_predictions: give the model's decisions (y_pred=...), its scores "
            "(scores=...), or both."
        )
    _check_lengths(name, y_true=y_true, y_pred=y_pred, scores=scores)
    labels = _label_rows(y_true, sensitive_features, positive=positive, name=name)
    prob = None if scores is None else _scores(scores, name)
    if y_pred is None:
        assert prob is not None
        decided = (prob >= threshold).astype(np.int64)
    else:
        decided = _decisions(y_pred, y_true, positive, name)
    return _build_report(labels, decided, prob, model=model, metrics=metrics, source="predictions")


def _label_rows(
    y_true: Any, sensitive_features: Any, *, positive: str | None, name: str
) -> FairDataset:
    """Build a :class:`FairDataset` of the audited rows' labels and groups (no features)."""
    n = len(y_true) if hasattr(y_true, "__len__") else 0
    return as_fair_dataset(
        pd.DataFrame(index=range(n)),
        y_true,
        sensitive_features=sensitive_features,
        positive=positive,
        name=name,
    )


def _check_lengths(where: str, **arrays: Any) -> None:
    sizes = {k: len(v) for k, v in arrays.items() if v is not None and hasattr(v, "__len__")}
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{k} {n}" for k, n in sizes.items())
        raise InvalidDataError(
            f"{where}: the inputs differ in length ({listed}). Pass one value per row."
        )


def _as_series(values: Any) -> tuple[pd.Series, str]:
    """Return the values as a Series (booleans as 0/1) and how messages name them."""
    series = pd.Series(values).reset_index(drop=True)
    what = f"column {series.name!r}" if isinstance(values, pd.Series) and series.name else ""
    if series.dtype == bool:
        series = series.astype(np.int64)
    return series, what


def _refuse_missing(series: pd.Series, where: str, what: str) -> None:
    gaps = series.isna().to_numpy()
    if gaps.any():
        raise InvalidDataError(
            f"{where}: {what} has {int(gaps.sum())} missing value(s) (rows "
            f"{np.flatnonzero(gaps)[:5].tolist()}); every row needs a prediction. Fill or "
            "drop those rows."
        )


def _shown(values: pd.Series) -> str:
    found = sorted(map(str, values.unique()))
    return ", ".join(found[:6]) + (" ..." if len(found) > 6 else "")


def _decisions(y_pred: Any, y_true: Any, positive: str | None, where: str) -> NDArray[np.int64]:
    """0/1 decisions from 0/1 values or from values of the label (``positive`` -> 1)."""
    series, what = _as_series(y_pred)
    what = what or "y_pred"
    _refuse_missing(series, where, what)
    labels, _ = _as_series(y_true)
    text = series.astype(str)
    if positive is not None and set(text) <= set(labels.astype(str)):
        return (text == str(positive)).to_numpy().astype(np.int64)
    numbers = pd.to_numeric(series, errors="coerce")
    if numbers.notna().all() and set(numbers.unique()) <= {0, 1}:
        return numbers.to_numpy().astype(np.int64)
    if numbers.notna().all() and numbers.between(0, 1).all():
        raise InvalidDataError(
            f"{where}: {what} holds values between 0 and 1 ({_shown(series)}), not 0/1 "
            "decisions. Pass them as scores=... (thresholded at threshold=0.5)."
        )
    raise InvalidDataError(
        f"{where}: {what} holds {_shown(series)}; the label holds {_shown(labels)}. {_EXPECTED}"
    )


def _scores(scores: Any, where: str) -> NDArray[np.float64]:
    """Scores as floats in [0, 1]; refuse missing, non-numeric or out-of-range ones."""
    series, what = _as_series(scores)
    what = what or "scores"
    _refuse_missing(series, where, what)
    numbers = pd.to_numeric(series, errors="coerce")
    if numbers.isna().any():
        raise InvalidDataError(
            f"{where}: {what} holds text ({_shown(series[numbers.isna()])}) among its "
            f"numbers. {_EXPECTED}"
        )
    arr = numbers.to_numpy(dtype=np.float64)
    if not np.isfinite(arr).all() or arr.min() < 0 or arr.max() > 1:
        raise InvalidDataError(
            f"{where}: {what} holds values from {arr.min():.4g} to {arr.max():.4g}, outside 0 "
            f"to 1. {_EXPECTED}"
        )
    return arr
