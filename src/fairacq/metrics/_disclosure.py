"""Disclosivity alpha and imbalance beta of a proxy and its sampling rule (Deng et al.).

Deng, Diana, Kearns & Roth, *Balanced Filtering via Non-Disclosive Proxies*, §2:

- Definition 2: a dataset ``D`` is beta-approximately balanced over ``K`` groups when
  ``||(Pr_D[z=1], ..., Pr_D[z=K]) - (1/K, ..., 1/K)||_2 <= beta``; :func:`imbalance` returns
  the smallest such beta (optionally against another target distribution, which §4 allows).
- Definition 5: a proxy ``z_hat`` is alpha-disclosive when
  ``|Pr[z=i | z_hat=j] - Pr[z=i]| <= alpha`` for every group ``i`` and proxy value ``j``;
  :func:`disclosivity` returns the smallest such alpha.

A proxy induces the conditional distribution matrix ``A`` (row ``j`` = distribution of
groups among rows with proxy value ``j``) and the proxy marginal ``r_hat``; Algorithm 2
admits a row with proxy value ``j`` with probability ``rho_j``, so the admitted sample has
group distribution ``(r_hat * rho) A / (r_hat . rho)``. Everything is computed in-sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import check_no_nan
from fairacq.exceptions import InvalidDataError
from fairacq.metrics._checks import _groups, _real, _rows

__all__ = [
    "conditional_distribution_matrix",
    "disclosivity",
    "disclosivity_from_matrix",
    "expected_acceptance_rate",
    "imbalance",
    "imbalance_from_matrix",
]

_TOL = 1e-8


def _encode_proxy(where: str, proxy: NDArray[Any]) -> tuple[NDArray[np.int64], int]:
    check_no_nan(where, "proxy", proxy)
    try:
        values, codes = np.unique(proxy, return_inverse=True)
    except TypeError as exc:
        raise InvalidDataError(
            f"{where}: 'proxy' mixes value types that cannot be compared. "
            "Convert every proxy value to one type (e.g. int leaf ids) first."
        ) from exc
    return codes.astype(np.int64).reshape(-1), len(values)


def _stochastic(where: str, values: ArrayLike, name: str, ndim: int) -> NDArray[np.float64]:
    """Return non-negative finite float64 values of the given ndim or raise."""
    arr = np.asarray(values)
    if arr.ndim != ndim:
        raise InvalidDataError(
            f"{where}: '{name}' must be {ndim}-D. Got shape {arr.shape}. "
            + (
                "Pass the l x K matrix with one row per proxy value."
                if ndim == 2
                else "Pass one value per proxy value (or group)."
            )
        )
    out = _real(where, arr.reshape(-1), name).reshape(arr.shape)
    if (out < 0).any():
        raise InvalidDataError(
            f"{where}: '{name}' has negative entries. Probabilities must be >= 0."
        )
    return out


def _check_sums_to_one(where: str, values: NDArray[np.float64], name: str) -> None:
    total = float(values.sum())
    if abs(total - 1.0) > _TOL:
        raise InvalidDataError(
            f"{where}: '{name}' must sum to 1 (a probability distribution). Got sum "
            f"{total:.6g}. Normalise it first."
        )


def _matrix(
    where: str, A: ArrayLike, proxy_marginal: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    mat = _stochastic(where, A, "A", 2)
    r_hat = _stochastic(where, proxy_marginal, "proxy_marginal", 1)
    if mat.shape[0] != r_hat.shape[0]:
        raise InvalidDataError(
            f"{where}: A has {mat.shape[0]} rows but proxy_marginal has {r_hat.shape[0]} "
            "entries. Pass one marginal probability per proxy value (row of A)."
        )
    if mat.shape[1] < 2:
        raise InvalidDataError(
            f"{where}: A has {mat.shape[1]} column(s). Balance and disclosure need at least "
            "two groups (one column per group)."
        )
    _check_sums_to_one(where, r_hat, "proxy_marginal")
    used = r_hat > 0
    bad = np.abs(mat[used].sum(axis=1) - 1.0) > _TOL
    if bad.any():
        row = int(np.flatnonzero(used)[np.flatnonzero(bad)[0]])
        raise InvalidDataError(
            f"{where}: row {row} of A sums to {mat[row].sum():.6g}, not 1. Each row must be "
            "the distribution of groups given one proxy value."
        )
    return mat, r_hat


def _target(where: str, target: ArrayLike | None, n_groups: int) -> NDArray[np.float64]:
    if target is None:
        return np.full(n_groups, 1.0 / n_groups)
    out = _stochastic(where, target, "target", 1)
    if out.shape[0] != n_groups:
        raise InvalidDataError(
            f"{where}: 'target' has {out.shape[0]} entries for {n_groups} groups. Pass one "
            "probability per group, in sorted group order."
        )
    _check_sums_to_one(where, out, "target")
    return out


def conditional_distribution_matrix(
    proxy: ArrayLike, s: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return the conditional distribution matrix ``A`` and proxy marginal ``r_hat``.

    Deng et al., §3 (Algorithm 1): ``A[j, i] = Pr[z = i | z_hat = j]`` and
    ``r_hat[j] = Pr[z_hat = j]``, estimated from the rows given.

    Parameters
    ----------
    proxy : array-like of shape (n,)
        Proxy value (e.g. decision-tree leaf id) of each row; one value is allowed.
    s : array-like of shape (n,)
        True group of each row; at least two groups.

    Returns
    -------
    A : numpy.ndarray of shape (l, K)
        Rows in sorted order of the ``l`` proxy values, columns in sorted group order;
        each row sums to 1.
    r_hat : numpy.ndarray of shape (l,)
        Fraction of rows with each proxy value.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or a single group.

    Examples
    --------
    >>> A, r_hat = conditional_distribution_matrix([0, 0, 1, 1], ["a", "b", "b", "b"])
    >>> A.tolist(), r_hat.tolist()
    ([[0.5, 0.5], [0.0, 1.0]], [0.5, 0.5])
    """
    where = "conditional_distribution_matrix"
    a = _rows(where, proxy=proxy, s=s)
    codes, labels = _groups(where, a["s"])
    pcodes, n_values = _encode_proxy(where, a["proxy"])
    n_groups = len(labels)
    counts = np.bincount(pcodes * n_groups + codes, minlength=n_values * n_groups)
    joint = counts.reshape(n_values, n_groups).astype(np.float64)
    row_tot = joint.sum(axis=1)
    return joint / row_tot[:, None], row_tot / row_tot.sum()


