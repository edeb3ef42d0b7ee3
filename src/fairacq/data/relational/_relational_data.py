"""Relational data sets: observed atoms, target atoms, their truth and the two fairness groups.

Every relational loader (paper review, COMPAS, MovieLens) and the paper-review generator
return a :class:`RelationalData`. Each predicate is a table: the argument columns in order
(strings), then ``value``, the truth value in ``[0, 1]`` (target tables may omit it); the
relational family grounds rules on it through its closed-world store
(``fairacq.relational.Database.from_data``). ``protected`` and ``unprotected`` list the target
atoms of the *fairness predicate* (named in ``metadata["fairness_predicate"]``) that belong to
each group; :meth:`group_variables` turns them into variable indices of a grounded model for
the fairness constraints of Zhang & Ramesh §4.2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq.exceptions import InvalidDataError, UnknownNameError

__all__ = ["RelationalData"]


class _Grounded(Protocol):
    """A model grounded from relational data (``fairacq.relational.GroundModel``)."""

    @property
    def variables(self) -> pd.DataFrame:
        """One row per target atom: ``predicate`` and ``args`` (a tuple of str)."""
        ...


def _check_table(where: str, name: str, frame: pd.DataFrame, *, need_value: bool) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise InvalidDataError(
            f"RelationalData: {where}[{name!r}] must be a pandas DataFrame. "
            f"Got {type(frame).__name__} instead."
        )
    if "value" not in frame.columns:
        if need_value:
            raise InvalidDataError(
                f"RelationalData: {where}[{name!r}] has no 'value' column. Add the truth "
                "value of each atom (1.0 for a plain fact)."
            )
        return
    values = frame["value"].to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 0.0) | (values > 1.0)
    if bad.any():
        raise InvalidDataError(
            f"RelationalData: {where}[{name!r}] has {int(bad.sum())} values outside [0, 1] "
            f"(first: {values[bad][0]!r}). Scale truth values into [0, 1]."
        )


@dataclass(frozen=True, eq=False)
class RelationalData:
    """Observed and target atoms of one relational data set, with its fairness groups.

    Parameters
    ----------
    observations : mapping of str to pandas.DataFrame
        Observed predicate -> table (argument columns, then ``value``). Closed world: an
        observed atom that is not listed has value 0.
    targets : mapping of str to pandas.DataFrame
        Target predicate -> the atoms to infer (argument columns; ``value`` optional and
        ignored). A predicate may appear both here and in ``observations`` (MovieLens:
        training ratings are observed, test ratings are targets).
    truth : mapping of str to pandas.DataFrame
        Target predicate -> the true values of its target atoms (argument columns, ``value``).
    protected : pandas.DataFrame
        Argument columns of the target atoms of the fairness predicate in the protected group.
    unprotected : pandas.DataFrame
        The same for the unprotected group; disjoint from ``protected``.
    metadata : dict
        Provenance and construction choices. ``"fairness_predicate"`` names the predicate whose
        atoms ``protected``/``unprotected`` list; ``"favourable"`` is 1 when a high truth value
        is the good outcome (paper review: a positive summary) and 0 when it is the harm
        (COMPAS: recidivism), as :func:`fairacq.metrics.risk_difference` expects;
        ``"task"`` is ``"classification"`` or ``"rating"`` (which metrics apply).

    Raises
    ------
    InvalidDataError
        If a table is not a DataFrame, lacks ``value`` where needed, holds values outside
        ``[0, 1]``, if the groups overlap or the fairness predicate is not a target.

    Examples
    --------
    >>> import pandas as pd
    >>> data = RelationalData(
    ...     observations={"student": pd.DataFrame({"author": ["a0"], "value": [1.0]})},
    ...     targets={"positiveSummary": pd.DataFrame({"paper": ["p0", "p1"]})},
    ...     truth={"positiveSummary": pd.DataFrame({"paper": ["p0", "p1"], "value": [0.0, 1.0]})},
    ...     protected=pd.DataFrame({"paper": ["p0"]}),
    ...     unprotected=pd.DataFrame({"paper": ["p1"]}),
    ...     metadata={"fairness_predicate": "positiveSummary", "favourable": 1},
    ... )
    >>> data.fairness_predicate, data.n_atoms("positiveSummary")
    ('positiveSummary', 2)
    """

    observations: Mapping[str, pd.DataFrame]
    targets: Mapping[str, pd.DataFrame]
    truth: Mapping[str, pd.DataFrame]
    protected: pd.DataFrame
    unprotected: pd.DataFrame
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, frame in self.observations.items():
            _check_table("observations", name, frame, need_value=True)
        for name, frame in self.targets.items():
            _check_table("targets", name, frame, need_value=False)
        for name, frame in self.truth.items():
            _check_table("truth", name, frame, need_value=True)
            if name not in self.targets:
                raise InvalidDataError(
                    f"RelationalData: truth is given for {name!r}, which is not a target "
                    "predicate. Add its atoms to targets or drop its truth table."
                )
        pred = self.metadata.get("fairness_predicate")
        if pred is not None and pred not in self.targets:
            raise InvalidDataError(
                f"RelationalData: the fairness predicate {pred!r} is not a target predicate "
                f"({', '.join(sorted(self.targets))}). Name a target predicate."
            )
        if list(self.protected.columns) != list(self.unprotected.columns):
            raise InvalidDataError(
                "RelationalData: protected and unprotected must have the same argument columns."
                f" Got {list(self.protected.columns)} and {list(self.unprotected.columns)}."
            )
        both = _keys(self.protected) & _keys(self.unprotected)
        if both:
            raise InvalidDataError(
                f"RelationalData: {len(both)} atoms are in both groups (e.g. {min(both)}). "
                "Each target atom belongs to at most one group."
            )

    @property
    def fairness_predicate(self) -> str | None:
        """The target predicate whose atoms form the protected and unprotected groups."""
        pred = self.metadata.get("fairness_predicate")
        return None if pred is None else str(pred)

    def n_atoms(self, predicate: str) -> int:
        """Return the number of target atoms of ``predicate``."""
        if predicate not in self.targets:
            known = ", ".join(sorted(self.targets))
            raise UnknownNameError(
                f"RelationalData: {predicate!r} is not a target predicate. Known: {known}."
            )
        return len(self.targets[predicate])

    def group_variables(
        self, model: _Grounded, predicate: str | None = None
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Return the model variable indices of the protected and the unprotected atoms.

        Parameters
        ----------
        model : fairacq.relational.GroundModel
            A model grounded from this data (``model.variables`` lists ``predicate`` and
            ``args``, a tuple of str).
        predicate : str or None, default=None
            The predicate of the group atoms; ``None`` means :attr:`fairness_predicate`.

        Returns
        -------
        tuple of two ndarrays of int
            Sorted variable indices of each group, for ``fairness_constraints(...,
            protected=..., unprotected=...)``.

        Raises
        ------
        InvalidDataError
            If no predicate is known or a group atom is not a variable of the model.
        """
        pred = predicate if predicate is not None else self.fairness_predicate
        if pred is None:
            raise InvalidDataError(
                "RelationalData.group_variables: metadata names no fairness predicate. "
                "Pass predicate=<target predicate>."
            )
        variables = model.variables
        keep = variables["predicate"].to_numpy() == pred
        position = {
            tuple(str(a) for a in args): int(i)
            for i, args in zip(
                np.flatnonzero(keep), variables["args"].to_numpy()[keep], strict=True
            )
        }
        out = []
        for name, frame in (("protected", self.protected), ("unprotected", self.unprotected)):
            idx = []
            for key in frame.astype(str).itertuples(index=False, name=None):
                if key not in position:
                    raise InvalidDataError(
                        f"RelationalData.group_variables: {name} atom {pred}{key} is not a "
                        "variable of the model. Ground the model from this data's targets."
                    )
                idx.append(position[key])
            out.append(np.sort(np.asarray(idx, dtype=np.int64)))
        return out[0], out[1]

    def summary(self) -> pd.DataFrame:
        """Return one row per predicate: role (observed/target/both) and atom counts."""
        names = sorted(set(self.observations) | set(self.targets))
        rows = []
        for name in names:
            n_obs = len(self.observations[name]) if name in self.observations else 0
            n_tgt = len(self.targets[name]) if name in self.targets else 0
            role = (
                "both" if n_obs and n_tgt else ("target" if name in self.targets else "observed")
            )
            rows.append({"predicate": name, "role": role, "observed": n_obs, "targets": n_tgt})
        return pd.DataFrame(rows, columns=["predicate", "role", "observed", "targets"])


def _keys(frame: pd.DataFrame) -> set[tuple[str, ...]]:
    return set(frame.astype(str).itertuples(index=False, name=None))
