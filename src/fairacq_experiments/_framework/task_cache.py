"""Resumable experiments: keep each finished task's result on disk and reuse it on a re-run.

A full paper experiment is hundreds of independent tasks (seed x method x setting); an
interrupted run should lose only the tasks in flight. :class:`CachingExecutor` wraps any
executor: before mapping it looks up every task in a cache directory and runs only the
missing ones; each worker writes its result atomically the moment it finishes, so a crash,
a killed job or a lost dask worker costs at most the unfinished tasks.

A task's key is a SHA-256 over the pickled function and item (pickling only writes bytes
to hash; nothing is ever unpickled), the fairacq version and the source of the modules that
define the task function; the function is usually a :func:`functools.partial` binding the
frozen config and the spawned seeds, so any change to the config, the seeds, the item or the
experiment module gives a new key.

Results are stored as JSON (:mod:`.result_codec`): reading an entry builds numbers, strings,
containers, numpy arrays, DataFrames and traces from data and executes nothing, so a cache
folder received from elsewhere cannot run code. Each entry carries its key and a checksum;
a torn, edited or foreign entry is refused with a :class:`TaskCacheWarning` and the task run
again, and a result of a type the format does not hold is not kept (also with a warning).
The checksum is not keyed: it catches damage, not an entry whose numbers were changed and its
checksum recomputed on purpose. An entry is read only from a regular file of at most
:data:`fairacq._io.MAX_JSON_BYTES` bytes (a link to a device is refused).
Entries of earlier fairacq versions (``*.pkl``) are never read.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
import sys
import types
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from fairacq._io import MAX_JSON_BYTES, atomic_write, read_bytes_bounded
from fairacq._version import __version__
from fairacq.parallel import (
    Executor,
    TaskDone,
    TaskReused,
    takes_on_done,
)
from fairacq_experiments._framework.result_codec import (
    CorruptValueError,
    UnsupportedValueError,
    decode,
    encode,
)

__all__ = ["CachingExecutor", "TaskCacheWarning", "task_key"]

T = TypeVar("T")
R = TypeVar("R")

#: Part of every key (changing it re-keys every task).
_FORMAT = 1
#: How entries are written: the header's ``format`` and ``version``, and the file suffix.
_FORMAT_NAME = "fairacq-task-cache"
_STORAGE_VERSION = 2
_SUFFIX = ".jsonl"


class TaskCacheWarning(UserWarning):
    """A task's result could not be kept in, or was refused from, the task cache."""


@functools.cache
def _source_digest(module_name: str) -> str:
    """SHA-256 of a module's source file ('' for built-in modules)."""
    path = getattr(sys.modules.get(module_name), "__file__", None)
    return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""


def _task_modules(fn: Callable[..., Any]) -> list[str]:
    """Return the module of the task function, then those of functions bound into it.

    A task built by :func:`run_trials` is a partial of a helper that calls the trial
    function bound into it: the trial's module then counts as well.
    """
    func = fn.func if isinstance(fn, functools.partial) else fn
    modules = [getattr(func, "__module__", None) or ""]
    if isinstance(fn, functools.partial):
        for arg in fn.args:
            if isinstance(arg, types.FunctionType) and arg.__module__ not in modules:
                modules.append(arg.__module__)
    return modules


def task_key(fn: Callable[[Any], Any], item: Any) -> str:
    """Return the cache key of ``fn(item)``.

    The SHA-256 of the pickled pair, the fairacq version and the source of the modules that
    define the task function (and a trial function bound into it), so editing an experiment
    module invalidates its cached tasks (edits deeper in the library do not: re-run with
    ``resume=False`` after those).

    Examples
    --------
    >>> task_key(abs, -1) == task_key(abs, -1), task_key(abs, -1) == task_key(abs, -2)
    (True, False)
    """
    sources = "".join(_source_digest(m) for m in _task_modules(fn))
    digest = hashlib.sha256()
    # Each part is pickled on its own: pickle refers back to an object it has already
    # written in the same call, so one pickle of (fn, item) would differ for a task whose
    # strings are the config's own objects and an equal task built from other strings.
    for part in (_FORMAT, __version__, sources, fn, item):
        digest.update(hashlib.sha256(pickle.dumps(part, protocol=5)).digest())
    return digest.hexdigest()


def _path(directory: Path, key: str) -> Path:
    return directory / f"{key}{_SUFFIX}"


def _warn(message: str) -> None:
    warnings.warn(message, TaskCacheWarning, stacklevel=3)


