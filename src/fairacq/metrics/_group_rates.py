"""Per-group rates: selection rate, base rate, true and false positive rates, mean score.

These are the building blocks of every parity and odds metric. Each is one
:func:`numpy.bincount` over group codes, so the cost is linear in the number of rows and
there is no Python loop over rows. Per-group results are :class:`pandas.Series` indexed by
the group labels in sorted order (index name ``group``); a rate that is undefined for a
group (no rows with the conditioning label) is NaN.
"""

from __future__ import annotations

import pandas as pd
from numpy.typing import ArrayLike

from fairacq.exceptions import InvalidDataError
from fairacq.metrics._checks import _binary, _group_mean, _groups, _rows, _series, _unit

__all__ = [
    "group_base_rates",
    "group_false_positive_rates",
    "group_mean_scores",
    "group_selection_rates",
    "group_true_positive_rates",
    "selection_rate",
]


def selection_rate(y_pred: ArrayLike) -> float:
    """Return the fraction of rows predicted positive, ``P(Y_hat = 1)``.

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Binary predictions, 1 = the favourable outcome.

    Returns
    -------
    float
        The selection rate, in ``[0, 1]``.

    Raises
    ------
    InvalidDataError
        If ``y_pred`` is empty, not 1-D, holds NaN or values other than 0/1.

    Examples
    --------
    >>> selection_rate([1, 0, 1, 1])
    0.75
    """
    where = "selection_rate"
    pred = _binary(where, _rows(where, y_pred=y_pred)["y_pred"], "y_pred")
    if pred.size == 0:
        raise InvalidDataError(f"{where}: 'y_pred' is empty. Pass at least one prediction.")
    return float(pred.mean())


def group_selection_rates(y_pred: ArrayLike, s: ArrayLike) -> pd.Series[float]:
    """Return the selection rate ``P(Y_hat = 1 | S = g)`` of every group ``g``.

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Binary predictions, 1 = the favourable outcome.
    s : array-like of shape (n,)
        Group label of each row (ints, strings or bools); at least two groups.

    Returns
    -------
    pandas.Series
        One rate per group, indexed by group label in sorted order.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary predictions or a single group.

    Examples
    --------
    >>> group_selection_rates([1, 0, 1, 1], ["a", "a", "b", "b"]).tolist()
    [0.5, 1.0]
    """
    where = "group_selection_rates"
    a = _rows(where, y_pred=y_pred, s=s)
    pred = _binary(where, a["y_pred"], "y_pred")
    codes, labels = _groups(where, a["s"])
    rates = _group_mean(pred, codes, len(labels))
    return _series(rates, labels, "selection_rate")


def group_base_rates(y_true: ArrayLike, s: ArrayLike) -> pd.Series[float]:
    """Return the base rate ``P(Y = 1 | S = g)`` of every group ``g``.

    Hasan & Pradhan (DataSift, §3.2, Eq. 1) rewards partitions by the difference of these rates.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels, 1 = the favourable outcome.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    pandas.Series
        One base rate per group, indexed by group label in sorted order.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> group_base_rates([0, 0, 1, 1, 1], [0, 0, 0, 1, 1]).tolist()
    [0.3333333333333333, 1.0]
    """
    where = "group_base_rates"
    a = _rows(where, y_true=y_true, s=s)
    true = _binary(where, a["y_true"], "y_true")
    codes, labels = _groups(where, a["s"])
    return _series(_group_mean(true, codes, len(labels)), labels, "base_rate")


def group_true_positive_rates(
    y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike
) -> pd.Series[float]:
    """Return the true positive rate ``P(Y_hat = 1 | Y = 1, S = g)`` of every group.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    y_pred : array-like of shape (n,)
        Binary predictions.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    pandas.Series
        One TPR per group, indexed by group label; NaN for a group with no positive row.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> group_true_positive_rates([1, 1, 0, 1], [1, 0, 1, 1], [0, 0, 1, 1]).tolist()
    [0.5, 1.0]
    """
    where = "group_true_positive_rates"
    a = _rows(where, y_true=y_true, y_pred=y_pred, s=s)
    true = _binary(where, a["y_true"], "y_true")
    pred = _binary(where, a["y_pred"], "y_pred")
    codes, labels = _groups(where, a["s"])
    return _series(_group_mean(pred, codes, len(labels), true == 1), labels, "tpr")


def group_false_positive_rates(
    y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike
) -> pd.Series[float]:
    """Return the false positive rate ``P(Y_hat = 1 | Y = 0, S = g)`` of every group.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    y_pred : array-like of shape (n,)
        Binary predictions.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    pandas.Series
        One FPR per group, indexed by group label; NaN for a group with no negative row.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> group_false_positive_rates([0, 0, 0, 1], [1, 0, 1, 1], [0, 0, 1, 1]).tolist()
    [0.5, 1.0]
    """
    where = "group_false_positive_rates"
    a = _rows(where, y_true=y_true, y_pred=y_pred, s=s)
    true = _binary(where, a["y_true"], "y_true")
    pred = _binary(where, a["y_pred"], "y_pred")
    codes, labels = _groups(where, a["s"])
    return _series(_group_mean(pred, codes, len(labels), true == 0), labels, "fpr")


def group_mean_scores(scores: ArrayLike, s: ArrayLike) -> pd.Series[float]:
    """Return the mean predicted probability ``E[p(x) | S = g]`` of every group.

    This is the soft selection rate that the DataSift authors' code compares (Hasan & Pradhan;
    ``docs/paper-notes/datasift.md``).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Predicted probabilities of the favourable outcome, in ``[0, 1]``.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    pandas.Series
        One mean score per group, indexed by group label in sorted order.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, scores outside ``[0, 1]`` or a single group.

    Examples
    --------
    >>> group_mean_scores([0.2, 0.4, 0.9, 0.7], ["f", "f", "m", "m"]).round(6).tolist()
    [0.3, 0.8]
    """
    where = "group_mean_scores"
    a = _rows(where, scores=scores, s=s)
    prob = _unit(where, a["scores"], "scores")
    codes, labels = _groups(where, a["s"])
    return _series(_group_mean(prob, codes, len(labels)), labels, "mean_score")
