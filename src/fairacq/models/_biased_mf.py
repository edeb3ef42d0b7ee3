"""Biased matrix factorisation fitted by alternating least squares.

``mu + b_u + b_i + p_u . q_i`` (a global mean, user and item biases, user and item factors)
for ratings of users on items. Zhang & Ramesh (§5.3) feeds its predictions to the relational
MovieLens model as the ``ratingMF`` predicate, after Kouki et al.'s HyPER, and reports it as
the "MF" baseline of Tables 12-13.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from fairacq._random import RandomState, as_generator
from fairacq._validation import Interval, validate_parameter_constraints
from fairacq.exceptions import InvalidDataError

__all__ = ["BiasedMF", "fit_biased_mf"]


@dataclass(frozen=True, eq=False)
class BiasedMF:
    """A fitted biased matrix factorisation ``mu + b_u + b_i + p_u @ q_i``.

    Parameters
    ----------
    global_mean : float
        ``mu``.
    user_bias, item_bias : ndarray
        ``b_u`` and ``b_i``.
    user_factors, item_factors : ndarray of shape (n_users, rank), (n_items, rank)
        ``p_u`` and ``q_i``.
    """

    global_mean: float
    user_bias: NDArray[np.float64]
    item_bias: NDArray[np.float64]
    user_factors: NDArray[np.float64]
    item_factors: NDArray[np.float64]

    def predict(self, users: ArrayLike, items: ArrayLike) -> NDArray[np.float64]:
        """Return the predicted ratings of the (user index, item index) pairs."""
        u = np.asarray(users, dtype=np.int64)
        i = np.asarray(items, dtype=np.int64)
        dot = np.einsum("nk,nk->n", self.user_factors[u], self.item_factors[i])
        out: NDArray[np.float64] = self.global_mean + self.user_bias[u] + self.item_bias[i] + dot
        return out


def _als_half(
    rows: NDArray[np.int64],
    n_rows: int,
    features: NDArray[np.float64],
    target: NDArray[np.float64],
    reg: float,
) -> NDArray[np.float64]:
    """Solve every row's ridge problem ``min sum (t - x . w)^2 + reg * n_r * |w|^2`` at once."""
    d = features.shape[1]
    onehot: sp.csr_array[Any, tuple[int, int]] = sp.csr_array(
        (np.ones(len(rows)), (rows, np.arange(len(rows)))), shape=(n_rows, len(rows))
    )
    outer = (features[:, :, None] * features[:, None, :]).reshape(len(rows), d * d)
    gram = np.asarray(onehot @ outer).reshape(n_rows, d, d)
    rhs = np.asarray(onehot @ (features * target[:, None]))
    count = np.bincount(rows, minlength=n_rows).astype(np.float64)
    gram += (reg * np.maximum(count, 1.0))[:, None, None] * np.eye(d)
    out: NDArray[np.float64] = np.linalg.solve(gram, rhs[:, :, None])[:, :, 0]
    return out


def fit_biased_mf(
    users: ArrayLike,
    items: ArrayLike,
    ratings: ArrayLike,
    *,
    n_users: int,
    n_items: int,
    rank: int = 10,
    reg: float = 0.03,
    n_iter: int = 15,
    random_state: RandomState = None,
) -> BiasedMF:
    """Fit a biased matrix factorisation by alternating least squares.

    Each half-step solves, for every user (item) at once, a ridge regression of the
    residual ``r - mu - b_i`` on ``[q_i, 1]`` (giving ``p_u`` and ``b_u``) with the
    weighted-lambda penalty ``reg * n_u`` (Zhou et al. 2008). It stands in for the MF
    predictions Zhang & Ramesh uses as the ``ratingMF`` predicate (after Kouki et al.'s HyPER).

    Parameters
    ----------
    users, items : array-like of int, shape (n,)
        Indices ``0..n_users-1`` and ``0..n_items-1`` of the observed pairs.
    ratings : array-like of float, shape (n,)
        Observed ratings.
    n_users, n_items : int
        Sizes of the index ranges (rows without a rating get zero factors and bias).
    rank : int, default=10
        Number of latent factors.
    reg : float, default=0.03
        Ridge penalty per rating (on ratings scaled to [0, 1]).
    n_iter : int, default=15
        ALS sweeps (users, then items).
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        Seeds the initial item factors.

    Returns
    -------
    BiasedMF

    Raises
    ------
    InvalidDataError
        On indices out of range, mismatched lengths or non-finite ratings.
    InvalidParameterError
        For a non-positive rank, iteration count or negative penalty.

    Examples
    --------
    >>> mf = fit_biased_mf([0, 0, 1], [0, 1, 0], [1.0, 0.0, 1.0], n_users=2, n_items=2,
    ...                    rank=2, random_state=0)
    >>> mf.predict([1], [1]).shape
    (1,)
    """
    validate_parameter_constraints(
        {
            "rank": [Interval(int, 1, None, closed="left")],
            "reg": [Interval(float, 0, None, closed="left")],
            "n_iter": [Interval(int, 1, None, closed="left")],
            "random_state": ["random_state"],
        },
        {"rank": rank, "reg": reg, "n_iter": n_iter, "random_state": random_state},
        "fit_biased_mf",
    )
    u = np.asarray(users, dtype=np.int64).reshape(-1)
    i = np.asarray(items, dtype=np.int64).reshape(-1)
    r = np.asarray(ratings, dtype=np.float64).reshape(-1)
    if not (len(u) == len(i) == len(r)) or len(r) == 0:
        raise InvalidDataError(
            f"fit_biased_mf: users, items and ratings need the same non-zero length. Got "
            f"{len(u)}, {len(i)} and {len(r)}."
        )
    if u.min() < 0 or u.max() >= n_users or i.min() < 0 or i.max() >= n_items:
        raise InvalidDataError(
            f"fit_biased_mf: indices must lie in [0, n_users) and [0, n_items) "
            f"({n_users}, {n_items}). Encode ids as consecutive integers first."
        )
    if not np.all(np.isfinite(r)):
        raise InvalidDataError("fit_biased_mf: ratings contain NaN or infinity.")
    rng = as_generator(random_state)
    mu = float(r.mean())
    q = rng.normal(0.0, 0.1, size=(n_items, rank))
    p = np.zeros((n_users, rank))
    bu = np.zeros(n_users)
    bi = np.zeros(n_items)
    ones = np.ones((len(r), 1))
    for _ in range(n_iter):
        sol = _als_half(u, n_users, np.hstack([q[i], ones]), r - mu - bi[i], reg)
        p, bu = sol[:, :rank], sol[:, rank]
        sol = _als_half(i, n_items, np.hstack([p[u], ones]), r - mu - bu[u], reg)
        q, bi = sol[:, :rank], sol[:, rank]
    return BiasedMF(mu, bu.copy(), bi.copy(), np.ascontiguousarray(p), np.ascontiguousarray(q))
