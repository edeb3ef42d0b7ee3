"""One entry point for MAP inference: consensus ADMM, or the exact separable solver."""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from fairacq._validation import did_you_mean
from fairacq.exceptions import InvalidParameterError
from fairacq.relational.hlmrf._ground_model import GroundModel
from fairacq.relational.inference._admm import admm_map
from fairacq.relational.inference._map_result import MapResult
from fairacq.relational.inference._separable import separable_map

__all__ = ["MAP_SOLVERS", "map_inference"]

#: ``"admm"`` (PSL's solver), ``"separable"`` (exact, one variable per potential) and
#: ``"auto"`` (separable when it applies, ADMM otherwise).
MAP_SOLVERS = ("admm", "auto", "separable")


def map_inference(
    model: GroundModel,
    *,
    solver: str = "admm",
    init: ArrayLike | None = None,
    **admm_options: Any,
) -> MapResult:
    """Find the MAP state of ``model`` with the chosen solver.

    Parameters
    ----------
    model : GroundModel
        Potentials and hard linear constraints over the target variables.
    solver : {"admm", "auto", "separable"}, default="admm"
        ``"admm"``: :func:`~fairacq.relational.admm_map`, as PSL does. ``"separable"``: the
        exact solver of :mod:`fairacq.relational.inference._separable` for models whose
        potentials each touch one variable and whose constraint rows share one direction (an
        error otherwise). ``"auto"``: the separable solver when it applies, ADMM otherwise.
    init : array-like of shape (n_variables,) or None, default=None
        Starting values for either solver.
    **admm_options
        ``rho``, ``max_iter``, ``eps_abs``, ``eps_rel`` of ADMM (ignored by the exact solver,
        which solves to machine precision).

    Returns
    -------
    MapResult

    Raises
    ------
    UnknownNameError
        If ``solver`` is not one of :data:`MAP_SOLVERS`.
    InvalidParameterError
        If ``solver="separable"`` and the model is not separable.
    """
    if solver not in MAP_SOLVERS:
        raise did_you_mean("MAP solver", str(solver), list(MAP_SOLVERS), "map_inference")
    if solver != "admm":
        result = separable_map(model, init=init)
        if result is not None:
            return result
        if solver == "separable":
            raise InvalidParameterError(
                "map_inference: solver='separable' needs every potential to touch one target "
                "variable and every constraint row to be a multiple of one vector; this model "
                "is not. Use solver='auto' (falls back to ADMM) or 'admm'."
            )
    return admm_map(model, init=init, **admm_options)
