"""The grounded hinge-loss MRF: sparse hinge potentials and linear constraints over targets.

Every part of the relational family meets here. Grounding turns rules and data into a
:class:`GroundModel`; MAP inference (ADMM, or the exact cvxpy reference) minimises its
:meth:`GroundModel.objective`; weight learning reads :meth:`GroundModel.rule_incompatibility`;
fairness constraints are extra :class:`LinearConstraints` rows over the same variables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from fairacq.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["GroundModel", "HingePotentials", "LinearConstraints", "SparseMatrix"]

#: A 2-D CSR array of floats (scipy-stubs cannot express the dtype through ``csr_array(...)``).
SparseMatrix: TypeAlias = "sp.csr_array[Any, tuple[int, int]]"


def _as_csr(matrix: Any, n_cols: int, what: str) -> SparseMatrix:
    out: SparseMatrix = sp.csr_array(matrix, dtype=np.float64)
    if out.ndim != 2 or out.shape[1] != n_cols:
        raise InvalidDataError(
            f"{what}: coefficient matrix has shape {out.shape}, expected (rows, {n_cols}) "
            "with one column per target variable."
        )
    if not np.all(np.isfinite(out.data)):
        raise InvalidDataError(f"{what}: coefficients contain NaN or infinity.")
    return out


def _as_vector(values: ArrayLike, length: int, what: str, dtype: type = np.float64) -> Any:
    arr: NDArray[Any] = np.asarray(values, dtype=dtype).reshape(-1)
    if arr.shape[0] != length:
        raise InvalidDataError(f"{what}: has length {arr.shape[0]}, expected {length}.")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise InvalidDataError(f"{what}: contains NaN or infinity.")
    return arr


@dataclass(frozen=True, eq=False)
class HingePotentials:
    """Weighted hinge potentials ``w_j * max(a_j @ y + b_j, 0) ** p_j``.

    Parameters
    ----------
    coefficients : scipy sparse array of shape (m, n)
        Row ``j`` holds ``a_j``, the linear part of the distance to satisfaction over the
        ``n`` target variables.
    constants : ndarray of shape (m,)
        ``b_j``; observed atoms are folded in here.
    weights : ndarray of shape (m,)
        Non-negative weight of each potential (the weight of the rule it came from).
    squared : ndarray of bool, shape (m,)
        ``True`` for a squared hinge (``p = 2``), ``False`` for a linear one (``p = 1``).
    rule_index : ndarray of int, shape (m,)
        Which rule each potential was grounded from (``0..n_rules-1``), for weight learning.
    """

    coefficients: SparseMatrix
    constants: NDArray[np.float64]
    weights: NDArray[np.float64]
    squared: NDArray[np.bool_]
    rule_index: NDArray[np.int64]

    @classmethod
    def build(
        cls,
        coefficients: sp.sparray | sp.spmatrix | ArrayLike,
        constants: ArrayLike,
        weights: ArrayLike,
        squared: ArrayLike,
        rule_index: ArrayLike | None = None,
        *,
        n_variables: int,
    ) -> HingePotentials:
        """Validate and build; ``rule_index`` defaults to one rule per potential."""
        a = _as_csr(coefficients, n_variables, "hinge potentials")
        m = a.shape[0]
        w = _as_vector(weights, m, "hinge potential weights")
        if np.any(w < 0):
            raise InvalidDataError("hinge potential weights: must be non-negative.")
        idx = np.arange(m) if rule_index is None else rule_index
        return cls(
            coefficients=a,
            constants=_as_vector(constants, m, "hinge potential constants"),
            weights=w,
            squared=_as_vector(squared, m, "hinge potential squared flags", np.bool_),
            rule_index=_as_vector(idx, m, "hinge potential rule index", np.int64),
        )

    @classmethod
    def empty(cls, n_variables: int) -> HingePotentials:
        """No potentials over ``n_variables`` targets."""
        return cls.build(sp.csr_array((0, n_variables)), [], [], [], [], n_variables=n_variables)

    @property
    def n_potentials(self) -> int:
        """Number of ground potentials ``m``."""
        return int(self.coefficients.shape[0])

    def distances(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Hinge values ``max(a_j . y + b_j, 0) ** p_j`` (before weighting)."""
        d = np.maximum(self.coefficients @ y + self.constants, 0.0)
        return np.where(self.squared, d * d, d)


