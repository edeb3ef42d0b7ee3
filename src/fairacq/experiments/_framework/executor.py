"""Run independent trials in parallel: in-process, a local process pool, or dask.distributed."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Literal, Protocol, TypeVar

from fairacq._deps import require
from fairacq.exceptions import InvalidParameterError

__all__ = [
    "DaskExecutor",
    "Executor",
    "LocalExecutor",
    "SerialExecutor",
    "make_executor",
    "single_thread",
]

T = TypeVar("T")
R = TypeVar("R")


def single_thread() -> None:
    """Limit numerical libraries to one thread in this process (2 shared cores here)."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    try:
        import torch
    except ImportError:  # torch is optional
        return
    torch.set_num_threads(1)


class Executor(Protocol):
    """Maps a picklable function over items and returns the results in order."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """Apply ``fn`` to every item."""


class SerialExecutor:
    """Runs trials one after another in this process."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """Apply ``fn`` to every item in order."""
        return [fn(item) for item in items]


class LocalExecutor:
    """A local process pool, one single-threaded worker per process.

    Parameters
    ----------
    n_workers : int or None, default=None
        Processes to start; ``None`` uses the number of CPUs. With 1 (or one item) the work
        runs in this process.
    """

    def __init__(self, n_workers: int | None = None) -> None:
        self.n_workers = n_workers or os.cpu_count() or 1

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """Apply ``fn`` to every item across worker processes."""
        todo = list(items)
        if self.n_workers == 1 or len(todo) <= 1:
            return [fn(item) for item in todo]
        with ProcessPoolExecutor(
            max_workers=min(self.n_workers, len(todo)), initializer=single_thread
        ) as pool:
            return list(pool.map(fn, todo))


class DaskExecutor:
    """Runs trials on a ``dask.distributed`` cluster.

    Parameters
    ----------
    address : str or None, default=None
        Scheduler address such as ``"tcp://10.0.0.5:8786"``. ``None`` starts a
        :class:`distributed.LocalCluster` of single-threaded workers for the duration of a map.
    n_workers : int or None, default=None
        Workers of the local cluster when ``address`` is None.
    """

    def __init__(self, address: str | None = None, *, n_workers: int | None = None) -> None:
        self.address = address
        self.n_workers = n_workers

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """Submit one task per item and gather the results in order."""
        distributed = require("distributed", purpose="the dask executor")
        todo = list(items)
        if self.address is not None:
            with distributed.Client(self.address) as client:
                client.run(single_thread)
                return list(client.gather(client.map(fn, todo, pure=False)))
        with (
            distributed.LocalCluster(
                n_workers=self.n_workers or min(2, os.cpu_count() or 1),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            client.run(single_thread)
            return list(client.gather(client.map(fn, todo, pure=False)))


def make_executor(
    kind: Literal["serial", "local", "dask"] = "local",
    *,
    address: str | None = None,
    n_workers: int | None = None,
) -> Executor:
    """Build an executor by name.

    Parameters
    ----------
    kind : {"serial", "local", "dask"}, default="local"
        ``"dask"`` is chosen automatically when ``address`` is given.
    address : str or None
        A dask scheduler address.
    n_workers : int or None
        Worker processes.
    """
    if n_workers is not None and (isinstance(n_workers, bool) or int(n_workers) < 1):
        raise InvalidParameterError(
            f"The number of workers must be an int >= 1, got {n_workers}. Pass --workers 1 "
            "or more (or leave it out for one per core)."
        )
    if address is not None or kind == "dask":
        return DaskExecutor(address, n_workers=n_workers)
    if kind == "local":
        return LocalExecutor(n_workers)
    if kind == "serial":
        return SerialExecutor()
    raise InvalidParameterError(
        f"Unknown executor {kind!r}. Use 'serial', 'local' or 'dask' (with --address)."
    )
