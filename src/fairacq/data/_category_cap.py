"""Keep a categorical column's one-hot encoding small: rare categories grouped as one.

A text column with 20,000 distinct values would become 20,000 dense 0/1 columns. :func:`
cap_categories` asks scikit-learn's :class:`~sklearn.preprocessing.OneHotEncoder` (its
``max_categories``) which categories are frequent enough to keep; the others are grouped into
one ``"(other)"`` column, and a warning says so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairacq._warnings import warn_caller
from fairacq.exceptions import ResultWarning

__all__ = [
    "MAX_CATEGORIES",
    "OTHER",
    "cap_categories",
    "category_text",
    "group_rare",
    "known_mask",
]

#: Default largest number of one-hot columns per categorical column (the last one "(other)").
MAX_CATEGORIES = 50
#: The category that stands for every grouped (rare) value.
OTHER = "(other)"


def cap_categories(
    values: pd.Series, max_categories: int | None = MAX_CATEGORIES, *, where: str = "table"
) -> tuple[list[str], list[str]]:
    """Split a column's categories into the kept ones and the rare ones grouped together.

    Parameters
    ----------
    values : pandas.Series
        The column's training values, as text, without missing values.
    max_categories : int or None, default=MAX_CATEGORIES
        Largest number of one-hot columns, the ``"(other)"`` column included (scikit-learn's
        ``max_categories``); ``None``: no cap.
    where : str, default="table"
        Quoted in the warning.

    Returns
    -------
    kept, grouped : list of str
        Sorted categories keeping a column each, and those grouped into ``"(other)"``
        (empty when the column has no more than ``max_categories`` categories).

    Examples
    --------
    >>> import pandas as pd
    >>> cap_categories(pd.Series(["a", "b", "a"], name="job"))
    (['a', 'b'], [])
    """
    categories = sorted(set(values))
    if max_categories is None or len(categories) <= max_categories:
        return categories, []
    from sklearn.preprocessing import OneHotEncoder

    onehot = OneHotEncoder(max_categories=max_categories, handle_unknown="infrequent_if_exist")
    onehot.fit(values.to_frame())
    rare = onehot.infrequent_categories_[0]
    grouped = sorted(str(v) for v in (rare if rare is not None else []))
    kept = sorted(set(categories) - set(grouped))
    warn_caller(
        f"{where}: column {values.name!r} has {len(categories):,} categories; the "
        f"{len(kept)} most frequent are kept and the other {len(grouped):,} grouped as "
        f"'{values.name}={OTHER}' (at most {max_categories} columns per categorical column).",
        ResultWarning,
    )
    return kept, grouped


def group_rare(values: pd.Series, kept: list[str], grouped: list[str]) -> pd.Series:
    """Replace every value outside ``kept`` by ``"(other)"`` when some categories are grouped."""
    if not grouped:
        return values
    return values.where(values.isin(kept), OTHER).astype(object)


def known_mask(values: pd.Series, kept: list[str], grouped: list[str]) -> np.ndarray:
    """Whether each value is a training category (kept or grouped)."""
    return np.asarray(values.isin(kept) | values.isin(grouped))


def category_text(values: pd.Series, known: list[str]) -> pd.Series:
    """Return ``values`` as category text; a number equal to a numeric training category is it.

    A column of codes read as integers in one file and as floats in another (``3`` and
    ``3.0``, e.g. when the other file has a gap) holds the same categories: ``3.0`` is
    written as the training category ``"3"`` (and ``3`` as ``"3.0"``), not counted unseen.

    Examples
    --------
    >>> import pandas as pd
    >>> category_text(pd.Series([3.0, 4.0, 7.5]), ["3", "4", "a"]).tolist()
    ['3', '4', '7.5']
    """
    text = values.astype(str)
    unseen = ~text.isin(known)
    if not unseen.any():
        return text
    codes = pd.Series(known, dtype=object)
    numbers = pd.to_numeric(codes, errors="coerce")
    by_number = dict(zip(numbers[numbers.notna()], codes[numbers.notna()], strict=True))
    if not by_number:
        return text
    matched = pd.to_numeric(values[unseen], errors="coerce").map(by_number)
    return text.where(~unseen, matched.where(matched.notna(), text[unseen]))
