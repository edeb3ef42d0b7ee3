"""Exact MAP inference with cvxpy, the reference that ADMM is checked against."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fairacq._deps import require
from fairacq.exceptions import InvalidParameterError
from fairacq.relational.hlmrf._ground_model import GroundModel
from fairacq.relational.inference._map_result import MapResult

__all__ = ["exact_map"]


def exact_map(model: GroundModel, *, solver: str | None = None) -> MapResult:
    """Solve the MAP problem of a hinge-loss MRF to solver precision with cvxpy.

    Minimises ``sum_j w_j pos(a_j.y + b_j)`` over the linear hinges plus
    ``sum_j w_j pos(a_j.y + b_j)^2`` over the squared ones, subject to ``0 <= y <= 1`` and the
    model's equality and inequality rows. A convex program: any conic solver returns the
    global optimum, so this is the reference for :func:`~fairacq.relational.admm_map`.

    Parameters
    ----------
    model : GroundModel
        Potentials and hard linear constraints over the target variables.
    solver : str or None, default=None
        A cvxpy solver name; ``None`` uses Clarabel.

    Returns
    -------
    MapResult
        Values (clipped to ``[0, 1]`` against round-off), objective and constraint violation;
        ``n_iter`` is the solver's iteration count, ``converged`` whether it reported an
        optimal solution, and the residual fields are NaN (cvxpy does not expose them).

    Raises
    ------
    MissingDependencyError
        If cvxpy is not installed (``pip install 'fairacq[solvers]'``).
    InvalidParameterError
        If the problem is infeasible or the solver fails.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.relational import GroundModel, HingePotentials, LinearConstraints
    >>> variables = pd.DataFrame({"predicate": ["p"], "args": [("a",)]})
    >>> pots = HingePotentials.build([[1.0], [-1.0]], [-0.2, 0.9], [1.0, 3.0], [True, True],
    ...                              n_variables=1)
    >>> result = exact_map(GroundModel(variables, pots, LinearConstraints.empty(1)))
    >>> round(float(result.values[0]), 4)
    0.725
    """
    cp: Any = require("cvxpy", purpose="exact MAP inference")
    start = time.perf_counter()
    n = model.n_variables
    pots, cons = model.potentials, model.constraints
    y = cp.Variable(n)
    terms = []
    for squared in (False, True):
        rows = np.flatnonzero(pots.squared == squared)
        if len(rows) == 0:
            continue
        hinge = cp.pos(pots.coefficients[rows] @ y + pots.constants[rows])
        value = cp.square(hinge) if squared else hinge
        terms.append(pots.weights[rows] @ value)
    constraints = [y >= 0, y <= 1]
    for equality in (True, False):
        rows = np.flatnonzero(cons.equality == equality)
        if len(rows) == 0:
            continue
        lhs = cons.coefficients[rows] @ y + cons.constants[rows]
        constraints.append(lhs == 0 if equality else lhs <= 0)
    objective = cp.Minimize(cp.sum(cp.hstack(terms)) if terms else cp.Constant(0.0))
    problem = cp.Problem(objective, constraints)
    name = solver if solver is not None else "CLARABEL"
    try:
        problem.solve(solver=name)
    except cp.error.SolverError as exc:
        raise InvalidParameterError(
            f"exact_map: solver {name} failed ({exc}). Try another solver, e.g. solver='SCS'."
        ) from exc
    if y.value is None:
        raise InvalidParameterError(
            f"exact_map: solver {name} returned status '{problem.status}' and no solution. "
            "Check that the hard constraints can all hold at once inside [0, 1]."
        )
    values = np.clip(np.asarray(y.value, dtype=np.float64).reshape(-1), 0.0, 1.0)
    stats = problem.solver_stats
    n_iter = int(stats.num_iters) if stats is not None and stats.num_iters is not None else 0
    return MapResult(
        values=values,
        objective=model.objective(values),
        max_violation=model.max_violation(values),
        primal_residual=float("nan"),
        dual_residual=float("nan"),
        n_iter=n_iter,
        converged=problem.status == cp.OPTIMAL,
        seconds=time.perf_counter() - start,
    )
