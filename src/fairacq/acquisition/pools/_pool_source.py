"""Where the acquisition loop reads its candidate pool from: memory or a file, block by block.

Every acquirer sees the pool as a :class:`PoolSource`: small per-row arrays (labels, group
codes, costs) held in memory, features read block by block through :meth:`PoolSource.reader`
and fetched by position with :meth:`PoolSource.take` for the rows a batch tries. An
in-memory :class:`~fairacq.FairDataset` is wrapped in :class:`InMemoryPool`; a Parquet file
larger than memory is a :class:`~fairacq.acquisition.ParquetPool`. Both score the same
blocks, so they give the same acquisition order.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import Interval, validate_parameter_constraints
from fairacq.acquisition.pools._chunk_map import (
    BlockFn,
    ChunkExecutor,
    RangeReader,
    SerialChunkExecutor,
    map_blocks,
)
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidDataError, InvalidParameterError

R = TypeVar("R")

__all__ = [
    "DEFAULT_BLOCK_ROWS",
    "DEFAULT_CHUNK_ROWS",
    "InMemoryPool",
    "PoolSource",
    "as_pool_source",
]

#: Rows read (and sent to a worker) at a time.
DEFAULT_CHUNK_ROWS = 65_536
#: Rows scored together; fixes the arithmetic, so results do not depend on ``chunk_rows``.
DEFAULT_BLOCK_ROWS = 4096


class PoolSource(ABC):
    """A candidate pool read block by block (see the module docstring).

    Parameters
    ----------
    chunk_rows : int
        Rows read at a time (one task of a chunk executor).
    block_rows : int
        Rows scored together. Two pools give identical scores only with the same block size.
    """

    def __init__(self, *, chunk_rows: int, block_rows: int) -> None:
        validate_parameter_constraints(
            {
                "chunk_rows": [Interval(int, 1, None, closed="left")],
                "block_rows": [Interval(int, 1, None, closed="left")],
            },
            {"chunk_rows": chunk_rows, "block_rows": block_rows},
            type(self).__name__,
        )
        self.chunk_rows = int(chunk_rows)
        self.block_rows = int(block_rows)

    # -- what every source provides ------------------------------------------------------
    @abstractmethod
    def __len__(self) -> int:
        """Return the number of pool rows."""

    @property
    @abstractmethod
    def name(self) -> str:
        """Short name of the pool."""

    @property
    @abstractmethod
    def template(self) -> FairDataset:
        """A dataset with the pool's columns, groups and feature groups (its rows unused)."""

    @property
    @abstractmethod
    def y(self) -> NDArray[np.int64]:
        """Binary label of every row."""

    @property
    @abstractmethod
    def s(self) -> NDArray[np.int64]:
        """Group code of every row (codes of ``template.group_names``)."""

    @property
    def costs(self) -> NDArray[np.float64] | None:
        """Cost of every row, or None when the pool has no cost column."""
        return None

    @abstractmethod
    def reader(self) -> RangeReader:
        """Return a picklable reader of the encoded features by row range."""

    def local_reader(self) -> RangeReader:
        """Return the fastest reader for blocks scored in this process (default: ``reader()``)."""
        return self.reader()

    def reader_for(self, executor: ChunkExecutor | None) -> RangeReader:
        """Return the reader for blocks scored by ``executor``.

        Blocks scored here (no executor, or a serial one) use :meth:`local_reader`; other
        executors get :meth:`reader`, which each worker can use on its own.
        """
        if executor is None or isinstance(executor, SerialChunkExecutor):
            return self.local_reader()
        return self.reader()

    @abstractmethod
    def take(self, positions: ArrayLike) -> FairDataset:
        """Return the rows at ``positions`` (in that order) as a dataset."""

    @abstractmethod
    def sensitive_values(self, column: str) -> NDArray[np.object_] | None:
        """Return a sensitive column's values as strings (``None`` if there is no such column)."""

    # -- derived -------------------------------------------------------------------------
    @property
    def feature_names(self) -> list[str]:
        """Feature column names, in the order of the feature matrix."""
        return self.template.feature_names

    @property
    def feature_groups(self) -> dict[str, list[str]]:
        """Acquisition units: name -> the columns bought together."""
        return self.template.feature_groups

    @property
    def group_names(self) -> tuple[str, ...]:
        """Group names, indexed by code."""
        return self.template.group_names

    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return self.template.n_groups

    @property
    def privileged_code(self) -> int | None:
        """Code of the privileged group, if declared."""
        return self.template.privileged_code

    def map_blocks(
        self,
        fn: BlockFn[R],
        *,
        side: Mapping[str, NDArray[np.generic]] | None = None,
        executor: ChunkExecutor | None = None,
    ) -> list[R]:
        """Apply ``fn(X_block, side_block)`` to every block, in order (see ``map_blocks``)."""
        return map_blocks(
            self.reader_for(executor),
            fn,
            n_rows=len(self),
            chunk_rows=self.chunk_rows,
            block_rows=self.block_rows,
            side=side,
            executor=executor,
        )

    def read_rows(self, positions: ArrayLike) -> NDArray[np.float64]:
        """Return the features of the rows at ``positions`` (in that order, C-contiguous)."""
        return np.ascontiguousarray(self.take(positions).to_numpy())

    def labels_at(self, positions: ArrayLike) -> NDArray[np.int64]:
        """Return the labels of the rows at ``positions``: ``take(positions).y``, cheaper."""
        return self.take(positions).y


