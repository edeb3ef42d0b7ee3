"""Demographic (statistical) parity, its probability version, and base-rate differences.

Sign convention (Hasan & Pradhan, §2 "Algorithmic group fairness"): the signed
difference is ``P(Y_hat=1 | protected) - P(Y_hat=1 | privileged)``. A negative value means
the model is biased against the protected group, a positive one against the privileged
group. The ``_abs`` versions are the largest pairwise gap over all groups (max - min), equal
to fairlearn's ``demographic_parity_difference`` with ``method="between_groups"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._typing import GroupLabel
from fairacq.metrics._checks import (
    _binary,
    _gap,
    _group_mean,
    _groups,
    _pair,
    _rows,
    _safe_ratio,
    _unit,
)

__all__ = [
    "base_rate_diff",
    "base_rate_diff_signed",
    "demographic_parity_diff_abs",
    "demographic_parity_diff_signed",
    "demographic_parity_ratio",
    "mean_score_parity_diff_abs",
    "mean_score_parity_diff_signed",
]


def _rates(
    where: str, values: ArrayLike, s: ArrayLike, name: str, *, soft: bool = False
) -> tuple[NDArray[np.float64], list[Any]]:
    a = _rows(where, **{name: values, "s": s})
    vals = _unit(where, a[name], name) if soft else _binary(where, a[name], name)
    codes, labels = _groups(where, a["s"])
    return _group_mean(vals, codes, len(labels)), labels


def _signed(
    where: str,
    values: ArrayLike,
    s: ArrayLike,
    name: str,
    protected: GroupLabel | None,
    privileged: GroupLabel | None,
    *,
    soft: bool = False,
) -> float:
    rates, labels = _rates(where, values, s, name, soft=soft)
    i, j = _pair(where, labels, protected, privileged)
    return float(rates[i] - rates[j])


def demographic_parity_diff_signed(
    y_pred: ArrayLike,
    s: ArrayLike,
    *,
    protected: GroupLabel | None = None,
    privileged: GroupLabel | None = None,
) -> float:
    """Return ``P(Y_hat=1 | S=protected) - P(Y_hat=1 | S=privileged)`` for two groups.

    Implements the fairness measure F_D of Hasan & Pradhan (DataSift, §2), with its sign: below 0
    the model is biased against the protected group, above 0 against the privileged group.

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Binary predictions, 1 = the favourable outcome.
    s : array-like of shape (n,)
        Group label of each row; exactly two groups.
    protected : group label or None, default=None
        The protected group. If None, it is the group that is not ``privileged``; if both
        are None, the first label in sorted order (Hasan & Pradhan's S=0).
    privileged : group label or None, default=None
        The privileged group. If None, it is the group that is not ``protected``.

    Returns
    -------
    float
        The signed difference, in ``[-1, 1]``; 0 is parity.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary predictions, or not exactly two groups.
    InvalidParameterError
        If ``protected``/``privileged`` is not a group of ``s`` or both name one group.

    See Also
    --------
    demographic_parity_diff_abs : the unsigned, multi-group version.

    Examples
    --------
    >>> demographic_parity_diff_signed([0, 1, 1, 1], ["f", "f", "m", "m"], privileged="m")
    -0.5
    """
    return _signed("demographic_parity_diff_signed", y_pred, s, "y_pred", protected, privileged)


def demographic_parity_diff_abs(y_pred: ArrayLike, s: ArrayLike) -> float:
    """Return the largest gap in selection rate between any two groups (max - min).

    Equal to fairlearn's ``demographic_parity_difference(..., method="between_groups")``;
    for two groups it is ``abs(demographic_parity_diff_signed(...))`` (Hasan & Pradhan, §2).

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Binary predictions, 1 = the favourable outcome.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    float
        The gap, in ``[0, 1]``; 0 is parity.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary predictions or a single group.

    Examples
    --------
    >>> demographic_parity_diff_abs([0, 1, 1, 1, 0, 0], [0, 0, 1, 1, 2, 2])
    1.0
    """
    rates, _ = _rates("demographic_parity_diff_abs", y_pred, s, "y_pred")
    return _gap(rates)


def demographic_parity_ratio(y_pred: ArrayLike, s: ArrayLike) -> float:
    """Return the smallest over the largest group selection rate (min / max).

    Equal to fairlearn's ``demographic_parity_ratio(..., method="between_groups")``. When
    no group is ever selected every rate is 0 and the groups are treated alike: the ratio
    is 1.0 (fairlearn returns NaN there).

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Binary predictions, 1 = the favourable outcome.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    float
        The ratio, in ``[0, 1]``; 1 is parity (the "80% rule" asks for >= 0.8).

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary predictions or a single group.

    Examples
    --------
    >>> demographic_parity_ratio([0, 1, 1, 1], ["f", "f", "m", "m"])
    0.5
    """
    rates, _ = _rates("demographic_parity_ratio", y_pred, s, "y_pred")
    return _safe_ratio(float(rates.min()), float(rates.max()))


def mean_score_parity_diff_signed(
    scores: ArrayLike,
    s: ArrayLike,
    *,
    protected: GroupLabel | None = None,
    privileged: GroupLabel | None = None,
) -> float:
    """Return ``E[p(x) | S=protected] - E[p(x) | S=privileged]`` for two groups.

    The probability version of :func:`demographic_parity_diff_signed`: the gap in mean
    predicted probability, which the DataSift authors' public code measures in place of
    the thresholded definition of Hasan & Pradhan, §2 (see ``docs/paper-notes/datasift.md``).
    Same sign convention.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Predicted probabilities of the favourable outcome, in ``[0, 1]``.
    s : array-like of shape (n,)
        Group label of each row; exactly two groups.
    protected : group label or None, default=None
        The protected group; see :func:`demographic_parity_diff_signed`.
    privileged : group label or None, default=None
        The privileged group; see :func:`demographic_parity_diff_signed`.

    Returns
    -------
    float
        The signed gap, in ``[-1, 1]``.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, scores outside ``[0, 1]`` or not exactly two groups.
    InvalidParameterError
        If ``protected``/``privileged`` is not a group of ``s``.

    Examples
    --------
    >>> round(mean_score_parity_diff_signed([0.2, 0.4, 0.9, 0.7], [0, 0, 1, 1]), 6)
    -0.5
    """
    return _signed(
        "mean_score_parity_diff_signed",
        scores,
        s,
        "scores",
        protected,
        privileged,
        soft=True,
    )


def mean_score_parity_diff_abs(scores: ArrayLike, s: ArrayLike) -> float:
    """Return the largest gap in mean predicted probability between any two groups.

    The multi-group, unsigned version of :func:`mean_score_parity_diff_signed` (max - min
    of the group means).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Predicted probabilities of the favourable outcome, in ``[0, 1]``.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    float
        The gap, in ``[0, 1]``.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, scores outside ``[0, 1]`` or a single group.

    Examples
    --------
    >>> round(mean_score_parity_diff_abs([0.2, 0.4, 0.9, 0.7], [0, 0, 1, 1]), 6)
    0.5
    """
    rates, _ = _rates("mean_score_parity_diff_abs", scores, s, "scores", soft=True)
    return _gap(rates)


def base_rate_diff(y_true: ArrayLike, s: ArrayLike) -> float:
    """Return the largest gap in base rate ``P(Y=1 | S=g)`` between any two groups.

    The unsigned, multi-group version of the intra-partition base-rate difference that
    DataSift (Hasan & Pradhan, §3.2, Eq. 1) uses to share rewards between partitions.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels, 1 = the favourable outcome.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    float
        The gap (max - min), in ``[0, 1]``.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> base_rate_diff([0, 1, 1, 1], [0, 0, 1, 1])
    0.5
    """
    rates, _ = _rates("base_rate_diff", y_true, s, "y_true")
    return _gap(rates)


def base_rate_diff_signed(
    y_true: ArrayLike,
    s: ArrayLike,
    *,
    protected: GroupLabel | None = None,
    privileged: GroupLabel | None = None,
) -> float:
    """Return ``P(Y=1 | S=protected) - P(Y=1 | S=privileged)`` for two groups.

    Hasan & Pradhan's sign convention (§2) applied to the true labels (§3.2 base rates).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels, 1 = the favourable outcome.
    s : array-like of shape (n,)
        Group label of each row; exactly two groups.
    protected : group label or None, default=None
        The protected group; see :func:`demographic_parity_diff_signed`.
    privileged : group label or None, default=None
        The privileged group; see :func:`demographic_parity_diff_signed`.

    Returns
    -------
    float
        The signed difference, in ``[-1, 1]``.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or not exactly two groups.
    InvalidParameterError
        If ``protected``/``privileged`` is not a group of ``s``.

    Examples
    --------
    >>> base_rate_diff_signed([0, 1, 1, 1], [0, 0, 1, 1])
    -0.5
    """
    return _signed("base_rate_diff_signed", y_true, s, "y_true", protected, privileged)
