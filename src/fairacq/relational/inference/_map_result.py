"""The result of MAP inference in a hinge-loss MRF: values, objective and convergence."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._result import Result
from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError
from fairacq.relational.hlmrf._ground_model import GroundModel

__all__ = ["MapResult"]


@dataclass(frozen=True, eq=False)
class MapResult(Result):
    """MAP state of a :class:`~fairacq.relational.GroundModel` and how it was reached.

    A :class:`~fairacq.Result`: ``save(path)`` writes every field and ``MapResult.load(path)``
    reads them back; the model is not part of the result, so pass it to :meth:`to_frame` for
    the atoms' names.

    Parameters
    ----------
    values : ndarray of shape (n_variables,)
        Truth value in ``[0, 1]`` of each target variable, in the model's variable order.
    objective : float
        Weighted sum of hinge values at ``values`` (:meth:`GroundModel.objective`).
    max_violation : float
        Largest constraint or box violation at ``values`` (0 when feasible).
    primal_residual : float
        ADMM primal residual ``||x - z||`` over all local copies at the last iteration (NaN
        for the exact solver, which does not report it).
    dual_residual : float
        ADMM dual residual ``rho * ||z - z_prev||`` (counted once per local copy); NaN for the
        exact solver.
    n_iter : int
        Iterations run.
    converged : bool
        Whether the stopping criterion was met before the iteration limit (ADMM), or the
        solver reported an optimal solution (exact).
    seconds : float
        Wall time of the solve.
    """

    values: NDArray[np.float64]
    objective: float
    max_violation: float
    primal_residual: float
    dual_residual: float
    n_iter: int
    converged: bool
    seconds: float

    def _caption(self) -> str:
        state = "converged" if self.converged else "not converged"
        return (
            f"objective {self.objective:.6g}, {state} after {self.n_iter} iterations, "
            f"largest violation {self.max_violation:.2g}"
        )

    def to_frame(
        self, model: GroundModel | None = None, predicate: str | None = None
    ) -> pd.DataFrame:
        """Return one row per target atom: ``predicate``, ``arg0 ... argK-1``, ``value``.

        Parameters
        ----------
        model : GroundModel or None, default=None
            The model these values were inferred for (gives the atoms). Without it the
            table has one row per variable: ``variable`` (its position in the model) and
            ``value``.
        predicate : str or None, default=None
            Keep only this predicate's atoms (then there are exactly as many argument columns
            as its arity). With ``None`` every atom is listed and atoms of lower arity are
            padded with ``None``.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        InvalidDataError
            If the model has a different number of variables than ``values``.
        InvalidParameterError
            If ``predicate`` is given without ``model``.
        UnknownNameError
            If ``predicate`` has no target atom in the model.
        """
        if model is None:
            if predicate is not None:
                raise InvalidParameterError(
                    "MapResult.to_frame: predicate needs the model to name the atoms. "
                    "Pass the model the result was inferred for."
                )
            return pd.DataFrame({"variable": np.arange(len(self.values)), "value": self.values})
        if model.n_variables != len(self.values):
            raise InvalidDataError(
                f"MapResult.to_frame: the result has {len(self.values)} values but the model "
                f"has {model.n_variables} variables. Pass the model the result was inferred for."
            )
        variables = model.variables
        values = self.values
        if predicate is not None:
            keep = variables["predicate"].to_numpy() == predicate
            if not keep.any():
                known = ", ".join(sorted(set(variables["predicate"])))
                raise UnknownNameError(
                    f"MapResult.to_frame: predicate '{predicate}' has no target atom in the "
                    f"model. Known target predicates: {known}."
                )
            variables = variables.loc[keep]
            values = values[keep]
        args = [tuple(a) for a in variables["args"]]
        arity = max((len(a) for a in args), default=0)
        padded = [a + (None,) * (arity - len(a)) for a in args]
        frame = pd.DataFrame(padded, columns=[f"arg{i}" for i in range(arity)], dtype=object)
        frame.insert(0, "predicate", variables["predicate"].to_numpy())
        frame["value"] = np.asarray(values, dtype=np.float64)
        return frame
