"""Predictive performance overall and per group: accuracy, AUC-ROC, AUC-PR.

AUC-ROC and AUC-PR are scikit-learn's :func:`~sklearn.metrics.roc_auc_score` and
:func:`~sklearn.metrics.average_precision_score`, computed here with numpy in the same
operations and order (equal to scikit-learn's values, without importing it: a command line
that reports an AUC does not pay a second for the import). Both need the two classes: overall
they raise when one class is missing; per group they are NaN for a group with one class.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import InvalidDataError
from fairacq.metrics._checks import _binary, _group_mean, _groups, _real, _rows, _series

__all__ = [
    "accuracy",
    "auc_pr",
    "auc_roc",
    "group_accuracy",
    "group_auc_pr",
    "group_auc_roc",
]


def _curve_counts(
    true: NDArray[np.int64], score: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return false and true positives at each distinct threshold, highest first (as sklearn)."""
    order = np.argsort(score, kind="stable")[::-1]
    sorted_score = score[order]
    sorted_true = true[order].astype(np.float64)
    distinct = np.nonzero(np.diff(sorted_score))[0]
    idx = np.concatenate([distinct, [sorted_true.size - 1]])
    tps = np.cumsum(sorted_true, dtype=np.float64)[idx]
    fps = 1 + idx.astype(np.float64) - tps
    return fps, tps


def _roc_auc(true: NDArray[np.int64], score: NDArray[np.float64]) -> float:
    """scikit-learn's ``roc_auc_score`` (binary, both classes present)."""
    fps, tps = _curve_counts(true, score)
    if fps.shape[0] > 2:  # drop_intermediate: keep the corners of the curve only
        keep = np.concatenate([[True], np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), [True]])
        fps, tps = fps[keep], tps[keep]
    fps = np.concatenate([[0.0], fps])
    tps = np.concatenate([[0.0], tps])
    fpr, tpr = fps / fps[-1], tps / tps[-1]
    return float(np.sum((fpr[1:] - fpr[:-1]) * (tpr[1:] + tpr[:-1]) / 2.0))


def _average_precision(true: NDArray[np.int64], score: NDArray[np.float64]) -> float:
    """scikit-learn's ``average_precision_score`` (binary, a positive present)."""
    fps, tps = _curve_counts(true, score)
    ps = tps + fps
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(ps != 0, np.divide(tps, ps), 0.0)
    recall = tps / tps[-1]
    precision = np.concatenate([precision[::-1], [1.0]])
    recall = np.concatenate([recall[::-1], [0.0]])
    return float(max(0.0, -np.sum(np.diff(recall) * precision[:-1])))


def _sklearn_score(kind: str, true: NDArray[np.int64], score: NDArray[np.float64]) -> float:
    true = np.asarray(true)
    score = np.asarray(score, dtype=np.float64)
    return _roc_auc(true, score) if kind == "roc" else _average_precision(true, score)


def _per_group_auc(
    kind: str,
    true: NDArray[np.int64],
    score: NDArray[np.float64],
    codes: NDArray[np.int64],
    n_groups: int,
) -> NDArray[np.float64]:
    """AUC of each group (a loop over groups, not rows); NaN where one class is missing."""
    out = np.full(n_groups, np.nan)
    pos = np.bincount(codes, weights=true, minlength=n_groups)
    size = np.bincount(codes, minlength=n_groups)
    for g in np.flatnonzero((pos > 0) & (pos < size)):
        rows = codes == g
        out[g] = _sklearn_score(kind, true[rows], score[rows])
    return out


def _overall_auc(kind: str, where: str, y_true: ArrayLike, scores: ArrayLike) -> float:
    a = _rows(where, y_true=y_true, scores=scores)
    true = _binary(where, a["y_true"], "y_true")
    score = _real(where, a["scores"], "scores")
    if true.size == 0 or true.min() == true.max():
        raise InvalidDataError(
            f"{where}: y_true holds a single class, so the area under the curve is "
            "undefined. Evaluate on data with both labels."
        )
    return _sklearn_score(kind, true, score)


def _grouped(
    where: str, y_true: ArrayLike, other: ArrayLike, s: ArrayLike, other_name: str
) -> tuple[NDArray[np.int64], NDArray[Any], NDArray[np.int64], list[Any]]:
    a = _rows(where, **{"y_true": y_true, other_name: other, "s": s})
    true = _binary(where, a["y_true"], "y_true")
    codes, labels = _groups(where, a["s"])
    return true, a[other_name], codes, labels


