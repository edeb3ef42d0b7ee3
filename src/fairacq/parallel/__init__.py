"""Run independent tasks in parallel: in this process, a local process pool, or dask.

An :class:`Executor` maps a picklable function over items and returns the results in order.
:func:`make_executor` builds one by name (``"serial"``, ``"local"`` or ``"dask"``);
:class:`ProgressExecutor` wraps one to report finished tasks; :func:`single_thread` limits
the numerical libraries of a process to one thread. The sampling trials, the CLI's
``--workers`` / ``--address`` options and the experiments harness all run on these.
"""

from fairacq.parallel._executor import (
    DaskExecutor,
    Executor,
    LocalExecutor,
    ProgressExecutor,
    SerialExecutor,
    TaskDone,
    TaskReused,
    make_executor,
    single_thread,
    takes_on_done,
    takes_on_reused,
)

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
