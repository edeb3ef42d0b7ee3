"""Resumable experiments: keep each finished task's result on disk and reuse it on a re-run.

A full paper experiment is hundreds of independent tasks (seed x method x setting); an
interrupted run should lose only the tasks in flight. :class:`CachingExecutor` wraps any
executor: before mapping it looks up every task in a cache directory and runs only the
missing ones; each worker writes its result atomically the moment it finishes, so a crash,
a killed job or a lost dask worker costs at most the unfinished tasks.

A task's key is a SHA-256 over the pickled function and item, the fairacq version
and the source of the task's module; the function is usually a :func:`functools.partial`
binding the frozen config and the spawned seeds, so any change to the config, the seeds, the
item or the experiment module gives a new key. Results are stored with :mod:`pickle` (they
may hold :class:`~fairacq.Trace` objects): load caches only from directories you wrote
yourself.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from fairacq._io import atomic_write
from fairacq._version import __version__
from fairacq.experiments._framework.executor import Executor

__all__ = ["CachingExecutor", "task_key"]

T = TypeVar("T")
R = TypeVar("R")

_FORMAT = 1


@functools.cache
def _source_digest(module_name: str) -> str:
    """SHA-256 of a module's source file ('' for built-in modules)."""
    path = getattr(sys.modules.get(module_name), "__file__", None)
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""


def task_key(fn: Callable[[Any], Any], item: Any) -> str:
    """Return the cache key of ``fn(item)``.

    The SHA-256 of the pickled pair, the fairacq version and the source of the module that
    defines the task function, so editing an experiment module invalidates its cached tasks
    (edits deeper in the library do not: re-run with ``resume=False`` after those).

    Examples
    --------
    >>> task_key(abs, -1) == task_key(abs, -1), task_key(abs, -1) == task_key(abs, -2)
    (True, False)
    """
    func = fn.func if isinstance(fn, functools.partial) else fn
    module = getattr(func, "__module__", None) or ""
    digest = hashlib.sha256()
    # Each part is pickled on its own: pickle refers back to an object it has already
    # written in the same call, so one pickle of (fn, item) would differ for a task whose
    # strings are the config's own objects and an equal task built from other strings.
    for part in (_FORMAT, __version__, _source_digest(module), fn, item):
        digest.update(hashlib.sha256(pickle.dumps(part, protocol=5)).digest())
    return digest.hexdigest()


def _path(directory: Path, key: str) -> Path:
    return directory / f"{key}.pkl"


def _load(path: Path) -> tuple[bool, Any]:
    """Return ``(True, result)``, or ``(False, None)`` if the file is missing or unreadable."""
    try:
        with open(path, "rb") as fh:
            fmt, value = pickle.load(fh)
    except FileNotFoundError:
        return False, None
    except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError):
        return False, None  # torn or foreign file: recompute, nothing else is lost
    return (fmt == _FORMAT), value


def _run_and_store(fn: Callable[[T], R], directory: str, keyed: tuple[str, T]) -> R:
    """Run one task in a worker and write its result atomically before returning it."""
    key, item = keyed
    result = fn(item)
    with atomic_write(_path(Path(directory), key), "wb") as fh:
        pickle.dump((_FORMAT, result), fh, protocol=5)
    return result


class CachingExecutor:
    """An executor that reuses results of tasks finished by an earlier (interrupted) run.

    Parameters
    ----------
    inner : Executor
        Runs the tasks that are not cached yet (serial, local process pool or dask; with dask
        the workers must see ``directory``).
    directory : path-like
        Where results are kept, one file per task.

    Attributes
    ----------
    hits, misses : int
        Tasks reused and tasks run by the last :meth:`map`.
    """

    def __init__(self, inner: Executor, directory: str | os.PathLike[str]) -> None:
        self.inner = inner
        self.directory = Path(directory)
        self.hits = 0
        self.misses = 0

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """Apply ``fn`` to every item, running only the items without a stored result."""
        todo = list(items)
        try:
            keys = [task_key(fn, item) for item in todo]
        except (pickle.PicklingError, TypeError, AttributeError):
            # a task that cannot be pickled cannot be keyed (nor sent to a worker): run it as is
            self.hits, self.misses = 0, len(todo)
            return self.inner.map(fn, todo)
        self.directory.mkdir(parents=True, exist_ok=True)
        results: dict[int, Any] = {}
        missing: list[int] = []
        for i, key in enumerate(keys):
            found, value = _load(_path(self.directory, key))
            if found:
                results[i] = value
            else:
                missing.append(i)
        self.hits, self.misses = len(results), len(missing)
        if missing:
            run = functools.partial(_run_and_store, fn, str(self.directory))
            computed = self.inner.map(run, [(keys[i], todo[i]) for i in missing])
            results.update(zip(missing, computed, strict=True))
        return [results[i] for i in range(len(todo))]
