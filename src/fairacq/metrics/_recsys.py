"""Recommender-system unfairness of Yao & Huang (2017), as used by Zhang & Ramesh (§4.2-4.3).

Inputs are one row per observed (user, item) rating: the true rating, the predicted rating,
the user's group and the item id. Users split into a protected group ``g`` and everyone
else ``not g``. Non-parity compares the overall mean predicted rating of the two groups.
The other four compare, item by item, each group's mean error
``E_g[y_hat]_j - E_g[r]_j`` and average over the ``m`` items that both groups rated
(an item rated by one group only has no between-group comparison, so it is left out):

- value: ``|err_g - err_not_g|``
- absolute: ``||err_g| - |err_not_g||``
- underestimation: ``|max(0, -err_g) - max(0, -err_not_g)|``
- overestimation: ``|max(0, err_g) - max(0, err_not_g)|``
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._typing import GroupLabel
from fairacq._validation import check_no_nan
from fairacq.exceptions import InvalidDataError
from fairacq.metrics._checks import _groups, _protected_mask, _real, _rows

__all__ = [
    "absolute_unfairness",
    "non_parity_unfairness",
    "overestimation_unfairness",
    "underestimation_unfairness",
    "value_unfairness",
]


def non_parity_unfairness(
    y_pred: ArrayLike, s: ArrayLike, *, protected: GroupLabel | None = None
) -> float:
    """Return the non-parity unfairness ``|E_protected[y_hat] - E_unprotected[y_hat]|``.

    Zhang & Ramesh (§4.2), after Yao & Huang (2017): the absolute difference between the mean
    predicted rating of the protected users' ratings and that of the other users'.

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Predicted rating of each observed (user, item) pair.
    s : array-like of shape (n,)
        Group of the user of each rating; at least two groups.
    protected : group label or None, default=None
        The protected group; every other group is unprotected. May be None only with two
        groups, then the first label in sorted order is protected.

    Returns
    -------
    float
        ``U_par``, in ``[0, inf)`` (at most the rating range); 0 is parity.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or infinite ratings or a single group.
    InvalidParameterError
        If ``protected`` is missing with more than two groups or not a group of ``s``.

    Examples
    --------
    >>> non_parity_unfairness([4.0, 2.0, 5.0, 5.0], ["f", "f", "m", "m"])
    2.0
    """
    where = "non_parity_unfairness"
    a = _rows(where, y_pred=y_pred, s=s)
    pred = _real(where, a["y_pred"], "y_pred")
    codes, labels = _groups(where, a["s"])
    mask = _protected_mask(where, codes, labels, protected)
    return float(abs(pred[mask].mean() - pred[~mask].mean()))


def _item_errors(
    where: str,
    y_true: ArrayLike,
    y_pred: ArrayLike,
    s: ArrayLike,
    items: ArrayLike,
    protected: GroupLabel | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-item mean error of the protected and the unprotected users (items both rated)."""
    a = _rows(where, y_true=y_true, y_pred=y_pred, s=s, items=items)
    true = _real(where, a["y_true"], "y_true")
    pred = _real(where, a["y_pred"], "y_pred")
    codes, labels = _groups(where, a["s"])
    unprot = (~_protected_mask(where, codes, labels, protected)).astype(np.int64)
    item_arr = a["items"]
    check_no_nan(where, "items", item_arr)
    try:
        _, item_codes = np.unique(item_arr, return_inverse=True)
    except TypeError as exc:
        raise InvalidDataError(
            f"{where}: 'items' mixes id types that cannot be compared. "
            "Convert every item id to one type (e.g. str) first."
        ) from exc
    n_items = int(item_codes.max()) + 1
    cell = 2 * item_codes.reshape(-1).astype(np.int64) + unprot
    counts = np.bincount(cell, minlength=2 * n_items).reshape(n_items, 2).astype(np.float64)
    err = np.bincount(cell, weights=pred - true, minlength=2 * n_items).reshape(n_items, 2)
    both = (counts > 0).all(axis=1)
    if not both.any():
        raise InvalidDataError(
            f"{where}: no item is rated by both the protected and the unprotected users, "
            "so no item-level comparison exists. Evaluate on ratings that overlap in items."
        )
    mean_err = err[both] / counts[both]
    return mean_err[:, 0], mean_err[:, 1]


def value_unfairness(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    s: ArrayLike,
    items: ArrayLike,
    *,
    protected: GroupLabel | None = None,
) -> float:
    """Return the value unfairness of Yao & Huang (2017).

    ``(1/m) sum_j |(E_g[y_hat]_j - E_g[r]_j) - (E_not_g[y_hat]_j - E_not_g[r]_j)|`` over
    the ``m`` items rated by both groups: inconsistency in signed estimation error.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True rating of each observed (user, item) pair.
    y_pred : array-like of shape (n,)
        Predicted rating of each pair.
    s : array-like of shape (n,)
        Group of the user of each rating; at least two groups.
    items : array-like of shape (n,)
        Item id of each rating (ints or strings).
    protected : group label or None, default=None
        The protected group; see :func:`non_parity_unfairness`.

    Returns
    -------
    float
        ``U_val``, in ``[0, inf)``; 0 is fair.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or infinite ratings, a single group, or no item rated
        by both groups.
    InvalidParameterError
        If ``protected`` is missing with more than two groups or not a group of ``s``.

    Examples
    --------
    >>> value_unfairness([3, 3, 3, 3], [4, 3, 2, 3], [0, 1, 0, 1], ["i", "i", "j", "j"])
    1.0
    """
    e_g, e_o = _item_errors("value_unfairness", y_true, y_pred, s, items, protected)
    return float(np.mean(np.abs(e_g - e_o)))


