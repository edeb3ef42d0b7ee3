"""Delta-fairness of Zhang & Ramesh (§4.2) as hard linear constraints on MAP inference.

Fair-A3SL (after Farnadi et al. 2018, "Fairness in relational domains") splits the target
atoms of a decision predicate into a protected group ``P`` (``g1`` atoms) and an unprotected
group ``U`` (``g2`` atoms). A target value ``y`` is the (soft) positive decision, ``1 - y``
the denial, so the denial rates are ``p1 = 1 - mean(y_P)`` and ``p2 = 1 - mean(y_U)``:

- risk difference ``RD = p1 - p2``, ``-delta <= RD <= delta``;
- risk ratio ``RR = p1 / p2``, ``1 - delta <= RR <= 1 + delta``;
- relative chance ``RC = (1 - p1) / (1 - p2)``, ``1 - delta <= RC <= 1 + delta``;
- non-parity (Yao & Huang 2017, for ratings) ``|mean(y_P) - mean(y_U)| <= delta``, which is
  the same pair of rows as RD, with ``g1`` and ``g2`` the numbers of ratings of each group.

Each becomes two ``<= 0`` rows. The ratios are linearised by multiplying with the
denominator, as the paper and Farnadi et al. do (``p1 <= (1 + delta) p2`` and
``p1 >= (1 - delta) p2``; exact for ``p2 > 0``). The paper writes the rows multiplied by
``g1 g2`` (e.g. ``(g2 ... g2, -g1 ... -g1) y >= -g1 g2 delta``); we keep them in units of rates
(coefficients ``1/g1`` and ``1/g2``), the same feasible set, so that a reported violation
reads as a rate gap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from fairacq._result import saveable
from fairacq._validation import did_you_mean
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.relational.hlmrf._ground_model import GroundModel, LinearConstraints

__all__ = ["FAIRNESS_MEASURES", "FairnessSpec", "fairness_constraints", "parse_fairness"]

Measure = Literal["rd", "rr", "rc", "nonparity"]

#: The measures :func:`fairness_constraints` accepts, with the long names they may be given by.
FAIRNESS_MEASURES: dict[str, str] = {
    "rd": "rd",
    "risk_difference": "rd",
    "rr": "rr",
    "risk_ratio": "rr",
    "rc": "rc",
    "relative_chance": "rc",
    "nonparity": "nonparity",
    "non_parity": "nonparity",
}

_SPEC = re.compile(r"^\s*([A-Za-z_\-]+)\s*<=\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*$")


@saveable
@dataclass(frozen=True)
class FairnessSpec:
    """One delta-fairness requirement: a measure and its tolerance ``delta``.

    Parameters
    ----------
    measure : {"rd", "rr", "rc", "nonparity"}
        Risk difference, risk ratio, relative chance or non-parity.
    delta : float
        Tolerance in ``[0, 1]``.
    """

    measure: Measure
    delta: float

    def __post_init__(self) -> None:
        if self.measure not in ("rd", "rr", "rc", "nonparity"):
            raise did_you_mean(
                "fairness measure",
                str(self.measure),
                FAIRNESS_MEASURES,
                "fairacq.relational.FAIRNESS_MEASURES",
            )
        if not (isinstance(self.delta, (int, float)) and 0.0 <= self.delta <= 1.0):
            raise InvalidParameterError(
                f"FairnessSpec: delta must be a number in [0, 1] (Zhang & Ramesh, §4.2). "
                f"Got {self.delta!r} instead."
            )

    def __str__(self) -> str:
        return f"{self.measure}<={self.delta:g}"


def parse_fairness(text: str) -> FairnessSpec:
    """Parse ``"<measure> <= <delta>"``, e.g. ``"rd<=0.1"`` or ``"risk_ratio <= 0.05"``.

    Parameters
    ----------
    text : str
        A measure name (``rd``, ``rr``, ``rc``, ``nonparity`` or a long name from
        :data:`FAIRNESS_MEASURES`; case and ``-``/``_`` do not matter), ``<=`` and a number.

    Returns
    -------
    FairnessSpec

    Raises
    ------
    InvalidParameterError
        If the text does not have the form ``measure <= delta`` or delta is outside [0, 1].
    UnknownNameError
        If the measure is unknown (the message suggests the closest name).

    Examples
    --------
    >>> parse_fairness("RD <= 0.1")
    FairnessSpec(measure='rd', delta=0.1)
    >>> str(parse_fairness("relative-chance<=0.05"))
    'rc<=0.05'
    """
    match = _SPEC.match(text)
    if match is None:
        raise InvalidParameterError(
            f"parse_fairness: cannot read {text!r}. Write '<measure> <= <delta>', "
            "e.g. 'rd<=0.1' (measures: rd, rr, rc, nonparity)."
        )
    name = match.group(1).lower().replace("-", "_")
    if name not in FAIRNESS_MEASURES:
        raise did_you_mean(
            "fairness measure", name, FAIRNESS_MEASURES, "fairacq.relational.FAIRNESS_MEASURES"
        )
    return FairnessSpec(cast(Measure, FAIRNESS_MEASURES[name]), float(match.group(2)))


def _group(values: ArrayLike, n: int, name: str) -> NDArray[np.int64]:
    idx = np.asarray(values).reshape(-1)
    if idx.size == 0:
        raise InvalidDataError(
            f"fairness_constraints: the {name} group is empty. Each group needs at least one "
            "target atom; check the group membership data."
        )
    if idx.dtype.kind not in "iu":
        raise InvalidDataError(
            f"fairness_constraints: {name} must hold integer variable indices "
            f"(see GroundModel.variable_index); got dtype {idx.dtype}."
        )
    if idx.min() < 0 or idx.max() >= n:
        raise InvalidDataError(
            f"fairness_constraints: {name} holds indices outside [0, {n}) "
            f"(found {int(idx.min())}..{int(idx.max())}). Pass positions of model variables."
        )
    if len(np.unique(idx)) != idx.size:
        raise InvalidDataError(
            f"fairness_constraints: {name} lists a variable more than once. "
            "Pass each target atom once."
        )
    return idx.astype(np.int64)


def fairness_constraints(
    model: GroundModel,
    spec: str | FairnessSpec,
    *,
    protected: ArrayLike,
    unprotected: ArrayLike,
) -> LinearConstraints:
    """Return the two linear rows that enforce one delta-fairness measure.

    With ``m_P = mean(y_P)`` and ``m_U = mean(y_U)`` the rows (each ``<= 0``) are

    - ``rd`` (``RD = p1 - p2 = m_U - m_P``): ``m_U - m_P - delta`` and ``m_P - m_U - delta``;
    - ``nonparity``: ``m_P - m_U - delta`` and ``m_U - m_P - delta``;
    - ``rr`` (on denial rates ``1 - m``): ``(1 + delta) m_U - m_P - delta`` and
      ``m_P - (1 - delta) m_U - delta``;
    - ``rc`` (on acceptance rates ``m``): ``m_P - (1 + delta) m_U`` and
      ``(1 - delta) m_U - m_P``.

    Parameters
    ----------
    model : GroundModel
        The model whose target variables the rows constrain.
    spec : str or FairnessSpec
        A measure and delta, e.g. ``"rd<=0.1"`` (see :func:`parse_fairness`).
    protected : array-like of int
        Variable indices of the protected group's target atoms.
    unprotected : array-like of int
        Variable indices of the unprotected group's target atoms (disjoint from
        ``protected``).

    Returns
    -------
    LinearConstraints
        Two inequality rows, in the order listed above: the measure's upper bound
        (``RD <= delta``, ``RR, RC <= 1 + delta``, ``E_P - E_U <= delta``; label
        ``"<measure><=<delta> (upper)"``) and its lower bound (label ``"... (lower)"``). Add
        them with :meth:`GroundModel.with_constraints`.

    Raises
    ------
    InvalidDataError
        If a group is empty, holds a bad or repeated index, or the groups overlap.
    InvalidParameterError, UnknownNameError
        If ``spec`` cannot be parsed (see :func:`parse_fairness`).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from fairacq.relational import GroundModel, HingePotentials, LinearConstraints
    >>> variables = pd.DataFrame({"predicate": ["ok"] * 3, "args": [("a",), ("b",), ("c",)]})
    >>> model = GroundModel(variables, HingePotentials.empty(3), LinearConstraints.empty(3))
    >>> rows = fairness_constraints(model, "rd<=0.1", protected=[0], unprotected=[1, 2])
    >>> rows.violation(np.array([1.0, 0.0, 0.0])).round(3).tolist()
    [0.0, 0.9]
    """
    fair = parse_fairness(spec) if isinstance(spec, str) else spec
    if not isinstance(fair, FairnessSpec):
        raise InvalidParameterError(
            f"fairness_constraints: spec must be a str such as 'rd<=0.1' or a FairnessSpec. "
            f"Got {type(spec).__name__} instead."
        )
    n = model.n_variables
    p_idx = _group(protected, n, "protected")
    u_idx = _group(unprotected, n, "unprotected")
    if np.intersect1d(p_idx, u_idx).size:
        raise InvalidDataError(
            "fairness_constraints: the protected and unprotected groups share target atoms. "
            "Each atom belongs to one group."
        )
    delta = float(fair.delta)
    # Row = alpha * m_P + beta * m_U + const, for the upper and the lower row.
    if fair.measure == "rd":  # RD = p1 - p2 = m_U - m_P
        rows = [(-1.0, 1.0, -delta), (1.0, -1.0, -delta)]
    elif fair.measure == "nonparity":  # E_P - E_U = m_P - m_U
        rows = [(1.0, -1.0, -delta), (-1.0, 1.0, -delta)]
    elif fair.measure == "rr":
        rows = [(-1.0, 1.0 + delta, -delta), (1.0, -(1.0 - delta), -delta)]
    else:  # rc
        rows = [(1.0, -(1.0 + delta), 0.0), (-1.0, 1.0 - delta, 0.0)]
    cols = np.concatenate([p_idx, u_idx])
    data, row_ids, consts = [], [], []
    for k, (alpha, beta, const) in enumerate(rows):
        data.append(np.full(len(p_idx), alpha / len(p_idx)))
        data.append(np.full(len(u_idx), beta / len(u_idx)))
        row_ids.append(np.full(len(cols), k))
        consts.append(const)
    matrix = sp.csr_array(
        (np.concatenate(data), (np.concatenate(row_ids), np.tile(cols, 2))), shape=(2, n)
    )
    label = str(fair)
    return LinearConstraints.build(
        matrix,
        consts,
        [False, False],
        [f"{label} (upper)", f"{label} (lower)"],
        n_variables=n,
    )
