"""Decide what each raw feature column of a user's table holds, and read it that way.

:func:`infer_kind` looks at a training column once and returns its :class:`ColumnKind`:
``"numeric"`` (numbers, also numbers stored as text such as ``"12,345"``, with a few
placeholder words such as ``"unknown"`` read as missing), ``"boolean"`` (true/false, read as
1/0) or ``"categorical"`` (one-hot encoded). A column it cannot read as the user meant is
refused with one line naming the column and the fix: an identifier (a different value in
every row), dates, or placeholder words in a numeric column without ``impute``.
:func:`as_numbers` reads any later table's column (validation rows, a pool) by the same kind,
and refuses text where the training rows held numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fairacq._warnings import warn_caller
from fairacq.exceptions import InvalidDataError, ResultWarning

__all__ = ["ColumnKind", "as_numbers", "infer_kind", "looks_numeric"]

#: Fewest rows for "a different value in every row" to mean an identifier.
ID_MIN_ROWS = 20
#: Share of a text column's values that must be numbers for the rest to be placeholders.
NUMERIC_SHARE = 0.9
#: Most distinct placeholder words (e.g. "unknown", "?") a numeric column may hold.
MAX_PLACEHOLDERS = 5

_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_BOOLEAN = {"true": 1.0, "false": 0.0}


@dataclass(frozen=True)
class ColumnKind:
    """How one raw feature column is read.

    Parameters
    ----------
    kind : {"numeric", "boolean", "categorical"}
        Numbers, true/false (read as 1/0), or categories (one-hot encoded).
    missing : tuple of str, default=()
        Words of a numeric column read as missing values (e.g. ``"unknown"``).
    """

    kind: str
    missing: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {"kind": self.kind, "missing": list(self.missing)}

    @classmethod
    def from_dict(cls, data: Any) -> ColumnKind:
        """Inverse of :meth:`to_dict`; raises :class:`InvalidDataError` on a damaged value."""
        ok = (
            isinstance(data, dict)
            and data.get("kind") in ("numeric", "boolean", "categorical")
            and isinstance(data.get("missing", []), list)
            and all(isinstance(m, str) for m in data.get("missing", []))
        )
        if not ok:
            raise InvalidDataError("The saved column kinds are damaged. Save the encoder again.")
        return cls(str(data["kind"]), tuple(data.get("missing", [])))


def looks_numeric(text: str) -> bool:
    """Whether ``text`` reads as a number (``"12"``, ``"-0.5"``, ``"12,345"``)."""
    return bool(_parse(pd.Series([text], dtype=object)).notna().all())


def _parse(values: pd.Series) -> pd.Series:
    """Numbers of a text column (thousands separators allowed); NaN where not a number."""
    text = values.astype(str).str.strip()
    numbers = pd.to_numeric(text, errors="coerce")
    grouped = numbers.isna() & text.str.match(_THOUSANDS)
    if grouped.any():
        numbers[grouped] = pd.to_numeric(text[grouped].str.replace(",", ""), errors="coerce")
    return numbers.astype(np.float64)


def _refuse_dates(series: pd.Series, name: str, where: str) -> None:
    if pd.api.types.is_datetime64_any_dtype(series) or isinstance(series.dtype, pd.PeriodDtype):
        dated = True
    else:
        sample = pd.Series(series.dropna().astype(str).unique()[:200])
        with_digits = sample[sample.str.contains(r"\d")]
        if len(with_digits) < max(1, int(0.9 * len(sample))):
            return
        parsed = pd.to_datetime(with_digits, errors="coerce", format="mixed")
        dated = bool(parsed.notna().mean() >= NUMERIC_SHARE)
    if dated:
        raise InvalidDataError(
            f"{where}: column {name!r} holds dates (e.g. {str(series.dropna().iloc[0])!r}), "
            f"which are not read as features. Drop it (--drop {name}), or add numeric parts "
            "of it (year, month, days since a start) as columns of their own."
        )


def _refuse_identifier(series: pd.Series, name: str, where: str) -> None:
    n = len(series)
    if n < ID_MIN_ROWS or series.isna().any() or series.nunique() != n:
        return
    if pd.api.types.is_float_dtype(series):
        return
    if pd.api.types.is_integer_dtype(series) and int(series.max()) - int(series.min()) != n - 1:
        return
    raise InvalidDataError(
        f"{where}: column {name!r} has a different value in every row (e.g. "
        f"{str(series.iloc[0])!r}), like an identifier, which no model can learn from. Drop "
        f"it (--drop {name}), or name it in --categorical to keep it as categories."
    )


def _text_kind(series: pd.Series, name: str, *, impute: bool, where: str) -> ColumnKind:
    values = series.dropna()
    text = values.astype(str).str.strip()
    if len(text) and set(text.str.lower()) <= set(_BOOLEAN):
        return ColumnKind("boolean")
    numbers = _parse(values)
    share = float(numbers.notna().mean()) if len(values) else 0.0
    words = sorted(set(text[numbers.isna().to_numpy()]))
    if share == 1.0:
        if text.str.contains(",").any():
            warn_caller(
                f"{where}: column {name!r} holds numbers written with thousands separators "
                f"(e.g. {text[text.str.contains(',')].iloc[0]!r}); read as numbers."
            )
        return ColumnKind("numeric")
    if share >= NUMERIC_SHARE and len(words) <= MAX_PLACEHOLDERS:
        return _placeholders(name, words, int(numbers.isna().sum()), impute=impute, where=where)
    _refuse_dates(series, name, where)
    _refuse_identifier(series, name, where)
    return ColumnKind("categorical")


def _placeholders(
    name: str, words: list[str], count: int, *, impute: bool, where: str
) -> ColumnKind:
    listed = ", ".join(repr(w) for w in words)
    if not impute:
        raise InvalidDataError(
            f"{where}: column {name!r} holds numbers but {count} value(s) are {listed}. "
            "Replace them with numbers (or leave them empty) and add --impute (impute=True) "
            "to fill them with the median."
        )
    warn_caller(
        f"{where}: column {name!r} holds numbers; its {count} value(s) {listed} are read as "
        "missing and filled with the median.",
        ResultWarning,
    )
    return ColumnKind("numeric", tuple(words))


def infer_kind(
    series: pd.Series, *, categorical: bool = False, impute: bool = False, where: str = "table"
) -> ColumnKind:
    """Decide how a training column is read.

    Parameters
    ----------
    series : pandas.Series
        The column (training rows), named.
    categorical : bool, default=False
        The user named it categorical: kept as categories, whatever it holds.
    impute : bool, default=False
        Placeholder words in a numeric column (``"unknown"``, ``"?"``) are read as missing
        values (to be filled) instead of refused.
    where : str, default="table"
        Quoted in messages.

    Returns
    -------
    ColumnKind

    Raises
    ------
    InvalidDataError
        For an identifier-like column, dates, or placeholder words without ``impute``.

    Examples
    --------
    >>> import pandas as pd
    >>> infer_kind(pd.Series(["true", "false", "True"], name="member")).kind
    'boolean'
    >>> infer_kind(pd.Series(["a", "b", "a"], name="job")).kind
    'categorical'
    """
    name = str(series.name)
    if categorical:
        return ColumnKind("categorical")
    if not _is_text(series):
        _refuse_dates(series, name, where)  # only a datetime column: refused
    if pd.api.types.is_bool_dtype(series):
        return ColumnKind("boolean")
    if pd.api.types.is_numeric_dtype(series) and not isinstance(series.dtype, pd.CategoricalDtype):
        _refuse_identifier(series, name, where)
        return ColumnKind("numeric")
    return _text_kind(series, name, impute=impute, where=where)


def _is_text(series: pd.Series) -> bool:
    return bool(
        pd.api.types.is_object_dtype(series)
        or pd.api.types.is_string_dtype(series)
        or isinstance(series.dtype, pd.CategoricalDtype)
    )


def as_numbers(series: pd.Series, kind: ColumnKind, *, where: str = "table") -> pd.Series:
    """Read a numeric or boolean column as floats (missing values stay NaN).

    Raises
    ------
    InvalidDataError
        If the column holds text the training column did not (e.g. words where the training
        rows held numbers).

    Examples
    --------
    >>> import pandas as pd
    >>> as_numbers(pd.Series(["1,200", "7"], name="n"), ColumnKind("numeric")).tolist()
    [1200.0, 7.0]
    """
    if pd.api.types.is_bool_dtype(series):
        return series.astype(np.float64)
    if pd.api.types.is_numeric_dtype(series) and not isinstance(series.dtype, pd.CategoricalDtype):
        return series.astype(np.float64)
    gaps = series.isna()
    text = series.astype(str).str.strip()
    if kind.kind == "boolean":
        numbers = text.str.lower().map(_BOOLEAN).astype(np.float64)
    else:
        numbers = _parse(series).where(~text.isin(kind.missing))
    bad = numbers.isna() & ~gaps & ~text.isin(kind.missing)
    if bad.any():
        name = series.name
        example = text[bad.to_numpy()].iloc[0]
        raise InvalidDataError(
            f"{where}: column {name!r} holds text (e.g. {example!r}) but held "
            f"{'true/false' if kind.kind == 'boolean' else 'numbers'} in the training data. "
            "Write the values as in the training data, or name the column in --categorical "
            "when training."
        )
    return numbers.where(~gaps)