def accuracy(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Return the fraction of rows predicted correctly.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    y_pred : array-like of shape (n,)
        Binary predictions.

    Returns
    -------
    float
        Accuracy, in ``[0, 1]``.

    Raises
    ------
    InvalidDataError
        On different lengths, empty input, NaN or non-binary labels.

    Examples
    --------
    >>> accuracy([1, 0, 1, 1], [1, 0, 0, 1])
    0.75
    """
    where = "accuracy"
    a = _rows(where, y_true=y_true, y_pred=y_pred)
    true = _binary(where, a["y_true"], "y_true")
    pred = _binary(where, a["y_pred"], "y_pred")
    if true.size == 0:
        raise InvalidDataError(f"{where}: the inputs are empty. Pass at least one row.")
    return float(np.mean(true == pred))


def auc_roc(y_true: ArrayLike, scores: ArrayLike) -> float:
    """Return the area under the ROC curve (scikit-learn's ``roc_auc_score``).

    Zhang & Ramesh (§5) reports it for the relational targets (combined over groups); its
    authors' set-up also uses it as the structure-learning reward.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels; both classes must occur.
    scores : array-like of shape (n,)
        Scores that rank rows by how likely label 1 is (probabilities or margins).

    Returns
    -------
    float
        AUC-ROC, in ``[0, 1]``; 0.5 is chance.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or infinite scores, non-binary labels, or one class.

    Examples
    --------
    >>> auc_roc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    return _overall_auc("roc", "auc_roc", y_true, scores)


def auc_pr(y_true: ArrayLike, scores: ArrayLike) -> float:
    """Return the area under the precision-recall curve (``average_precision_score``).

    Zhang & Ramesh (§5) reports it for the positive class, per protected and unprotected group
    (see :func:`group_auc_pr`).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels; both classes must occur.
    scores : array-like of shape (n,)
        Scores that rank rows by how likely label 1 is.

    Returns
    -------
    float
        Average precision, in ``[0, 1]``; the base rate is chance.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or infinite scores, non-binary labels, or one class.

    Examples
    --------
    >>> round(auc_pr([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.8333
    """
    return _overall_auc("pr", "auc_pr", y_true, scores)


def group_accuracy(y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike) -> pd.Series[float]:
    """Return the accuracy of every group.

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
        One accuracy per group, indexed by group label in sorted order.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> group_accuracy([1, 0, 1, 1], [1, 0, 0, 1], ["a", "a", "b", "b"]).tolist()
    [1.0, 0.5]
    """
    where = "group_accuracy"
    true, pred_raw, codes, labels = _grouped(where, y_true, y_pred, s, "y_pred")
    pred = _binary(where, pred_raw, "y_pred")
    correct = (true == pred).astype(np.float64)
    return _series(_group_mean(correct, codes, len(labels)), labels, "accuracy")


def group_auc_roc(y_true: ArrayLike, scores: ArrayLike, s: ArrayLike) -> pd.Series[float]:
    """Return the AUC-ROC of every group (NaN for a group with one class).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    scores : array-like of shape (n,)
        Scores that rank rows by how likely label 1 is.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    pandas.Series
        One AUC-ROC per group, indexed by group label in sorted order.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or infinite scores, non-binary labels or a single group.

    Examples
    --------
    >>> group_auc_roc([0, 1, 0, 1, 1], [0.2, 0.9, 0.7, 0.1, 0.5], [0, 0, 1, 1, 1]).tolist()
    [1.0, 0.0]
    """
    where = "group_auc_roc"
    true, score_raw, codes, labels = _grouped(where, y_true, scores, s, "scores")
    score = _real(where, score_raw, "scores")
    return _series(_per_group_auc("roc", true, score, codes, len(labels)), labels, "auc")


def group_auc_pr(y_true: ArrayLike, scores: ArrayLike, s: ArrayLike) -> pd.Series[float]:
    """Return the average precision (AUC-PR) of every group (NaN for one class).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    scores : array-like of shape (n,)
        Scores that rank rows by how likely label 1 is.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    pandas.Series
        One average precision per group, indexed by group label in sorted order.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or infinite scores, non-binary labels or a single group.

    Examples
    --------
    >>> group_auc_pr([0, 1, 0, 1, 1], [0.2, 0.9, 0.7, 0.1, 0.5], [0, 0, 1, 1, 1]).tolist()
    [1.0, 0.5833333333333333]
    """
    where = "group_auc_pr"
    true, score_raw, codes, labels = _grouped(where, y_true, scores, s, "scores")
    score = _real(where, score_raw, "scores")
    return _series(_per_group_auc("pr", true, score, codes, len(labels)), labels, "auc_pr")