def _load(path: Path, key: str) -> tuple[bool, Any]:
    """Return ``(True, result)``, or ``(False, None)`` if the entry is missing or refused.

    An entry is two JSON lines: a header with the format, the key and the SHA-256 of the
    second line, and the encoded result. Anything else (a torn write, an edited file, another
    format) is refused with a :class:`TaskCacheWarning` and the task recomputed.
    """
    try:
        raw = read_bytes_bounded(path, MAX_JSON_BYTES)
    except FileNotFoundError:
        return False, None
    except OSError as err:
        _warn(f"Task cache entry {path.name} cannot be read ({err}); recomputing it.")
        return False, None
    try:
        head, _, rest = raw.partition(b"\n")
        body = rest.removesuffix(b"\n")
        header = json.loads(head)
        if not isinstance(header, dict) or header.get("format") != _FORMAT_NAME:
            raise CorruptValueError("not a fairacq task-cache entry")
        if header.get("version") != _STORAGE_VERSION or header.get("key") != key:
            raise CorruptValueError("written for another key or by another fairacq version")
        if header.get("sha256") != hashlib.sha256(body).hexdigest():
            raise CorruptValueError("its checksum does not match its content")
        value = decode(json.loads(body))
    except (ValueError, RecursionError) as err:  # JSON and codec errors are ValueErrors
        _warn(f"Task cache entry {path.name} is refused ({err}); recomputing it.")
        return False, None
    return True, value


def _store(path: Path, key: str, result: Any, task: str) -> None:
    """Write ``result`` as an entry, or warn and keep nothing if it cannot be encoded."""
    try:
        body = json.dumps(encode(result), separators=(",", ":")).encode("utf-8")
    except (UnsupportedValueError, RecursionError) as err:
        _warn(f"Task cache: the result of {task} is not kept ({err}); a re-run recomputes it.")
        return
    header = {
        "format": _FORMAT_NAME,
        "version": _STORAGE_VERSION,
        "key": key,
        "sha256": hashlib.sha256(body).hexdigest(),
    }
    with atomic_write(path, "wb") as fh:
        fh.write(json.dumps(header).encode("utf-8") + b"\n" + body + b"\n")


def _run_and_store(fn: Callable[[T], R], directory: str, keyed: tuple[str, T]) -> R:
    """Run one task in a worker and write its result atomically before returning it."""
    key, item = keyed
    result = fn(item)
    _store(_path(Path(directory), key), key, result, _task_name(fn))
    return result


def _task_name(fn: Callable[..., Any]) -> str:
    func = fn.func if isinstance(fn, functools.partial) else fn
    return getattr(func, "__qualname__", None) or type(func).__qualname__


class CachingExecutor:
    """An executor that reuses results of tasks finished by an earlier (interrupted) run.

    Parameters
    ----------
    inner : Executor
        Runs the tasks that are not cached yet (serial, local process pool or dask; with dask
        the workers must see ``directory``).
    directory : path-like
        Where results are kept, one JSON file per task (``<key>.jsonl``).

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

    def map(
        self,
        fn: Callable[[T], R],
        items: Iterable[T],
        *,
        on_done: TaskDone | None = None,
        on_reused: TaskReused | None = None,
    ) -> list[R]:
        """Apply ``fn`` to every item, running only the items without a stored result.

        ``on_reused(n)`` is called once with the number of reused tasks (when there are any)
        before any task runs; without it, ``on_done()`` is called once for every reused task
        instead (at once). ``on_done()`` is also called for every task run, as it finishes
        when the inner executor takes it (else for all of them at the end).
        """
        todo = list(items)
        try:
            keys = [task_key(fn, item) for item in todo]
        except (pickle.PicklingError, TypeError, AttributeError):
            # a task that cannot be pickled cannot be keyed (nor sent to a worker): run it as is
            self.hits, self.misses = 0, len(todo)
            out: list[R] = self._run(fn, todo, on_done)
            return out
        self.directory.mkdir(parents=True, exist_ok=True)
        results: dict[int, Any] = {}
        missing: list[int] = []
        for i, key in enumerate(keys):
            found, value = _load(_path(self.directory, key), key)
            if found:
                results[i] = value
            else:
                missing.append(i)
        self.hits, self.misses = len(results), len(missing)
        if on_reused is not None:
            if self.hits:
                on_reused(self.hits)
        elif on_done is not None:
            for _ in range(self.hits):
                on_done()
        if missing:
            run = functools.partial(_run_and_store, fn, str(self.directory))
            computed = self._run(run, [(keys[i], todo[i]) for i in missing], on_done)
            results.update(zip(missing, computed, strict=True))
        return [results[i] for i in range(len(todo))]

    def _run(self, fn: Callable[[Any], Any], todo: list[Any], on_done: TaskDone | None) -> Any:
        """Map ``fn`` on the inner executor, passing ``on_done`` on when it takes it."""
        if on_done is None:
            return self.inner.map(fn, todo)
        if takes_on_done(self.inner):
            return self.inner.map(fn, todo, on_done=on_done)  # type: ignore[call-arg]
        out = self.inner.map(fn, todo)
        for _ in todo:
            on_done()
        return out
