"""The rows an acquirer paid for, as the user's own rows: original columns, in order.

Every pool row whose cost the run paid is listed once, at the step that paid it, with
whether the final model was trained on it and what it cost, so the ``cost_paid`` column
sums to the run's reported cost:

- kept batches are paid and trained on (every method);
- Falcon's postponed rows were paid (their labels bought) but not trained on;
- under ``cost_model="evaluated"`` a rejected batch is paid too: its rows are listed as not
  trained on, unless a later batch that was kept holds them (a row is never paid twice).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from fairacq._base import Strategy
from fairacq.acquisition.pools._parquet_pool import ParquetPool
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidDataError, NotFittedError

if TYPE_CHECKING:
    from fairacq._trace import Trace

__all__ = ["ROW_COLUMNS", "acquired_rows", "acquisition_steps", "check_pool_columns"]

#: The bookkeeping columns :func:`acquired_rows` puts before the pool's own columns.
ROW_COLUMNS = ("order", "step", "batch", "pool_row", "trained_on", "cost_paid")


def check_pool_columns(columns: Iterable[str], *, where: str = "the pool") -> None:
    """Refuse pool columns named like :data:`ROW_COLUMNS` (call it before a run).

    Parameters
    ----------
    columns : iterable of str
        The pool's column names.
    where : str, default="the pool"
        Names the pool in the message.

    Raises
    ------
    InvalidDataError
        Naming the clashing columns.

    Examples
    --------
    >>> check_pool_columns(["age", "fee", "cost"])
    """
    clash = [c for c in ROW_COLUMNS if c in set(columns)]
    if clash:
        raise InvalidDataError(
            f"{where} has columns named {clash}, which the list of acquired rows uses for "
            "its own bookkeeping. Rename those columns in the pool."
        )


def acquisition_steps(trace: Trace) -> pd.DataFrame:
    """One row per pool row paid for, in the order paid.

    Parameters
    ----------
    trace : Trace
        A finished or checkpointed acquisition trace.

    Returns
    -------
    pandas.DataFrame
        ``order`` (from 0), ``pool_row``, ``step`` (the trace step that paid the row),
        ``batch`` (counts the batches that paid for rows, from 1) and ``trained_on``
        (whether the final model learned the row).

    Examples
    --------
    >>> from fairacq.acquisition import RandomAcquirer
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(300, random_state=0)
    >>> acq = RandomAcquirer(budget=20, batch_size=10, random_state=0)
    >>> trace = acq.fit(ds.subset(range(100)), ds.subset(range(200, 300)),
    ...                 validation=ds.subset(range(100, 200))).trace_
    >>> steps = acquisition_steps(trace)
    >>> len(steps), int(steps["batch"].max()), bool(steps["trained_on"].all())
    (20, 2, True)
    """
    frame = trace.to_frame()
    frame = frame[frame["step"] > 0]
    config = trace.meta.get("config") or {}
    pays_tried = config.get("cost_model", "kept") == "evaluated"
    trained = {int(i) for b, a in zip(frame["batch"], frame["accepted"], strict=True) if a
               for i in b}  # fmt: skip
    paid: dict[int, tuple[int, int]] = {}  # pool row -> (step, batch number)
    number = 0
    for step, rows in _paid_per_step(frame, pays_tried):
        new = [i for i in dict.fromkeys(rows) if i not in paid]
        if new:
            number += 1
            paid.update(dict.fromkeys(new, (step, number)))
    positions = list(paid)
    return pd.DataFrame(
        {
            "order": np.arange(len(positions)),
            "pool_row": np.asarray(positions, dtype=np.int64),
            "step": np.asarray([paid[i][0] for i in positions], dtype=np.int64),
            "batch": np.asarray([paid[i][1] for i in positions], dtype=np.int64),
            "trained_on": np.asarray([i in trained for i in positions], dtype=bool),
        }
    )


def _paid_per_step(frame: pd.DataFrame, pays_tried: bool) -> Iterator[tuple[int, list[int]]]:
    """Yield each step and the pool rows it paid for (kept first, then postponed)."""
    postponed = frame["postponed"] if "postponed" in frame else [()] * len(frame)
    for step, batch, accepted, later in zip(
        frame["step"], frame["batch"], frame["accepted"], postponed, strict=True
    ):
        rows = [int(i) for i in batch] if accepted or pays_tried else []
        yield int(step), rows + [int(i) for i in _cells(later)]


def _cells(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(np.asarray(value).ravel())


def acquired_rows(
    acquirer: Strategy,
    pool: FairDataset | ParquetPool,
    *,
    frame: pd.DataFrame | None = None,
    costs: ArrayLike | None = None,
) -> pd.DataFrame:
    """Return every pool row the run paid for, with its original columns, in order.

    Parameters
    ----------
    acquirer : Acquirer
        A run acquirer (``trace_`` set).
    pool : FairDataset or ParquetPool
        The pool it ran on. A Parquet pool's rows are read back from its file, every column.
    frame : pandas.DataFrame or None, default=None
        The pool's original table (row ``i`` = pool row ``i``), for a pool read into memory
        from a raw table; without it an in-memory pool gives its encoded columns.
    costs : array-like of shape (len(pool),) or None, default=None
        Cost of each pool row; None takes the costs the run used (``acquirer.costs_``).

    Returns
    -------
    pandas.DataFrame
        ``order``, ``step``, ``batch``, ``pool_row``, ``trained_on`` (whether the final model
        learned the row: a row paid for and then set aside was not) and ``cost_paid`` (what
        the row cost; the column sums to the run's reported cost), then the pool's columns.

    Raises
    ------
    NotFittedError
        If the acquirer has not run.
    InvalidDataError
        If a pool column has one of the bookkeeping columns' names.
    """
    trace = getattr(acquirer, "trace_", None)
    if trace is None:
        raise NotFittedError("acquired_rows: the acquirer has not run. Call run() first.")
    steps = acquisition_steps(trace)
    positions = steps["pool_row"].to_numpy(dtype=np.int64)
    if costs is None:
        costs = getattr(acquirer, "costs_", None)
    price = np.ones(len(pool)) if costs is None else np.asarray(costs, dtype=np.float64)
    steps["cost_paid"] = price[positions]
    if isinstance(pool, ParquetPool):
        rows = _parquet_rows(pool, positions)
    elif frame is not None:
        rows = frame.iloc[positions].reset_index(drop=True)
    else:
        rows = pool.subset(positions).to_frame().reset_index(drop=True)
    check_pool_columns(rows.columns)
    return pd.concat([steps[list(ROW_COLUMNS)], rows], axis=1)


def _parquet_rows(pool: ParquetPool, positions: np.ndarray) -> pd.DataFrame:
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    names = pq.ParquetFile(pool.path).schema_arrow.names
    reader = pool.reader()
    extra = [c for c in names if c not in reader.columns]
    table = reader.read_positions(positions, extra=extra).to_pandas()
    rows: pd.DataFrame = table[names].reset_index(drop=True)
    return rows
