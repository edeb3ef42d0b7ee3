"""Equalised odds and equal opportunity (Hardt et al. 2016), unsigned and signed.

The unsigned versions are the largest pairwise gap over all groups and equal fairlearn's
``equal_opportunity_difference`` / ``equalized_odds_difference`` (``method="between_groups"``;
``agg="worst_case"``, or ``agg="mean"`` for :func:`average_odds_diff`). The signed versions
compare two groups with Hasan & Pradhan's convention (protected minus privileged). Zhang & Ramesh
(Fair-A3SL, §4.3) uses the sum of the absolute TPR and FPR gaps as a prior
(:func:`equalized_odds_diff_sum`). A rate is undefined for a group with no row of the
conditioning label; a gap needs at least two groups where it is defined, otherwise NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._typing import GroupLabel
from fairacq.metrics._checks import _binary, _gap, _groups, _pair, _rows

__all__ = [
    "average_odds_diff",
    "equal_opportunity_diff",
    "equal_opportunity_diff_signed",
    "equalized_odds_diff",
    "equalized_odds_diff_signed",
    "equalized_odds_diff_sum",
]


def _tpr_fpr(
    where: str, y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], list[Any]]:
    """Per-group TPR and FPR from one bincount over (group, label) cells."""
    a = _rows(where, y_true=y_true, y_pred=y_pred, s=s)
    true = _binary(where, a["y_true"], "y_true")
    pred = _binary(where, a["y_pred"], "y_pred")
    codes, labels = _groups(where, a["s"])
    n_cells = 2 * len(labels)
    cell = 2 * codes + true
    counts = np.bincount(cell, minlength=n_cells).astype(np.float64)
    hits = np.bincount(cell, weights=pred, minlength=n_cells).astype(np.float64)
    flat = np.full(n_cells, np.nan)
    np.divide(hits, counts, out=flat, where=counts > 0)
    rates = flat.reshape(-1, 2)
    return rates[:, 1].copy(), rates[:, 0].copy(), labels


def equal_opportunity_diff(y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike) -> float:
    """Return the largest gap in true positive rate between any two groups.

    Equal opportunity (Hardt et al. 2016; Zhang & Ramesh, §4.3) asks for equal
    ``P(Y_hat=1 | Y=1, S=g)``. Equal to fairlearn's ``equal_opportunity_difference``.

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
    float
        The TPR gap (max - min), in ``[0, 1]``; NaN if fewer than two groups have a
        positive row.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> equal_opportunity_diff([1, 1, 1, 1], [1, 0, 1, 1], [0, 0, 1, 1])
    0.5
    """
    tpr, _, _ = _tpr_fpr("equal_opportunity_diff", y_true, y_pred, s)
    return _gap(tpr)


def equal_opportunity_diff_signed(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    s: ArrayLike,
    *,
    protected: GroupLabel | None = None,
    privileged: GroupLabel | None = None,
) -> float:
    """Return ``TPR(protected) - TPR(privileged)`` for two groups.

    Hasan & Pradhan's sign convention (§2) applied to equal opportunity: below 0 the protected
    group's qualified members are selected less often.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    y_pred : array-like of shape (n,)
        Binary predictions.
    s : array-like of shape (n,)
        Group label of each row; exactly two groups.
    protected : group label or None, default=None
        The protected group; see :func:`demographic_parity_diff_signed`.
    privileged : group label or None, default=None
        The privileged group; see :func:`demographic_parity_diff_signed`.

    Returns
    -------
    float
        The signed TPR gap, in ``[-1, 1]``; NaN if a group has no positive row.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or not exactly two groups.
    InvalidParameterError
        If ``protected``/``privileged`` is not a group of ``s``.

    Examples
    --------
    >>> equal_opportunity_diff_signed([1, 1, 1, 1], [1, 0, 1, 1], [0, 0, 1, 1])
    -0.5
    """
    where = "equal_opportunity_diff_signed"
    tpr, _, labels = _tpr_fpr(where, y_true, y_pred, s)
    i, j = _pair(where, labels, protected, privileged)
    return float(tpr[i] - tpr[j])


def equalized_odds_diff(y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike) -> float:
    """Return the larger of the TPR gap and the FPR gap over all groups.

    Equalised odds (Hardt et al. 2016) asks for equal TPR and FPR across groups. Equal to
    fairlearn's ``equalized_odds_difference`` (``method="between_groups"``,
    ``agg="worst_case"``).

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
    float
        ``max(TPR gap, FPR gap)``, in ``[0, 1]``; NaN if either gap is undefined (fewer
        than two groups with positive, or with negative, rows). fairlearn instead counts an
        undefined rate as 0 (scikit-learn's ``zero_division``).

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> equalized_odds_diff([1, 0, 1, 0], [1, 1, 1, 0], [0, 0, 1, 1])
    1.0
    """
    tpr, fpr, _ = _tpr_fpr("equalized_odds_diff", y_true, y_pred, s)
    gaps = (_gap(tpr), _gap(fpr))
    return float("nan") if np.isnan(gaps).any() else float(max(gaps))


def equalized_odds_diff_signed(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    s: ArrayLike,
    *,
    protected: GroupLabel | None = None,
    privileged: GroupLabel | None = None,
) -> float:
    """Return the signed TPR or FPR gap (protected minus privileged), whichever is larger.

    For two groups ``abs(equalized_odds_diff_signed(...)) == equalized_odds_diff(...)``;
    the sign says which group the larger violation favours (Hasan & Pradhan's convention, §2).
    Ties go to the TPR gap.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    y_pred : array-like of shape (n,)
        Binary predictions.
    s : array-like of shape (n,)
        Group label of each row; exactly two groups.
    protected : group label or None, default=None
        The protected group; see :func:`demographic_parity_diff_signed`.
    privileged : group label or None, default=None
        The privileged group; see :func:`demographic_parity_diff_signed`.

    Returns
    -------
    float
        The signed gap of larger magnitude, in ``[-1, 1]``; NaN if either is undefined.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or not exactly two groups.
    InvalidParameterError
        If ``protected``/``privileged`` is not a group of ``s``.

    Examples
    --------
    >>> equalized_odds_diff_signed([1, 0, 1, 0], [1, 0, 1, 1], [0, 0, 1, 1])
    -1.0
    """
    where = "equalized_odds_diff_signed"
    tpr, fpr, labels = _tpr_fpr(where, y_true, y_pred, s)
    i, j = _pair(where, labels, protected, privileged)
    d_tpr = float(tpr[i] - tpr[j])
    d_fpr = float(fpr[i] - fpr[j])
    if np.isnan(d_tpr) or np.isnan(d_fpr):
        return float("nan")
    return d_tpr if abs(d_tpr) >= abs(d_fpr) else d_fpr


def average_odds_diff(y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike) -> float:
    """Return the mean of the TPR gap and the FPR gap over all groups.

    The average odds difference that Zhang & Ramesh (§4.3) mentions beside equalised odds,
    in its unsigned multi-group form; equal to fairlearn's
    ``equalized_odds_difference(..., agg="mean")``.

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
    float
        ``(TPR gap + FPR gap) / 2``, in ``[0, 1]``; NaN if either gap is undefined.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> average_odds_diff([1, 0, 1, 0], [1, 1, 1, 0], [0, 0, 1, 1])
    0.5
    """
    tpr, fpr, _ = _tpr_fpr("average_odds_diff", y_true, y_pred, s)
    return float((_gap(tpr) + _gap(fpr)) / 2.0)


def equalized_odds_diff_sum(y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike) -> float:
    """Return the sum of the FPR gap and the TPR gap, the prior of Zhang & Ramesh (§4.3).

    Fair-A3SL (Zhang & Ramesh) defines the equalised odds difference as
    ``sum_{y in {0, 1}} |P(Y_hat=1 | A=0, Y=y) - P(Y_hat=1 | A=1, Y=y)|`` and adds it to
    the structure-learning objective as a prior. For more than two groups each term is
    the largest pairwise gap (max - min).

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
    float
        ``FPR gap + TPR gap``, in ``[0, 2]``; NaN if either gap is undefined.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> equalized_odds_diff_sum([1, 0, 1, 0], [1, 1, 1, 0], [0, 0, 1, 1])
    1.0
    """
    tpr, fpr, _ = _tpr_fpr("equalized_odds_diff_sum", y_true, y_pred, s)
    return float(_gap(tpr) + _gap(fpr))