def disclosivity(proxy: ArrayLike, s: ArrayLike) -> float:
    """Return the in-sample disclosivity alpha of a proxy (Deng et al., Definition 5).

    ``alpha = max_{i, j} |Pr[z = i | z_hat = j] - Pr[z = i]|`` over groups ``i`` and proxy
    values ``j``, with probabilities estimated from the rows. A constant proxy has
    alpha = 0; a perfect group classifier has alpha = ``max_i (1 - Pr[z = i])``.

    Parameters
    ----------
    proxy : array-like of shape (n,)
        Proxy value of each row.
    s : array-like of shape (n,)
        True group of each row; at least two groups.

    Returns
    -------
    float
        alpha, in ``[0, 1)``; lower discloses less.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN or a single group.

    Examples
    --------
    >>> disclosivity([0, 0, 1, 1], ["a", "b", "b", "b"])
    0.25
    """
    A, r_hat = conditional_distribution_matrix(proxy, s)
    return _alpha(A, r_hat)


def _alpha(A: NDArray[np.float64], r_hat: NDArray[np.float64]) -> float:
    prior = r_hat @ A
    used = r_hat > 0
    return float(np.abs(A[used] - prior[None, :]).max())


def disclosivity_from_matrix(A: ArrayLike, proxy_marginal: ArrayLike) -> float:
    """Return the disclosivity alpha from ``A`` and the proxy marginal (Definition 5).

    The group prior is ``Pr[z = i] = sum_j r_hat[j] A[j, i]``; proxy values with zero
    marginal probability never occur and are ignored.

    Parameters
    ----------
    A : array-like of shape (l, K)
        Conditional distribution matrix, ``A[j, i] = Pr[z = i | z_hat = j]``.
    proxy_marginal : array-like of shape (l,)
        ``r_hat[j] = Pr[z_hat = j]``; sums to 1.

    Returns
    -------
    float
        alpha, in ``[0, 1)``.

    Raises
    ------
    InvalidDataError
        On mismatched shapes, negative entries, or rows / marginal not summing to 1.

    Examples
    --------
    >>> disclosivity_from_matrix([[0.5, 0.5], [0.0, 1.0]], [0.5, 0.5])
    0.25
    """
    mat, r_hat = _matrix("disclosivity_from_matrix", A, proxy_marginal)
    return _alpha(mat, r_hat)


