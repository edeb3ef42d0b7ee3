"""Fairness measures of Zhang & Ramesh (§4.3) that enter the Fair-A3SL objective as priors.

Measures that need the ground truth (equalised odds, overestimation) cannot be MAP
constraints, because the truth is unknown at test time; Fair-A3SL subtracts
``alpha * U(y_hat)`` from the reward instead (§4.1, eqs. 3-4). Both functions here read a
vector of MAP values over all target variables and the groups as variable indices, like
:func:`~fairacq.relational.fairness_constraints`. :class:`FairnessPrior` binds the truth,
groups and strength ``alpha`` so that an objective can call ``prior(values)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.metrics import overestimation_unfairness

__all__ = ["FairnessPrior", "equalized_odds_prior", "overestimation_prior"]


def _vector(values: ArrayLike, name: str, where: str) -> NDArray[np.float64]:
    arr = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(arr)):
        raise InvalidDataError(f"{where}: {name} contains NaN or infinity.")
    return arr


def _groups(
    protected: ArrayLike, unprotected: ArrayLike, n: int, where: str
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    out = []
    for name, group in (("protected", protected), ("unprotected", unprotected)):
        idx = np.asarray(group).reshape(-1)
        if idx.size == 0 or idx.dtype.kind not in "iu" or idx.min() < 0 or idx.max() >= n:
            raise InvalidDataError(
                f"{where}: {name} must be a non-empty array of variable indices in [0, {n})."
            )
        out.append(idx.astype(np.int64))
    if np.intersect1d(out[0], out[1]).size:
        raise InvalidDataError(f"{where}: the protected and unprotected groups overlap.")
    return out[0], out[1]


def equalized_odds_prior(
    values: ArrayLike,
    truth: ArrayLike,
    *,
    protected: ArrayLike,
    unprotected: ArrayLike,
    threshold: float = 0.5,
) -> float:
    """Return the equalised-odds difference of continuous predictions (Zhang & Ramesh, §4.3).

    ``U_odds = sum_{y in {0, 1}} |P(Y_hat=1 | P, Y=y) - P(Y_hat=1 | U, Y=y)|`` with the
    soft rate ``P(Y_hat=1 | group, Y=y)`` = the mean MAP value over the group's atoms whose
    truth is ``y`` (a truth value counts as 1 when ``>= threshold``). A term whose cell is
    empty in either group (e.g. no true positive in a small fold) is left out (counted 0),
    so the prior stays finite during structure search.

    Parameters
    ----------
    values : array-like of shape (n_variables,)
        MAP values of all target variables.
    truth : array-like of shape (n_variables,)
        Ground-truth values of the same variables.
    protected, unprotected : array-like of int
        Variable indices of the two groups' atoms (disjoint).
    threshold : float, default=0.5
        Truth values ``>= threshold`` are positives.

    Returns
    -------
    float
        In ``[0, 2]``; 0 means equal soft TPR and FPR in both groups.

    Raises
    ------
    InvalidDataError
        On different lengths, non-finite values or bad group indices.

    Examples
    --------
    >>> u = equalized_odds_prior([0.9, 0.2, 0.6, 0.2], [1, 0, 1, 0], protected=[0, 1],
    ...                          unprotected=[2, 3])
    >>> round(u, 6)
    0.3
    """
    where = "equalized_odds_prior"
    pred = _vector(values, "values", where)
    true = _vector(truth, "truth", where)
    if pred.shape != true.shape:
        raise InvalidDataError(
            f"{where}: values has {pred.size} entries and truth {true.size}; "
            "pass one of each per target variable."
        )
    p_idx, u_idx = _groups(protected, unprotected, pred.size, where)
    positive = true >= threshold
    total = 0.0
    for label in (False, True):
        p_cell = p_idx[positive[p_idx] == label]
        u_cell = u_idx[positive[u_idx] == label]
        if p_cell.size and u_cell.size:
            total += abs(float(pred[p_cell].mean()) - float(pred[u_cell].mean()))
    return total


def overestimation_prior(
    values: ArrayLike,
    truth: ArrayLike,
    *,
    protected: ArrayLike,
    unprotected: ArrayLike,
    items: ArrayLike,
) -> float:
    """Return the overestimation unfairness of predicted ratings (Zhang & Ramesh, §4.3).

    ``U_over = (1/m) sum_j |max(0, E_P[y_hat]_j - E_P[y]_j) - max(0, E_U[y_hat]_j -
    E_U[y]_j)|`` over the ``m`` items rated in both groups (Yao & Huang 2017); computed by
    :func:`fairacq.metrics.overestimation_unfairness` on the atoms of the two groups.

    Parameters
    ----------
    values : array-like of shape (n_variables,)
        MAP values (predicted ratings in ``[0, 1]``) of all target variables.
    truth : array-like of shape (n_variables,)
        True ratings of the same variables.
    protected, unprotected : array-like of int
        Variable indices of the ratings by protected and by unprotected users.
    items : array-like of shape (n_variables,)
        Item id of each target variable (only the entries of the two groups are read).

    Returns
    -------
    float
        ``U_over`` in ``[0, 1]`` for ratings in ``[0, 1]``; 0 is fair.

    Raises
    ------
    InvalidDataError
        On different lengths, bad indices, or no item rated in both groups.

    Examples
    --------
    >>> u = overestimation_prior([0.8, 0.6, 0.4, 0.6], [0.6] * 4, protected=[0, 2],
    ...                          unprotected=[1, 3], items=["i", "i", "j", "j"])
    >>> round(u, 6)
    0.1
    """
    where = "overestimation_prior"
    pred = _vector(values, "values", where)
    true = _vector(truth, "truth", where)
    item_arr = np.asarray(items).reshape(-1)
    if not (pred.size == true.size == item_arr.size):
        raise InvalidDataError(
            f"{where}: values, truth and items have {pred.size}, {true.size} and "
            f"{item_arr.size} entries; pass one of each per target variable."
        )
    p_idx, u_idx = _groups(protected, unprotected, pred.size, where)
    idx = np.concatenate([p_idx, u_idx])
    s = np.concatenate([np.zeros(p_idx.size, np.int64), np.ones(u_idx.size, np.int64)])
    value = overestimation_unfairness(true[idx], pred[idx], s, item_arr[idx], protected=0)
    return float(value)


@dataclass(frozen=True, eq=False)
class FairnessPrior:
    """A fairness prior ``alpha * U(values)`` with its truth and groups bound.

    Parameters
    ----------
    measure : {"equalized_odds", "overestimation"}
        Which measure ``U`` (:func:`equalized_odds_prior` or :func:`overestimation_prior`).
    truth : array-like of shape (n_variables,)
        Ground truth of the target variables.
    protected, unprotected : array-like of int
        Variable indices of the two groups.
    alpha : float, default=1.0
        Strength of the prior (``alpha_odds`` / ``alpha_over`` of eqs. 3-4; the paper uses
        0.1 and 0.5 for equalised odds).
    items : array-like or None, default=None
        Item id per variable; required for ``"overestimation"``.

    Examples
    --------
    >>> prior = FairnessPrior("equalized_odds", [1, 0, 1, 0], [0, 1], [2, 3], alpha=0.5)
    >>> round(prior([0.9, 0.2, 0.6, 0.2]), 6)
    0.15
    """

    measure: Literal["equalized_odds", "overestimation"]
    truth: ArrayLike
    protected: ArrayLike
    unprotected: ArrayLike
    alpha: float = 1.0
    items: ArrayLike | None = field(default=None)

    def __post_init__(self) -> None:
        if self.measure not in ("equalized_odds", "overestimation"):
            raise InvalidParameterError(
                f"FairnessPrior: measure must be 'equalized_odds' or 'overestimation'. "
                f"Got {self.measure!r} instead."
            )
        if not (isinstance(self.alpha, (int, float)) and self.alpha >= 0):
            raise InvalidParameterError(
                f"FairnessPrior: alpha must be a non-negative number. Got {self.alpha!r}."
            )
        if self.measure == "overestimation" and self.items is None:
            raise InvalidParameterError(
                "FairnessPrior: the overestimation prior needs items=<item id per variable>."
            )

    @property
    def name(self) -> str:
        """A short label, e.g. ``"0.5*equalized_odds"``."""
        return f"{self.alpha:g}*{self.measure}"

    def __call__(self, values: ArrayLike) -> float:
        """Return ``alpha * U(values)``."""
        # __post_init__ refuses an overestimation prior without items (and it is frozen)
        if self.measure == "equalized_odds" or self.items is None:
            u = equalized_odds_prior(
                values, self.truth, protected=self.protected, unprotected=self.unprotected
            )
        else:
            u = overestimation_prior(
                values,
                self.truth,
                protected=self.protected,
                unprotected=self.unprotected,
                items=self.items,
            )
        return float(self.alpha) * u
