"""Run independent trials in parallel: in-process, a local process pool, or dask.distributed."""

from __future__ import annotations

import inspect
import os
import signal
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Literal, Protocol, TypeVar

from fairacq._deps import require
from fairacq.exceptions import InvalidParameterError
from fairacq.parallel._dask import CONNECT_TIMEOUT, connect_client, local_cluster

__all__ = [
    "DaskExecutor",
    "Executor",
    "LocalExecutor",
    "ProgressExecutor",
    "SerialExecutor",
    "TaskDone",
    "TaskReused",
    "make_executor",
    "single_thread",
    "takes_on_done",
    "takes_on_reused",
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


#: Called once for every task that finishes (or is found in a cache), in this process.
TaskDone = Callable[[], None]
#: Called with how many tasks of a map were found in a cache instead of run, in this process.
TaskReused = Callable[[int], None]

#: Seconds a stopped pool's workers get to exit after SIGTERM before they are killed.
_TERMINATE_WAIT = 3.0


class Executor(Protocol):
    """Maps a picklable function over items and returns the results in order.

    The executors here also take ``on_done``, a function called in this process each time
    one task finishes (:class:`ProgressExecutor` uses it to count finished tasks); an
    executor of your own need not.
    """

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """Apply ``fn`` to every item."""


def _serial_map(fn: Callable[[T], R], todo: list[T], on_done: TaskDone | None) -> list[R]:
    out = []
    for item in todo:
        out.append(fn(item))
        if on_done is not None:
            on_done()
    return out


class SerialExecutor:
    """Runs trials one after another in this process."""

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], *, on_done: TaskDone | None = None
    ) -> list[R]:
        """Apply ``fn`` to every item in order; call ``on_done()`` after each."""
        return _serial_map(fn, list(items), on_done)


def _init_worker() -> None:
    """Set up a pool worker: one thread; stopping is the parent's business.

    A forked worker inherits the parent's Python signal handlers (the CLI's, which raise):
    SIGTERM gets its default action back, so the parent's :func:`_stop_pool` ends it, and
    SIGINT is ignored, so a Ctrl-C in a terminal (sent to the whole process group) reaches
    the parent alone, which then stops the workers.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    single_thread()


class LocalExecutor:
    """A local process pool, one single-threaded worker per process.

    Parameters
    ----------
    n_workers : int or None, default=None
        Processes to start; ``None`` uses the number of CPUs. With 1 (or one item) the work
        runs in this process.

    Notes
    -----
    If a task fails, or the map is interrupted (``KeyboardInterrupt``, or the exception a
    signal handler raises), the pool is stopped at once: queued tasks are cancelled and the
    workers are terminated (killed if they do not exit within a few seconds), so none is
    left running. Results a task wrote before (the task cache writes atomically) stay whole.
    """

    def __init__(self, n_workers: int | None = None) -> None:
        self.n_workers = n_workers or os.cpu_count() or 1

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], *, on_done: TaskDone | None = None
    ) -> list[R]:
        """Apply ``fn`` to every item across worker processes; ``on_done()`` after each."""
        todo = list(items)
        if self.n_workers == 1 or len(todo) <= 1:
            return _serial_map(fn, todo, on_done)
        pool: ProcessPoolExecutor | None = None
        try:
            pool = ProcessPoolExecutor(
                max_workers=min(self.n_workers, len(todo)), initializer=_init_worker
            )
            futures = [pool.submit(fn, item) for item in todo]
            for future in as_completed(futures):
                future.result()  # the first failure stops the map
                if on_done is not None:
                    on_done()
            results = [f.result() for f in futures]
            pool.shutdown()  # inside: a signal while the pool winds down still stops it
        except BaseException:
            if pool is not None:
                _stop_pool(pool)
            raise
        return results


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Cancel the queued tasks and end every worker of ``pool`` (SIGTERM, then SIGKILL)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    # ``shutdown`` forgets the manager thread and its wake-up pipe: keep them first.
    manager = getattr(pool, "_executor_manager_thread", None)
    wakeup = getattr(pool, "_executor_manager_thread_wakeup", None)
    for proc in workers:
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + _TERMINATE_WAIT
    for proc in workers:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join(1.0)
    # Let the manager thread see its dead workers and close its pipes now. With the workers
    # gone it needs no more wake-ups, and the exit handler of concurrent.futures would send
    # one that races the thread closing that pipe ("OSError: Bad file descriptor" at exit):
    # make that call a no-op.
    if wakeup is not None:
        wakeup.wakeup = lambda: None
    if manager is not None:
        manager.join(_TERMINATE_WAIT)


class DaskExecutor:
    """Runs trials on a ``dask.distributed`` cluster.

    Parameters
    ----------
    address : str or None, default=None
        Scheduler address such as ``"tcp://10.0.0.5:8786"``. ``None`` starts a
        :class:`distributed.LocalCluster` of single-threaded workers for the duration of a map.
    n_workers : int or None, default=None
        Workers of the local cluster when ``address`` is None.
    timeout : float, default=5.0
        Seconds to wait for the scheduler at ``address``.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        n_workers: int | None = None,
        timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        self.address = address
        self.n_workers = n_workers
        self.timeout = timeout

    def check(self) -> None:
        """Connect to the scheduler at ``address`` once (nothing to check without one).

        Raises
        ------
        SchedulerUnreachableError
            If no scheduler answers there within ``timeout`` seconds.
        """
        if self.address is not None:
            connect_client(self.address, timeout=self.timeout, purpose="the dask executor").close()

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], *, on_done: TaskDone | None = None
    ) -> list[R]:
        """Submit one task per item and gather the results in order; ``on_done()`` after each."""
        distributed = require("distributed", purpose="the dask executor")
        todo = list(items)
        if self.address is not None:
            with connect_client(
                self.address, timeout=self.timeout, purpose="the dask executor"
            ) as client:
                return _dask_gather(distributed, client, fn, todo, on_done)
        with (
            local_cluster(self.n_workers or min(2, os.cpu_count() or 1)) as cluster,
            distributed.Client(cluster) as client,
        ):
            return _dask_gather(distributed, client, fn, todo, on_done)


