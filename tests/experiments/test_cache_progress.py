"""The task cache counts the tasks it reuses, and a progress report tells them apart."""

from __future__ import annotations

from fairacq.parallel import ProgressExecutor, SerialExecutor, takes_on_done, takes_on_reused
from fairacq_experiments import CachingExecutor


def _square(x: int) -> int:
    return x * x


class _Plain:
    """An executor of one's own: ``map(fn, items)`` and nothing more."""

    def map(self, fn, items):
        return [fn(i) for i in items]


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
