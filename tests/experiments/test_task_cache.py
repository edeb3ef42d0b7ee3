"""Resumable experiments: finished tasks are stored once and reused by a re-run."""

from __future__ import annotations

import functools
import json

import pytest

from fairacq_experiments import (
    CachingExecutor,
    LocalExecutor,
    SerialExecutor,
    TaskCacheWarning,
    run_experiment,
    task_key,
)


def _square(offset: int, x: int) -> int:
    return x * x + offset


class _Counting(SerialExecutor):
    def __init__(self) -> None:
        self.calls = 0

    def map(self, fn, items):
        todo = list(items)
        self.calls += len(todo)
        return super().map(fn, todo)


def test_second_run_reuses_every_task(tmp_path):
    inner = _Counting()
    cache = CachingExecutor(inner, tmp_path)
    fn = functools.partial(_square, 1)
    assert cache.map(fn, [1, 2, 3]) == [2, 5, 10]
    assert (inner.calls, cache.hits, cache.misses) == (3, 0, 3)
    assert cache.map(fn, [3, 1, 4]) == [10, 2, 17]  # only 4 is new
    assert (inner.calls, cache.hits, cache.misses) == (4, 2, 1)


def test_different_bound_config_gives_new_keys(tmp_path):
    assert task_key(functools.partial(_square, 1), 2) != task_key(functools.partial(_square, 2), 2)
    cache = CachingExecutor(SerialExecutor(), tmp_path)
    assert cache.map(functools.partial(_square, 1), [2]) == [5]
    assert cache.map(functools.partial(_square, 2), [2]) == [6]
    assert cache.hits == 0


def test_torn_file_is_recomputed(tmp_path):
    fn = functools.partial(_square, 0)
    cache = CachingExecutor(SerialExecutor(), tmp_path)
    cache.map(fn, [5])
    entry = tmp_path / f"{task_key(fn, 5)}.jsonl"
    entry.write_bytes(entry.read_bytes()[:20])
    with pytest.warns(TaskCacheWarning, match="refused"):
        assert cache.map(fn, [5]) == [25]
    assert cache.misses == 1
    assert cache.map(fn, [5]) == [25]  # rewritten whole
    assert cache.hits == 1


def test_results_written_by_worker_processes(tmp_path):
    cache = CachingExecutor(LocalExecutor(2), tmp_path)
    fn = functools.partial(_square, 0)
    assert cache.map(fn, [1, 2, 3, 4]) == [1, 4, 9, 16]
    assert len(list(tmp_path.glob("*.jsonl"))) == 4


def test_unpicklable_task_runs_uncached(tmp_path):
    cache = CachingExecutor(SerialExecutor(), tmp_path)
    assert cache.map(lambda x: x + 1, [1, 2]) == [2, 3]
    assert (cache.hits, cache.misses) == (0, 2)


@pytest.mark.slow
def test_rerun_of_an_experiment_reuses_its_tasks(tmp_path):
    kwargs = {"preset": "quick", "out_dir": tmp_path, "n_trials": 1, "max_rows": 3000}
    first = run_experiment("filtering-fig3", **kwargs)
    again = run_experiment("filtering-fig3", **kwargs)
    assert first.meta["tasks_reused"] == 0
    assert again.meta["tasks_reused"] == 3  # one task per alpha
    assert first.rows == again.rows
    assert json.loads((tmp_path / "summary.json").read_text())["rows"] == again.rows


@pytest.mark.slow
def test_serial_and_process_pool_runs_agree(tmp_path):
    # Tasks sharing one trial's seed must get the same children whether they run in one
    # process (serial) or each in a fresh worker.
    kwargs = {"preset": "quick", "n_trials": 1, "max_rows": 3000, "resume": False}
    serial = run_experiment("filtering-fig3", executor=SerialExecutor(), **kwargs)
    pooled = run_experiment("filtering-fig3", executor=LocalExecutor(2), **kwargs)
    assert serial.rows == pooled.rows


def test_equal_tasks_get_equal_keys_however_their_strings_were_built():
    # pickle refers back to objects already written: a task sharing the config's string
    # objects must still get the key of an equal task built from other string objects
    name = "acs-" + "mobility"
    config = (name, "lr")
    shared = task_key(functools.partial(_square, config), (config[0], 1))
    fresh = task_key(functools.partial(_square, config), ("".join(["acs-", "mobility"]), 1))
    assert shared == fresh