def absolute_unfairness(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    s: ArrayLike,
    items: ArrayLike,
    *,
    protected: GroupLabel | None = None,
) -> float:
    """Return the absolute unfairness of Yao & Huang (2017).

    ``(1/m) sum_j ||E_g[y_hat]_j - E_g[r]_j| - |E_not_g[y_hat]_j - E_not_g[r]_j||``: the
    inconsistency in absolute estimation error, ignoring its direction.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True rating of each observed (user, item) pair.
    y_pred : array-like of shape (n,)
        Predicted rating of each pair.
    s : array-like of shape (n,)
        Group of the user of each rating; at least two groups.
    items : array-like of shape (n,)
        Item id of each rating (ints or strings).
    protected : group label or None, default=None
        The protected group; see :func:`non_parity_unfairness`.

    Returns
    -------
    float
        ``U_abs``, in ``[0, inf)``; 0 is fair.

    Raises
    ------
    InvalidDataError
        As for :func:`value_unfairness`.
    InvalidParameterError
        As for :func:`value_unfairness`.

    Examples
    --------
    >>> absolute_unfairness([3, 3, 3, 3], [4, 3, 2, 3], [0, 1, 0, 1], ["i", "i", "j", "j"])
    1.0
    """
    e_g, e_o = _item_errors("absolute_unfairness", y_true, y_pred, s, items, protected)
    return float(np.mean(np.abs(np.abs(e_g) - np.abs(e_o))))


def underestimation_unfairness(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    s: ArrayLike,
    items: ArrayLike,
    *,
    protected: GroupLabel | None = None,
) -> float:
    """Return the underestimation unfairness of Yao & Huang (2017).

    ``(1/m) sum_j |max(0, E_g[r]_j - E_g[y_hat]_j) - max(0, E_not_g[r]_j -
    E_not_g[y_hat]_j)|``: inconsistency in how much the predictions fall short.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True rating of each observed (user, item) pair.
    y_pred : array-like of shape (n,)
        Predicted rating of each pair.
    s : array-like of shape (n,)
        Group of the user of each rating; at least two groups.
    items : array-like of shape (n,)
        Item id of each rating (ints or strings).
    protected : group label or None, default=None
        The protected group; see :func:`non_parity_unfairness`.

    Returns
    -------
    float
        ``U_under``, in ``[0, inf)``; 0 is fair.

    Raises
    ------
    InvalidDataError
        As for :func:`value_unfairness`.
    InvalidParameterError
        As for :func:`value_unfairness`.

    Examples
    --------
    >>> underestimation_unfairness([3, 3, 3, 3], [4, 3, 2, 3], [0, 1, 0, 1], [1, 1, 2, 2])
    0.5
    """
    e_g, e_o = _item_errors("underestimation_unfairness", y_true, y_pred, s, items, protected)
    return float(np.mean(np.abs(np.maximum(0.0, -e_g) - np.maximum(0.0, -e_o))))


def overestimation_unfairness(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    s: ArrayLike,
    items: ArrayLike,
    *,
    protected: GroupLabel | None = None,
) -> float:
    """Return the overestimation unfairness ``U_over`` of Zhang & Ramesh (§4.3).

    ``U_over = (1/m) sum_j |max(0, E_g[y_hat]_j - E_g[r]_j) - max(0, E_not_g[y_hat]_j -
    E_not_g[r]_j)|`` (Yao & Huang 2017), where ``E_g[.]_j`` averages over the protected
    users' ratings of item ``j``: inconsistency in how much the predictions overestimate
    the true ratings. Zhang & Ramesh uses it as a prior in the Fair-A3SL objective.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True rating of each observed (user, item) pair.
    y_pred : array-like of shape (n,)
        Predicted rating of each pair.
    s : array-like of shape (n,)
        Group of the user of each rating; at least two groups.
    items : array-like of shape (n,)
        Item id of each rating (ints or strings).
    protected : group label or None, default=None
        The protected group; see :func:`non_parity_unfairness`.

    Returns
    -------
    float
        ``U_over``, in ``[0, inf)``; 0 is fair.

    Raises
    ------
    InvalidDataError
        As for :func:`value_unfairness`.
    InvalidParameterError
        As for :func:`value_unfairness`.

    Examples
    --------
    >>> overestimation_unfairness([3, 3, 3, 3], [4, 3, 2, 3], [0, 1, 0, 1], [1, 1, 2, 2])
    0.5
    """
    e_g, e_o = _item_errors("overestimation_unfairness", y_true, y_pred, s, items, protected)
    return float(np.mean(np.abs(np.maximum(0.0, e_g) - np.maximum(0.0, e_o))))