def _dask_gather(
    distributed: Any, client: Any, fn: Callable[[T], R], todo: list[T], on_done: TaskDone | None
) -> list[R]:
    """Run ``fn`` over ``todo`` on ``client``; results in order, ``on_done()`` as each ends."""
    client.run(single_thread)
    futures = client.map(fn, todo, pure=False)
    try:
        for future in distributed.as_completed(futures):
            future.result()
            if on_done is not None:
                on_done()
        return list(client.gather(futures))
    except BaseException:
        client.cancel(futures)
        raise


class ProgressExecutor:
    """Wraps an executor and reports ``report(done, total, reused=...)`` as its tasks finish.

    ``total`` grows with every :meth:`map` (an experiment may map several times, one phase
    after another), and ``done`` counts finished tasks, each as it ends when the inner
    executor takes ``on_done`` (the executors here and :class:`CachingExecutor` do), else all
    of a map's tasks when it returns. Tasks reused from a cache count as done at once, and
    ``reused`` (part of ``done``) counts them when the inner executor tells them apart
    through ``on_reused`` (:class:`CachingExecutor` does).

    Parameters
    ----------
    inner : Executor
        Runs the tasks.
    report : callable
        ``report(done, total, reused=n)``, called in this process; a ``report(done, total)``
        that takes no ``reused`` keyword is called without it.

    Examples
    --------
    >>> seen = []
    >>> ProgressExecutor(SerialExecutor(), lambda d, t: seen.append((d, t))).map(abs, [-1, -2])
    [1, 2]
    >>> seen
    [(0, 2), (1, 2), (2, 2)]
    """

    def __init__(self, inner: Executor, report: Callable[..., None]) -> None:
        self.inner = inner
        self.report = report
        self.done = 0
        self.reused = 0
        self.total = 0
        self._tells_reused = _takes_reused(report)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """Apply ``fn`` to every item through the inner executor, reporting progress."""
        todo = list(items)
        self.total += len(todo)
        self._report()
        if not takes_on_done(self.inner):
            out = self.inner.map(fn, todo)
            self._finished(len(todo))
            return out
        hooks: dict[str, Any] = {"on_done": self._finished}
        if takes_on_reused(self.inner):
            hooks["on_reused"] = self._reused
        return self.inner.map(fn, todo, **hooks)

    def _finished(self, n: int = 1) -> None:
        self.done += n
        self._report()

    def _reused(self, n: int) -> None:
        self.done += n
        self.reused += n
        self._report()

    def _report(self) -> None:
        if self._tells_reused:
            self.report(self.done, self.total, reused=self.reused)
        else:
            self.report(self.done, self.total)


def _takes_reused(report: Callable[..., None]) -> bool:
    """Whether ``report(done, total, reused=n)`` is a valid call."""
    try:
        inspect.signature(report).bind(0, 0, reused=0)
    except (TypeError, ValueError):
        return False
    return True


def _map_params(executor: Any) -> Any:
    try:
        return inspect.signature(executor.map).parameters
    except (TypeError, ValueError):
        return {}


def takes_on_done(executor: Executor) -> bool:
    """Whether ``executor.map`` accepts the ``on_done`` keyword."""
    params = _map_params(executor)
    return "on_done" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def takes_on_reused(executor: Executor) -> bool:
    """Whether ``executor.map`` names the ``on_reused`` keyword (:class:`CachingExecutor`).

    Unlike ``on_done``, a ``**kwargs`` catch-all does not count: a wrapper passing it on to
    an executor without the keyword would fail; its reused tasks count through ``on_done``.
    """
    return "on_reused" in _map_params(executor)


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

    Raises
    ------
    InvalidParameterError
        For an unknown kind or a number of workers below 1.
    SchedulerUnreachableError
        If no dask scheduler answers at ``address`` within 5 s (checked here, before any
        work).
    """
    if n_workers is not None and (isinstance(n_workers, bool) or int(n_workers) < 1):
        raise InvalidParameterError(
            f"The number of workers must be an int >= 1, got {n_workers}. Pass --workers 1 "
            "or more (or leave it out for one per core)."
        )
    if address is not None or kind == "dask":
        dask = DaskExecutor(address, n_workers=n_workers)
        dask.check()
        return dask
    if kind == "local":
        return LocalExecutor(n_workers)
    if kind == "serial":
        return SerialExecutor()
    raise InvalidParameterError(
        f"Unknown executor {kind!r}. Use 'serial', 'local' or 'dask' (with --address)."
    )
