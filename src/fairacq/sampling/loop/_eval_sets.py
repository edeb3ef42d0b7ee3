"""Per-group evaluation sets of a sampling run: given, drawn from the oracle, or grown."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from fairacq.data import FairDataset
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.sampling.loop._oracles import GroupOracle

__all__ = ["Arrays", "check_width", "empty", "eval_sets"]

Arrays = tuple[NDArray[np.float64], NDArray[np.int64]]


def check_width(n_features: int, *groups_of_sets: list[Arrays] | None) -> None:
    for sets in groups_of_sets:
        for X, y in sets or []:
            if len(y) and X.shape[1] != n_features:
                raise InvalidDataError(
                    f"An evaluation set has {X.shape[1]} feature columns but the oracle draws "
                    f"{n_features}. Give validation/test sets with the oracle's columns."
                )


def empty(n_features: int) -> Arrays:
    return np.empty((0, n_features)), np.empty(0, dtype=np.int64)


def eval_sets(
    kind: str,
    data: FairDataset | int | None,
    oracle: GroupOracle,
    names: list[str],
    rng: np.random.Generator,
) -> list[Arrays] | None:
    if data is None:
        return None
    if isinstance(data, FairDataset):
        X, y, s = data.to_numpy().astype(np.float64), np.asarray(data.y), np.asarray(data.s)
        present = {str(n): g for g, n in enumerate(data.group_names)}
        _check_no_extra_groups(kind, data.name, s, present, names)
        out = []
        for name in names:
            code = present.get(name)
            rows = np.flatnonzero(s == code) if code is not None else np.empty(0, dtype=int)
            if rows.size == 0:
                raise InvalidDataError(
                    f"The {kind} set '{data.name}' has no samples of group '{name}' (its groups: "
                    f"{list(present)}). Every group of the oracle needs {kind} rows; split "
                    "with stratification by group."
                )
            out.append((X[rows], y[rows].astype(np.int64)))
        return out
    if isinstance(data, bool) or not isinstance(data, (int, np.integer)) or int(data) < 1:
        raise InvalidParameterError(
            f"The {kind} argument must be a FairDataset, an int >= 1 (rows per group drawn "
            f"from the oracle) or None, got {data!r}."
        )
    return [oracle.draw(g, int(data), rng) for g in range(len(names))]


def _check_no_extra_groups(
    kind: str, name: str, s: NDArray[np.int64], present: dict[str, int], names: list[str]
) -> None:
    """Refuse an evaluation set with rows of groups the oracle lacks (they would be dropped)."""
    extra = [g for g, code in present.items() if g not in names and (s == code).any()]
    if extra:
        raise InvalidDataError(
            f"The {kind} set '{name}' has rows of group(s) {', '.join(repr(g) for g in extra)} "
            f"that the oracle lacks (its groups: {names}); they would be left out without a "
            f"word. Give {kind} rows of the oracle's groups only, or an oracle with every group."
        )
