"""The dataset type every family consumes: features, binary label and sensitive groups."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import (
    check_binary_labels,
    check_consistent_length,
    check_no_nan,
)
from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError

__all__ = ["FairDataset", "encode_groups"]


def encode_groups(
    values: ArrayLike, where: str, name: str
) -> tuple[NDArray[np.int64], tuple[str, ...]]:
    """Encode group labels as codes ``0..G-1`` (sorted order) and return their names.

    Raises
    ------
    InvalidDataError
        If there are NaNs or fewer than two groups.

    Examples
    --------
    >>> codes, names = encode_groups(["b", "a", "b"], "demo", "sex")
    >>> codes.tolist(), names
    ([1, 0, 1], ('a', 'b'))
    """
    arr = np.asarray(values)
    check_no_nan(where, name, arr)
    if arr.dtype.kind == "O" and any(v is None for v in arr):
        raise InvalidDataError(
            f"{where}: sensitive attribute '{name}' has missing values. "
            "Drop those rows or give them an explicit group."
        )
    uniques, codes = np.unique(arr, return_inverse=True)
    if len(uniques) < 2:
        only = (
            uniques[0].item()
            if len(uniques) and hasattr(uniques[0], "item")
            else (uniques[0] if len(uniques) else "none")
        )
        raise InvalidDataError(
            f"{where}: sensitive attribute '{name}' has a single group ({only!r}). "
            "Fairness needs at least two groups; check the upstream filter."
        )
    return codes.astype(np.int64).reshape(-1), tuple(str(u) for u in uniques)


class FairDataset:
    """Features, a binary label and sensitive group codes, validated once.

    Parameters
    ----------
    X : pandas.DataFrame
        Numeric features, one row per individual. Sensitive columns are kept out unless the
        caller puts them in on purpose.
    y : array-like of shape (n,)
        Binary label, 1 = the favourable outcome recorded in ``metadata["favourable_label"]``.
    sensitive : pandas.DataFrame, Series or array-like
        Raw values of one or more sensitive attributes (strings or ints). The group codes
        ``s`` are built from ``sensitive_attrs`` (their intersection when several).
    sensitive_attrs : sequence of str or None, default=None
        Which sensitive columns define the groups; by default the first column.
    feature_groups : mapping of str to list of str or None, default=None
        Columns that one acquisition action buys together (one-hot columns of a categorical
        feature). By default every column is its own group.
    privileged : str or None, default=None
        Name of the privileged group (a value of the group names), used by signed metrics.
    name : str, default="dataset"
        Short name, e.g. ``"adult"``.
    metadata : mapping or None, default=None
        Source, licence, paper section, favourable label and other provenance.

    Attributes
    ----------
    s : ndarray of int64
        Group code of each row, ``0..n_groups-1`` in sorted order of ``group_names``.
    group_names : tuple of str
        The names of the groups, indexed by code.

    Raises
    ------
    InvalidDataError
        On wrong lengths, NaNs, non-numeric features, a non-binary label or a single group.

    Examples
    --------
    >>> import pandas as pd
    >>> ds = FairDataset(pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]}), [0, 1, 0, 1],
    ...                  pd.Series(["f", "m", "f", "m"], name="sex"), privileged="m")
    >>> ds.group_names, ds.s.tolist(), ds.privileged_code
    (('f', 'm'), [0, 1, 0, 1], 1)
    """

    def __init__(
        self,
        X: pd.DataFrame,
        y: ArrayLike,
        sensitive: pd.DataFrame | pd.Series | ArrayLike,
        *,
        sensitive_attrs: Sequence[str] | None = None,
        feature_groups: Mapping[str, Sequence[str]] | None = None,
        privileged: str | None = None,
        name: str = "dataset",
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        where = f"FairDataset '{name}'"
        if not isinstance(X, pd.DataFrame):
            raise InvalidDataError(
                f"{where}: X must be a pandas DataFrame, got {type(X).__name__}. "
                "Wrap arrays with pandas.DataFrame(X, columns=[...])."
            )
        sens = _as_frame(sensitive)
        y_arr = np.asarray(y)
        check_consistent_length(where, X=X, y=y_arr, sensitive=sens)
        for col in X.columns:
            if not (pd.api.types.is_numeric_dtype(X[col]) or pd.api.types.is_bool_dtype(X[col])):
                raise InvalidDataError(
                    f"{where}: feature column '{col}' is not numeric (dtype {X[col].dtype}). "
                    "One-hot encode it first (fairacq.data.one_hot_encode)."
                )
            check_no_nan(where, str(col), X[col].to_numpy(dtype=float))
        self._X = X.reset_index(drop=True).astype(float)
        self._y = check_binary_labels(where, y_arr)
        self._sensitive = sens.reset_index(drop=True)
        attrs = list(sensitive_attrs) if sensitive_attrs is not None else [str(sens.columns[0])]
        repeated = sorted({a for a in attrs if attrs.count(a) > 1})
        if repeated:
            raise InvalidParameterError(
                f"{where}: the sensitive attribute {repeated[0]!r} is named more than once. "
                "Name each attribute once (several distinct ones give intersectional groups)."
            )
        if not attrs:
            raise InvalidParameterError(
                f"{where}: no sensitive attribute given. Name one, e.g. with_sensitive('sex')."
            )
        missing = [a for a in attrs if a not in sens.columns]
        if missing:
            raise UnknownNameError(
                f"{where}: unknown sensitive attribute {missing[0]!r}. "
                f"Available: {', '.join(map(str, sens.columns))}."
            )
        self._attrs = tuple(attrs)
        key = sens[attrs[0]].astype(str)
        if len(attrs) > 1:
            for attr in attrs[1:]:
                key = key + " & " + sens[attr].astype(str)
        self._s, self._group_names = encode_groups(
            key.to_numpy(dtype=object), where, "+".join(attrs)
        )
        if privileged is not None and privileged not in self._group_names:
            raise InvalidDataError(
                f"{where}: privileged group {privileged!r} is not one of the groups "
                f"{self._group_names}. Pass one of them or None."
            )
        self._privileged = privileged
        self._feature_groups = _check_feature_groups(where, X, feature_groups)
        self._name = name
        self._metadata = dict(metadata or {})

    # -- read-only views ---------------------------------------------------------------
    @property
    def X(self) -> pd.DataFrame:
        """Numeric features (a copy: the dataset never changes)."""
        return self._X.copy()

    @property
    def y(self) -> NDArray[np.int64]:
        """Binary labels."""
        return self._y.copy()

    @property
    def s(self) -> NDArray[np.int64]:
        """Group codes ``0..n_groups-1``."""
        return self._s.copy()

    @property
    def sensitive(self) -> pd.DataFrame:
        """Raw values of every sensitive attribute."""
        return self._sensitive.copy()

    @property
    def sensitive_attrs(self) -> tuple[str, ...]:
        """The sensitive attribute(s) that define the groups."""
        return self._attrs

    @property
    def group_names(self) -> tuple[str, ...]:
        """Group names, indexed by code."""
        return self._group_names

    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return len(self._group_names)

    @property
    def privileged(self) -> str | None:
        """Name of the privileged group, if declared."""
        return self._privileged

    @property
    def privileged_code(self) -> int | None:
        """Code of the privileged group, if declared."""
        return None if self._privileged is None else self._group_names.index(self._privileged)

    @property
    def feature_groups(self) -> dict[str, list[str]]:
        """Acquisition units: name -> the columns bought together."""
        return {k: list(v) for k, v in self._feature_groups.items()}

    @property
    def name(self) -> str:
        """Short dataset name."""
        return self._name

    @property
    def metadata(self) -> dict[str, Any]:
        """Provenance and conventions (a copy)."""
        return dict(self._metadata)

    @property
    def feature_names(self) -> list[str]:
        """Feature column names."""
        return [str(c) for c in self._X.columns]

    def __len__(self) -> int:
        return len(self._y)

    def __repr__(self) -> str:
        return (
            f"FairDataset(name={self._name!r}, n={len(self)}, features={self._X.shape[1]}, "
            f"groups={dict(zip(self._group_names, self.group_sizes().tolist(), strict=True))})"
        )

    # -- arrays --------------------------------------------------------------------------
    def to_numpy(self, *, include_sensitive: bool = False) -> NDArray[np.float64]:
        """Return the features as a float array, optionally with group indicator columns."""
        X = self._X.to_numpy(dtype=np.float64)
        if not include_sensitive:
            return X
        onehot = np.eye(self.n_groups)[self._s][:, 1:]
        return np.hstack([X, onehot])

    def group_sizes(self) -> NDArray[np.int64]:
        """Return the number of rows in each group."""
        return np.bincount(self._s, minlength=self.n_groups).astype(np.int64)

    def base_rates(self) -> NDArray[np.float64]:
        """Positive-label rate of each group (NaN for an empty group)."""
        sizes = self.group_sizes()
        pos = np.bincount(self._s, weights=self._y, minlength=self.n_groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(sizes > 0, pos / np.maximum(sizes, 1), np.nan)

    # -- derived datasets ----------------------------------------------------------------
    def subset(self, index: ArrayLike) -> FairDataset:
        """Return the rows at positional ``index`` (all groups kept in the name table).

        The subset may hold a single group (a pool partition can); the groups are the
        parent's, so codes stay comparable.
        """
        idx = np.asarray(index)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        return self._with_parts(
            self._X.iloc[idx].reset_index(drop=True),
            self._y[idx],
            self._s[idx],
            self._sensitive.iloc[idx].reset_index(drop=True),
        )

    def _with_parts(
        self,
        X: pd.DataFrame,
        y: NDArray[np.int64],
        s: NDArray[np.int64],
        sensitive: pd.DataFrame,
    ) -> FairDataset:
        """Return a dataset of these rows sharing this one's columns, groups and metadata."""
        out = object.__new__(FairDataset)
        out.__dict__.update(self.__dict__)
        out._X, out._y, out._s, out._sensitive = X, y, s, sensitive
        return out

    def with_rows(
        self, X: pd.DataFrame, y: ArrayLike, s: ArrayLike, sensitive: pd.DataFrame
    ) -> FairDataset:
        """Return other rows with this dataset's columns, groups and metadata.

        For rows read elsewhere (a pool streamed from a file) that must :meth:`concat` with
        this dataset: ``s`` holds codes into :attr:`group_names`, so a few rows of one group
        keep the full group table.

        Raises
        ------
        InvalidDataError
            If the columns differ, lengths differ, labels are not 0/1 or a code is out of range.
        """
        where = f"FairDataset '{self._name}'.with_rows"
        if [str(c) for c in X.columns] != self.feature_names:
            raise InvalidDataError(
                f"{where}: the rows' columns differ from the dataset's. Encode them the same way."
            )
        codes = np.asarray(s, dtype=np.int64)
        check_consistent_length(where, X=X, y=y, s=codes, sensitive=sensitive)
        if codes.size and (codes.min() < 0 or codes.max() >= self.n_groups):
            raise InvalidDataError(f"{where}: group codes must lie in 0 .. {self.n_groups - 1}.")
        return self._with_parts(
            X.reset_index(drop=True).astype(float),
            check_binary_labels(where, np.asarray(y)),
            codes,
            sensitive.reset_index(drop=True),
        )

    def with_sensitive(self, *attrs: str, privileged: str | None = None) -> FairDataset:
        """Return the same rows with groups defined by other sensitive attribute(s).

        Several attributes give intersectional groups such as ``"White & Male"``.
        """
        return FairDataset(
            self._X,
            self._y,
            self._sensitive,
            sensitive_attrs=list(attrs),
            feature_groups=self._feature_groups,
            privileged=privileged,
            name=self._name,
            metadata=self._metadata,
        )

    def concat(self, other: FairDataset) -> FairDataset:
        """Append ``other``'s rows (same columns and groups) to this dataset's."""
        if other.feature_names != self.feature_names or other.group_names != self.group_names:
            raise InvalidDataError(
                f"FairDataset.concat: '{self._name}' and '{other.name}' differ in columns or "
                "groups. Concatenate subsets of one dataset."
            )
        return self._with_parts(
            pd.concat([self._X, other._X], ignore_index=True),
            np.concatenate([self._y, other._y]),
            np.concatenate([self._s, other._s]),
            pd.concat([self._sensitive, other._sensitive], ignore_index=True),
        )

    def to_frame(self) -> pd.DataFrame:
        """Features, sensitive columns, ``group`` and ``label`` in one DataFrame."""
        frame = pd.concat([self._X, self._sensitive.add_prefix("sensitive:")], axis=1)
        frame["group"] = np.asarray(self._group_names, dtype=object)[self._s]
        frame["label"] = self._y
        return frame


