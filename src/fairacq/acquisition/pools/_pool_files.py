"""Read a user's pool file: streamed when Parquet, in memory when CSV (``read_pool``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from fairacq.acquisition.pools._parquet_pool import ParquetPool
from fairacq.acquisition.pools._pool_source import DEFAULT_CHUNK_ROWS
from fairacq.data import FairDataset, check_table_file, dataset_from_frame, read_table
from fairacq.exceptions import InvalidDataError

if TYPE_CHECKING:
    from fairacq.data import TableColumns, TableEncoder

__all__ = ["read_pool"]


def read_pool(
    path: str | os.PathLike[str],
    *,
    like: FairDataset,
    label: str = "label",
    sensitive: str = "group",
    cost_column: str | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    name: str = "pool",
    columns: TableColumns | None = None,
    encoder: TableEncoder | None = None,
) -> tuple[FairDataset | ParquetPool, NDArray[np.float64] | None]:
    """Read a candidate pool file and its per-row costs.

    A Parquet file is streamed chunk by chunk (:class:`ParquetPool`: only labels, groups and
    costs stay in memory, so pools larger than memory work); a CSV file is read into memory
    (:func:`fairacq.data.read_table`) as a :class:`~fairacq.FairDataset`.

    Parameters
    ----------
    path : str or path-like
        ``.parquet`` or CSV (``.csv``, ``.csv.gz``, ...).
    like : FairDataset
        The training split (a Parquet pool takes its columns and groups).
    label, sensitive : str
        The label and group columns; every other column but ``cost_column`` is a feature.
    cost_column : str or None, default=None
        Per-row acquisition cost column, removed from the features.
    chunk_rows : int, default=65_536
        Rows read at a time from a Parquet pool.
    name : str, default="pool"
        The pool's short name.
    columns : TableColumns or None, default=None
        The roles of a raw table's columns (label, groups, cost, ignored columns, favourable
        label); replaces ``label``, ``sensitive`` and ``cost_column``.
    encoder : TableEncoder or None, default=None
        The encoder fitted on the raw training table (with ``columns``): raw columns are
        encoded as it encodes them.

    Returns
    -------
    (pool, costs)
        The pool (a :class:`ParquetPool` or a :class:`~fairacq.FairDataset`) and the costs
        (None without ``cost_column``).

    Raises
    ------
    CorruptFileError, InvalidDataError
        For a missing, empty, corrupt or unsupported file, or a missing column (one line
        naming the file and the fix).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(60)
    >>> frame = ds.X.assign(group=ds.sensitive["group"].to_numpy(), label=ds.y, cost=2.0)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pool.csv"
    >>> frame.to_csv(path, index=False)
    >>> pool, costs = read_pool(path, like=ds, cost_column="cost")
    >>> len(pool), float(costs.sum())
    (60, 120.0)
    """
    path = Path(path)
    if columns is not None:
        return _read_raw_pool(path, like, columns, encoder, chunk_rows, name)
    if check_table_file(path) == "Parquet":
        pool = ParquetPool(
            path,
            like=like,
            label=label,
            sensitive=sensitive,
            cost_column=cost_column,
            chunk_rows=chunk_rows,
            name=name,
        )
        return pool, pool.costs
    frame = read_table(path)
    costs = None
    if cost_column is not None:
        if cost_column not in frame.columns:
            raise InvalidDataError(
                f"{path}: no cost column {cost_column!r}. Name the pool's cost column, or "
                "leave it out to count rows."
            )
        costs = frame.pop(cost_column).to_numpy(dtype=float)
    return dataset_from_frame(frame, label=label, sensitive=sensitive, name=name), costs


def _read_raw_pool(
    path: Path,
    like: FairDataset,
    columns: TableColumns,
    encoder: TableEncoder | None,
    chunk_rows: int,
    name: str,
) -> tuple[FairDataset | ParquetPool, NDArray[np.float64] | None]:
    """Read a raw pool whose columns ``columns`` names, encoded as the training table."""
    from fairacq.data import prepare_table

    if check_table_file(path) != "Parquet":
        table = prepare_table(
            read_table(path), columns, encoder=encoder, name=name, privileged=like.privileged
        )
        return table.dataset, table.costs
    pool = ParquetPool(
        path,
        like=like,
        label=columns.label,
        sensitive=list(columns.sensitive),
        cost_column=columns.cost,
        chunk_rows=chunk_rows,
        name=name,
        positive=columns.positive,
        ignore=columns.drop,
        fill_values=encoder.fill_values_ if encoder is not None else None,
    )
    return pool, pool.costs
