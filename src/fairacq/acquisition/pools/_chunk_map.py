"""Map a per-block scoring function over a pool, serially or on a dask cluster.

A pool is read in *tasks* (row ranges of about ``chunk_rows`` rows, always starting on a
block boundary) and scored in *blocks* of exactly ``block_rows`` rows (the last one shorter).
BLAS gives a row a result that depends on how many rows share its matrix product (and on
the memory layout, so every block is passed C-contiguous), so the blocks, not the chunks, fix
the arithmetic: the same pool scored with any ``chunk_rows``, from
memory or from a file, serially or on dask, gives bit-identical scores. A task's worker reads
its own rows through the pool's reader; only the reader (a file name, or for an in-memory pool
its array, scattered once) and the per-row side arrays of the task's rows travel to it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from fairacq._deps import require
from fairacq.exceptions import CorruptFileError, InvalidParameterError
from fairacq.parallel._dask import CONNECT_TIMEOUT, connect_client, local_cluster

if TYPE_CHECKING:
    from distributed import Client

__all__ = [
    "ChunkExecutor",
    "DaskChunkExecutor",
    "RangeReader",
    "SerialChunkExecutor",
    "make_chunk_executor",
    "map_blocks",
    "task_ranges",
]

S = TypeVar("S")
T = TypeVar("T")
R = TypeVar("R")

#: ``fn(X_block, side)``: the block's features and its slice of each side array.
BlockFn = Callable[[NDArray[np.float64], Mapping[str, NDArray[np.generic]]], R]


class RangeReader(Protocol):
    """Reads the encoded features of pool rows ``start .. stop-1`` in pieces, in order."""

    def read(self, start: int, stop: int) -> Iterator[NDArray[np.float64]]:
        """Yield consecutive row pieces (float arrays) covering ``start .. stop-1``."""


class ChunkExecutor(Protocol):
    """Runs ``fn(shared, item)`` for every item and returns the results in order."""

    def map(self, fn: Callable[[S, T], R], items: Sequence[T], shared: S) -> list[R]:
        """Apply ``fn`` to every item; ``shared`` is the same object for all of them."""


class SerialChunkExecutor:
    """Scores the pool's chunks one after another in this process (the default)."""

    def map(self, fn: Callable[[S, T], R], items: Sequence[T], shared: S) -> list[R]:
        """Apply ``fn(shared, item)`` in order."""
        return [fn(shared, item) for item in items]


