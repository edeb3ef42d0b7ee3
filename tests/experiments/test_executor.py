"""Executors report each finished task, stop their workers on failure, and fail fast on dask."""

from __future__ import annotations

import os
import time

import pytest

from fairacq.exceptions import SchedulerUnreachableError
from fairacq.experiments import (
    CachingExecutor,
    DaskExecutor,
    LocalExecutor,
    SerialExecutor,
    make_executor,
)
from fairacq.experiments._framework.executor import (
    ProgressExecutor,
    takes_on_done,
    takes_on_reused,
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


def test_a_cache_counts_reused_tasks_at_once(tmp_path):
    ProgressExecutor(CachingExecutor(SerialExecutor(), tmp_path), lambda d, t: None).map(
        _square, [1, 2]
    )
    seen: list[tuple[int, int]] = []
    inner = CachingExecutor(_Plain(), tmp_path)
    out = ProgressExecutor(inner, lambda d, t: seen.append((d, t))).map(_square, [1, 2, 3])
    assert out == [1, 4, 9]
    assert (inner.hits, inner.misses) == (2, 1)
    assert seen == [(0, 3), (2, 3), (3, 3)]  # a report without ``reused`` still works


class _Forwarding:
    """An executor of one's own passing its keywords on to a serial executor."""

    def map(self, fn, items, **kw):
        return SerialExecutor().map(fn, items, **kw)


def test_a_cache_tells_reused_tasks_from_the_tasks_it_runs(tmp_path):
    CachingExecutor(SerialExecutor(), tmp_path).map(_square, [1, 2])  # fills the cache
    cache = CachingExecutor(SerialExecutor(), tmp_path)
    events: list[object] = []
    out = cache.map(
        _square, [1, 2, 3, 4], on_done=lambda: events.append("done"), on_reused=events.append
    )
    assert out == [1, 4, 9, 16]
    assert events == [2, "done", "done"]  # the two reused at once, then each task run
    events.clear()
    cache.map(_square, [1, 2, 3], on_done=lambda: events.append("done"))
    assert events == ["done"] * 3  # without on_reused, reused tasks count through on_done
    assert (takes_on_reused(cache), takes_on_reused(SerialExecutor())) == (True, False)
    assert takes_on_done(_Forwarding())
    assert not takes_on_reused(_Forwarding())  # **kw could not take it on


def test_progress_executor_reports_how_many_tasks_were_reused(tmp_path):
    CachingExecutor(SerialExecutor(), tmp_path).map(_square, [1, 2])
    seen: list[tuple[int, int, int]] = []

    def report(done: int, total: int, *, reused: int) -> None:
        seen.append((done, total, reused))

    ex = ProgressExecutor(CachingExecutor(SerialExecutor(), tmp_path), report)
    assert ex.map(_square, [1, 2, 3, 4]) == [1, 4, 9, 16]
    assert ex.map(_square, [5, 1]) == [25, 1]  # a second phase: one more reused
    assert seen == [(0, 4, 0), (2, 4, 2), (3, 4, 2), (4, 4, 2), (4, 6, 2), (5, 6, 3), (6, 6, 3)]
    assert (ex.done, ex.reused, ex.total) == (6, 3, 6)
    plain: list[tuple[int, int, int]] = []
    ProgressExecutor(SerialExecutor(), report).map(_square, [1])
    ProgressExecutor(_Plain(), lambda d, t, reused: plain.append((d, t, reused))).map(_square, [1])
    assert seen[-2:] == [(0, 1, 0), (1, 1, 0)]
    assert plain == [(0, 1, 0), (1, 1, 0)]


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
