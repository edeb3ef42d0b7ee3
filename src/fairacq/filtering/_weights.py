"""Sampling weights of Algorithm 1 (Deng et al., §3): the QP ``min ||qA - U||`` and ``rho``.

Given the conditional distribution matrix ``A`` (row ``j`` = distribution of groups among
candidates with proxy value ``j``) and the proxy marginal ``r_hat``, Algorithm 1 solves

    q = argmin ||q A - U||_2  s.t.  q >= 0, sum(q) = 1

and sets ``rho_j = q_j / r_hat_j`` divided by its maximum. The relaxed variant of §5 drops
``sum(q) = 1``. With intersecting group classes (App. A.2) the rows of ``A`` and the target
are concatenations of within-class distributions (``group_sizes``). The QP is solved with
cvxpy (Clarabel or OSQP) or with scipy's NNLS, and the answer is then polished by an exact
active-set step (equality-constrained least squares on the support found), so balance is
met to machine precision whenever U is reachable.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._deps import require
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.filtering._intersect import (
    _check_block_stochastic,
    intersecting_imbalance_from_matrix,
)
from fairacq.metrics import imbalance_from_matrix

__all__ = ["SamplingWeights", "UnreachableTargetWarning", "sampling_weights"]

_SOLVERS = ("active-set", "auto", "clarabel", "nnls", "osqp")
_REACH_TOL = 1e-7


class UnreachableTargetWarning(UserWarning):
    """The target distribution is outside the hull of ``A``: only beta > 0 is reachable."""


@dataclass(frozen=True)
class SamplingWeights:
    """The output of Algorithm 1 (Deng et al., §3) for one conditional distribution matrix.

    Attributes
    ----------
    q : numpy.ndarray of shape (l,)
        The QP solution (a stochastic vector unless ``relaxed``).
    rho : numpy.ndarray of shape (l,)
        Admission probability of each proxy value, ``q / r_hat`` divided by its maximum.
    beta : float
        Imbalance of the admitted sample in expectation (Definition 2 against ``target``).
    hull_distance : float
        ``||qA - U||_2`` at the optimum (for ``relaxed``, of the unnormalised ``qA``).
    acceptance_rate : float
        Expected fraction of candidates admitted, ``r_hat . rho``.
    reachable : bool
        Whether the target is met (beta below 1e-7).
    relaxed : bool
        Whether ``sum(q) = 1`` was dropped.
    """

    q: NDArray[np.float64]
    rho: NDArray[np.float64]
    beta: float
    hull_distance: float
    acceptance_rate: float
    reachable: bool
    relaxed: bool


def _check_inputs(  # noqa: PLR0912
    A: ArrayLike,
    proxy_marginal: ArrayLike,
    target: ArrayLike | None,
    group_sizes: Sequence[int] | None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], tuple[int, ...]]:
    where = "sampling_weights"
    mat = np.asarray(A, dtype=np.float64)
    r_hat = np.asarray(proxy_marginal, dtype=np.float64).reshape(-1)
    if mat.ndim != 2 or mat.shape[0] != r_hat.shape[0] or mat.shape[1] < 2:
        raise InvalidDataError(
            f"{where}: A must be an l x K matrix (K >= 2) with one proxy_marginal entry per "
            f"row. Got A of shape {mat.shape} and {r_hat.shape[0]} marginal entries."
        )
    if not (np.isfinite(mat).all() and np.isfinite(r_hat).all()):
        raise InvalidDataError(f"{where}: A or proxy_marginal holds NaN or inf. Remove them.")
    if (mat < 0).any() or (r_hat < 0).any():
        raise InvalidDataError(f"{where}: A and proxy_marginal must be >= 0 (probabilities).")
    if abs(r_hat.sum() - 1.0) > 1e-8:
        raise InvalidDataError(
            f"{where}: proxy_marginal must sum to 1. Got sum {r_hat.sum():.6g}; normalise it."
        )
    if group_sizes is None:
        sizes: tuple[int, ...] = (mat.shape[1],)
    else:
        sizes = tuple(int(k) for k in group_sizes)
        if not sizes or min(sizes) < 2 or sum(sizes) != mat.shape[1]:
            raise InvalidDataError(
                f"{where}: group_sizes {list(sizes)} must give at least two groups per class "
                f"and add up to the {mat.shape[1]} columns of A. Pass the number of groups of "
                "each class, in column order."
            )
    used = r_hat > 0
    if len(sizes) == 1:
        if np.abs(mat[used].sum(axis=1) - 1.0).max(initial=0.0) > 1e-8:
            raise InvalidDataError(
                f"{where}: each row of A must sum to 1 (the groups given one proxy value). "
                "Build A with fairacq.metrics.conditional_distribution_matrix."
            )
    else:
        _check_block_stochastic(where, mat[used], sizes, "A")
    n_groups = mat.shape[1]
    if target is None:
        tgt = np.concatenate([np.full(k, 1.0 / k) for k in sizes])
    else:
        tgt = np.asarray(target, dtype=np.float64).reshape(-1)
        if tgt.shape[0] != n_groups:
            raise InvalidDataError(
                f"{where}: target has {tgt.shape[0]} entries for {n_groups} groups. Pass one "
                "probability per group, in sorted group order."
            )
        if len(sizes) > 1 and np.isfinite(tgt).all() and (tgt >= 0).all():
            _check_block_stochastic(where, tgt, sizes, "target")
        elif not np.isfinite(tgt).all() or (tgt < 0).any() or abs(tgt.sum() - 1.0) > 1e-8:
            raise InvalidDataError(
                f"{where}: target must be a probability distribution (entries >= 0 summing "
                f"to 1). Got sum {tgt.sum():.6g}. Normalise it first."
            )
    return mat, r_hat, tgt, sizes


def _solve_cvxpy(
    M: NDArray[np.float64], tgt: NDArray[np.float64], relaxed: bool, solver: str
) -> NDArray[np.float64]:
    cp = require("cvxpy", purpose="the QP of Algorithm 1 (Deng et al.)")
    q = cp.Variable(M.shape[0])
    constraints = [q >= 0]
    if not relaxed:
        constraints.append(cp.sum(q) == 1)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(M.T @ q - tgt)), constraints)
    problem.solve(solver=solver.upper())
    if q.value is None:  # pragma: no cover - solver failure
        raise InvalidDataError(
            f"sampling_weights: the {solver} solver returned no solution (status "
            f"{problem.status}). Try solver='nnls'."
        )
    return np.asarray(q.value, dtype=np.float64)


def _solve_nnls(
    M: NDArray[np.float64], tgt: NDArray[np.float64], relaxed: bool
) -> NDArray[np.float64]:
    from scipy.optimize import nnls

    if relaxed:
        return np.asarray(nnls(M.T, tgt)[0], dtype=np.float64)
    # sum(q) = 1 enforced as a heavily weighted extra equation; the polish makes it exact.
    weight = 1e4
    design = np.vstack([M.T, weight * np.ones((1, M.shape[0]))])
    return np.asarray(nnls(design, np.append(tgt, weight))[0], dtype=np.float64)


def _equality_ls(
    M: NDArray[np.float64], tgt: NDArray[np.float64], support: list[int], relaxed: bool
) -> NDArray[np.float64]:
    """Minimise ``||q_W M_W - tgt||`` on the support ``W`` (with ``sum q_W = 1`` if strict)."""
    sub = M[support].T  # K x s
    if relaxed:
        return np.asarray(np.linalg.lstsq(sub, tgt, rcond=None)[0], dtype=np.float64)
    size = len(support)
    kkt = np.zeros((size + 1, size + 1))
    kkt[:size, :size] = sub.T @ sub
    kkt[:size, size] = 1.0
    kkt[size, :size] = 1.0
    rhs = np.append(sub.T @ tgt, 1.0)
    return np.asarray(np.linalg.lstsq(kkt, rhs, rcond=None)[0][:size], dtype=np.float64)


def _active_set(
    M: NDArray[np.float64],
    tgt: NDArray[np.float64],
    q0: NDArray[np.float64] | None,
    relaxed: bool,
) -> NDArray[np.float64]:
    """Solve the QP exactly by a primal active-set method, warm-started at ``q0``.

    Minimises ``||qM - tgt||^2`` over ``q >= 0`` (and ``sum q = 1`` unless ``relaxed``).
    Each iteration solves an equality-constrained least squares on the working support,
    steps back to feasibility when a weight would turn negative, and adds the row whose
    KKT multiplier is most violated; it stops when the KKT conditions hold.
    """
    n_values = M.shape[0]
    if q0 is None or q0.sum() <= 0:
        q = np.zeros(n_values)
        if not relaxed:
            q[int(np.argmin(((M - tgt) ** 2).sum(axis=1)))] = 1.0
    else:
        q = np.where(q0 > 1e-7 * q0.max(), q0, 0.0)
        if not relaxed:
            q = q / q.sum()
    work = [int(j) for j in np.flatnonzero(q > 0)]
    gram = M @ M.T
    lin = M @ tgt
    for _ in range(20 * n_values + 50):
        if work:
            p = np.zeros(n_values)
            p[work] = _equality_ls(M, tgt, work, relaxed)
            negative = [j for j in work if p[j] < 0]
            if negative:
                steps = [q[j] / (q[j] - p[j]) for j in negative]
                k = int(np.argmin(steps))
                q = q + min(steps[k], 1.0) * (p - q)
                q[negative[k]] = 0.0
                q = np.clip(q, 0.0, None)
                work = [j for j in work if q[j] > 0]
                continue
            q = p
        grad = gram @ q - lin
        level = float(np.mean(grad[work])) if (work and not relaxed) else 0.0
        outside = [j for j in range(n_values) if j not in work]
        if not outside:
            break
        slack = grad[outside] - level
        k = int(np.argmin(slack))
        if slack[k] >= -1e-13:
            break
        work.append(outside[k])
    return q


def _highest_acceptance(
    M: NDArray[np.float64],
    r_hat: NDArray[np.float64],
    tgt: NDArray[np.float64],
    q_opt: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Among the optimal ``q``, return the one that admits the most candidates.

    Every optimal ``q`` gives the same admitted distribution ``p* = q M`` (the projection of
    the target on the hull is unique), but when ``A`` has more rows than groups many ``q``
    do, with different acceptance rates ``r_hat . rho = sum(q) / max_j(q_j / r_hat_j)``.
    With ``w = q / t`` and ``s = 1 / t`` (Charnes-Cooper), the best is the linear programme

        max sum(w)  s.t.  0 <= w <= r_hat,  w M = s p*,  s >= 0,

    and ``q = w / s``. So the answer, and a user's admission rate, does not depend on the
    solver that found the first optimum. Kept only if it is as close to the target.
    """
    from scipy.optimize import linprog

    l_rows = M.shape[0]
    p_star = q_opt @ M
    cost = np.append(-np.ones(l_rows), 0.0)
    equality = np.hstack([M.T, -p_star[:, None]])
    bounds = [(0.0, float(r)) for r in r_hat] + [(0.0, None)]
    res = linprog(cost, A_eq=equality, b_eq=np.zeros(M.shape[1]), bounds=bounds, method="highs")
    x = res.x
    if res.status != 0 or x is None or x[-1] <= 0:
        return q_opt
    q = np.clip(x[:l_rows] / x[-1], 0.0, None)
    if np.linalg.norm(q @ M - tgt) > np.linalg.norm(p_star - tgt) + 1e-10:
        return q_opt  # the programme's tolerance cost balance: keep the exact optimum
    return np.asarray(q, dtype=np.float64)