def imbalance(
    s: ArrayLike,
    *,
    weights: ArrayLike | None = None,
    groups: ArrayLike | None = None,
    target: ArrayLike | None = None,
) -> float:
    """Return the imbalance beta of a dataset (Deng et al., Definition 2), in-sample.

    ``beta = ||p - U||_2`` where ``p_k`` is the share of group ``k`` in the dataset and
    ``U = (1/K, ..., 1/K)`` (or ``target``). With ``weights`` (e.g. each row's admission
    probability ``rho[z_hat(x)]`` under Algorithm 2), ``p`` is the expected composition of
    the admitted sample.

    Parameters
    ----------
    s : array-like of shape (n,)
        Group of each row of the dataset.
    weights : array-like of shape (n,) or None, default=None
        Non-negative weight (admission probability) of each row; None weighs rows equally.
    groups : array-like or None, default=None
        All ``K`` group labels, so that groups absent from ``s`` count with share 0. If
        None, the groups are those present in ``s`` (at least two).
    target : array-like of shape (K,) or None, default=None
        Target distribution over groups (sorted order); None is uniform.

    Returns
    -------
    float
        beta, in ``[0, sqrt(1 - 1/K)]`` for the uniform target; 0 is balanced.

    Raises
    ------
    InvalidDataError
        On different lengths, NaN, fewer than two groups, labels of ``s`` missing from
        ``groups``, negative weights or weights summing to 0, or a bad target.

    Examples
    --------
    >>> round(imbalance(["a", "a", "a", "b"]), 4)
    0.3536
    >>> imbalance(["a", "a", "a", "b"], weights=[1 / 3, 1 / 3, 1 / 3, 1.0])
    0.0
    """
    where = "imbalance"
    a = _rows(where, s=s, weights=weights)
    if groups is None:
        codes, labels = _groups(where, a["s"])
    else:
        _, labels = _groups(where, groups, "groups")
        known = np.asarray(labels)
        raw = a["s"]
        check_no_nan(where, "s", raw)
        try:
            codes = np.clip(np.searchsorted(known, raw), 0, len(labels) - 1).astype(np.int64)
            found = known[codes] == raw
        except TypeError:
            found = np.zeros(raw.shape[0], dtype=bool)
            codes = np.zeros(raw.shape[0], dtype=np.int64)
        if not np.all(found):
            missing = np.unique(raw[~np.asarray(found, dtype=bool)])[:5].tolist()
            raise InvalidDataError(
                f"{where}: s holds labels {missing!r} that are not in groups {labels!r}. "
                "Pass every group label in groups (or groups=None)."
            )
    n_groups = len(labels)
    if "weights" in a:
        w = _real(where, a["weights"], "weights")
        if (w < 0).any() or w.sum() <= 0:
            raise InvalidDataError(
                f"{where}: 'weights' must be >= 0 with a positive sum. Pass admission "
                "probabilities, not all zero."
            )
    else:
        w = np.ones(codes.shape[0])
    mass = np.bincount(codes, weights=w, minlength=n_groups)
    if mass.sum() <= 0:
        raise InvalidDataError(f"{where}: the dataset is empty. Pass at least one row.")
    p = mass / mass.sum()
    return float(np.linalg.norm(p - _target(where, target, n_groups)))