@dataclass(frozen=True, eq=False)
class LinearConstraints:
    """Hard linear constraints ``c_k @ y + d_k == 0`` (equality) or ``<= 0``.

    Parameters
    ----------
    coefficients : scipy sparse array of shape (k, n)
    constants : ndarray of shape (k,)
    equality : ndarray of bool, shape (k,)
        ``True`` for ``== 0``, ``False`` for ``<= 0``.
    labels : tuple of str
        One label per row (the rule or fairness constraint it came from), for reports.
    """

    coefficients: SparseMatrix
    constants: NDArray[np.float64]
    equality: NDArray[np.bool_]
    labels: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        coefficients: sp.sparray | sp.spmatrix | ArrayLike,
        constants: ArrayLike,
        equality: ArrayLike,
        labels: Sequence[str] | None = None,
        *,
        n_variables: int,
    ) -> LinearConstraints:
        """Validate and build; labels default to ``"constraint"``."""
        c = _as_csr(coefficients, n_variables, "linear constraints")
        k = c.shape[0]
        names = tuple(labels) if labels is not None else ("constraint",) * k
        if len(names) != k:
            raise InvalidDataError(f"linear constraints: {len(names)} labels for {k} rows.")
        return cls(
            coefficients=c,
            constants=_as_vector(constants, k, "linear constraint constants"),
            equality=_as_vector(equality, k, "linear constraint equality flags", np.bool_),
            labels=names,
        )

    @classmethod
    def empty(cls, n_variables: int) -> LinearConstraints:
        """No constraints over ``n_variables`` targets."""
        return cls.build(sp.csr_array((0, n_variables)), [], [], [], n_variables=n_variables)

    @property
    def n_constraints(self) -> int:
        """Number of constraint rows ``k``."""
        return int(self.coefficients.shape[0])

    def violation(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """Per-row violation: ``|c.y + d|`` for equalities, ``max(c.y + d, 0)`` otherwise."""
        r = self.coefficients @ y + self.constants
        return np.where(self.equality, np.abs(r), np.maximum(r, 0.0))

    def __add__(self, other: LinearConstraints) -> LinearConstraints:
        """Stack two constraint sets over the same variables."""
        if other.coefficients.shape[1] != self.coefficients.shape[1]:
            raise InvalidDataError("linear constraints: cannot stack different variable sets.")
        return LinearConstraints(
            coefficients=sp.csr_array(sp.vstack([self.coefficients, other.coefficients])),
            constants=np.concatenate([self.constants, other.constants]),
            equality=np.concatenate([self.equality, other.equality]),
            labels=self.labels + other.labels,
        )


@dataclass(frozen=True, eq=False)
class GroundModel:
    """A grounded HL-MRF: minimise ``sum_j w_j h_j(y)`` over ``y in [0, 1]^n`` s.t. constraints.

    Parameters
    ----------
    variables : pandas.DataFrame
        One row per target variable, columns ``predicate`` (str) and ``args`` (tuple of str),
        in the order of the coefficient columns.
    potentials : HingePotentials
    constraints : LinearConstraints
        Hard rules, arithmetic rules and fairness constraints.
    rule_weights : ndarray of shape (n_rules,)
        Current weight of each soft rule; ``potentials.weights == rule_weights[rule_index]``.
    rule_names : tuple of str
        Text of each soft rule (for reports and weight learning).
    """

    variables: pd.DataFrame
    potentials: HingePotentials
    constraints: LinearConstraints
    rule_weights: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    rule_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.variables)
        if self.potentials.coefficients.shape[1] != n:
            raise InvalidDataError(
                f"ground model: potentials cover {self.potentials.coefficients.shape[1]} "
                f"variables, but {n} variables are listed."
            )
        if self.constraints.coefficients.shape[1] != n:
            raise InvalidDataError(
                f"ground model: constraints cover {self.constraints.coefficients.shape[1]} "
                f"variables, but {n} variables are listed."
            )
        if len(self.rule_weights) != len(self.rule_names):
            raise InvalidDataError("ground model: one weight per rule name is required.")
        if self.potentials.n_potentials and len(self.rule_weights):
            top = int(self.potentials.rule_index.max())
            if top >= len(self.rule_weights):
                raise InvalidDataError(
                    f"ground model: a potential refers to rule {top}, "
                    f"but only {len(self.rule_weights)} rules are known."
                )

    @property
    def n_variables(self) -> int:
        """Number of target variables ``n``."""
        return len(self.variables)

    @property
    def n_rules(self) -> int:
        """Number of soft rules."""
        return len(self.rule_weights)

    def objective(self, y: ArrayLike) -> float:
        """Weighted sum of hinge values at ``y`` (constraints are not included)."""
        vec = _as_vector(y, self.n_variables, "ground model values")
        return float(self.potentials.weights @ self.potentials.distances(vec))

    def max_violation(self, y: ArrayLike) -> float:
        """Largest constraint or box violation at ``y`` (0 when feasible)."""
        vec = _as_vector(y, self.n_variables, "ground model values")
        box = float(np.max(np.maximum(-vec, vec - 1.0), initial=0.0))
        rows = self.constraints.violation(vec)
        return max(box, float(rows.max(initial=0.0)))

    def rule_incompatibility(self, y: ArrayLike) -> NDArray[np.float64]:
        """Sum of unweighted hinge values of each rule at ``y``, shape ``(n_rules,)``."""
        vec = _as_vector(y, self.n_variables, "ground model values")
        out: NDArray[np.float64] = np.bincount(
            self.potentials.rule_index,
            weights=self.potentials.distances(vec),
            minlength=self.n_rules,
        ).astype(np.float64)
        return out

    def with_rule_weights(self, weights: ArrayLike) -> GroundModel:
        """Return the same model with new soft-rule weights (potential weights follow)."""
        w = _as_vector(weights, self.n_rules, "rule weights")
        if np.any(w < 0):
            raise InvalidParameterError("rule weights: must be non-negative.")
        pots = HingePotentials(
            coefficients=self.potentials.coefficients,
            constants=self.potentials.constants,
            weights=w[self.potentials.rule_index] if self.potentials.n_potentials else np.zeros(0),
            squared=self.potentials.squared,
            rule_index=self.potentials.rule_index,
        )
        return GroundModel(self.variables, pots, self.constraints, w, self.rule_names)

    def with_constraints(self, extra: LinearConstraints) -> GroundModel:
        """Return the same model with ``extra`` constraint rows appended."""
        return GroundModel(
            self.variables,
            self.potentials,
            self.constraints + extra,
            self.rule_weights,
            self.rule_names,
        )

    def variable_index(self, predicate: str) -> NDArray[np.int64]:
        """Positions of the variables of ``predicate``."""
        return np.flatnonzero(self.variables["predicate"].to_numpy() == predicate).astype(np.int64)