def sampling_weights(
    A: ArrayLike,
    proxy_marginal: ArrayLike,
    *,
    target: ArrayLike | None = None,
    relaxed: bool = False,
    solver: str = "auto",
    on_unreachable: str = "warn",
    group_sizes: Sequence[int] | None = None,
) -> SamplingWeights:
    """Return the sampling weights ``q`` and admission probabilities ``rho`` of Algorithm 1.

    Implements Algorithm 1 of Deng et al. (§3): ``q = argmin ||qA - U||_2`` over
    the simplex (or, with ``relaxed``, over ``q >= 0``: the relaxation of §5), then
    ``rho_j = q_j / r_hat_j`` normalised by its maximum. When several ``q`` are optimal (a
    proxy with more values than groups), the one with the highest acceptance rate is
    returned, whatever the solver (a linear programme over the optimal set; the paper
    leaves the choice open). ``U`` may be any target
    distribution (footnote of §4). Lemma 2: when ``U`` lies in the hull of the rows of
    ``A``, admitting with ``rho`` (Algorithm 2) yields exactly ``U`` in expectation.

    Parameters
    ----------
    A : array-like of shape (l, K)
        Conditional distribution matrix, ``A[j, i] = Pr[z = i | z_hat = j]``.
    proxy_marginal : array-like of shape (l,)
        ``r_hat[j] = Pr[z_hat = j]``; sums to 1. Values with ``r_hat = 0`` get ``rho = 0``.
    target : array-like of shape (K,) or None, default=None
        Target group distribution; None is uniform.
    relaxed : bool, default=False
        Drop the constraint ``sum(q) = 1`` (§5, "Relaxed").
    solver : {"auto", "clarabel", "osqp", "nnls", "active-set"}, default="auto"
        ``"clarabel"``/``"osqp"`` go through cvxpy; ``"nnls"`` uses scipy;
        ``"active-set"`` is our exact primal active-set method alone; ``"auto"`` is Clarabel
        when cvxpy is installed, else NNLS. Every answer is polished by the active-set
        method warm-started at the solver's solution, so the KKT conditions hold exactly.
    on_unreachable : {"warn", "raise", "ignore"}, default="warn"
        What to do when the target is not reachable (beta > 1e-7): warn with
        :class:`UnreachableTargetWarning` naming the best beta, raise
        :class:`~fairacq.exceptions.InvalidDataError`, or stay silent (the result still
        reports ``beta`` and ``reachable``).
    group_sizes : sequence of int or None, default=None
        Intersecting group classes (App. A.2): the number of groups ``k_c`` of each class,
        in column order. Each row of ``A`` is then the concatenation of the within-class
        distributions (each block sums to 1), the default target is ``U_intersect = (1/k_1,
        ..., 1/k_G)`` and beta follows Definition 16. None is the disjoint case.

    Returns
    -------
    SamplingWeights
        ``q``, ``rho``, the expected ``beta``, the hull distance, the acceptance rate and
        whether the target was reached.

    Raises
    ------
    InvalidDataError
        On malformed ``A`` / marginal, a target not summing to 1, or an unreachable target
        with ``on_unreachable="raise"``.
    InvalidParameterError
        On an unknown ``solver`` or ``on_unreachable``.

    Examples
    --------
    >>> w = sampling_weights([[0.5, 0.5], [0.0, 1.0]], [0.5, 0.5], solver="nnls")
    >>> w.rho.round(6).tolist(), round(w.beta, 9)
    ([1.0, 0.0], 0.0)
    """
    if solver not in _SOLVERS:
        raise InvalidParameterError(
            f"sampling_weights: solver must be one of {_SOLVERS}. Got {solver!r} instead."
        )
    if on_unreachable not in ("warn", "raise", "ignore"):
        raise InvalidParameterError(
            "sampling_weights: on_unreachable must be 'warn', 'raise' or 'ignore'. "
            f"Got {on_unreachable!r} instead."
        )
    mat, r_hat, tgt, sizes = _check_inputs(A, proxy_marginal, target, group_sizes)
    used = np.flatnonzero(r_hat > 0)
    M = mat[used]
    chosen = solver
    if chosen == "auto":
        try:
            require("cvxpy")
            chosen = "clarabel"
        except ImportError:
            chosen = "nnls"
    start: NDArray[np.float64] | None
    if chosen == "active-set":
        start = None
    elif chosen == "nnls":
        start = np.clip(_solve_nnls(M, tgt, relaxed), 0.0, None)
    else:
        start = np.clip(_solve_cvxpy(M, tgt, relaxed, chosen), 0.0, None)
    # Polish (or, for "active-set", solve from a vertex) with the exact active-set method.
    q_used = _active_set(M, tgt, start, relaxed)
    q_used = _active_set(M, tgt, q_used, relaxed)
    q_used = _highest_acceptance(M, r_hat[used], tgt, q_used)
    q = np.zeros(mat.shape[0])
    q[used] = q_used
    if q.sum() <= 0:
        # relaxed with qA = 0 optimal cannot happen for a target summing to 1; keep guard
        q[used] = r_hat[used]
    rho = np.zeros(mat.shape[0])
    rho[used] = q[used] / r_hat[used]
    rho = rho / rho.max()
    if len(sizes) == 1:
        beta = imbalance_from_matrix(mat, r_hat, rho, target=tgt)
    else:
        beta = intersecting_imbalance_from_matrix(mat, r_hat, rho, sizes, target=tgt)
    result = SamplingWeights(
        q=q,
        rho=rho,
        beta=beta,
        hull_distance=float(np.linalg.norm(q @ mat - tgt)),
        acceptance_rate=float(r_hat @ rho),
        reachable=bool(beta <= _REACH_TOL),
        relaxed=relaxed,
    )
    if not result.reachable:
        _report_unreachable(on_unreachable, beta)
    return result


def _report_unreachable(mode: str, beta: float) -> None:
    message = (
        f"sampling_weights: the target distribution is not in the convex hull of A; the best "
        f"imbalance reachable is beta = {beta:.4g}. Use a proxy with more (or more distinct) "
        "values, or accept this beta."
    )
    if mode == "raise":
        raise InvalidDataError(message)
    if mode == "warn":
        warnings.warn(message, UnreachableTargetWarning, stacklevel=3)
