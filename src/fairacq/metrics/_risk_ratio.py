"""Relational fairness measures of Zhang & Ramesh: risk difference, risk ratio, relative chance.

Fair-A3SL (Zhang & Ramesh, §4.2, after Farnadi et al.) splits the rows into a protected and
an unprotected group and compares their proportions of *unfavourable* outcomes:
``p1 = a / g1`` and ``p2 = c / g2`` where ``a`` and ``c`` sum ``not Y_hat`` over the
protected and unprotected rows. Then ``RD = p1 - p2``, ``RR = p1 / p2`` and
``RC = (1 - p1) / (1 - p2)``; delta-fairness asks ``|RD| <= delta`` and
``1 - delta <= RR, RC <= 1 + delta``. Predictions may be soft truth values in ``[0, 1]``
(HL-MRF MAP states), with ``not y = 1 - y`` as in Lukasiewicz logic.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from fairacq._typing import GroupLabel
from fairacq.exceptions import InvalidParameterError
from fairacq.metrics._checks import _groups, _protected_mask, _rows, _safe_ratio, _unit

__all__ = ["relative_chance", "risk_difference", "risk_ratio"]


def _denial_rates(
    where: str, y_pred: ArrayLike, s: ArrayLike, protected: GroupLabel | None, favourable: int
) -> tuple[float, float]:
    """Return (p1, p2): the unfavourable-outcome rates of the protected and other rows."""
    if isinstance(favourable, bool) or favourable not in (0, 1):
        raise InvalidParameterError(
            f"{where}: favourable must be 0 or 1 (the prediction value that is the good "
            f"outcome). Got {favourable!r} instead."
        )
    a = _rows(where, y_pred=y_pred, s=s)
    pred = _unit(where, a["y_pred"], "y_pred")
    codes, labels = _groups(where, a["s"])
    mask = _protected_mask(where, codes, labels, protected)
    denial = 1.0 - pred if favourable == 1 else pred
    p1 = float(np.mean(denial[mask]))
    p2 = float(np.mean(denial[~mask]))
    return p1, p2


def risk_difference(
    y_pred: ArrayLike, s: ArrayLike, *, protected: GroupLabel | None = None, favourable: int = 1
) -> float:
    """Return the risk difference ``RD = p1 - p2`` of Zhang & Ramesh (§4.2).

    ``p1`` and ``p2`` are the proportions of unfavourable outcomes (e.g. denials) among
    the protected and the unprotected rows. A positive RD means the protected group gets
    the unfavourable outcome more often. With binary predictions and ``favourable=1``,
    ``RD = -demographic_parity_diff_signed(...)`` for the same protected group.

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Predictions in ``[0, 1]``: 0/1 labels or soft truth values.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.
    protected : group label or None, default=None
        The protected group; all other groups form the unprotected group. May be None
        only with two groups, then the first label in sorted order is protected.
    favourable : {0, 1}, default=1
        The prediction value that is the good outcome. Use ``favourable=0`` when
        ``y_pred`` predicts a harm (e.g. recidivism on COMPAS), so ``p`` is the rate of
        predicted harm.

    Returns
    -------
    float
        RD, in ``[-1, 1]``; 0 is parity.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, predictions outside ``[0, 1]`` or a single group.
    InvalidParameterError
        If ``protected`` is missing with more than two groups or not a group of ``s``, or
        ``favourable`` is not 0 or 1.

    Examples
    --------
    >>> risk_difference([0, 0, 1, 1, 1, 0], ["b", "b", "b", "w", "w", "w"], protected="b")
    0.3333333333333333
    """
    p1, p2 = _denial_rates("risk_difference", y_pred, s, protected, favourable)
    return p1 - p2


def risk_ratio(
    y_pred: ArrayLike, s: ArrayLike, *, protected: GroupLabel | None = None, favourable: int = 1
) -> float:
    """Return the risk ratio ``RR = p1 / p2`` of Zhang & Ramesh (§4.2).

    Same ``p1``, ``p2`` as :func:`risk_difference`. When ``p2 = 0`` the ratio is 1.0 if
    ``p1 = 0`` too (both groups equal) and ``inf`` otherwise, the values for which the
    linear constraint ``(1 - delta) p2 <= p1 <= (1 + delta) p2`` holds or fails.

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Predictions in ``[0, 1]``: 0/1 labels or soft truth values.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.
    protected : group label or None, default=None
        The protected group; see :func:`risk_difference`.
    favourable : {0, 1}, default=1
        The prediction value that is the good outcome; see :func:`risk_difference`.

    Returns
    -------
    float
        RR, in ``[0, inf]``; 1 is parity.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, predictions outside ``[0, 1]`` or a single group.
    InvalidParameterError
        As for :func:`risk_difference`.

    Examples
    --------
    >>> risk_ratio([0, 0, 1, 1, 1, 0], ["b", "b", "b", "w", "w", "w"], protected="b")
    2.0
    """
    p1, p2 = _denial_rates("risk_ratio", y_pred, s, protected, favourable)
    return _safe_ratio(p1, p2)


def relative_chance(
    y_pred: ArrayLike, s: ArrayLike, *, protected: GroupLabel | None = None, favourable: int = 1
) -> float:
    """Return the relative chance ``RC = (1 - p1) / (1 - p2)`` of Zhang & Ramesh (§4.2).

    The ratio of the favourable-outcome rates of the protected and unprotected groups
    (a disparate-impact ratio). Zero denominators are handled as in :func:`risk_ratio`.

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        Predictions in ``[0, 1]``: 0/1 labels or soft truth values.
    s : array-like of shape (n,)
        Group label of each row; at least two groups.
    protected : group label or None, default=None
        The protected group; see :func:`risk_difference`.
    favourable : {0, 1}, default=1
        The prediction value that is the good outcome; see :func:`risk_difference`.

    Returns
    -------
    float
        RC, in ``[0, inf]``; 1 is parity.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, predictions outside ``[0, 1]`` or a single group.
    InvalidParameterError
        As for :func:`risk_difference`.

    Examples
    --------
    >>> relative_chance([0, 0, 1, 1, 1, 0], ["b", "b", "b", "w", "w", "w"], protected="b")
    0.5
    """
    p1, p2 = _denial_rates("relative_chance", y_pred, s, protected, favourable)
    return _safe_ratio(1.0 - p1, 1.0 - p2)
