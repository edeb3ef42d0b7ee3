"""Slice Tuner's allocation: the convex program over learning curves and its T limit.

Tae & Whang, SIGMOD 2021, §4 (the optimisation problem) and §5 (iterative updates with a
limit ``T`` on the change of the imbalance ratio).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from fairacq._deps import require

__all__ = [
    "allocate_slices",
    "imbalance_ratio",
    "limit_imbalance",
    "round_allocation",
    "slice_objective",
]


def _reference(a: NDArray[np.float64], b: NDArray[np.float64], n: NDArray[np.float64]) -> float:
    """Return the average estimated loss at the current sizes (the unfairness yardstick)."""
    return float(np.mean(b * np.power(n, -a)))


def slice_objective(
    x: NDArray[np.float64],
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    n: NDArray[np.float64],
    lam: float,
) -> float:
    """Return Slice Tuner's objective for acquiring ``x`` more examples per slice (§4).

    ``sum_i L_i + lam * sum_i max(0, L_i / A - 1)`` with ``L_i = b_i (n_i + x_i) ** -a_i``
    the loss the learning curve predicts, and ``A`` the average predicted loss at the current
    sizes ``n`` (a constant, which keeps the program convex; the authors' code for Adult).
    """
    loss = b * np.power(n + np.asarray(x, dtype=np.float64), -a)
    reference = _reference(a, b, n)
    unfair = np.maximum(0.0, loss / reference - 1.0) if reference > 0 else np.zeros_like(loss)
    return float(np.sum(loss) + lam * np.sum(unfair))


def allocate_slices(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    n: NDArray[np.float64],
    total: float,
    lam: float,
) -> NDArray[np.float64]:
    """Return the examples to acquire per slice minimising :func:`slice_objective` (§4).

    Solves the convex program over ``x >= 0`` with ``sum(x) == total`` (the whole remaining
    budget, one unit per example) with cvxpy (Clarabel; SCS if Clarabel fails). The result is
    continuous; :func:`round_allocation` makes counts of it.

    Parameters
    ----------
    a, b : ndarray of shape (n_slices,)
        Learning curves ``b * n ** -a`` with ``a, b >= 0``.
    n : ndarray of shape (n_slices,)
        Current slice sizes (positive).
    total : float
        Examples to acquire.
    lam : float
        Weight of unfairness against loss (``lambda``).

    Returns
    -------
    ndarray of shape (n_slices,)
    """
    a, b, n = (np.asarray(v, dtype=np.float64) for v in (a, b, n))
    if total <= 0:
        return np.zeros_like(n)
    cp = require("cvxpy", purpose="Slice Tuner's allocation (a convex program)")
    x = cp.Variable(len(n), nonneg=True)
    losses = cp.hstack(
        [
            b[i] * cp.power(n[i] + x[i], -a[i], approx=False) if a[i] > 0 else b[i] + 0 * x[i]
            for i in range(len(n))
        ]
    )
    reference = _reference(a, b, n)
    objective = cp.sum(losses)
    if reference > 0 and lam > 0:
        objective = objective + lam * cp.sum(cp.pos(losses / reference - 1))
    problem = cp.Problem(cp.Minimize(objective), [cp.sum(x) == total])
    for solver in ("CLARABEL", "SCS"):
        try:
            problem.solve(solver=solver)
        except cp.SolverError:
            continue
        if x.value is not None:
            return _feasible(np.asarray(x.value, dtype=np.float64), total)
    return np.full(len(n), total / len(n))  # no solver answered: an even split


def _feasible(x: NDArray[np.float64], total: float) -> NDArray[np.float64]:
    """Clip a solver's tiny negative entries and rescale to the total."""
    x = np.clip(x, 0.0, None)
    return x * (total / x.sum()) if x.sum() > 0 else np.full(len(x), total / len(x))


def round_allocation(x: NDArray[np.float64], total: int) -> NDArray[np.int64]:
    """Round a continuous allocation to whole counts summing to ``total`` (largest remainder).

    Examples
    --------
    >>> round_allocation(np.array([1.6, 1.6, 0.8]), 4).tolist()
    [2, 1, 1]
    """
    x = np.clip(np.asarray(x, dtype=np.float64), 0.0, None)
    scaled = x * (total / x.sum()) if x.sum() > 0 else np.full(len(x), total / len(x))
    counts = np.floor(scaled).astype(np.int64)
    order = np.argsort(-(scaled - counts), kind="stable")
    counts[order[: total - int(counts.sum())]] += 1
    out: NDArray[np.int64] = counts
    return out


def imbalance_ratio(n: NDArray[np.float64]) -> float:
    """Return ``max(n) / min(n)``, the imbalance ratio of slice sizes (§5)."""
    return float(np.max(n) / np.min(n))


def limit_imbalance(
    n: NDArray[np.float64], x: NDArray[np.float64], limit: float
) -> tuple[NDArray[np.float64], bool]:
    """Scale ``x`` down so the imbalance ratio moves by at most ``limit`` (§5, the limit T).

    If acquiring ``x`` changes ``imbalance_ratio(n + x)`` by more than ``limit``, the largest
    share ``r`` of ``x`` (found by bisection; the authors solve the same equation with
    ``fsolve``) whose change stays within ``limit`` is taken instead.

    Returns
    -------
    x : ndarray
        ``x`` itself, or ``r * x``.
    limited : bool
        Whether ``x`` was scaled down.

    Examples
    --------
    >>> x, limited = limit_imbalance(np.array([10.0, 10.0]), np.array([20.0, 0.0]), 1.0)
    >>> x.round(6).tolist(), limited
    ([10.0, 0.0], True)
    """
    n, x = np.asarray(n, dtype=np.float64), np.asarray(x, dtype=np.float64)
    start = imbalance_ratio(n)
    if abs(imbalance_ratio(n + x) - start) <= limit:
        return x, False
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        if abs(imbalance_ratio(n + mid * x) - start) <= limit:
            low = mid
        else:
            high = mid
    return low * x, True
