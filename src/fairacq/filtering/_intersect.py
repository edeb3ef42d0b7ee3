"""Disclosivity and imbalance for intersecting group classes (Deng et al., App. A.2).

With ``G`` group classes the conditional distribution matrix ``A`` has, for each proxy value
``j``, the concatenation over the classes of the within-class group distribution given
``z_hat = j`` (each row sums to ``G``, each class block to 1).

- Imbalance (Definition 16): ``beta = ||(Pr_D[z[g_11] = 1], ..., Pr_D[z[g_Gk_G] = 1]) -
  U_intersect||_2`` with ``U_intersect = (1/k_1, ..., 1/k_G)`` (or another target whose
  class blocks each sum to 1).
- Disclosivity: App. A.2 says only "replace U with U_intersect"; we apply Definition 5 to
  every membership coordinate, ``alpha = max_{k, j} |Pr[z[k] = 1 | z_hat = j] -
  Pr[z[k] = 1]|``, i.e. the largest within-class disclosivity. It bounds what the proxy
  reveals about each attribute separately, not about their intersections (race and sex
  together); :func:`intersecting_disclosivity` reports the former.

The formulas are those of :mod:`fairacq.metrics` applied column by column; with one class
the numbers are identical to :func:`fairacq.metrics.disclosivity_from_matrix` and
:func:`fairacq.metrics.imbalance_from_matrix`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import InvalidDataError
from fairacq.filtering._membership import encode_group_classes, group_mass
from fairacq.metrics import disclosivity_from_matrix, imbalance_from_matrix

__all__ = [
    "intersecting_conditional_matrix",
    "intersecting_disclosivity",
    "intersecting_disclosivity_from_matrix",
    "intersecting_imbalance",
    "intersecting_imbalance_from_matrix",
]

_TOL = 1e-8


def _sizes(where: str, group_sizes: Sequence[int], n_columns: int) -> tuple[int, ...]:
    sizes = tuple(int(k) for k in group_sizes)
    if not sizes or min(sizes) < 2 or sum(sizes) != n_columns:
        raise InvalidDataError(
            f"{where}: group_sizes {list(sizes)} must list at least two groups per class and "
            f"add up to the {n_columns} columns of A. Pass the number of groups of each "
            "class, in column order."
        )
    return sizes


def _blocks(sizes: Sequence[int]) -> list[slice]:
    edges = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    return [slice(int(a), int(b)) for a, b in itertools.pairwise(edges)]


def _check_block_stochastic(
    where: str, values: NDArray[np.float64], sizes: Sequence[int], name: str
) -> None:
    """Raise unless every class block of every row of ``values`` sums to 1."""
    rows = values.reshape(-1, values.shape[-1])
    for c, block in enumerate(_blocks(sizes)):
        sums = rows[:, block].sum(axis=1)
        if rows.shape[0] and np.abs(sums - 1.0).max() > _TOL:
            raise InvalidDataError(
                f"{where}: '{name}' must sum to 1 within each group class; class {c} sums to "
                f"{float(sums[np.argmax(np.abs(sums - 1.0))]):.6g}. Normalise each class "
                "block (the distribution of that class's groups)."
            )


def _matrix(
    where: str, A: ArrayLike, proxy_marginal: ArrayLike, group_sizes: Sequence[int]
) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[int, ...]]:
    mat = np.asarray(A, dtype=np.float64)
    r_hat = np.asarray(proxy_marginal, dtype=np.float64).reshape(-1)
    if mat.ndim != 2 or mat.shape[0] != r_hat.shape[0]:
        raise InvalidDataError(
            f"{where}: A must be an l x K matrix with one proxy_marginal entry per row. Got A "
            f"of shape {mat.shape} and {r_hat.shape[0]} marginal entries."
        )
    if not (np.isfinite(mat).all() and np.isfinite(r_hat).all()):
        raise InvalidDataError(f"{where}: A or proxy_marginal holds NaN or inf. Remove them.")
    if (mat < 0).any() or (r_hat < 0).any():
        raise InvalidDataError(f"{where}: A and proxy_marginal must be >= 0 (probabilities).")
    if abs(r_hat.sum() - 1.0) > _TOL:
        raise InvalidDataError(
            f"{where}: proxy_marginal must sum to 1. Got sum {r_hat.sum():.6g}; normalise it."
        )
    sizes = _sizes(where, group_sizes, mat.shape[1])
    _check_block_stochastic(where, mat[r_hat > 0], sizes, "A")
    return mat, r_hat, sizes


def _target(where: str, target: ArrayLike | None, sizes: Sequence[int]) -> NDArray[np.float64]:
    if target is None:
        return np.concatenate([np.full(k, 1.0 / k) for k in sizes])
    tgt = np.asarray(target, dtype=np.float64).reshape(-1)
    if tgt.shape[0] != sum(sizes) or not np.isfinite(tgt).all() or (tgt < 0).any():
        raise InvalidDataError(
            f"{where}: target must hold {sum(sizes)} probabilities >= 0 (one per group of "
            f"every class, in column order). Got {tgt.shape[0]} entries."
        )
    _check_block_stochastic(where, tgt, sizes, "target")
    return tgt


def intersecting_disclosivity_from_matrix(
    A: ArrayLike, proxy_marginal: ArrayLike, group_sizes: Sequence[int]
) -> float:
    """Return the disclosivity alpha for intersecting group classes (App. A.2, Definition 5).

    ``alpha = max_{k, j} |A[j, k] - Pr[z[k] = 1]|`` over every membership column ``k`` and
    proxy value ``j`` with positive marginal, ``Pr[z[k] = 1] = sum_j r_hat[j] A[j, k]``.

    Parameters
    ----------
    A : array-like of shape (l, K)
        Concatenated conditional distributions, each class block of a row summing to 1.
    proxy_marginal : array-like of shape (l,)
        ``r_hat[j] = Pr[z_hat = j]``; sums to 1.
    group_sizes : sequence of int
        Number of groups ``k_c`` of each class, in column order (sum ``K``).

    Returns
    -------
    float

    Raises
    ------
    InvalidDataError
        On mismatched shapes or blocks not summing to 1.

    Examples
    --------
    >>> A = [[0.5, 0.5, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]
    >>> intersecting_disclosivity_from_matrix(A, [0.5, 0.5], [2, 2])
    0.5
    """
    where = "intersecting_disclosivity_from_matrix"
    mat, r_hat, sizes = _matrix(where, A, proxy_marginal, group_sizes)
    if len(sizes) == 1:
        return disclosivity_from_matrix(mat, r_hat)
    prior = r_hat @ mat
    return float(np.abs(mat[r_hat > 0] - prior[None, :]).max())


def intersecting_imbalance_from_matrix(
    A: ArrayLike,
    proxy_marginal: ArrayLike,
    rho: ArrayLike,
    group_sizes: Sequence[int],
    *,
    target: ArrayLike | None = None,
) -> float:
    """Return the expected imbalance beta of Algorithm 2 for intersecting groups (Def. 16).

    The admitted sample has concatenated class shares ``p = (r_hat * rho) A / (r_hat .
    rho)``; ``beta = ||p - U_intersect||_2``.

    Parameters
    ----------
    A : array-like of shape (l, K)
        Concatenated conditional distributions.
    proxy_marginal : array-like of shape (l,)
        ``r_hat``; sums to 1.
    rho : array-like of shape (l,)
        Admission probability of each proxy value, in [0, 1].
    group_sizes : sequence of int
        Number of groups of each class, in column order.
    target : array-like of shape (K,) or None, default=None
        Target shares (each class block sums to 1); None is ``U_intersect``.

    Returns
    -------
    float

    Raises
    ------
    InvalidDataError
        On malformed inputs or a ``rho`` that admits nothing.

    Examples
    --------
    >>> A = [[0.5, 0.5, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]
    >>> round(intersecting_imbalance_from_matrix(A, [0.5, 0.5], [1.0, 1.0], [2, 2]), 4)
    0.3536
    """
    where = "intersecting_imbalance_from_matrix"
    mat, r_hat, sizes = _matrix(where, A, proxy_marginal, group_sizes)
    tgt = _target(where, target, sizes)
    if len(sizes) == 1:
        return imbalance_from_matrix(mat, r_hat, rho, target=tgt)
    admit = np.asarray(rho, dtype=np.float64).reshape(-1)
    if admit.shape[0] != mat.shape[0] or not np.isfinite(admit).all():
        raise InvalidDataError(
            f"{where}: 'rho' has {admit.shape[0]} entries for {mat.shape[0]} proxy values. "
            "Pass one admission probability per proxy value."
        )
    if (admit < 0).any() or (admit > 1).any():
        raise InvalidDataError(
            f"{where}: 'rho' must lie in [0, 1] (admission probabilities). Divide by its "
            "maximum, as Algorithm 1 does."
        )
    mass = r_hat * admit
    if mass.sum() <= 0:
        raise InvalidDataError(
            f"{where}: rho admits no row (sum of proxy_marginal * rho is 0). Give at least "
            "one proxy value with positive probability a positive admission probability."
        )
    p = (mass @ mat) / mass.sum()
    return float(np.linalg.norm(p - tgt))


def intersecting_conditional_matrix(
    proxy: ArrayLike, s: pd.DataFrame | ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[int, ...]]:
    """Return the concatenated conditional matrix ``A``, ``r_hat`` and the class sizes.

    Parameters
    ----------
    proxy : array-like of shape (n,)
        Proxy value of each row.
    s : pandas.DataFrame or array-like of shape (n, G)
        One column per group class.

    Returns
    -------
    A : numpy.ndarray of shape (l, K)
        Rows in sorted order of the proxy values; columns class by class, groups sorted.
    r_hat : numpy.ndarray of shape (l,)
    group_sizes : tuple of int

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or a class with a single group.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"race": ["a", "b", "b", "b"], "sex": ["f", "f", "m", "m"]})
    >>> A, r_hat, sizes = intersecting_conditional_matrix([0, 0, 1, 1], s)
    >>> A.tolist(), sizes
    ([[0.5, 0.5, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]], (2, 2))
    """
    where = "intersecting_conditional_matrix"
    codes, classes = encode_group_classes(s, where)
    values = np.asarray(proxy).reshape(-1)
    if values.shape[0] != codes.shape[0]:
        raise InvalidDataError(
            f"{where}: proxy has {values.shape[0]} entries but s has {codes.shape[0]} rows. "
            "Pass one proxy value per row of s."
        )
    _, inverse = np.unique(values, return_inverse=True)
    inverse = inverse.reshape(-1)
    sizes = classes.sizes
    n_values = int(inverse.max()) + 1 if inverse.size else 0
    counts = np.bincount(inverse, minlength=n_values).astype(np.float64)
    A = np.vstack(
        [group_mass((inverse == j).astype(np.float64), codes, sizes) for j in range(n_values)]
    )
    return A / counts[:, None], counts / counts.sum(), sizes


def intersecting_disclosivity(proxy: ArrayLike, s: pd.DataFrame | ArrayLike) -> float:
    """Return the in-sample disclosivity alpha of a proxy for intersecting classes.

    Definition 5 applied to every membership coordinate (App. A.2); see the module notes.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"race": ["a", "b", "b", "b"], "sex": ["f", "f", "m", "m"]})
    >>> intersecting_disclosivity([0, 0, 1, 1], s)
    0.5
    """
    A, r_hat, sizes = intersecting_conditional_matrix(proxy, s)
    return intersecting_disclosivity_from_matrix(A, r_hat, sizes)


def intersecting_imbalance(
    s: pd.DataFrame | ArrayLike,
    *,
    weights: ArrayLike | None = None,
    groups: Mapping[str, ArrayLike] | None = None,
    target: ArrayLike | None = None,
) -> float:
    """Return the imbalance beta of a dataset for intersecting classes (Definition 16).

    Parameters
    ----------
    s : pandas.DataFrame or array-like of shape (n, G)
        One column per group class.
    weights : array-like of shape (n,) or None, default=None
        Admission probability (or weight) of each row; None weighs rows equally.
    groups : mapping of class name to groups, or None, default=None
        Every group of each class (each must occur in ``s``).
    target : array-like of shape (K,) or None, default=None
        Target shares; None is ``U_intersect``.

    Returns
    -------
    float

    Raises
    ------
    InvalidDataError
        On malformed ``s``, negative weights or weights summing to 0.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"race": ["a", "b", "b", "b"], "sex": ["f", "f", "m", "m"]})
    >>> intersecting_imbalance(s)
    0.3535533905932738
    """
    where = "intersecting_imbalance"
    codes, classes = encode_group_classes(s, where, groups)
    if weights is None:
        w = np.ones(codes.shape[0])
    else:
        w = np.asarray(weights, dtype=np.float64).reshape(-1)
        if w.shape[0] != codes.shape[0]:
            raise InvalidDataError(
                f"{where}: weights has {w.shape[0]} entries for {codes.shape[0]} rows."
            )
        if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
            raise InvalidDataError(
                f"{where}: 'weights' must be finite and >= 0 with a positive sum. Pass "
                "admission probabilities, not all zero."
            )
    p = group_mass(w, codes, classes.sizes) / w.sum()
    return float(np.linalg.norm(p - _target(where, target, classes.sizes)))