class DaskChunkExecutor:
    """Scores the pool's chunks as tasks on a ``dask.distributed`` cluster.

    Parameters
    ----------
    address : str or None, default=None
        Scheduler address such as ``"tcp://10.0.0.5:8786"``.
    client : distributed.Client or None, default=None
        An open client to use (wins over ``address``); it is never closed here.
    n_workers : int or None, default=None
        With neither ``address`` nor ``client``, the first map starts a local cluster of this
        many single-threaded worker processes (default: up to 2).
    timeout : float, default=5.0
        Seconds to wait for the scheduler at ``address``.

    Notes
    -----
    A client or local cluster this executor opens stays open for later maps (an acquisition
    maps several times) until :meth:`close`, or the end of a ``with`` block. The reader is
    scattered to the workers once per map; each task then reads its own rows (a Parquet
    pool's workers open the file themselves, so the file must be reachable at the same path
    on every worker). Tasks limit BLAS to one thread so that scores match a serial run bit
    for bit.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        client: Client | None = None,
        n_workers: int | None = None,
        timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        self.address = address
        self.client = client
        self.n_workers = n_workers
        self.timeout = timeout
        self._opened: Any = None
        self._owned: list[Any] = []

    def map(self, fn: Callable[[S, T], R], items: Sequence[T], shared: S) -> list[R]:
        """Submit one task per item (with ``shared`` scattered once) and gather in order."""
        return _dask_map(self._client(), fn, items, shared)

    def connect(self) -> None:
        """Open the client now (a map opens it otherwise), so a bad address fails early.

        Raises
        ------
        SchedulerUnreachableError
            If no scheduler answers at ``address`` within ``timeout`` seconds.
        """
        self._client()

    def _client(self) -> Any:
        if self.client is not None:
            return self.client
        if self._opened is not None:
            return self._opened
        distributed = require("distributed", purpose="scoring pool chunks on dask")
        if self.address is not None:
            self._opened = connect_client(
                self.address, timeout=self.timeout, purpose="scoring pool chunks on dask"
            )
            self._owned.append(self._opened)
            return self._opened
        cluster = local_cluster(self.n_workers or min(2, os.cpu_count() or 1))
        self._owned.append(cluster)
        self._opened = distributed.Client(cluster)
        self._owned.append(self._opened)
        return self._opened

    def close(self) -> None:
        """Close the client and local cluster this executor opened (not a given client)."""
        while self._owned:
            self._owned.pop().close()
        self._opened = None

    def __enter__(self) -> DaskChunkExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _dask_map(client: Any, fn: Callable[[S, T], R], items: Sequence[T], shared: S) -> list[R]:
    if not items:
        return []
    handle = client.scatter(shared, broadcast=True, hash=False)
    futures = client.map(
        partial(_single_threaded, fn), [handle] * len(items), list(items), pure=False
    )
    return list(client.gather(futures))


def _single_threaded(fn: Callable[[S, T], R], shared: S, item: T) -> R:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return fn(shared, item)


def make_chunk_executor(
    kind: Literal["serial", "dask"] = "serial",
    *,
    address: str | None = None,
    n_workers: int | None = None,
) -> ChunkExecutor:
    """Build the executor that scores pool chunks.

    Parameters
    ----------
    kind : {"serial", "dask"}, default="serial"
        ``"dask"`` is implied by ``address``.
    address : str or None, default=None
        A dask scheduler address (None with ``"dask"``: a local cluster per map).
    n_workers : int or None, default=None
        Workers of that local cluster.

    Returns
    -------
    ChunkExecutor
        With an address, a :class:`DaskChunkExecutor` already connected to the scheduler
        (close it, or use it in a ``with`` block).

    Raises
    ------
    InvalidParameterError
        For an unknown kind.
    SchedulerUnreachableError
        If no dask scheduler answers at ``address`` within 5 s.

    Examples
    --------
    >>> type(make_chunk_executor()).__name__
    'SerialChunkExecutor'
    """
    if kind == "dask" or address is not None:
        dask = DaskChunkExecutor(address, n_workers=n_workers)
        if address is not None:
            dask.connect()
        return dask
    if kind == "serial":
        return SerialChunkExecutor()
    raise InvalidParameterError(
        f"Unknown chunk executor {kind!r}. Use 'serial' or 'dask' (with an address)."
    )


def task_ranges(n_rows: int, chunk_rows: int, block_rows: int) -> list[tuple[int, int]]:
    """Split ``0 .. n_rows-1`` into tasks of whole blocks, about ``chunk_rows`` rows each.

    Examples
    --------
    >>> task_ranges(10, 3, 4)
    [(0, 4), (4, 8), (8, 10)]
    >>> task_ranges(10, 8, 4)
    [(0, 8), (8, 10)]
    """
    step = block_rows * max(1, chunk_rows // block_rows)
    return [(a, min(a + step, n_rows)) for a in range(0, n_rows, step)]


def map_blocks(
    reader: RangeReader,
    fn: BlockFn[R],
    *,
    n_rows: int,
    chunk_rows: int,
    block_rows: int,
    side: Mapping[str, NDArray[np.generic]] | None = None,
    executor: ChunkExecutor | None = None,
) -> list[R]:
    """Apply ``fn`` to every block of the pool and return the results in block order.

    Parameters
    ----------
    reader : RangeReader
        The pool's reader (``PoolSource.reader()``).
    fn : callable
        ``fn(X_block, side_block)``; must be picklable for dask (a module-level function or a
        ``functools.partial`` of one).
    n_rows, chunk_rows, block_rows : int
        Pool size, rows per task, rows per block.
    side : mapping of str to ndarray or None, default=None
        Per-row arrays (labels, groups) sliced to each block and passed to ``fn``.
    executor : ChunkExecutor or None, default=None
        Where tasks run (None: serially here).
    """
    side = dict(side or {})
    items = [
        (a, b, {k: v[a:b] for k, v in side.items()})
        for a, b in task_ranges(n_rows, chunk_rows, block_rows)
    ]
    run = partial(_run_task, fn=fn, block_rows=block_rows)
    per_task = (executor or SerialChunkExecutor()).map(run, items, reader)
    return [r for results in per_task for r in results]


def _run_task(
    reader: RangeReader,
    item: tuple[int, int, dict[str, NDArray[np.generic]]],
    *,
    fn: BlockFn[R],
    block_rows: int,
) -> list[R]:
    start, stop, side = item
    out = []
    offset = 0
    for block in _rebatch(reader.read(start, stop), block_rows):
        m = block.shape[0]
        # one memory layout for every source: reductions and BLAS kernels depend on it
        X = np.ascontiguousarray(block, dtype=np.float64)
        out.append(fn(X, {k: v[offset : offset + m] for k, v in side.items()}))
        offset += m
    if offset != stop - start:
        raise CorruptFileError(
            f"The pool reader returned {offset} rows for rows {start}..{stop - 1}; the pool "
            "file changed or is damaged. Rewrite it and start again."
        )
    return out


def _rebatch(pieces: Iterable[NDArray[np.float64]], rows: int) -> Iterator[NDArray[np.float64]]:
    """Regroup consecutive row pieces into blocks of exactly ``rows`` rows (last shorter)."""
    held: list[NDArray[np.float64]] = []
    count = 0
    for piece in pieces:
        held.append(piece)
        count += piece.shape[0]
        while count >= rows:
            whole = held[0] if len(held) == 1 else np.concatenate(held)
            yield whole[:rows]
            rest = whole[rows:]
            held, count = ([rest] if rest.shape[0] else []), rest.shape[0]
    if count:
        yield held[0] if len(held) == 1 else np.concatenate(held)
