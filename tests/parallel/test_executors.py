"""Executors report each finished task, stop their workers on failure, and fail fast on dask."""

from __future__ import annotations

import os
import time

import pytest

from fairacq.exceptions import InvalidParameterError, SchedulerUnreachableError
from fairacq.parallel import (
    DaskExecutor,
    LocalExecutor,
    ProgressExecutor,
    SerialExecutor,
    make_executor,
    takes_on_done,
)

psutil = pytest.importorskip("psutil")


def _square(x: int) -> int:
    return x * x


def _fail_or_sleep(x: int) -> int:
    if x == 0:
        time.sleep(0.3)
        raise RuntimeError("task 0 failed")
    time.sleep(60)
    return x


class _Plain:
    """An executor of one's own: ``map(fn, items)`` and nothing more."""

    def map(self, fn, items):
        return [fn(i) for i in items]


@pytest.mark.parametrize("executor", [SerialExecutor(), LocalExecutor(2)])
def test_on_done_is_called_once_per_task(executor):
    calls = []
    assert executor.map(_square, [1, 2, 3, 4], on_done=lambda: calls.append(1)) == [1, 4, 9, 16]
    assert len(calls) == 4


def test_progress_executor_counts_tasks_across_maps():
    seen: list[tuple[int, int]] = []
    ex = ProgressExecutor(LocalExecutor(2), lambda d, t: seen.append((d, t)))
    assert ex.map(_square, [1, 2, 3]) == [1, 4, 9]
    assert ex.map(_square, [4, 5]) == [16, 25]
    assert seen[0] == (0, 3)
    assert (0, 3) in seen
    assert (3, 5) in seen
    assert seen[-1] == (5, 5)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_progress_executor_without_on_done_counts_a_map_at_its_end():
    seen: list[tuple[int, int]] = []
    assert not takes_on_done(_Plain())
    assert ProgressExecutor(_Plain(), lambda d, t: seen.append((d, t))).map(_square, [2, 3]) == [
        4,
        9,
    ]
    assert seen == [(0, 2), (2, 2)]


def test_a_failed_task_stops_the_pool_and_its_workers():
    me = psutil.Process(os.getpid())
    before = {p.pid for p in me.children(recursive=True)}
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="task 0 failed"):
        LocalExecutor(2).map(_fail_or_sleep, [0, 1, 2])
    assert time.monotonic() - start < 15  # not the 60 s the other tasks would take
    time.sleep(0.2)
    left = [
        p
        for p in me.children(recursive=True)
        if p.pid not in before and p.status() != psutil.STATUS_ZOMBIE
    ]
    assert left == []


def test_an_unreachable_scheduler_fails_fast_with_one_line():
    pytest.importorskip("distributed")
    start = time.monotonic()
    with pytest.raises(SchedulerUnreachableError) as err:
        make_executor("dask", address="tcp://127.0.0.1:9")
    assert time.monotonic() - start < 15
    message = str(err.value)
    assert message.startswith("cannot reach the dask scheduler at tcp://127.0.0.1:9: ")
    assert message.endswith("Start one with `dask scheduler` or check the address.")
    assert "\n" not in message
    assert isinstance(err.value, ConnectionError)


def test_a_dask_map_on_an_unreachable_scheduler_fails_within_its_timeout():
    pytest.importorskip("distributed")
    ex = DaskExecutor("tcp://127.0.0.1:9", timeout=1)  # built without connecting
    start = time.monotonic()
    with pytest.raises(SchedulerUnreachableError, match=r"tcp://127\.0\.0\.1:9"):
        ex.map(_square, [1, 2])
    assert time.monotonic() - start < 10


def test_make_executor():
    assert isinstance(make_executor("serial"), SerialExecutor)
    assert isinstance(make_executor("local", n_workers=2), LocalExecutor)
    assert isinstance(make_executor("dask", n_workers=1), DaskExecutor)
    with pytest.raises(InvalidParameterError, match="Unknown executor"):
        make_executor("cloud")  # type: ignore[arg-type]
