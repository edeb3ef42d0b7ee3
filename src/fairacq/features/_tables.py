"""The data :func:`~fairacq.features.train_dadi` trains on: DADI's split, and its encoder.

A user's raw table is split first (DADI's 87.5/12.5 train-val/test, then 80/20) and its
:class:`~fairacq.data.TableEncoder` is fitted on the training and validation rows only, so the
test rows are encoded as new people would be (a category first seen there is counted and
reported). Each raw column becomes one acquisition action (the encoder's
``feature_groups_``). With ``include_sensitive`` the group columns are features too, as in
Bakker et al. (the group role then reads a copy named ``sensitive:<column>``). A bundled dataset
(a :class:`~fairacq.data.FairDataset`) gets an encoder rebuilt from its one-hot groups where
its columns follow the ``column=value`` pattern, so its models also take raw columns.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from fairacq.data import (
    FairDataset,
    PreparedTable,
    TableColumns,
    TableEncoder,
    prepare_table,
    split_dadi,
)
from fairacq.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["SENSITIVE_PREFIX", "DadiData", "dadi_data", "encoder_from_groups"]

#: How a group column copied for its role is named (as ``FairDataset.to_frame`` does).
SENSITIVE_PREFIX = "sensitive:"


@dataclass(frozen=True)
class DadiData:
    """The encoded parts DADI trains, selects and is scored on, and how they were encoded.

    Attributes
    ----------
    train, validation, test : FairDataset
        DADI's split.
    encoder : TableEncoder or None
        Raw columns -> the model's columns (None for a dataset whose columns it cannot
        describe).
    columns : TableColumns or None
        The roles of a raw table's columns (None for a dataset).
    include_sensitive : bool
        Whether the group columns are features too.
    warnings : tuple of str
        What the encoding met on the test rows (categories the training rows lacked).
    """

    train: FairDataset
    validation: FairDataset
    test: FairDataset
    encoder: TableEncoder | None
    columns: TableColumns | None
    include_sensitive: bool = False
    warnings: tuple[str, ...] = ()


def dadi_data(
    data: FairDataset | PreparedTable | pd.DataFrame,
    *,
    columns: TableColumns | None = None,
    include_sensitive: bool = False,
    random_state: int = 0,
    max_rows: int | None = None,
    source: str = "table",
) -> DadiData:
    """Subsample, split and encode ``data`` for DADI (see the module's description).

    Raises
    ------
    InvalidParameterError
        For a raw DataFrame without ``columns``, or ``columns`` / ``include_sensitive``
        with data that is already encoded.
    InvalidDataError
        For a table the columns do not fit (missing columns, labels that are not 0/1 without
        ``positive``, missing values without ``impute``, too few rows to split).
    """
    if isinstance(data, pd.DataFrame):
        if columns is None:
            raise InvalidParameterError(
                "train_dadi: a raw DataFrame needs columns=TableColumns(label=..., "
                "sensitive=(...)) naming its label and group columns."
            )
        keep = _subsample(len(data), max_rows, random_state)
        frame = data if keep is None else data.iloc[keep]
        return _table_data(frame, columns, include_sensitive, random_state, source)
    if columns is not None or include_sensitive:
        raise InvalidParameterError(
            "train_dadi: columns and include_sensitive apply to a raw DataFrame only; a "
            "FairDataset or PreparedTable is encoded already (for a bundled dataset, choose "
            "include_sensitive_features when loading it)."
        )
    prepared = data if isinstance(data, PreparedTable) else None
    dataset = data.dataset if isinstance(data, PreparedTable) else data
    keep = _subsample(len(dataset), max_rows, random_state)
    if keep is not None:
        dataset = dataset.subset(keep)
    split = split_dadi(dataset, random_state=random_state)
    encoder = prepared.encoder if prepared is not None else encoder_from_groups(dataset)
    table_columns = None
    if prepared is not None and "columns" in dataset.metadata:
        table_columns = TableColumns.from_dict(dataset.metadata["columns"])
    return DadiData(split.train, split.validation, split.test, encoder, table_columns)


def _subsample(n: int, max_rows: int | None, random_state: int) -> Any:
    """Sorted positions of a random subsample of ``max_rows`` rows, or None for all."""
    if max_rows is not None and (isinstance(max_rows, bool) or int(max_rows) < 1):
        raise InvalidParameterError(
            f"max_rows must be an int >= 1 (or None for every row), got {max_rows!r}."
        )
    if max_rows is None or n <= max_rows:
        return None
    return np.sort(np.random.default_rng(random_state).choice(n, max_rows, replace=False))


def _table_data(
    frame: pd.DataFrame,
    columns: TableColumns,
    include_sensitive: bool,
    random_state: int,
    source: str,
) -> DadiData:
    """Split a raw table, fit the encoder on its training rows and encode every part."""
    frame = frame.reset_index(drop=True)
    # A first pass checks the table in the user's terms and gives the labels and groups the
    # split stratifies by; its encoder (fitted on every row) is not kept.
    split = split_dadi(
        prepare_table(frame, columns, name=source).dataset, random_state=random_state
    )
    roles = columns
    if include_sensitive:
        frame, roles = _sensitive_as_features(frame, columns)
    fit_rows = np.sort(np.concatenate([split.indices["train"], split.indices["validation"]]))
    raw = frame.drop(columns=list(dict.fromkeys(roles.roles())))
    encoder = TableEncoder(roles.categorical, impute=roles.impute)
    encoder.fit(raw.iloc[fit_rows].reset_index(drop=True), where=f"{source} (training rows)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # reported below, for the test rows
        dataset = prepare_table(frame, roles, encoder=encoder, name=source).dataset
    unknown = {c: n for c, n in encoder.unknown_counts_.items() if n}
    notes: tuple[str, ...] = ()
    if unknown:
        listed = ", ".join(f"{c}: {n}" for c, n in unknown.items())
        notes = (
            f"{source}: {sum(unknown.values())} value(s) of the test rows are in categories "
            f"the training rows did not have ({listed}); they are encoded as all zeros.",
        )
    return DadiData(
        train=dataset.subset(split.indices["train"]),
        validation=dataset.subset(split.indices["validation"]),
        test=dataset.subset(split.indices["test"]),
        encoder=encoder,
        columns=columns,
        include_sensitive=include_sensitive,
        warnings=notes,
    )


def _sensitive_as_features(
    frame: pd.DataFrame, columns: TableColumns
) -> tuple[pd.DataFrame, TableColumns]:
    """Keep the group columns as features: the group role reads a ``sensitive:`` copy."""
    frame = frame.copy()
    roles = []
    for name in columns.sensitive:
        copy = f"{SENSITIVE_PREFIX}{name}"
        if copy in frame.columns:
            raise InvalidDataError(
                f"the table already has a column {copy!r}, the name fairacq gives the copy of "
                f"group column {name!r} offered as a feature. Rename it, or exclude the group "
                "columns from the features (--exclude-sensitive)."
            )
        frame[copy] = frame[name]
        roles.append(copy)
    return frame, replace(columns, sensitive=tuple(roles))


def encoder_from_groups(dataset: FairDataset) -> TableEncoder | None:
    """Return the encoder of a dataset's one-hot columns, or None if it has other columns.

    Every feature group must be one numeric column of its own name or the columns
    ``"group=value"`` in the order a :class:`TableEncoder` gives them (values sorted as text).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> encoder = encoder_from_groups(load_toy())
    >>> encoder.columns_
    ['x1', 'x2', 'x3', 'x4', 'region']
    >>> encoder.feature_names_ == list(load_toy().X.columns)
    True
    """
    categories: dict[str, list[str]] = {}
    for group, members in dataset.feature_groups.items():
        if members == [group]:
            continue
        prefix = f"{group}="
        if not all(m.startswith(prefix) for m in members):
            return None
        categories[group] = [m[len(prefix) :] for m in members]
    length = max((len(v) for v in categories.values()), default=1)
    raw = pd.DataFrame(
        {
            group: categories[group] + categories[group][-1:] * (length - len(categories[group]))
            if group in categories
            else [0.0] * length
            for group in dataset.feature_groups
        }
    )
    encoder = TableEncoder(list(categories)).fit(raw)
    if encoder.feature_names_ != list(dataset.X.columns):
        return None
    return encoder
