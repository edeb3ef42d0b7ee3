"""scipy's L-BFGS-B solver driven as ``scipy.optimize.minimize`` drives it, minus its wrappers.

A what-if refit of a few hundred rows spends more time in ``minimize``'s input checks and
function wrapper than in the solver: :func:`lbfgs_direct` calls the same solver routine
with the same values in the same order, so it returns the same iterates, bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["lbfgs_direct"]


def lbfgs_direct(
    fun: Any, n: int, *, maxiter: int, maxls: int, gtol: float, ftol: float
) -> tuple[NDArray[np.float64], int, int] | None:
    """Minimise ``fun`` from zeros with scipy's L-BFGS-B, without ``minimize``'s wrappers.

    The loop of ``scipy.optimize.minimize(fun, zeros, method="L-BFGS-B", jac=True)``
    (no bounds, 10 corrections): the same calls to the same solver routine, given the same
    values, so the same iterates; ``minimize`` adds input checks and a function wrapper
    that cost more than the solver on a small problem. None when scipy's private routine
    is missing or takes other arguments (the caller then uses ``minimize``).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)``; ``x`` must not be changed.
    n : int
        Number of variables.
    maxiter, maxls, gtol, ftol
        ``minimize``'s L-BFGS-B options of the same names.

    Returns
    -------
    tuple of (ndarray, int, int) or None
        The solution, the iterations run and ``minimize``'s ``status`` (0: converged).

    Examples
    --------
    >>> f = lambda x: (float(((x - 3) ** 2).sum()), 2 * (x - 3))
    >>> x, nit, status = lbfgs_direct(f, 2, maxiter=50, maxls=20, gtol=1e-8, ftol=1e-12)
    >>> x.round(6).tolist(), status
    ([3.0, 3.0], 0)
    """
    try:
        from scipy.optimize import _lbfgsb
    except ImportError:  # pragma: no cover - another scipy layout
        return None
    setulb: Any = _lbfgsb.setulb  # its stub describes an older signature
    m, maxfun = 10, 15000  # minimize's defaults (maxcor, maxfun)
    work = _lbfgs_workspace(n, m)
    x, f, g = np.zeros(n, dtype=np.float64), np.array(0.0, dtype=np.float64), np.zeros(n)
    task, nit, calls = work[5], 0, 0
    factr = ftol / np.finfo(float).eps
    while True:
        g = g.astype(np.float64)
        try:
            setulb(m, x, *work[:3], f, g, factr, gtol, *work[3:9], maxls, work[9])
        except (TypeError, ValueError):  # pragma: no cover - another scipy signature
            return None
        if task[0] == 3:  # the solver asks for the value and gradient at x
            f, g = fun(x)
            calls += 1
        elif task[0] == 1:  # a new iteration
            nit += 1
            if nit >= maxiter:
                task[0], task[1] = 5, 504
            elif calls > maxfun:  # minimize's count (calls at a new x) might bind: let it run
                return None
        else:
            break
    return x, nit, 0 if task[0] == 4 else (1 if nit >= maxiter else 2)


def _lbfgs_workspace(n: int, m: int) -> list[NDArray[Any]]:
    """Return the arrays scipy's ``_minimize_lbfgsb`` hands to ``setulb`` (no bounds), in order.

    Bounds (lower, upper, kind), then ``wa, iwa, task, lsave, isave, dsave``, then
    ``ln_task``.
    """
    return [
        np.zeros(n, np.float64),
        np.zeros(n, np.float64),
        np.zeros(n, np.int32),
        np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m, np.float64),
        np.zeros(3 * n, dtype=np.int32),
        np.zeros(2, dtype=np.int32),
        np.zeros(4, dtype=np.int32),
        np.zeros(44, dtype=np.int32),
        np.zeros(29, dtype=np.float64),
        np.zeros(2, dtype=np.int32),
    ]
