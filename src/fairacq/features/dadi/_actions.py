"""The action space of DADI: one action per feature group, plus STOP.

DADI (Bakker et al., §4 "Datasets") buys the one-hot columns of a categorical feature together:
``marital=divorced``, ``marital=married`` and ``marital=single`` are one action. An
:class:`ActionSpace` maps the columns of a feature table to such actions, in column order,
and appends the STOP action (index ``n_actions``). Without grouping information every column
is its own action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq.data import FairDataset
from fairacq.exceptions import CorruptFileError, InvalidDataError

__all__ = ["SET_ELEMENTS", "ActionSpace"]

#: How a DADI set encoder reads the observed columns: each as an element (Appendix A), or one
#: element per observed feature group of several columns (see ``_elements.HotElements``).
SET_ELEMENTS: tuple[str, ...] = ("columns", "hot")


@dataclass(frozen=True, eq=False)
class ActionSpace:
    """Feature groups as acquisition actions, plus a final STOP action.

    Build it with :meth:`from_dataset` or :meth:`from_groups`. Actions are numbered in the
    order their first column appears in ``columns``; STOP is action ``n_actions``.

    Parameters
    ----------
    columns : tuple of str
        The feature columns, in table order.
    names : tuple of str
        The name of each action (a feature-group name), STOP excluded.
    column_action : ndarray of int64, shape (n_columns,)
        The action that reveals each column.

    Examples
    --------
    >>> groups = {"age": ["age"], "m": ["m=a", "m=b"]}
    >>> space = ActionSpace.from_groups(["age", "m=a", "m=b"], groups)
    >>> space.names, space.n_actions, space.stop
    (('age', 'm'), 2, 2)
    >>> space.column_mask([[False, True]]).tolist()
    [[False, True, True]]
    """

    columns: tuple[str, ...]
    names: tuple[str, ...]
    column_action: NDArray[np.int64]

    def __post_init__(self) -> None:
        col_action = np.asarray(self.column_action, dtype=np.int64)
        if col_action.shape != (len(self.columns),):
            raise InvalidDataError(
                f"ActionSpace: column_action has shape {col_action.shape}, expected "
                f"({len(self.columns)},). Give one action index per column."
            )
        n = len(self.names)
        if n == 0:
            raise InvalidDataError(
                "ActionSpace: there are no feature columns to acquire. Pass a table with at "
                "least one feature column."
            )
        counts = np.bincount(col_action, minlength=n) if col_action.size else np.zeros(n)
        if col_action.min() < 0 or col_action.max() >= n or (counts == 0).any():
            raise InvalidDataError(
                f"ActionSpace: every action must own at least one column and every column one "
                f"of the {n} actions. Got column_action={col_action.tolist()}."
            )
        col_action.setflags(write=False)
        object.__setattr__(self, "column_action", col_action)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_groups(
        cls,
        columns: Sequence[str],
        feature_groups: Mapping[str, Sequence[str]] | None = None,
    ) -> ActionSpace:
        """Build the actions from a column list and optional feature groups.

        Parameters
        ----------
        columns : sequence of str
            Feature columns in table order.
        feature_groups : mapping of str to sequence of str or None, default=None
            Group name -> the columns bought together. ``None`` (or an empty mapping) makes
            every column its own action, named after the column.

        Returns
        -------
        ActionSpace

        Raises
        ------
        InvalidDataError
            If a group names an unknown column, a column is in two groups, or a column is in
            no group.
        """
        cols = tuple(str(c) for c in columns)
        if len(set(cols)) != len(cols):
            dup = sorted({c for c in cols if cols.count(c) > 1})
            raise InvalidDataError(
                f"ActionSpace: duplicated column names {dup[:3]}. Give every column a unique name."
            )
        if not feature_groups:
            return cls(cols, cols, np.arange(len(cols), dtype=np.int64))
        owner: dict[str, str] = {}
        for group, members in feature_groups.items():
            for m in members:
                if m not in cols:
                    raise InvalidDataError(
                        f"ActionSpace: feature group {group!r} names column {m!r}, which is "
                        "not a feature column. List only existing columns."
                    )
                if m in owner:
                    raise InvalidDataError(
                        f"ActionSpace: column {m!r} is in feature groups {owner[m]!r} and "
                        f"{group!r}. Each column belongs to exactly one group."
                    )
                owner[m] = str(group)
        missing = [c for c in cols if c not in owner]
        if missing:
            raise InvalidDataError(
                f"ActionSpace: columns {missing[:3]} belong to no feature group. Put every "
                "column in one group, or pass no groups (one action per column)."
            )
        names: list[str] = []
        index: dict[str, int] = {}
        for c in cols:  # actions in order of their first column
            g = owner[c]
            if g not in index:
                index[g] = len(names)
                names.append(g)
        col_action = np.array([index[owner[c]] for c in cols], dtype=np.int64)
        return cls(cols, tuple(names), col_action)

    @classmethod
    def from_dataset(cls, dataset: FairDataset) -> ActionSpace:
        """Build the actions from a :class:`~fairacq.data.FairDataset`'s columns and groups."""
        return cls.from_groups(dataset.feature_names, dataset.feature_groups)

    # -- views ----------------------------------------------------------------------------
    @property
    def n_actions(self) -> int:
        """Number of feature-group actions (STOP excluded)."""
        return len(self.names)

    @property
    def n_columns(self) -> int:
        """Number of feature columns."""
        return len(self.columns)

    @property
    def stop(self) -> int:
        """Index of the STOP action (``n_actions``)."""
        return len(self.names)

    @property
    def membership(self) -> NDArray[np.bool_]:
        """Boolean matrix of shape (n_actions, n_columns): which columns each action reveals."""
        out = np.zeros((self.n_actions, self.n_columns), dtype=bool)
        out[self.column_action, np.arange(self.n_columns)] = True
        return out

    def action_columns(self, action: int) -> tuple[str, ...]:
        """Return the columns that ``action`` reveals (none for STOP)."""
        if action == self.stop:
            return ()
        if not 0 <= action < self.n_actions:
            raise InvalidDataError(
                f"ActionSpace: action {action} is out of range [0, {self.stop}]. Pass a "
                "feature-group action or STOP."
            )
        return tuple(
            c for c, a in zip(self.columns, self.column_action, strict=True) if a == action
        )

    def column_mask(self, acquired: ArrayLike) -> NDArray[np.bool_]:
        """Expand an action mask of shape (..., n_actions) to a column mask (..., n_columns)."""
        arr = np.asarray(acquired, dtype=bool)
        if arr.shape[-1] != self.n_actions:
            raise InvalidDataError(
                f"ActionSpace: an action mask needs {self.n_actions} entries in its last axis, "
                f"got shape {arr.shape}."
            )
        return np.asarray(arr[..., self.column_action], dtype=bool)

    # -- serialisation ----------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description (columns and the feature groups)."""
        return {
            "columns": list(self.columns),
            "feature_groups": {n: list(self.action_columns(i)) for i, n in enumerate(self.names)},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ActionSpace:
        """Rebuild an action space written by :meth:`to_dict`.

        Raises
        ------
        CorruptFileError
            If the description lacks ``columns`` or ``feature_groups``.
        """
        try:
            columns = [str(c) for c in data["columns"]]
            groups = {str(k): [str(c) for c in v] for k, v in data["feature_groups"].items()}
        except (KeyError, TypeError, AttributeError) as exc:
            raise CorruptFileError(
                f"ActionSpace: the saved description is malformed ({exc!r}). It needs "
                "'columns' and 'feature_groups'; re-save the model."
            ) from exc
        return cls.from_groups(columns, groups)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ActionSpace):
            return NotImplemented
        return (
            self.columns == other.columns
            and self.names == other.names
            and bool(np.array_equal(self.column_action, other.column_action))
        )

    def __hash__(self) -> int:
        return hash((self.columns, self.names))
