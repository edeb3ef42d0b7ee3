"""Per-group risk and minimax group risk (Shekhar et al. 2021).

Shekhar et al. (§2, Eq. 2) measures a classifier ``f`` by its risk on each group,
``L(z, f) = E_z[loss(f, X, Y)]``, and calls a classifier fair in the minimax sense when it
minimises ``max_z L(z, f)``. Its experiments (§5, Figs. 3-5) report the minimum test
accuracy over groups (the 0-1 loss version) and the spread of per-group accuracies. The
functions here compute these in-sample from one loss value per row, so any loss works:
:func:`zero_one_loss_per_row` and :func:`log_loss_per_row` build the two common ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.metrics._checks import _binary, _group_mean, _groups, _real, _rows, _series, _unit

__all__ = [
    "group_risk_gap",
    "group_risks",
    "log_loss_per_row",
    "minimax_group_risk",
    "minimax_log_loss",
    "minimax_zero_one_risk",
    "worst_group_accuracy",
    "zero_one_loss_per_row",
]


def zero_one_loss_per_row(y_true: ArrayLike, y_pred: ArrayLike) -> NDArray[np.float64]:
    """Return the 0-1 loss of every row: 1.0 where the prediction is wrong, else 0.0.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    y_pred : array-like of shape (n,)
        Binary predictions.

    Returns
    -------
    numpy.ndarray of shape (n,)
        The per-row loss, float64.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or non-binary labels.

    Examples
    --------
    >>> zero_one_loss_per_row([1, 0, 1], [1, 1, 0]).tolist()
    [0.0, 1.0, 1.0]
    """
    return _zero_one("zero_one_loss_per_row", y_true, y_pred)


def _zero_one(where: str, y_true: ArrayLike, y_pred: ArrayLike) -> NDArray[np.float64]:
    a = _rows(where, y_true=y_true, y_pred=y_pred)
    true = _binary(where, a["y_true"], "y_true")
    pred = _binary(where, a["y_pred"], "y_pred")
    loss: NDArray[np.float64] = (true != pred).astype(np.float64)
    return loss


def log_loss_per_row(
    y_true: ArrayLike, scores: ArrayLike, *, eps: float | None = None
) -> NDArray[np.float64]:
    """Return the log-loss (cross-entropy) of every row from predicted probabilities.

    ``-[y log p + (1 - y) log(1 - p)]`` with ``p`` clipped to ``[eps, 1 - eps]``; the
    group mean equals :func:`sklearn.metrics.log_loss` on that group.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    scores : array-like of shape (n,)
        Predicted probability of label 1, in ``[0, 1]``.
    eps : float or None, default=None
        Clipping bound in ``(0, 0.5)``; None uses the float64 machine epsilon, as
        scikit-learn does.

    Returns
    -------
    numpy.ndarray of shape (n,)
        The per-row loss, float64, non-negative.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or scores outside ``[0, 1]``.
    InvalidParameterError
        If ``eps`` is not in ``(0, 0.5)``.

    Examples
    --------
    >>> log_loss_per_row([1, 0], [0.5, 0.5]).round(4).tolist()
    [0.6931, 0.6931]
    """
    return _log_loss("log_loss_per_row", y_true, scores, eps)


def _log_loss(
    where: str, y_true: ArrayLike, scores: ArrayLike, eps: float | None
) -> NDArray[np.float64]:
    if eps is None:
        eps = float(np.finfo(np.float64).eps)
    if not (isinstance(eps, float | int) and 0.0 < eps < 0.5):
        raise InvalidParameterError(
            f"The 'eps' parameter of {where} must be a float in (0, 0.5). Got {eps!r} instead."
        )
    a = _rows(where, y_true=y_true, scores=scores)
    true = _binary(where, a["y_true"], "y_true")
    prob = np.clip(_unit(where, a["scores"], "scores"), eps, 1.0 - eps)
    loss: NDArray[np.float64] = -np.where(true == 1, np.log(prob), np.log1p(-prob))
    return loss


def _risks(where: str, loss_per_row: ArrayLike, s: ArrayLike) -> pd.Series[float]:
    a = _rows(where, loss_per_row=loss_per_row, s=s)
    loss = _real(where, a["loss_per_row"], "loss_per_row")
    if (loss < 0).any():
        raise InvalidDataError(
            f"{where}: 'loss_per_row' has {int((loss < 0).sum())} negative values. "
            "Pass a non-negative loss per row (e.g. zero_one_loss_per_row)."
        )
    codes, labels = _groups(where, a["s"])
    return _series(_group_mean(loss, codes, len(labels)), labels, "risk")


def group_risks(loss_per_row: ArrayLike, s: ArrayLike) -> pd.Series[float]:
    """Return the empirical risk ``L(z, f)`` of every group: the mean loss of its rows.

    Shekhar et al., §2, Eq. 2, computed in-sample.

    Parameters
    ----------
    loss_per_row : array-like of shape (n,)
        Non-negative loss of each row.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    pandas.Series
        One risk per group, indexed by group label in sorted order.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, infinite or negative losses, or a single group.

    Examples
    --------
    >>> group_risks([0.0, 1.0, 1.0, 1.0], ["a", "a", "b", "b"]).tolist()
    [0.5, 1.0]
    """
    return _risks("group_risks", loss_per_row, s)


def minimax_group_risk(loss_per_row: ArrayLike, s: ArrayLike) -> float:
    """Return the worst group's risk, ``max_z L(z, f)`` (Shekhar et al., §2, Eq. 2).

    Parameters
    ----------
    loss_per_row : array-like of shape (n,)
        Non-negative loss of each row.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    float
        The largest group mean loss; lower is better.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, infinite or negative losses, or a single group.

    Examples
    --------
    >>> minimax_group_risk([0.0, 1.0, 1.0, 1.0], ["a", "a", "b", "b"])
    1.0
    """
    return float(_risks("minimax_group_risk", loss_per_row, s).max())


def group_risk_gap(loss_per_row: ArrayLike, s: ArrayLike) -> float:
    """Return the spread of group risks, ``max_z L(z, f) - min_z L(z, f)``.

    The disparity between per-group risks that Shekhar et al. (§5, Fig. 5) shows shrinking
    under adaptive sampling.

    Parameters
    ----------
    loss_per_row : array-like of shape (n,)
        Non-negative loss of each row.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    float
        The gap, ``>= 0``; 0 when every group has the same risk.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, infinite or negative losses, or a single group.

    Examples
    --------
    >>> group_risk_gap([0.0, 1.0, 1.0, 1.0], ["a", "a", "b", "b"])
    0.5
    """
    risks = _risks("group_risk_gap", loss_per_row, s)
    return float(risks.max() - risks.min())


def minimax_zero_one_risk(y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike) -> float:
    """Return the worst group's error rate (0-1 risk), Shekhar et al.'s minimax criterion.

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
        ``max_z P(Y_hat != Y | Z = z)``, in ``[0, 1]``; equals
        ``1 - worst_group_accuracy(...)``.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> minimax_zero_one_risk([1, 0, 1, 1], [1, 0, 0, 1], [0, 0, 1, 1])
    0.5
    """
    where = "minimax_zero_one_risk"
    a = _rows(where, y_true=y_true, y_pred=y_pred, s=s)
    return float(_risks(where, _zero_one(where, a["y_true"], a["y_pred"]), a["s"]).max())


def minimax_log_loss(y_true: ArrayLike, scores: ArrayLike, s: ArrayLike) -> float:
    """Return the worst group's mean log-loss from predicted probabilities (Shekhar et al., §2).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary true labels.
    scores : array-like of shape (n,)
        Predicted probability of label 1, in ``[0, 1]``.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.

    Returns
    -------
    float
        ``max_z`` of the group mean log-loss, ``>= 0``; lower is better.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels, scores outside ``[0, 1]`` or a
        single group.

    Examples
    --------
    >>> round(minimax_log_loss([1, 0, 1, 0], [0.9, 0.1, 0.5, 0.5], [0, 0, 1, 1]), 4)
    0.6931
    """
    where = "minimax_log_loss"
    a = _rows(where, y_true=y_true, scores=scores, s=s)
    return float(_risks(where, _log_loss(where, a["y_true"], a["scores"], None), a["s"]).max())


def worst_group_accuracy(y_true: ArrayLike, y_pred: ArrayLike, s: ArrayLike) -> float:
    """Return the lowest accuracy over groups, as Shekhar et al. plots (§5, Figs. 3-4).

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
        ``min_z P(Y_hat = Y | Z = z)``, in ``[0, 1]``; higher is better.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, non-binary labels or a single group.

    Examples
    --------
    >>> worst_group_accuracy([1, 0, 1, 1], [1, 0, 0, 1], [0, 0, 1, 1])
    0.5
    """
    where = "worst_group_accuracy"
    a = _rows(where, y_true=y_true, y_pred=y_pred, s=s)
    correct = 1.0 - _zero_one(where, a["y_true"], a["y_pred"])
    codes, labels = _groups(where, a["s"])
    return float(_group_mean(correct, codes, len(labels)).min())
