"""Exact MAP inference for hinge-loss MRFs whose potentials each touch one variable.

Rules whose bodies hold only observed atoms (COMPAS' ``priors(U, I) -> recidivist(U)``, every
rule Fair-A3SL builds there) ground into potentials ``w max(a y_i + b, 0)^p`` over a single
target ``y_i``. The MAP problem then splits into one convex one-dimensional problem per
variable, coupled only by the fairness constraints. This module solves that case exactly and
much faster than consensus ADMM:

- each variable's objective is convex and piecewise quadratic, so its right derivative
  ``g_i(y) = sum_j w_j a_j (2 max(t_j, 0) | 1[t_j > 0]) + l_i`` (``t_j = a_j y + b_j``) is
  non-decreasing; the minimiser over ``[0, 1]`` is where ``g_i`` changes sign, found for all
  variables at once by Newton steps on the current quadratic piece, safeguarded by bisection
  of a bracket (a handful of vectorised passes when the hinges are squared);
- constraint rows that are all multiples of one vector ``c`` (a risk-difference bound
  ``|c.y| <= delta`` or exact parity ``c.y = 0``) bound ``s = c.y`` to an interval
  ``[L, U]``. If the unconstrained optimum violates it, the optimum is the minimiser of the
  Lagrangian ``f(y) + lambda c.y`` for the ``lambda`` at which ``s`` meets the bound; ``s`` is
  non-increasing in ``lambda``, so ``lambda`` is found by regula falsi (Illinois) on a bracket.
  Where ``s`` jumps across the bound (linear hinges, flat pieces), the two bracket ends are
  both Lagrangian minimisers in the limit and the convex combination that meets the bound
  exactly is returned.

Anything else (a potential over two variables, constraint rows in different directions, an
empty feasible interval) is not separable: :func:`separable_map` returns ``None`` and callers
fall back to ADMM.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import InvalidDataError
from fairacq.relational.hlmrf._ground_model import GroundModel
from fairacq.relational.inference._map_result import MapResult

__all__ = ["separable_map"]

_WIDTH_TOL = 1e-13  # bracket width at which a variable counts as solved
_MAX_PASSES = 200  # per inner solve; bisection alone needs about 45
_MAX_OUTER = 200  # regula falsi steps on lambda
_MAX_ROWS = 64  # more constraint rows than this are hard rules, not one fairness bound


@dataclass(frozen=True)
class _Unary:
    """Live potentials of a separable model: ``w max(a y[var] + b, 0)^(2 if sq else 1)``."""

    var: NDArray[np.int64]
    a: NDArray[np.float64]
    b: NDArray[np.float64]
    w: NDArray[np.float64]
    sq: NDArray[np.bool_]
    touched: NDArray[np.bool_]  # variables with at least one live potential
    scale: NDArray[np.float64]  # sum_j |w_j a_j| per variable (tolerance scale)


def _unary_terms(model: GroundModel) -> _Unary | None:
    pots = model.potentials
    a = sp.csr_array(pots.coefficients, copy=True)
    a.eliminate_zeros()
    counts = np.diff(a.indptr)
    live = (counts > 0) & (pots.weights > 0)
    if np.any(counts[live] > 1):
        return None
    rows = np.flatnonzero(live)
    start = a.indptr[rows]
    var = a.indices[start].astype(np.int64)
    coef = a.data[start].astype(np.float64)
    w = pots.weights[rows].astype(np.float64)
    n = model.n_variables
    return _Unary(
        var=var,
        a=coef,
        b=pots.constants[rows].astype(np.float64),
        w=w,
        sq=pots.squared[rows].astype(bool),
        touched=np.bincount(var, minlength=n) > 0,
        scale=np.bincount(var, weights=np.abs(w * coef), minlength=n).astype(np.float64),
    )


def _derivative(
    terms: _Unary, y: NDArray[np.float64], linear: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Right derivative of each variable's objective at ``y`` and its slope there."""
    n = len(y)
    t = terms.a * y[terms.var] + terms.b
    pos = t > 0
    wa = terms.w * terms.a
    contrib = np.where(terms.sq, 2.0 * wa * np.maximum(t, 0.0), wa * pos)
    grad = np.bincount(terms.var, weights=contrib, minlength=n) + linear
    curv = np.where(terms.sq & pos, 2.0 * wa * terms.a, 0.0)
    slope = np.bincount(terms.var, weights=curv, minlength=n).astype(np.float64)
    return grad.astype(np.float64), slope


