"""Which columns of a user's table are the label, the groups, the costs and the features.

:class:`TableColumns` names them once (the CLI's ``--label``, ``--sensitive``, ``--cost``,
``--categorical``, ``--drop``, ``--positive``, ``--impute``); :func:`prepare_table` turns a
raw table into a :class:`~fairacq.data.FairDataset` with a fitted
:class:`~fairacq.data.TableEncoder` (or the one learned on the training table), the per-row
costs and the table's original rows, so results can be handed back as rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from fairacq.data._encoder import TableEncoder
from fairacq.data._notes import note, reading_summary
from fairacq.exceptions import InvalidDataError

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from fairacq.data._dataset import FairDataset

__all__ = [
    "PreparedTable",
    "TableColumns",
    "as_fair_dataset",
    "columns_from_options",
    "encode_label",
    "prepare_table",
]


@dataclass(frozen=True)
class TableColumns:
    """The roles of a table's columns.

    Parameters
    ----------
    label : str
        The outcome column: 0/1, booleans, or any values with ``positive`` naming the
        favourable one.
    sensitive : tuple of str
        Group columns; several give intersectional groups (``"F & Black"``).
    cost : str or None, default=None
        Per-row acquisition cost (kept out of the features).
    categorical : tuple of str or None, default=None
        Feature columns to one-hot encode; ``None``: every non-numeric column.
    drop : tuple of str, default=()
        Columns that are neither features nor roles (identifiers, free text).
    positive : str or None, default=None
        The favourable label value (compared as text); every other value becomes 0.
    impute : bool, default=False
        Fill missing feature values instead of refusing them (see :class:`TableEncoder`).
    optional : tuple of str, default=()
        Columns of ``drop`` a table may lack (e.g. the pool's cost column in the training
        rows).
    """

    label: str
    sensitive: tuple[str, ...]
    cost: str | None = None
    categorical: tuple[str, ...] | None = None
    drop: tuple[str, ...] = field(default=())
    positive: str | None = None
    impute: bool = False
    optional: tuple[str, ...] = field(default=())

    def roles(self) -> list[str]:
        """Every column that is not a feature."""
        return [self.label, *self.sensitive, *([self.cost] if self.cost else []), *self.drop]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form (saved beside models and runs)."""
        return {
            "label": self.label,
            "sensitive": list(self.sensitive),
            "cost": self.cost,
            "categorical": None if self.categorical is None else list(self.categorical),
            "drop": list(self.drop),
            "positive": self.positive,
            "impute": self.impute,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableColumns:
        """Inverse of :meth:`to_dict`, checking every value's type.

        Raises
        ------
        InvalidDataError
            If a value has the wrong type (a damaged or edited file).
        """
        _check_saved_columns(data)
        cats = data.get("categorical")
        return cls(
            label=str(data["label"]),
            sensitive=tuple(str(s) for s in data["sensitive"]),
            cost=None if data.get("cost") is None else str(data["cost"]),
            categorical=None if cats is None else tuple(str(c) for c in cats),
            drop=tuple(str(d) for d in data.get("drop", ())),
            positive=None if data.get("positive") is None else str(data["positive"]),
            impute=bool(data.get("impute", False)),
        )


def _check_saved_columns(data: Any) -> None:
    def names(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)

    def name_or_none(value: Any) -> bool:
        return value is None or isinstance(value, str)

    ok = (
        isinstance(data, Mapping)
        and isinstance(data.get("label"), str)
        and names(data.get("sensitive"))
        and bool(data.get("sensitive"))
        and name_or_none(data.get("cost"))
        and (data.get("categorical") is None or names(data.get("categorical")))
        and names(data.get("drop", []))
        and name_or_none(data.get("positive"))
        and isinstance(data.get("impute", False), bool)
    )
    if not ok:
        raise InvalidDataError(
            "The saved column roles are damaged (label, sensitive, cost, categorical, drop, "
            "positive or impute of the wrong type). Save them again."
        )


@dataclass
class PreparedTable:
    """A raw table made ready for the families.

    Attributes
    ----------
    dataset : FairDataset
        Encoded features, 0/1 label and groups.
    encoder : TableEncoder
        The fitted encoder (learned on the training table).
    costs : ndarray or None
        Per-row costs when ``cost`` was named.
    frame : pandas.DataFrame
        The original rows, every column, index reset (row ``i`` of ``dataset``).
    """

    dataset: FairDataset
    encoder: TableEncoder
    costs: NDArray[np.float64] | None
    frame: pd.DataFrame


def encode_label(
    values: pd.Series, *, positive: str | None = None, where: str = "table"
) -> NDArray[np.int64]:
    """Return a 0/1 label from a column of 0/1, booleans, or values with a favourable one.

    Raises
    ------
    InvalidDataError
        On missing labels, a label that is not 0/1 without ``positive``, or a ``positive``
        value the column does not hold.

    Examples
    --------
    >>> import pandas as pd
    >>> encode_label(pd.Series(["yes", "no", "yes"]), positive="yes").tolist()
    [1, 0, 1]
    """
    name = values.name
    if values.isna().any():
        raise InvalidDataError(
            f"{where}: label column {name!r} has {int(values.isna().sum())} missing value(s) "
            f"(rows {np.flatnonzero(values.isna().to_numpy())[:5].tolist()}). Drop those rows."
        )
    text = values.astype(str) if values.dtype != bool else values.astype(int).astype(str)
    found = sorted(set(text))
    if positive is not None:
        _check_label_spelling(found, str(positive), name, where)
        return (text == str(positive)).to_numpy().astype(np.int64)
    as_numbers = pd.to_numeric(values.astype(object).replace({True: 1, False: 0}), "coerce")
    if as_numbers.notna().all() and set(as_numbers.unique()) <= {0, 1}:
        return as_numbers.to_numpy().astype(np.int64)
    raise InvalidDataError(
        f"{where}: label column {name!r} has values {', '.join(found[:8])}"
        f"{' ...' if len(found) > 8 else ''}, not 0/1. Name the favourable one with "
        f"--positive VALUE (positive=...); every other value becomes 0."
    )


def _check_label_spelling(found: list[str], positive: str, name: Any, where: str) -> None:
    """Refuse label values that differ from ``positive`` only in case or spaces."""
    key = positive.strip().casefold()
    alike = [v for v in found if v.strip().casefold() == key]
    shown = ", ".join(repr(v) for v in alike)
    if positive not in found and alike:
        raise InvalidDataError(
            f"{where}: --positive {positive!r} is not a value of label column {name!r} "
            f"(values: {', '.join(found[:8])}); {shown} "
            f"differ{'s' if len(alike) == 1 else ''} from it only in case or spaces. Pass "
            "--positive exactly as written in the table, or write the label one way."
        )
    if positive not in found:
        raise InvalidDataError(
            f"{where}: --positive {positive!r} is not a value of label column {name!r} "
            f"(values: {', '.join(found[:8])}). Name one of them."
        )
    if len(alike) > 1:
        raise InvalidDataError(
            f"{where}: label column {name!r} writes the favourable value several ways "
            f"({shown}), which differ only in case or spaces; only {positive!r} would count "
            f"as favourable. Write them all as {positive!r} in the table."
        )


def _check_columns(frame: pd.DataFrame, columns: TableColumns, where: str) -> None:
    roles = {"--label": [columns.label], "--sensitive": list(columns.sensitive)}
    roles["--cost"] = [columns.cost] if columns.cost else []
    roles["--drop"] = [d for d in columns.drop if d not in columns.optional or d in frame]
    for option, names in roles.items():
        for name in names:
            if name not in frame.columns:
                raise InvalidDataError(
                    f"{where}: no column {name!r} for {option} (the table has "
                    f"{', '.join(map(str, frame.columns[:12]))}"
                    f"{' ...' if len(frame.columns) > 12 else ''}). Name an existing column."
                )
    if not columns.sensitive:
        raise InvalidDataError(f"{where}: no group column. Name one with --sensitive COL.")
    _check_roles_differ(roles, where)
    for name in columns.sensitive:
        gaps = frame[name].isna().to_numpy()
        if gaps.any():
            raise InvalidDataError(
                f"{where}: group column {name!r} has {int(gaps.sum())} missing value(s) (rows "
                f"{np.flatnonzero(gaps)[:5].tolist()}). Drop those rows or give them a group."
            )


def _check_roles_differ(roles: Mapping[str, list[str]], where: str) -> None:
    """Refuse one column named in two roles (e.g. the label also as the group)."""
    seen: dict[str, str] = {}
    for option, names in roles.items():
        for name in names:
            if name in seen and seen[name] != option:
                raise InvalidDataError(
                    f"{where}: column {name!r} is named by both {seen[name]} and {option}. "
                    "Give each role its own column."
                )
            seen.setdefault(name, option)


def _costs(frame: pd.DataFrame, column: str | None, where: str) -> NDArray[np.float64] | None:
    if column is None:
        return None
    costs = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(costs) | (costs <= 0)
    if bad.any():
        raise InvalidDataError(
            f"{where}: cost column {column!r} needs positive numbers; rows "
            f"{np.flatnonzero(bad)[:5].tolist()} are not. Fix those costs."
        )
    return costs


def prepare_table(
    frame: pd.DataFrame,
    columns: TableColumns,
    *,
    encoder: TableEncoder | None = None,
    name: str = "table",
    privileged: str | None = None,
) -> PreparedTable:
    """Turn a raw table into a :class:`FairDataset` (features encoded, label 0/1, groups).

    Parameters
    ----------
    frame : pandas.DataFrame
        The user's table.
    columns : TableColumns
        The roles of its columns.
    encoder : TableEncoder or None, default=None
        An encoder fitted on the training table; ``None`` fits one on ``frame``.
    name : str, default="table"
        Quoted in errors and kept as the dataset's name.
    privileged : str or None, default=None
        The privileged group's name, if any.

    Returns
    -------
    PreparedTable

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": [30, 41, 25, 52], "job": ["b", "a", "b", "a"],
    ...                       "sex": ["F", "M", "M", "F"], "hired": ["y", "n", "y", "n"]})
    >>> table = prepare_table(frame, TableColumns("hired", ("sex",), positive="y"))
    >>> table.dataset.feature_names, table.dataset.y.tolist()
    (['age', 'job=a', 'job=b'], [1, 0, 1, 0])
    """
    from fairacq.data._dataset import FairDataset

    _check_columns(frame, columns, name)
    frame = frame.reset_index(drop=True)
    raw = frame.drop(columns=[c for c in dict.fromkeys(columns.roles()) if c in frame.columns])
    y = encode_label(frame[columns.label], positive=columns.positive, where=name)
    if encoder is None:
        encoder = TableEncoder(columns.categorical, impute=columns.impute).fit(raw, where=name)
        note(reading_summary(frame.shape[1], columns, encoder, where=name))
    X = encoder.transform(raw, where=name)
    sensitive = frame[list(columns.sensitive)].astype(str)
    dataset = FairDataset(
        X,
        y,
        sensitive,
        sensitive_attrs=list(columns.sensitive),
        feature_groups=encoder.feature_groups_,
        privileged=privileged,
        name=name,
        metadata={"favourable_label": columns.positive or 1, "columns": columns.to_dict()},
    )
    return PreparedTable(dataset, encoder, _costs(frame, columns.cost, name), frame)


def columns_from_options(
    label: str,
    sensitive: Sequence[str] | str,
    *,
    cost: str | None = None,
    categorical: Sequence[str] | None = None,
    drop: Sequence[str] = (),
    positive: str | None = None,
    impute: bool = False,
) -> TableColumns:
    """Build :class:`TableColumns` from comma-separated or listed option values."""

    def split(value: Sequence[str] | str) -> tuple[str, ...]:
        items = [value] if isinstance(value, str) else list(value)
        return tuple(p.strip() for item in items for p in item.split(",") if p.strip())

    return TableColumns(
        label=label,
        sensitive=split(sensitive),
        cost=cost,
        categorical=None if categorical is None else split(categorical),
        drop=split(drop),
        positive=positive,
        impute=impute,
    )


def as_fair_dataset(
    X: FairDataset | pd.DataFrame | ArrayLike,
    y: ArrayLike | None = None,
    *,
    sensitive_features: ArrayLike | None = None,
    positive: str | None = None,
    name: str = "data",
) -> FairDataset:
    """Accept a :class:`FairDataset`, or fairlearn's form ``(X, y, sensitive_features=...)``.

    Parameters
    ----------
    X : FairDataset, pandas.DataFrame or array-like of shape (n, d)
        A dataset, or raw features (string columns are one-hot encoded, see
        :class:`TableEncoder`).
    y : array-like of shape (n,) or None
        Labels (0/1, booleans, or any values with ``positive``); with a DataFrame or array.
    sensitive_features : Series, DataFrame or array-like, optional
        One group column, or several for intersectional groups.
    positive : str or None, default=None
        The favourable label value when ``y`` is not 0/1.
    name : str, default="data"
        The dataset's name.

    Returns
    -------
    FairDataset

    Raises
    ------
    InvalidDataError
        If ``y`` or ``sensitive_features`` is missing or their lengths differ from ``X``'s.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"age": [30, 41, 25, 52], "job": ["b", "a", "b", "a"]})
    >>> ds = as_fair_dataset(X, [1, 0, 1, 0], sensitive_features=["F", "M", "M", "F"])
    >>> ds.feature_names, ds.group_names
    (['age', 'job=a', 'job=b'], ('F', 'M'))
    """
    from fairacq.data._dataset import FairDataset

    if isinstance(X, FairDataset):
        if y is not None or sensitive_features is not None:
            raise InvalidDataError(
                f"{name}: a FairDataset already holds labels and groups; do not also pass y "
                "or sensitive_features."
            )
        return X
    if y is None or sensitive_features is None:
        raise InvalidDataError(
            f"{name}: raw features need y and sensitive_features (fairlearn's form "
            "X, y, sensitive_features=...), or pass a FairDataset."
        )
    features = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
    features = features.rename(columns=str).reset_index(drop=True)
    groups = _group_frame(sensitive_features)
    labels = pd.Series(np.asarray(y), name="__label__")
    if not len(features) == len(labels) == len(groups):
        raise InvalidDataError(
            f"{name}: X has {len(features)} rows, y {len(labels)} and sensitive_features "
            f"{len(groups)}. Pass one value per row."
        )
    frame = pd.concat([features, groups, labels], axis=1)
    columns = TableColumns("__label__", tuple(groups.columns), positive=positive)
    return prepare_table(frame, columns, name=name).dataset


def _group_frame(values: Any) -> pd.DataFrame:
    if isinstance(values, pd.DataFrame):
        frame = values.copy()
    elif isinstance(values, pd.Series):
        frame = values.to_frame(name=values.name if values.name is not None else "group")
    else:
        arr = np.asarray(values, dtype=object)
        frame = pd.DataFrame(arr.reshape(len(arr), -1))
        frame.columns = (
            ["group"] if frame.shape[1] == 1 else [f"group{i}" for i in range(frame.shape[1])]
        )
    frame.columns = [f"sensitive:{c}" if c != "group" else c for c in map(str, frame.columns)]
    return frame.reset_index(drop=True)
