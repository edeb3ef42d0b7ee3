"""Upper confidence bounds of Aopt (Shekhar et al., eq. 4, Remark 1 and eq. 6)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import InvalidParameterError

__all__ = [
    "practical_ucb",
    "rademacher_deviation",
    "theory_ucb",
    "vc_deviation",
]


def _check_n(where: str, n: int) -> None:
    if n < 1:
        raise InvalidParameterError(f"{where}: N must be >= 1 sample, got {n}.")


def vc_deviation(n: int, *, vc_dim: float, n_groups: int, delta: float = 0.05) -> float:
    """Uniform deviation bound ``e_z(N)`` for a class of finite VC dimension (Remark 1).

    ``e_z(N) = 2 sqrt((2 d log(2 e N / d) + 2 log(2 N^2 pi^2 |Z| / (3 delta))) / N)``; a
    negative value under the root (tiny ``N``) is clipped to 0.

    Parameters
    ----------
    n : int
        Number of samples ``N >= 1``.
    vc_dim : float
        VC dimension ``d_VC > 0`` of the model class (``n_features + 1`` for linear models).
    n_groups : int
        Number of groups ``|Z|``.
    delta : float, default=0.05
        Confidence parameter.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        If ``n < 1``.

    Examples
    --------
    >>> round(vc_deviation(100, vc_dim=3, n_groups=2, delta=0.05), 3)
    1.559
    """
    _check_n("vc_deviation", n)
    inner = 2 * vc_dim * math.log(2 * math.e * n / vc_dim) + 2 * math.log(
        2 * n**2 * math.pi**2 * n_groups / (3 * delta)
    )
    return 2.0 * math.sqrt(max(inner, 0.0) / n)


def rademacher_deviation(
    n: int, *, n_groups: int, delta: float = 0.05, rademacher_scale: float = 1.0
) -> float:
    """Uniform deviation bound ``e_z(N) = 2 R_N + sqrt(log(N^2 pi^2 |Z| / (3 delta)) / N)``.

    Remark 1 of Shekhar et al. with the Rademacher complexity taken as
    ``R_N = rademacher_scale / sqrt(N)`` (bounded-norm linear classes and MLPs).

    Parameters
    ----------
    n : int
        Number of samples ``N >= 1``.
    n_groups : int
        Number of groups ``|Z|``.
    delta : float, default=0.05
        Confidence parameter.
    rademacher_scale : float, default=1.0
        The constant ``B`` in ``R_N = B / sqrt(N)``.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        If ``n < 1``.

    Examples
    --------
    >>> round(rademacher_deviation(100, n_groups=2, delta=0.05), 4)
    0.5754
    """
    _check_n("rademacher_deviation", n)
    log_term = math.log(n**2 * math.pi**2 * n_groups / (3 * delta))
    return 2.0 * rademacher_scale / math.sqrt(n) + math.sqrt(max(log_term, 0.0) / n)


def theory_ucb(
    losses: ArrayLike, deviations: ArrayLike, pi: ArrayLike, *, C: float
) -> NDArray[np.float64]:
    """Three-term UCB ``U_t(z)`` of eq. (4) of Shekhar et al.

    ``U_t(z) = L_hat(z) + e_z(N_z) + (2 C / pi_t(z)) * sum_z' pi_t(z') e_z'(N_z')``. The third
    term bounds ``|L(z, f_pi) - L(z, f_hat)|`` through Assumption 3
    (``pi(z) |L(z, f) - L(z, f_pi)| <= 2 C eps``), hence the division by ``pi_t(z)``.

    Parameters
    ----------
    losses : array-like of shape (n_groups,)
        Empirical loss of the current model on each group's validation set.
    deviations : array-like of shape (n_groups,)
        ``e_z(N_z,t)`` of each group.
    pi : array-like of shape (n_groups,)
        Current training mixture ``pi_t`` (all entries > 0).
    C : float
        The constant of Assumption 3.

    Returns
    -------
    ndarray of shape (n_groups,)

    Examples
    --------
    >>> theory_ucb([0.1, 0.2], [0.5, 0.25], [0.5, 0.5], C=1.0).tolist()
    [2.1, 1.95]
    """
    loss = np.asarray(losses, dtype=np.float64)
    dev = np.asarray(deviations, dtype=np.float64)
    p = np.asarray(pi, dtype=np.float64)
    third = 2.0 * C * float(np.dot(p, dev)) / np.maximum(p, 1e-12)
    return loss + dev + third


def practical_ucb(
    losses: ArrayLike,
    counts: ArrayLike,
    *,
    c0: float,
    trend: ArrayLike | None = None,
    c1: float = 0.0,
) -> NDArray[np.float64]:
    """Two-term UCB of eq. (6) of Shekhar et al., with the optional Mann-Kendall term (Aopt+).

    ``U~_t(z) = L_hat(z) + c0 / sqrt(N_z,t) + c1 * S_z / sqrt(var S_z)``.

    Parameters
    ----------
    losses : array-like of shape (n_groups,)
        Empirical loss of the current model on each group's validation set.
    counts : array-like of shape (n_groups,)
        ``N_z,t``, training samples of each group (all >= 1).
    c0 : float
        Exploration weight.
    trend : array-like of shape (n_groups,) or None, default=None
        ``S_z / sqrt(var S_z)`` of each group (see :func:`fairacq.sampling.mann_kendall_score`).
    c1 : float, default=0.0
        Weight of the trend term (0 gives Aopt, > 0 gives Aopt+).

    Returns
    -------
    ndarray of shape (n_groups,)

    Examples
    --------
    >>> practical_ucb([0.1, 0.3], [4, 16], c0=0.2).tolist()
    [0.2, 0.35]
    """
    loss = np.asarray(losses, dtype=np.float64)
    n = np.maximum(np.asarray(counts, dtype=np.float64), 1.0)
    score = loss + c0 / np.sqrt(n)
    if trend is not None and c1 != 0.0:
        score = score + c1 * np.asarray(trend, dtype=np.float64)
    return score
