"""Connect to a dask scheduler, failing fast with one line when none answers.

``distributed.Client(address)`` waits 30 s by default and then raises an ``OSError`` whose
text is a connection detail; every executor that talks to a scheduler (the experiments'
:class:`~fairacq.parallel.DaskExecutor`, acquisition's
:class:`~fairacq.acquisition.DaskChunkExecutor`) opens its client here instead, so an
unreachable address gives a :class:`~fairacq.exceptions.SchedulerUnreachableError` within
the connect timeout.
"""

from __future__ import annotations

from typing import Any

from fairacq._deps import require
from fairacq.exceptions import SchedulerUnreachableError

__all__ = ["CONNECT_TIMEOUT", "connect_client", "local_cluster"]

#: Seconds to wait for a scheduler to answer.
CONNECT_TIMEOUT = 5.0


def connect_client(address: str, *, timeout: float = CONNECT_TIMEOUT, purpose: str = "") -> Any:
    """Return a ``distributed.Client`` connected to the scheduler at ``address``.

    Parameters
    ----------
    address : str
        Scheduler address such as ``"tcp://10.0.0.5:8786"``.
    timeout : float, default=5.0
        Seconds to wait for the scheduler.
    purpose : str, default=""
        What the client is for (quoted if ``distributed`` is missing).

    Returns
    -------
    distributed.Client
        An open client; the caller closes it.

    Raises
    ------
    SchedulerUnreachableError
        If no scheduler answers at ``address`` within ``timeout`` seconds, or the address is
        malformed.
    MissingDependencyError
        If ``distributed`` is not installed.
    """
    distributed = require("distributed", purpose=purpose or "a dask scheduler")
    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, ValueError, TypeError) as exc:
        raise SchedulerUnreachableError(
            f"cannot reach the dask scheduler at {address}: {_reason(exc, timeout)}. Start one "
            "with `dask scheduler` or check the address."
        ) from exc


def _reason(exc: BaseException, timeout: float) -> str:
    """Say briefly why the connection failed (refused, timed out, malformed address)."""
    texts: list[str] = []
    cause: BaseException | None = exc
    while cause is not None and len(texts) < 5:
        texts.append(str(cause))
        cause = cause.__cause__ or cause.__context__
    joined = " ".join(texts).lower()
    if "refused" in joined:
        return f"connection refused (gave up after {timeout:g} s)"
    if "timed out" in joined or isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g} s"
    return " ".join(str(exc).split()) or type(exc).__name__


def local_cluster(n_workers: int, *, processes: bool = True) -> Any:
    """Return a dask ``LocalCluster`` of one-thread workers, without a dashboard.

    The scheduler's HTTP server (health and metrics routes) takes a free port instead of
    8787, so that two clusters started at once on one machine do not race for it.
    """
    distributed = require("distributed", purpose="a local dask cluster")
    return distributed.LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=processes,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": ":0"},
    )
