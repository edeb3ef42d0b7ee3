"""One-hot encoding that remembers which columns came from which original feature.

An acquisition action buys a whole categorical feature at once (DADI, Bakker et al., §4: "we
combine multiple one-hot encoded binary features that stem from the same categorical feature
into a single action"), so every loader records ``feature_groups``: original feature name ->
the columns that encode it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from fairacq.exceptions import InvalidDataError

__all__ = ["one_hot_encode"]


def one_hot_encode(
    frame: pd.DataFrame,
    categorical_columns: Sequence[str],
    *,
    categories: Mapping[str, Sequence[str]] | None = None,
) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """One-hot encode categorical columns and return the feature groups.

    Each categorical column ``c`` with values ``v1 < v2 < ...`` (sorted as strings) becomes
    the float 0/1 columns ``"c=v1", "c=v2", ...`` placed where ``c`` was; every other column
    is kept as a float column. Every category gets a column (no category is dropped), so a
    row's group of columns always sums to one.

    Parameters
    ----------
    frame : pandas.DataFrame
        The features. Categorical columns may hold any hashable values; the other columns
        must be numeric.
    categorical_columns : sequence of str
        Names of the columns to encode. Pass ``[]`` to encode nothing.
    categories : mapping of str to sequence of str or None, default=None
        Fixed levels (as strings) for some categorical columns, so that two subsets of one
        table (a train and a test split) get the same columns. Levels absent from the frame
        give all-zero columns. By default the levels are the values found.

    Returns
    -------
    encoded : pandas.DataFrame
        Float columns, same row index as ``frame``.
    feature_groups : dict of str to list of str
        Original column name -> the columns of ``encoded`` that represent it, in the order of
        ``frame.columns``. Numeric columns map to themselves.

    Raises
    ------
    InvalidDataError
        If a named categorical column is missing, holds missing values or values outside its
        fixed ``categories``, or a column that is not named is not numeric.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"age": [30, 41, 25], "job": ["b", "a", "b"]})
    >>> X, groups = one_hot_encode(frame, ["job"])
    >>> list(X.columns), groups["job"]
    (['age', 'job=a', 'job=b'], ['job=a', 'job=b'])
    >>> X["job=b"].tolist()
    [1.0, 0.0, 1.0]
    """
    where = "one_hot_encode"
    cats = list(categorical_columns)
    missing = [c for c in cats if c not in frame.columns]
    if missing:
        raise InvalidDataError(
            f"{where}: categorical column {missing[0]!r} is not in the frame (columns: "
            f"{', '.join(map(str, frame.columns))}). Pass only existing column names."
        )
    pieces: list[pd.DataFrame] = []
    groups: dict[str, list[str]] = {}
    for col in frame.columns:
        name = str(col)
        series = frame[col]
        if col in cats:
            if series.isna().any():
                rows = np.flatnonzero(series.isna().to_numpy())[:3].tolist()
                raise InvalidDataError(
                    f"{where}: categorical column {name!r} has {int(series.isna().sum())} "
                    f"missing values (rows {rows}). Fill them with an explicit category first."
                )
            values = series.astype(str)
            if categories is not None and name in categories:
                levels = [str(level) for level in categories[name]]
            else:
                levels = sorted(values.unique())
            codes = pd.Index(levels).get_indexer(pd.Index(values))
            if (codes < 0).any():
                unknown = sorted(set(values[codes < 0]))[:3]
                raise InvalidDataError(
                    f"{where}: column {name!r} has values {unknown} outside its categories "
                    f"{levels[:10]}. Add them to categories[{name!r}]."
                )
            block = np.zeros((len(values), len(levels)), dtype=np.float64)
            block[np.arange(len(values)), codes] = 1.0
            columns = [f"{name}={level}" for level in levels]
            pieces.append(pd.DataFrame(block, columns=columns, index=frame.index))
            groups[name] = columns
        else:
            if not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)):
                raise InvalidDataError(
                    f"{where}: column {name!r} is not numeric (dtype {series.dtype}) and is not "
                    "listed in categorical_columns. Add it to categorical_columns or convert it."
                )
            pieces.append(series.astype(np.float64).to_frame(name=name))
            groups[name] = [name]
    encoded = pd.concat(pieces, axis=1) if pieces else pd.DataFrame(index=frame.index)
    return encoded, groups
