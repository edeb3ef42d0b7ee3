"""The rows an acquirer kept, as the user's own rows: original columns, in order."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fairacq.acquisition._parquet_pool import ParquetPool
from fairacq.exceptions import NotFittedError

if TYPE_CHECKING:
    from fairacq._trace import Trace

__all__ = ["acquired_rows", "acquisition_steps"]


def acquisition_steps(trace: Trace) -> pd.DataFrame:
    """One row per acquired pool row: ``order``, ``pool_row``, ``step`` and ``batch``.

    ``step`` is the trace step that kept the row, ``batch`` counts the kept batches from 1.
    """
    frame = trace.to_frame()
    kept = frame[(frame["step"] > 0) & frame["accepted"].astype(bool)]
    rows, steps, batches = [], [], []
    for number, (step, batch) in enumerate(zip(kept["step"], kept["batch"], strict=True), 1):
        rows += [int(i) for i in batch]
        steps += [int(step)] * len(batch)
        batches += [number] * len(batch)
    return pd.DataFrame(
        {"order": np.arange(len(rows)), "pool_row": rows, "step": steps, "batch": batches}
    )


def acquired_rows(acquirer: Any, pool: Any, *, frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Return the acquired pool rows with their original columns, in acquisition order.

    Parameters
    ----------
    acquirer : Acquirer
        A run acquirer (``trace_`` set).
    pool : FairDataset or ParquetPool
        The pool it ran on. A Parquet pool's rows are read back from its file, every column.
    frame : pandas.DataFrame or None, default=None
        The pool's original table (row ``i`` = pool row ``i``), for a pool read into memory
        from a raw table; without it an in-memory pool gives its encoded columns.

    Returns
    -------
    pandas.DataFrame
        ``order``, ``step``, ``batch``, ``pool_row``, then the pool's columns.
    """
    trace = getattr(acquirer, "trace_", None)
    if trace is None:
        raise NotFittedError("acquired_rows: the acquirer has not run. Call run() first.")
    steps = acquisition_steps(trace)
    positions = steps["pool_row"].to_numpy(dtype=np.int64)
    if isinstance(pool, ParquetPool):
        rows = _parquet_rows(pool, positions)
    elif frame is not None:
        rows = frame.iloc[positions].reset_index(drop=True)
    else:
        rows = pool.subset(positions).to_frame().reset_index(drop=True)
    return pd.concat([steps[["order", "step", "batch", "pool_row"]], rows], axis=1)


def _parquet_rows(pool: ParquetPool, positions: np.ndarray) -> pd.DataFrame:
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    names = pq.ParquetFile(pool.path).schema_arrow.names
    reader = pool.reader()
    extra = [c for c in names if c not in reader.columns]
    table = reader.read_positions(positions, extra=extra).to_pandas()
    rows: pd.DataFrame = table[names].reset_index(drop=True)
    return rows