def _solve_unary(
    terms: _Unary, linear: NDArray[np.float64], init: NDArray[np.float64]
) -> tuple[NDArray[np.float64], int]:
    """Minimise ``sum_j w_j h_j(y) + linear . y`` over ``[0, 1]^n``; return ``y`` and passes."""
    n = len(init)
    free = ~terms.touched
    y = np.clip(init, 0.0, 1.0).copy()
    # Variables in no potential: a linear objective, minimised at a bound (or left as given).
    y[free & (linear < 0)] = 1.0
    y[free & (linear > 0)] = 0.0
    todo = terms.touched.copy()
    lo, hi = np.zeros(n), np.ones(n)
    tol = 1e-12 * (1.0 + terms.scale + np.abs(linear))
    passes = 0
    # Settle the variables whose minimiser is a bound with two passes.
    g0, _ = _derivative(terms, np.zeros(n), linear)
    g1, _ = _derivative(terms, np.ones(n), linear)
    at_zero = todo & (g0 >= 0)
    at_one = todo & ~at_zero & (g1 < 0)
    y[at_zero], y[at_one] = 0.0, 1.0
    todo &= ~(at_zero | at_one)
    passes += 2
    y[todo] = np.clip(y[todo], 0.0, 1.0)
    while np.any(todo) and passes < _MAX_PASSES:
        grad, slope = _derivative(terms, y, linear)
        passes += 1
        done = todo & (np.abs(grad) <= tol)
        neg = grad < 0
        lo = np.where(todo & neg, y, lo)
        hi = np.where(todo & ~neg, y, hi)
        done |= todo & (hi - lo <= _WIDTH_TOL)
        todo &= ~done
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = y - grad / slope
        inside = (slope > 0) & (newton > lo) & (newton < hi)
        step = np.where(inside, newton, 0.5 * (lo + hi))
        y = np.where(todo, step, y)
    return y, passes


@dataclass(frozen=True)
class _Direction:
    """Constraint rows ``alpha_k c.y + d_k (== | <=) 0`` as an interval ``L <= c.y <= U``."""

    c: NDArray[np.float64]
    lower: float
    upper: float


def _parallel_rows(model: GroundModel) -> _Direction | bool | None:
    """Find the rows' common direction and interval (``True``: no rows; ``None``: none)."""
    cons = model.constraints
    mat = sp.csr_array(cons.coefficients, copy=True)
    mat.eliminate_zeros()
    live = np.diff(mat.indptr) > 0
    lower, upper = -np.inf, np.inf
    consts = cons.constants
    for empty in np.flatnonzero(~live):  # constant rows: feasible or not, nothing to optimise
        bad = abs(consts[empty]) > 1e-12 if cons.equality[empty] else consts[empty] > 1e-12
        if bad:
            return None
    rows = np.flatnonzero(live)
    if len(rows) == 0:
        return True
    if len(rows) > _MAX_ROWS:
        return None
    dense = mat[rows].toarray()
    c = dense[0] / np.linalg.norm(dense[0])
    alpha = dense @ c
    if not np.allclose(dense, np.outer(alpha, c), rtol=0.0, atol=1e-12 * np.abs(dense).max()):
        return None
    for k, row in enumerate(rows):
        bound = -consts[row] / alpha[k]
        if cons.equality[row]:
            lower, upper = max(lower, bound), min(upper, bound)
        elif alpha[k] > 0:
            upper = min(upper, bound)
        else:
            lower = max(lower, bound)
    reach_lo, reach_hi = float(c[c < 0].sum()), float(c[c > 0].sum())
    slack = 1e-12 * (1.0 + max(abs(reach_lo), abs(reach_hi)))
    if lower > upper + slack or upper < reach_lo - slack or lower > reach_hi + slack:
        return None  # infeasible: let ADMM report the violation
    return _Direction(c=c, lower=float(lower), upper=float(upper))


