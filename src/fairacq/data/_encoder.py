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
from fairacq.exceptions import InvalidDataError, NotFittedError

__all__ = ["TableEncoder"]

_FORMAT = "fairacq-table-encoder/1"


def _is_numeric(series: pd.Series) -> bool:
    return bool(
        pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)
    ) and not isinstance(series.dtype, pd.CategoricalDtype)


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

    Attributes
    ----------
    columns_ : list of str
        The raw feature columns, in order.
    categories_ : dict of str to list of str
        Each categorical column's categories (as strings, sorted).
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

    def __init__(self, categorical: Sequence[str] | None = None, *, impute: bool = False):
        self.categorical = None if categorical is None else list(categorical)
        self.impute = impute

    # -- learning ------------------------------------------------------------------------
    def fit(self, frame: pd.DataFrame, *, where: str = "table") -> TableEncoder:
        """Learn the columns, categories and fill values from ``frame`` (training rows)."""
        named = self.categorical or []
        missing = [c for c in named if c not in frame.columns]
        if missing:
            raise InvalidDataError(
                f"{where}: --categorical names {missing[0]!r}, which is not a feature column "
                f"(features: {', '.join(map(str, frame.columns))}). Name existing columns."
            )
        self.columns_ = [str(c) for c in frame.columns]
        cats = [c for c in self.columns_ if c in named or not _is_numeric(frame[c])]
        self.fill_values_: dict[str, Any] = {}
        if self.impute:
            self.fill_values_ = {c: _fill_value(frame[c], c in cats) for c in self.columns_}
        filled = self._fill(frame, where)
        self.categories_ = {c: sorted(set(filled[c].astype(str))) for c in cats}
        self._build()
        return self

    def _build(self) -> None:
        """Make the fitted scikit-learn one-hot encoder from :attr:`categories_`."""
        from sklearn.preprocessing import OneHotEncoder

        cats = list(self.categories_)
        self._onehot: Any = None
        if cats:
            self._onehot = OneHotEncoder(
                categories=[self.categories_[c] for c in cats],
                handle_unknown="ignore",
                sparse_output=False,
                dtype=np.float64,
            )
            # Fixed categories: fitting only checks them, so one row of known values does.
            self._onehot.fit(pd.DataFrame({c: self.categories_[c][:1] for c in cats}))
        self.feature_groups_ = {
            c: [f"{c}={v}" for v in self.categories_[c]] if c in self.categories_ else [c]
            for c in self.columns_
        }

    # -- applying ------------------------------------------------------------------------
    def transform(self, frame: pd.DataFrame, *, where: str = "table") -> pd.DataFrame:
        """Encode ``frame``'s raw columns; unknown categories become zeros and are counted.

        Raises
        ------
        InvalidDataError
            On a missing column, a missing value (without ``impute``), an infinite value
            or text in a column that was numeric at :meth:`fit`.
        """
        if not hasattr(self, "columns_"):
            raise NotFittedError("TableEncoder is not fitted. Call fit(training_table) first.")
        absent = [c for c in self.columns_ if c not in frame.columns]
        if absent:
            raise InvalidDataError(
                f"{where}: no column {absent[0]!r}, which the training data had "
                f"({len(absent)} missing). Pass a table with the training data's columns."
            )
        filled = self._fill(frame[self.columns_], where)
        self.unknown_counts_ = self._count_unknown(filled, where)
        cats = list(self.categories_)
        coded = pd.DataFrame(index=filled.index)
        if self._onehot is not None:
            coded = pd.DataFrame(
                self._onehot.transform(filled[cats].astype(str)),
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
        series = frame[col]
        if not _is_numeric(series):
            raise InvalidDataError(
                f"{where}: column {col!r} holds text (e.g. {str(series.iloc[0])!r}) but was "
                "numeric in the training data. Write the numbers, or refit with the column "
                "named in --categorical."
            )
        values = series.to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            raise InvalidDataError(
                f"{where}: column {col!r} has infinite values (rows {_rows(bad)}). Replace or "
                "drop them."
            )
        return pd.DataFrame({col: values}, index=frame.index)

    def _count_unknown(self, frame: pd.DataFrame, where: str) -> dict[str, int]:
        counts = {
            c: int((~frame[c].astype(str).isin(levels)).sum())
            for c, levels in self.categories_.items()
        }
        seen = {c: n for c, n in counts.items() if n}
        if seen:
            listed = ", ".join(f"{c}: {n}" for c, n in seen.items())
            warn_caller(
                f"{where}: {sum(seen.values())} value(s) in categories the training data did "
                f"not have ({listed}); they are encoded as all zeros."
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
            "impute": bool(self.impute),
            "fill_values": {c: _plain(v) for c, v in self.fill_values_.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableEncoder:
        """Rebuild a fitted encoder from :meth:`to_dict`, checking every value's type."""
        if not isinstance(data, Mapping) or data.get("format") != _FORMAT:
            raise InvalidDataError(
                f"Not a saved table encoder (expected format {_FORMAT!r}). Save it again."
            )
        columns: Any = data.get("columns")
        categories: Any = data.get("categories")
        ok = (
            isinstance(columns, list)
            and all(isinstance(c, str) for c in columns)
            and isinstance(categories, dict)
            and all(
                c in columns and isinstance(v, list) and v and all(isinstance(x, str) for x in v)
                for c, v in categories.items()
            )
            and isinstance(data.get("fill_values", {}), dict)
            and all(
                c in columns and isinstance(v, (str, int, float)) and not isinstance(v, bool)
                for c, v in data.get("fill_values", {}).items()
            )
            and isinstance(data.get("impute", False), bool)
        )
        if not ok:
            raise InvalidDataError(
                "The saved table encoder is damaged (columns or categories of the wrong type). "
                "Save it again."
            )
        enc = cls(list(categories), impute=bool(data.get("impute", False)))
        enc.columns_ = list(columns)
        enc.categories_ = {c: list(categories[c]) for c in columns if c in categories}
        enc.fill_values_ = dict(data.get("fill_values", {}))
        enc._build()
        return enc

    def __repr__(self) -> str:
        return f"TableEncoder(categorical={self.categorical!r}, impute={self.impute})"


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