class InMemoryPool(PoolSource):
    """A pool held in memory as a :class:`~fairacq.FairDataset`.

    Parameters
    ----------
    dataset : FairDataset
        The pool rows.
    chunk_rows : int, default=65_536
        Rows per task of a chunk executor.
    block_rows : int, default=4096
        Rows scored together (use the same value as a :class:`ParquetPool` to compare them).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> pool = InMemoryPool(load_toy(20), block_rows=8)
    >>> len(pool), [b.shape[0] for b in pool.map_blocks(lambda X, side: X)]
    (20, [8, 8, 4])
    """

    def __init__(
        self,
        dataset: FairDataset,
        *,
        chunk_rows: int = DEFAULT_CHUNK_ROWS,
        block_rows: int = DEFAULT_BLOCK_ROWS,
    ) -> None:
        super().__init__(chunk_rows=chunk_rows, block_rows=block_rows)
        if not isinstance(dataset, FairDataset):
            raise InvalidDataError(
                f"InMemoryPool: dataset must be a FairDataset, got {type(dataset).__name__}."
            )
        self.dataset = dataset
        self._X: NDArray[np.float64] | None = None
        self._labels: NDArray[np.int64] | None = None

    def __len__(self) -> int:
        return len(self.dataset)

    @property
    def name(self) -> str:
        """Short name of the pool."""
        return self.dataset.name

    @property
    def template(self) -> FairDataset:
        """The pool dataset itself."""
        return self.dataset

    @property
    def y(self) -> NDArray[np.int64]:
        """Binary label of every row."""
        return self.dataset.y

    @property
    def s(self) -> NDArray[np.int64]:
        """Group code of every row."""
        return self.dataset.s

    @property
    def X(self) -> NDArray[np.float64]:
        """The feature matrix (computed once)."""
        if self._X is None:
            self._X = self.dataset.to_numpy()
        return self._X

    def reader(self) -> RangeReader:
        """Return a reader of slices of the feature matrix."""
        return ArrayReader(self.X, self.chunk_rows)

    def take(self, positions: ArrayLike) -> FairDataset:
        """Return the rows at ``positions``."""
        return self.dataset.subset(np.asarray(positions, dtype=np.int64))

    def read_rows(self, positions: ArrayLike) -> NDArray[np.float64]:
        """Return the features of the rows at ``positions`` (C-contiguous)."""
        return np.ascontiguousarray(self.X[np.asarray(positions, dtype=np.int64)])

    def labels_at(self, positions: ArrayLike) -> NDArray[np.int64]:
        """Return the labels of the rows at ``positions`` (the labels copied once)."""
        if self._labels is None:
            self._labels = self.dataset.y
        return self._labels[np.asarray(positions, dtype=np.int64)]

    def sensitive_values(self, column: str) -> NDArray[np.object_] | None:
        """Return a sensitive column's values as strings."""
        sens = self.dataset.sensitive
        if column not in sens.columns:
            return None
        return np.asarray(sens[column].astype(str).to_numpy(), dtype=object)


class ArrayReader:
    """Reads row ranges of an in-memory feature matrix (views, no copy)."""

    def __init__(self, X: NDArray[np.float64], chunk_rows: int) -> None:
        self.X = X
        self.chunk_rows = chunk_rows

    def read(self, start: int, stop: int) -> Iterator[NDArray[np.float64]]:
        """Yield slices of at most ``chunk_rows`` rows covering ``start .. stop-1``."""
        for a in range(start, stop, self.chunk_rows):
            yield self.X[a : min(a + self.chunk_rows, stop)]


def as_pool_source(pool: FairDataset | PoolSource) -> PoolSource:
    """Return ``pool`` as a :class:`PoolSource` (a FairDataset is wrapped in memory).

    Raises
    ------
    InvalidParameterError
        For anything else.
    """
    if isinstance(pool, PoolSource):
        return pool
    if isinstance(pool, FairDataset):
        return InMemoryPool(pool)
    raise InvalidParameterError(
        f"The pool must be a FairDataset or a PoolSource (e.g. ParquetPool), got "
        f"{type(pool).__name__}."
    )
