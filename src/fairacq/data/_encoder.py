"""Raw table columns to numeric features, learned once and saved as JSON.

A user's table holds strings (``"workclass": "Private"``), numbers and sometimes gaps.
:class:`TableEncoder` learns, on the training rows, which columns are categorical and their
categories, and encodes any later table the same way: each categorical column ``c`` becomes
the 0/1 columns ``"c=v"`` (scikit-learn's :class:`~sklearn.preprocessing.OneHotEncoder`,
``handle_unknown="ignore"``), numeric columns stay as they are. A category first seen at
apply time encodes as all zeros and is counted (``unknown_counts_``, and a warning); a
missing value is an error naming the column and the rows, unless ``impute=True`` (median of
a numeric column, most frequent category of a categorical one, both learned on the training
rows). The fitted encoder is plain JSON (:meth:`to_dict` / :meth:`from_dict`), so saved
models, proxies and runs carry it without pickle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairacq._warnings import warn_caller
from fairacq.data._category_cap import (
    MAX_CATEGORIES,
    OTHER,
    cap_categories,
    category_text,
    group_rare,
    known_mask,
)
from fairacq.data._column_kinds import ColumnKind, as_numbers, infer_kind, looks_numeric
from fairacq.exceptions import InvalidDataError, NotFittedError

__all__ = ["TableEncoder"]

_FORMAT = "fairacq-table-encoder/1"


def _rows(mask: Any) -> str:
    rows = np.flatnonzero(np.asarray(mask)).tolist()
    shown = ", ".join(map(str, rows[:5]))
    return shown + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")


class TableEncoder:
    """Encode a table's raw feature columns as numeric features, the same way every time.

    Parameters
    ----------
    categorical : sequence of str or None, default=None
        Columns to one-hot encode. ``None``: every column that is not numeric.
    impute : bool, default=False
        Fill missing values (median of a numeric column, most frequent category of a
        categorical one, learned at :meth:`fit`) instead of refusing them.
    max_categories : int or None, default=50
        Most one-hot columns per categorical column: the rarest categories of a column with
        more are grouped into one ``"c=(other)"`` column (scikit-learn's ``max_categories``),
        with a warning. ``None``: no cap.

    Attributes
    ----------
    columns_ : list of str
        The raw feature columns, in order.
    kinds_ : dict of str to ColumnKind
        How each column is read: numbers (also written as text, e.g. ``"12,345"``),
        true/false (as 1/0) or categories.
    categories_ : dict of str to list of str
        Each categorical column's categories with a column of their own (strings, sorted).
    grouped_ : dict of str to list of str
        The rare categories grouped into ``"c=(other)"``, for the columns that have some.
    fill_values_ : dict of str to float or str
        What a missing value becomes (only with ``impute``).
    feature_groups_ : dict of str to list of str
        Raw column -> the encoded columns that represent it.
    unknown_counts_ : dict of str to int
        Values of the last :meth:`transform` outside the learned categories, per column.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": [30, 41, 25], "job": ["b", "a", "b"]})
    >>> enc = TableEncoder().fit(frame)
    >>> enc.transform(frame).columns.tolist()
    ['age', 'job=a', 'job=b']
    >>> TableEncoder.from_dict(enc.to_dict()).transform(frame.head(1)).to_numpy().tolist()
    [[30.0, 0.0, 1.0]]
    """

    def __init__(
        self,
        categorical: Sequence[str] | None = None,
        *,
        impute: bool = False,
        max_categories: int | None = MAX_CATEGORIES,
    ):
        self.categorical = None if categorical is None else list(categorical)
        self.impute = impute
        self.max_categories = max_categories

    # -- learning ------------------------------------------------------------------------
    def fit(self, frame: pd.DataFrame, *, where: str = "table") -> TableEncoder:
        """Learn the columns' kinds, categories and fill values from ``frame`` (training rows).

        Raises
        ------
        InvalidDataError
            On a ``categorical`` name that is not a column, and on a column that cannot be
            read as meant (see :func:`~fairacq.data._column_kinds.infer_kind`): an
            identifier, dates, placeholder words in numbers without ``impute``.
        """
        named = self.categorical or []
        missing = [c for c in named if c not in frame.columns]
        if missing:
            raise InvalidDataError(
                f"{where}: --categorical names {missing[0]!r}, which is not a feature column "
                f"(features: {', '.join(map(str, frame.columns))}). Name existing columns."
            )
        self.columns_ = [str(c) for c in frame.columns]
        if not self.impute:
            self._fill(frame, where)  # gaps are named before any column is judged
        self.kinds_ = {
            c: infer_kind(frame[c], categorical=c in named, impute=self.impute, where=where)
            for c in self.columns_
        }
        typed = self._typed(frame, where, fitting=True)
        cats = [c for c in self.columns_ if self.kinds_[c].kind == "categorical"]
        self.fill_values_: dict[str, Any] = {}
        if self.impute:
            self.fill_values_ = {c: _fill_value(typed[c], c in cats) for c in self.columns_}
        filled = self._fill(typed, where)
        split = {
            c: cap_categories(filled[c].astype(str), self.max_categories, where=where)
            for c in cats
        }
        self.categories_ = {c: kept for c, (kept, _) in split.items()}
        self.grouped_ = {c: grouped for c, (_, grouped) in split.items() if grouped}
        self._build()
        return self

    def _build(self) -> None:
        """Make the fitted scikit-learn one-hot encoder from :attr:`categories_`."""
        from sklearn.preprocessing import OneHotEncoder

        levels = {
            c: [*v, *([OTHER] if c in self.grouped_ else [])] for c, v in self.categories_.items()
        }
        self._onehot: Any = None
        if levels:
            self._onehot = OneHotEncoder(
                categories=list(levels.values()),
                handle_unknown="ignore",
                sparse_output=False,
                dtype=np.float64,
            )
            # Fixed categories: fitting only checks them, so one row of known values does.
            self._onehot.fit(pd.DataFrame({c: v[:1] for c, v in levels.items()}))
        self.feature_groups_ = {
            c: [f"{c}={v}" for v in levels[c]] if c in levels else [c] for c in self.columns_
        }

    def _typed(self, frame: pd.DataFrame, where: str, *, fitting: bool = False) -> pd.DataFrame:
        """``frame``'s columns read by their kinds: numbers and true/false as floats."""
        out = {}
        for c in self.columns_:
            kind = self.kinds_[c]
            if kind.kind == "categorical":
                _check_still_text(frame[c], None if fitting else self.categories_[c], where)
                out[c] = frame[c]
            else:
                out[c] = as_numbers(frame[c], kind, where=where)
        return pd.DataFrame(out, index=frame.index)

    # -- applying ------------------------------------------------------------------------
    def transform(self, frame: pd.DataFrame, *, where: str = "table") -> pd.DataFrame:
        """Encode ``frame``'s raw columns; unknown categories become zeros and are counted.

        Raises
        ------
        InvalidDataError
            On a missing column, a missing value (without ``impute``), an infinite value,
            text in a column that was numeric at :meth:`fit`, or numbers in one that held text.
        """
        if not hasattr(self, "columns_"):
            raise NotFittedError("TableEncoder is not fitted. Call fit(training_table) first.")
        absent = [c for c in self.columns_ if c not in frame.columns]
        if absent:
            raise InvalidDataError(
                f"{where}: no column {absent[0]!r}, which the training data had "
                f"({len(absent)} missing). Pass a table with the training data's columns."
            )
        filled = self._fill(self._typed(frame[self.columns_], where), where)
        words = {
            c: category_text(filled[c], [*kept, *self.grouped_.get(c, [])])
            for c, kept in self.categories_.items()
        }  # 3.0 in this table is the training category "3"
        self.unknown_counts_ = self._count_unknown(words, where)
        cats = list(self.categories_)
        coded = pd.DataFrame(index=filled.index)
        if self._onehot is not None:
            text = pd.DataFrame(
                {
                    c: group_rare(words[c], self.categories_[c], self.grouped_.get(c, []))
                    for c in cats
                },
                index=filled.index,
            )
            coded = pd.DataFrame(
                self._onehot.transform(text),
                columns=[n for c in cats for n in self.feature_groups_[c]],
                index=filled.index,
            )
        pieces = [
            coded[self.feature_groups_[c]]
            if c in self.categories_
            else self._numeric(filled, c, where)
            for c in self.columns_
        ]
        out = pd.concat(pieces, axis=1) if pieces else pd.DataFrame(index=frame.index)
        return out.reset_index(drop=True)

    def fit_transform(self, frame: pd.DataFrame, *, where: str = "table") -> pd.DataFrame:
        """:meth:`fit` then :meth:`transform` on the same rows."""
        return self.fit(frame, where=where).transform(frame, where=where)

    @property
    def feature_names_(self) -> list[str]:
        """The encoded columns, in order."""
        return [n for c in self.columns_ for n in self.feature_groups_[c]]

    def _fill(self, frame: pd.DataFrame, where: str) -> pd.DataFrame:
        gaps = frame.isna()
        if not gaps.to_numpy().any():
            return frame
        if not self.impute:
            col = str(gaps.columns[gaps.any().to_numpy()][0])
            raise InvalidDataError(
                f"{where}: column {col!r} has {int(gaps[col].sum())} missing value(s) (rows "
                f"{_rows(gaps[col])}). Fill or drop them, or fit with --impute (impute=True): "
                "median of a numeric column, most frequent category otherwise."
            )
        return frame.fillna(self.fill_values_)

    def _numeric(self, frame: pd.DataFrame, col: str, where: str) -> pd.DataFrame:
        values = frame[col].to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            raise InvalidDataError(
                f"{where}: column {col!r} has infinite values (rows {_rows(bad)}). Replace or "
                "drop them."
            )
        return pd.DataFrame({col: values}, index=frame.index)

    def _count_unknown(self, words: Mapping[str, pd.Series], where: str) -> dict[str, int]:
        counts = {
            c: int((~known_mask(words[c], kept, self.grouped_.get(c, []))).sum())
            for c, kept in self.categories_.items()
        }
        seen = {c: n for c, n in counts.items() if n}
        if seen:
            listed = ", ".join(f"{c}: {n}" for c, n in seen.items())
            grouped = [c for c in seen if c in self.grouped_]
            fate = f"'(other)' in {', '.join(grouped)}, else all zeros" if grouped else "all zeros"
            warn_caller(
                f"{where}: {sum(seen.values())} value(s) in categories the training data did "
                f"not have ({listed}); they are encoded as {fate}."
            )
        return counts

    # -- JSON ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Return the fitted encoder as plain JSON types."""
        if not hasattr(self, "columns_"):
            raise NotFittedError("TableEncoder is not fitted. Call fit(training_table) first.")
        return {
            "format": _FORMAT,
            "columns": list(self.columns_),
            "categories": {c: list(v) for c, v in self.categories_.items()},
            "grouped": {c: list(v) for c, v in self.grouped_.items()},
            "kinds": {c: k.to_dict() for c, k in self.kinds_.items()},
            "impute": bool(self.impute),
            "max_categories": self.max_categories,
            "fill_values": {c: _plain(v) for c, v in self.fill_values_.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableEncoder:
        """Rebuild a fitted encoder from :meth:`to_dict`, checking every value's type."""
        if not isinstance(data, Mapping) or data.get("format") != _FORMAT:
            raise InvalidDataError(
                f"Not a saved table encoder (expected format {_FORMAT!r}). Save it again."
            )
        if not _saved_ok(data):
            raise InvalidDataError(
                "The saved table encoder is damaged (columns or categories of the wrong type). "
                "Save it again."
            )
        columns, categories = list(data["columns"]), data["categories"]
        enc = cls(
            list(categories),
            impute=bool(data.get("impute", False)),
            max_categories=data.get("max_categories"),
        )
        enc.columns_ = columns
        enc.categories_ = {c: list(categories[c]) for c in columns if c in categories}
        enc.grouped_ = {c: list(v) for c, v in data.get("grouped", {}).items() if v}
        enc.kinds_ = _saved_kinds(data.get("kinds"), columns, categories)
        enc.fill_values_ = dict(data.get("fill_values", {}))
        enc._build()
        return enc

    def __repr__(self) -> str:
        return f"TableEncoder(categorical={self.categorical!r}, impute={self.impute})"


def _names_list(value: Any, *, empty: bool = True) -> bool:
    return (
        isinstance(value, list)
        and (empty or bool(value))
        and all(isinstance(x, str) for x in value)
    )


def _saved_ok(data: Mapping[str, Any]) -> bool:
    columns: Any = data.get("columns")
    categories: Any = data.get("categories")
    fills, grouped = data.get("fill_values", {}), data.get("grouped", {})
    cap = data.get("max_categories", MAX_CATEGORIES)
    return (
        _names_list(columns)
        and isinstance(categories, dict)
        and all(c in columns and _names_list(v, empty=False) for c, v in categories.items())
        and isinstance(grouped, dict)
        and all(c in categories and _names_list(v) for c, v in grouped.items())
        and isinstance(fills, dict)
        and all(
            c in columns and isinstance(v, (str, int, float)) and not isinstance(v, bool)
            for c, v in fills.items()
        )
        and isinstance(data.get("impute", False), bool)
        and (cap is None or (isinstance(cap, int) and not isinstance(cap, bool) and cap > 1))
        and isinstance(data.get("kinds", {}), dict)
    )


def _saved_kinds(kinds: Any, columns: list[str], categories: Any) -> dict[str, ColumnKind]:
    """Each column's kind; files written before kinds were saved: numbers or categories."""
    if kinds is None:
        return {c: ColumnKind("categorical" if c in categories else "numeric") for c in columns}
    default = {"kind": "numeric"}  # a column added by hand: later checks name it
    out = {c: ColumnKind.from_dict(kinds.get(c, default)) for c in columns}
    if {c for c, k in out.items() if k.kind == "categorical"} != set(categories):
        raise InvalidDataError(
            "The saved table encoder is damaged (column kinds do not match its categories). "
            "Save it again."
        )
    return out


def _check_still_text(series: pd.Series, categories: list[str] | None, where: str) -> None:
    """Refuse numbers in a column whose training values were words (a type mismatch)."""
    if categories is None or any(looks_numeric(c) for c in categories):
        return  # fitting, or categories that are numbers themselves
    if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
        return
    if series.notna().any():
        raise InvalidDataError(
            f"{where}: column {series.name!r} holds numbers (e.g. {series.dropna().iloc[0]}) "
            f"but held text in the training data (e.g. {categories[0]!r}). Pass tables whose "
            "columns hold the same kind of values."
        )


def _fill_value(series: pd.Series, categorical: bool) -> Any:
    known = series.dropna()
    if known.empty:
        raise InvalidDataError(
            f"column {series.name!r} has no values to learn a fill value from. Drop it (--drop)."
        )
    if categorical:
        counts = known.astype(str).value_counts()
        return str(sorted(counts.index[counts == counts.max()])[0])
    return float(known.astype(float).median())


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value
