"""Intersecting group classes of Deng et al., App. A.2: encode memberships and count them.

The sensitive information is ``G`` group classes (e.g. race and sex); each person belongs to
exactly one group of each class, so the membership vector ``z`` in ``{0, 1}^K`` with
``K = k_1 + ... + k_G`` has one 1 per class block. We store it compactly as a code matrix of
shape ``(n, G)`` (column ``c`` = the group code within class ``c``). Group shares, the rows
of the conditional distribution matrix and the target ``U_intersect = (1/k_1, ..., 1/k_G)``
are concatenations over the classes. The disjoint case is a code vector of shape ``(n,)``
and one class; every helper keeps its arithmetic identical there (``np.bincount``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq.data._dataset import encode_groups
from fairacq.exceptions import InvalidDataError

__all__ = [
    "GroupClasses",
    "encode_group_classes",
    "group_mass",
    "membership_matrix",
    "membership_sum",
]

_SEP = "="


@dataclass(frozen=True)
class GroupClasses:
    """The group classes of App. A.2 and the groups of each, in column order.

    Attributes
    ----------
    names : tuple of str
        Class names (e.g. ``("race", "sex")``), one per block of columns.
    groups : tuple of tuple of str
        Sorted group names of each class.

    Examples
    --------
    >>> c = GroupClasses(("race", "sex"), (("a", "b", "c"), ("f", "m")))
    >>> c.sizes, c.labels[3], c.uniform_target().round(3).tolist()
    ((3, 2), 'sex=f', [0.333, 0.333, 0.333, 0.5, 0.5])
    """

    names: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]

    @property
    def sizes(self) -> tuple[int, ...]:
        """Number of groups ``k_c`` of each class."""
        return tuple(len(g) for g in self.groups)

    @property
    def n_columns(self) -> int:
        """Length ``K = k_1 + ... + k_G`` of a membership vector."""
        return int(sum(self.sizes))

    @property
    def labels(self) -> tuple[str, ...]:
        """Column names ``"class=group"`` of the concatenated membership vector."""
        return tuple(
            f"{c}{_SEP}{g}" for c, gs in zip(self.names, self.groups, strict=True) for g in gs
        )

    def uniform_target(self) -> NDArray[np.float64]:
        """Return ``U_intersect = (1/k_1, ..., 1/k_1, ..., 1/k_G, ..., 1/k_G)`` (App. A.2)."""
        return np.concatenate([np.full(k, 1.0 / k) for k in self.sizes])

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready description."""
        return {"names": list(self.names), "groups": [list(g) for g in self.groups]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GroupClasses:
        """Rebuild from :meth:`to_dict` output."""
        return cls(
            names=tuple(str(n) for n in data["names"]),
            groups=tuple(tuple(str(g) for g in gs) for gs in data["groups"]),
        )


def group_mass(
    weights: NDArray[np.float64], codes: NDArray[np.int64], sizes: Sequence[int]
) -> NDArray[np.float64]:
    """Return the weighted count of every membership column, classes concatenated.

    Parameters
    ----------
    weights : numpy.ndarray of shape (n,)
    codes : numpy.ndarray of shape (n,) or (n, G)
        Group code of each row (disjoint) or within each class (intersecting).
    sizes : sequence of int
        Number of groups of each class (one entry in the disjoint case).

    Returns
    -------
    numpy.ndarray of shape (sum(sizes),)
    """
    if codes.ndim == 1:
        return np.bincount(codes, weights=weights, minlength=int(sizes[0])).astype(np.float64)
    return np.concatenate(
        [
            np.bincount(codes[:, c], weights=weights, minlength=int(k)).astype(np.float64)
            for c, k in enumerate(sizes)
        ]
    )


def membership_matrix(codes: NDArray[np.int64], sizes: Sequence[int]) -> NDArray[np.float64]:
    """Return the 0/1 membership vectors ``z`` of App. A.2, one row per person."""
    if codes.ndim == 1:
        return np.asarray(np.eye(int(sizes[0]))[codes], dtype=np.float64)
    return np.hstack([np.eye(int(k))[codes[:, c]] for c, k in enumerate(sizes)])


def membership_sum(
    values: NDArray[np.float64], codes: NDArray[np.int64], sizes: Sequence[int]
) -> NDArray[np.float64]:
    """Return ``sum_k 1[z_j[k] = 1] values[k]`` for every row ``j`` (disjoint: ``values[z_j]``)."""
    if codes.ndim == 1:
        return np.asarray(values[codes], dtype=np.float64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    out = np.asarray(values[offsets[0] + codes[:, 0]], dtype=np.float64)
    for c in range(1, codes.shape[1]):
        out = out + values[offsets[c] + codes[:, c]]
    return out


def encode_group_classes(
    s: Any, where: str, groups: Mapping[str, ArrayLike] | None = None
) -> tuple[NDArray[np.int64], GroupClasses]:
    """Encode several sensitive columns as intersecting group classes (App. A.2).

    Parameters
    ----------
    s : pandas.DataFrame or array-like of shape (n, G)
        One column per group class (e.g. race and sex); every person has one group per
        class. A 2-D array gets class names ``s0, s1, ...``.
    where : str
        Name of the caller, for error messages.
    groups : mapping of class name to groups, or None, default=None
        Every group of each class that must be balanced; each must occur in ``s``.

    Returns
    -------
    codes : numpy.ndarray of shape (n, G)
        Group code within each class (sorted group order).
    classes : GroupClasses

    Raises
    ------
    InvalidDataError
        On missing values, a class with a single group, a group listed in ``groups`` but
        absent from ``s`` (or the reverse), or an unknown class in ``groups``.
    """
    if isinstance(s, pd.DataFrame):
        frame = s
    else:
        arr = np.asarray(s)
        if arr.ndim != 2:
            raise InvalidDataError(
                f"{where}: intersecting groups need a 2-D s (one column per group class). "
                f"Got shape {arr.shape}. Pass a DataFrame such as dataset.sensitive[['race', "
                "'sex']]."
            )
        frame = pd.DataFrame(arr, columns=[f"s{i}" for i in range(arr.shape[1])])
    if frame.shape[1] < 1:
        raise InvalidDataError(f"{where}: s has no column. Pass one column per group class.")
    names = tuple(str(c) for c in frame.columns)
    if len(set(names)) != len(names):
        raise InvalidDataError(f"{where}: s repeats a class column in {list(names)}. Drop one.")
    if groups is not None:
        unknown = sorted(set(map(str, groups)) - set(names))
        if unknown:
            raise InvalidDataError(
                f"{where}: groups names class(es) {unknown} that s lacks (it has "
                f"{list(names)}). Key groups by the columns of s."
            )
    codes = np.empty((frame.shape[0], len(names)), dtype=np.int64)
    per_class: list[tuple[str, ...]] = []
    for c, name in enumerate(names):
        col, found = encode_groups(frame.iloc[:, c].to_numpy(), where, name)
        present = tuple(str(g) for g in found)
        if groups is not None and name in {str(k) for k in groups}:
            listed = next(v for k, v in groups.items() if str(k) == name)
            expected = sorted({str(g) for g in np.asarray(listed).tolist()})
            absent = [g for g in expected if g not in present]
            if absent:
                raise InvalidDataError(
                    f"{where}: group(s) {absent} of class '{name}' are absent from the "
                    "labelled sample, so their balance cannot be estimated. Label some "
                    "candidates of those groups first."
                )
            extra = [g for g in present if g not in expected]
            if extra:
                raise InvalidDataError(
                    f"{where}: class '{name}' holds group(s) {extra} not listed in groups. "
                    "Add them to groups."
                )
        codes[:, c] = col
        per_class.append(present)
    return codes, GroupClasses(names=names, groups=tuple(per_class))