def _as_frame(sensitive: pd.DataFrame | pd.Series | ArrayLike) -> pd.DataFrame:
    if isinstance(sensitive, pd.DataFrame):
        return sensitive
    if isinstance(sensitive, pd.Series):
        return sensitive.to_frame(name=sensitive.name if sensitive.name is not None else "s")
    return pd.DataFrame({"s": np.asarray(sensitive)})


def _check_feature_groups(
    where: str, X: pd.DataFrame, groups: Mapping[str, Sequence[str]] | None
) -> dict[str, tuple[str, ...]]:
    cols = [str(c) for c in X.columns]
    if groups is None:
        return {c: (c,) for c in cols}
    seen: dict[str, str] = {}
    for g, members in groups.items():
        for m in members:
            if m not in cols:
                raise InvalidDataError(
                    f"{where}: feature group {g!r} names column {m!r}, which is not in X. "
                    "List only existing columns."
                )
            if m in seen:
                raise InvalidDataError(
                    f"{where}: column {m!r} is in feature groups {seen[m]!r} and {g!r}. "
                    "Each column belongs to exactly one group."
                )
            seen[m] = g
    missing = [c for c in cols if c not in seen]
    if missing:
        raise InvalidDataError(
            f"{where}: columns {missing[:3]} belong to no feature group. "
            "Every column must belong to one group."
        )
    return {g: tuple(m) for g, m in groups.items()}