def _constrained(
    terms: _Unary, direction: _Direction, y0: NDArray[np.float64]
) -> tuple[NDArray[np.float64], int]:
    """Minimise under ``L <= c.y <= U`` given the unconstrained optimum ``y0``."""
    c = direction.c
    s0 = float(c @ y0)
    tol = 1e-10 * (1.0 + abs(direction.lower if s0 < direction.lower else direction.upper))
    if direction.lower - tol <= s0 <= direction.upper + tol:
        return y0, 0
    sign = 1.0 if s0 > direction.upper else -1.0
    target = direction.upper if sign > 0 else direction.lower

    def phi(mu: float, start: NDArray[np.float64]) -> tuple[float, NDArray[np.float64], int]:
        y, passes = _solve_unary(terms, sign * mu * c, start)
        return sign * (float(c @ y) - target), y, passes

    total = 0
    mu_a, f_a, y_a = 0.0, sign * (s0 - target), y0
    mu_b = 1.0
    f_b, y_b, passes = phi(mu_b, y0)
    total += passes
    while f_b > tol:  # grow the bracket; feasibility was checked, so this ends
        mu_a, f_a, y_a = mu_b, f_b, y_b
        mu_b *= 4.0
        f_b, y_b, passes = phi(mu_b, y_b)
        total += passes
        if mu_b > 1e300:
            break
    # Illinois regula falsi on the bracket: the end kept twice in a row has its value
    # halved (persistently, in g_a / g_b), so a kink or jump of phi at the root cannot make
    # the steps one-sided; f_a / f_b keep the true values for the final combination.
    g_a, g_b, side = f_a, f_b, 0
    for _ in range(_MAX_OUTER):
        if abs(f_b) <= tol or mu_b - mu_a <= 1e-14 * mu_b:
            break
        mu = mu_b - g_b * (mu_b - mu_a) / (g_b - g_a)
        if not mu_a < mu < mu_b:
            mu = 0.5 * (mu_a + mu_b)
        f, y, passes = phi(mu, y_b)
        total += passes
        if f > tol:
            mu_a, f_a, y_a, g_a = mu, f, y, f
            g_b = g_b / 2.0 if side == 1 else g_b
            side = 1
        else:
            mu_b, f_b, y_b, g_b = mu, f, y, f
            g_a = g_a / 2.0 if side == -1 else g_a
            side = -1
    if abs(f_b) <= tol:
        return y_b, total
    theta = f_b / (f_b - f_a)  # convex combination that meets the bound exactly
    return theta * y_a + (1.0 - theta) * y_b, total


def separable_map(model: GroundModel, *, init: ArrayLike | None = None) -> MapResult | None:
    """Solve MAP exactly when every potential touches one variable, else return ``None``.

    Parameters
    ----------
    model : GroundModel
        Potentials and hard linear constraints over the target variables.
    init : array-like of shape (n_variables,) or None, default=None
        Starting values (warm start; zeros when ``None``). Variables in no potential and no
        constraint keep them, as in :func:`~fairacq.relational.admm_map`.

    Returns
    -------
    MapResult or None
        The optimum (``n_iter`` counts vectorised passes over the potentials, residuals are
        NaN), or ``None`` when a potential touches several variables, constraint rows point
        in different directions, or the constraints cannot be met.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairacq.relational import GroundModel, HingePotentials, LinearConstraints
    >>> variables = pd.DataFrame({"predicate": ["p"], "args": [("a",)]})
    >>> pots = HingePotentials.build([[1.0], [-1.0]], [-0.2, 0.9], [1.0, 3.0], [True, True],
    ...                              n_variables=1)
    >>> result = separable_map(GroundModel(variables, pots, LinearConstraints.empty(1)))
    >>> round(float(result.values[0]), 6)  # minimises (y - 0.2)^2 + 3 (0.9 - y)^2
    0.725
    """
    start = time.perf_counter()
    n = model.n_variables
    y_init = np.zeros(n) if init is None else np.asarray(init, dtype=np.float64).reshape(-1)
    if y_init.shape[0] != n or not np.all(np.isfinite(y_init)):
        raise InvalidDataError(
            f"separable_map: 'init' must hold {n} finite values (one per target variable)."
        )
    terms = _unary_terms(model)
    if terms is None:
        return None
    direction = _parallel_rows(model)
    if direction is None:
        return None
    values, passes = _solve_unary(terms, np.zeros(n), y_init)
    if isinstance(direction, _Direction):
        values, more = _constrained(terms, direction, values)
        passes += more
    values = np.clip(values, 0.0, 1.0)
    return MapResult(
        values=values,
        objective=model.objective(values),
        max_violation=model.max_violation(values),
        primal_residual=float("nan"),
        dual_residual=float("nan"),
        n_iter=int(passes),
        converged=True,
        seconds=time.perf_counter() - start,
    )