def imbalance_from_matrix(
    A: ArrayLike,
    proxy_marginal: ArrayLike,
    rho: ArrayLike,
    *,
    target: ArrayLike | None = None,
) -> float:
    """Return the expected imbalance beta of sampling with ``rho`` (Definitions 2, Alg. 2).

    Algorithm 2 admits a row with proxy value ``j`` with probability ``rho[j]``, so the
    admitted sample has group distribution ``p = (r_hat * rho) A / (r_hat . rho)`` and
    ``beta = ||p - U||_2`` (Definition 2; Lemma 2 gives beta = 0 when ``rho`` comes from an
    exact solution of ``qA = U``).

    Parameters
    ----------
    A : array-like of shape (l, K)
        Conditional distribution matrix, ``A[j, i] = Pr[z = i | z_hat = j]``.
    proxy_marginal : array-like of shape (l,)
        ``r_hat[j] = Pr[z_hat = j]``; sums to 1.
    rho : array-like of shape (l,)
        Admission probability of each proxy value, in ``[0, 1]``.
    target : array-like of shape (K,) or None, default=None
        Target distribution over groups; None is uniform.

    Returns
    -------
    float
        beta of the expected admitted sample; 0 is balanced.

    Raises
    ------
    InvalidDataError
        On mismatched shapes, entries outside their ranges, distributions not summing to
        1, or a ``rho`` that admits nothing.

    Examples
    --------
    >>> A = [[0.5, 0.5], [0.0, 1.0]]
    >>> imbalance_from_matrix(A, [0.5, 0.5], [1.0, 0.0])
    0.0
    >>> round(imbalance_from_matrix(A, [0.5, 0.5], [1.0, 1.0]), 4)
    0.3536
    """
    where = "imbalance_from_matrix"
    mat, r_hat = _matrix(where, A, proxy_marginal)
    admit = _admission(where, rho, r_hat.shape[0])
    mass = r_hat * admit
    if mass.sum() <= 0:
        raise InvalidDataError(
            f"{where}: rho admits no row (sum of proxy_marginal * rho is 0). Give at least "
            "one proxy value with positive probability a positive admission probability."
        )
    p = (mass @ mat) / mass.sum()
    return float(np.linalg.norm(p - _target(where, target, mat.shape[1])))


def _admission(where: str, rho: ArrayLike, n_values: int) -> NDArray[np.float64]:
    admit = _stochastic(where, rho, "rho", 1)
    if admit.shape[0] != n_values:
        raise InvalidDataError(
            f"{where}: 'rho' has {admit.shape[0]} entries for {n_values} proxy values. Pass "
            "one admission probability per proxy value."
        )
    if (admit > 1).any():
        raise InvalidDataError(
            f"{where}: 'rho' must lie in [0, 1] (admission probabilities). Divide by its "
            "maximum, as Algorithm 1 does."
        )
    return admit


def expected_acceptance_rate(proxy_marginal: ArrayLike, rho: ArrayLike) -> float:
    """Return the expected fraction of candidates that Algorithm 2 admits, ``r_hat @ rho``.

    Deng et al. buys balance with rejections; report this rate beside alpha and beta.

    Parameters
    ----------
    proxy_marginal : array-like of shape (l,)
        ``r_hat[j] = Pr[z_hat = j]``; sums to 1.
    rho : array-like of shape (l,)
        Admission probability of each proxy value, in ``[0, 1]``.

    Returns
    -------
    float
        The acceptance rate, in ``[0, 1]``.

    Raises
    ------
    InvalidDataError
        On mismatched lengths, entries outside their ranges or a marginal not summing
        to 1.

    Examples
    --------
    >>> expected_acceptance_rate([0.5, 0.5], [1.0, 0.2])
    0.6
    """
    where = "expected_acceptance_rate"
    r_hat = _stochastic(where, proxy_marginal, "proxy_marginal", 1)
    _check_sums_to_one(where, r_hat, "proxy_marginal")
    admit = _admission(where, rho, r_hat.shape[0])
    return float(r_hat @ admit)
