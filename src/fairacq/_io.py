"""Atomic file writes, checksums and checks of output paths.

A file is written to a temporary sibling, flushed to disk and moved into place with
:func:`os.replace`, so a crash never leaves a half-written result behind. A temporary file
left by a killed writer is removed by the next write of the same file, and the result gets
the permissions the user's umask gives a new file.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, Literal

from fairacq.exceptions import CorruptFileError, InvalidParameterError

__all__ = [
    "atomic_path",
    "atomic_write",
    "check_output_dir",
    "check_output_file",
    "fsync_path",
    "read_bytes_bounded",
    "read_json",
    "sha256_file",
    "to_jsonable",
    "write_json",
]


def _label(path: Path, option: str | None) -> str:
    return f"{option} {path}" if option else str(path)


#: The inputs of a command, by the option that named them; a value may be one path, several
#: or None (not given).
Inputs = Mapping[str, "str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None"]


def _given(inputs: Inputs | None) -> Iterator[tuple[str, Path]]:
    """Each (option, path) of ``inputs`` that names an existing file or folder."""
    for option, value in (inputs or {}).items():
        if value is None:
            continue
        values = [value] if isinstance(value, (str, os.PathLike)) else list(value)
        for one in values:
            path = Path(one)
            if str(one) and path.exists():
                yield option, path


def _same(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (links and hard links included)."""
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def _clash(out: Path, option: str | None, inputs: Inputs | None, *, folder: bool) -> None:
    """Refuse an output that would replace one of the command's inputs."""
    for name, path in _given(inputs):
        real_out, real_in = out.resolve(), path.resolve()
        inside = folder and (real_in == real_out or real_out in real_in.parents)
        # a file written over one inside an input folder (a saved model's own files)
        within = not folder and out.exists() and real_in in real_out.parents
        if inside or within or (not folder and _same(out, path)):
            where = (
                "lies inside the output folder"
                if folder
                else "holds the output file"
                if within
                else "is the output file"
            )
            raise InvalidParameterError(
                f"{_label(out, option)} would overwrite an input: {name} {path} {where}. "
                "Pass another output path; inputs are never written over."
            )


def _blocked_parent(path: Path) -> Path | None:
    """Return the nearest existing ancestor of ``path`` if it is not a directory."""
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


def _check_writable(out: Path, option: str | None) -> None:
    """Refuse an output whose nearest existing parent folder takes no new file (probed)."""
    parent = next((p for p in out.parents if p.exists()), None)
    if parent is None or not parent.is_dir():
        return
    try:
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as exc:
        raise InvalidParameterError(
            f"{_label(out, option)}: cannot write in {parent} ({exc.strerror or exc}). Pass "
            "a path in a folder you may write to, e.g. runs/first."
        ) from None


def check_output_dir(
    path: str | os.PathLike[str], *, option: str | None = None, inputs: Inputs | None = None
) -> Path:
    """Check, before any work, that ``path`` can be an output directory; return it.

    It may exist (as a directory) or not; nothing is created.

    Parameters
    ----------
    path : path-like
        The directory.
    option : str or None, default=None
        The command-line option that named it (``"--out"``), quoted in the error.
    inputs : mapping of str to path-like, paths or None, optional
        The command's inputs by option (``{"--data": path}``); none may lie inside ``path``.

    Raises
    ------
    InvalidParameterError
        If ``path`` is empty or the current folder, ``path`` or one of its parents is an
        existing file, its nearest existing parent takes no new file, or an input lies inside
        it (one line, with the fix).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
    >>> _ = f.write_text("x")
    >>> check_output_dir(f.parent / "run").name
    'run'
    >>> try:
    ...     check_output_dir(f, option="--out")
    ... except InvalidParameterError as exc:
    ...     print(str(exc).split(" is ")[1][:16])
    an existing file
    """
    out = Path(path)
    if str(path) in ("", "."):
        raise InvalidParameterError(
            f"{option or 'the output folder'} is empty or the current folder, where this run's "
            "files would mix with yours. Pass a folder of its own, e.g. runs/first."
        )
    if out.exists() and not out.is_dir():
        raise InvalidParameterError(
            f"{_label(out, option)} is an existing file, but an output folder is needed. "
            "Pass a new or existing folder."
        )
    blocked = _blocked_parent(out)
    if blocked is not None:
        raise InvalidParameterError(
            f"{_label(out, option)}: {blocked} is a file, so no folder can be made inside it. "
            "Pass a folder whose parents are folders."
        )
    _check_writable(out, option)
    _clash(out, option, inputs, folder=True)
    return out


def check_output_file(
    path: str | os.PathLike[str],
    *,
    option: str | None = None,
    suffixes: tuple[str, ...] | None = None,
    inputs: Inputs | None = None,
) -> Path:
    """Check, before any work, that ``path`` can be an output file; return it.

    Parameters
    ----------
    path : path-like
        The file (it may exist: it is replaced).
    option : str or None, default=None
        The command-line option that named it, quoted in the error.
    suffixes : tuple of str or None, default=None
        Accepted endings (e.g. ``(".parquet", ".csv")``); ``None`` accepts any.
    inputs : mapping of str to path-like, paths or None, optional
        The command's inputs by option; ``path`` may be none of them (links followed).

    Raises
    ------
    InvalidParameterError
        If ``path`` is an existing directory, a parent is a file or takes no new file, its
        ending is not one of ``suffixes``, or it is one of ``inputs`` (one line, with the fix).
    """
    out = Path(path)
    if out.is_dir():
        raise InvalidParameterError(
            f"{_label(out, option)} is an existing folder, but an output file is needed. "
            "Pass a file name."
        )
    blocked = _blocked_parent(out)
    if blocked is not None:
        raise InvalidParameterError(
            f"{_label(out, option)}: {blocked} is a file, so it cannot hold the output. "
            "Pass a path inside a folder."
        )
    if suffixes is not None and not out.name.lower().endswith(suffixes):
        raise InvalidParameterError(
            f"{_label(out, option)}: unsupported file type. Pass a name ending in "
            f"{' or '.join(suffixes)}."
        )
    _check_writable(out, option)
    _clash(out, option, inputs, folder=False)
    return out


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path that replaces ``path`` when the block exits without error.

    Parameters
    ----------
    path : path-like
        Final destination. Its parent directory is created if needed.
    """
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(final)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{final.name}.{os.getpid()}.", suffix=".tmp", dir=final.parent
    )
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        fsync_path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, final)
        fsync_path(final.parent)
    finally:
        if tmp.exists():
            tmp.unlink()


def _umask() -> int:
    """Return the process's umask (from /proc where it can be read without changing it)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # elsewhere reading it means setting it; put it back at once
    os.umask(mask)
    return mask


def fsync_path(path: str | os.PathLike[str]) -> None:
    """Flush ``path`` (a file, or a directory's entries) to disk where the system allows."""
    path = Path(path)
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if path.is_dir() else 0)
    try:
        fd = os.open(path, flags)
    except OSError:  # some systems cannot open a directory
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_orphans(final: Path) -> None:
    """Remove temporary siblings of ``final`` left by writers that no longer run."""
    for tmp in final.parent.glob(f".{glob.escape(final.name)}.*.tmp"):
        pid = tmp.name[len(final.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _alive(pid: int) -> bool:
    """Whether a process with this id runs (another user's counts as running)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file for writing that atomically replaces ``path`` on success.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with atomic_write(d / "a.txt") as f:
    ...     _ = f.write("hello")
    >>> (d / "a.txt").read_text()
    'hello'
    """
    with atomic_path(path) as tmp, open(tmp, mode, encoding=None if "b" in mode else "utf-8") as f:
        yield f


def write_json(path: str | os.PathLike[str], obj: Any) -> None:
    """Write ``obj`` as indented JSON, atomically."""
    with atomic_write(path) as f:
        json.dump(to_jsonable(obj, unknown="raise"), f, indent=2, sort_keys=False)
        f.write("\n")


class _MissingFileError(CorruptFileError, FileNotFoundError):
    """A file that does not exist (also a :class:`FileNotFoundError`)."""


#: Deepest nesting a JSON artefact may have (fairacq's own are a few levels deep); deeper
#: files are refused before the parser recurses.
MAX_JSON_DEPTH = 64
#: Largest JSON artefact read (fairacq's own, task-cache entries included, are far smaller);
#: a larger file, or a link to an endless device, is refused before it fills memory.
MAX_JSON_BYTES = 512 * 1024 * 1024


def read_json(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> Any:
    """Read a JSON file, raising :class:`CorruptFileError` naming the path on any problem.

    A missing file, a folder or anything else that is not a regular file (a device such as
    ``/dev/zero``, a pipe), a file larger than ``max_bytes`` (default
    :data:`MAX_JSON_BYTES`), bytes that are not UTF-8 text, malformed JSON and nesting
    deeper than :data:`MAX_JSON_DEPTH` each give one line naming the file and the fix.
    """
    where = Path(path)
    if where.is_dir():
        raise CorruptFileError(f"{where} is a folder, not a JSON file. Pass the .json file.")
    data = read_bytes_bounded(where, MAX_JSON_BYTES if max_bytes is None else max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptFileError(
            f"{where} is not a text file (byte {exc.start} is not UTF-8). Pass the .json "
            "file fairacq wrote."
        ) from exc
    _check_depth(where, text)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorruptFileError(
            f"{where} is not valid JSON ({exc.msg} at line {exc.lineno}). "
            "Delete it and re-create it, or restore it from a backup."
        ) from exc


def read_bytes_bounded(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """Read the regular file ``path`` whole, refusing more than ``max_bytes`` bytes.

    Raises
    ------
    CorruptFileError
        For a folder, a device, pipe or socket (``/dev/zero`` behind a link included), or a
        file larger than ``max_bytes``; a missing file raises one that is also a
        :class:`FileNotFoundError`.
    """
    where = Path(path)
    if where.is_dir():
        raise CorruptFileError(f"{where} is a folder, not a file. Pass the file fairacq wrote.")
    try:
        with open(where, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise CorruptFileError(
                    f"{where} is not a regular file (a device, pipe or socket). Pass the "
                    "file fairacq wrote."
                )
            data = fh.read(max_bytes + 1)
    except FileNotFoundError as exc:
        raise _MissingFileError(f"{where} does not exist. Check the path.") from exc
    if len(data) > max_bytes:
        raise CorruptFileError(
            f"{where} is larger than {max_bytes:,} bytes; no file fairacq writes is. Pass the "
            "file fairacq wrote."
        )
    return data


def _check_depth(path: Path, text: str) -> None:
    """Refuse JSON nested deeper than :data:`MAX_JSON_DEPTH` (brackets inside strings aside)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub('""', text))
    depth = 0
    for char in brackets:
        depth += 1 if char in "[{" else -1
        if depth > MAX_JSON_DEPTH:
            raise CorruptFileError(
                f"{path} nests deeper than {MAX_JSON_DEPTH} levels; no fairacq file does. "
                "Pass the file fairacq wrote."
            )


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]")


def sha256_file(path: str | os.PathLike[str], *, chunk: int = 1 << 20) -> str:
    """Return the hex sha256 digest of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def to_jsonable(obj: Any, *, unknown: Literal["repr", "str", "raise"] = "repr") -> Any:
    """Return ``obj`` in JSON types: the one conversion every saved artefact uses.

    Mappings become dicts with string keys, lists and tuples lists, sets sorted lists, numpy
    scalars and arrays Python numbers and lists, paths strings; None, str, int, float and bool
    stay as they are.

    Parameters
    ----------
    obj : object
        What to convert (nested containers are converted all the way down).
    unknown : {"repr", "str", "raise"}, default="repr"
        What becomes of any other object: its ``repr``, its ``str``, or a :class:`TypeError`
        naming its type.

    Examples
    --------
    >>> import numpy as np
    >>> to_jsonable({1: (np.int64(2), np.array([0.5])), "s": {"b", "a"}})
    {'1': [2, [0.5]], 's': ['a', 'b']}
    """
    if obj is None or type(obj) in (str, int, float, bool):
        return obj
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v, unknown=unknown) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v, unknown=unknown) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return _sorted([to_jsonable(v, unknown=unknown) for v in obj])
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    import numpy as np  # here, so that importing the kernel's IO does not load numpy

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist(), unknown=unknown)
    if isinstance(obj, (str, int, float, bool)):  # subclasses: enums of str or int
        return obj
    if unknown == "raise":
        raise TypeError(f"Object of type {type(obj).__name__} is not JSON serialisable")
    return repr(obj) if unknown == "repr" else str(obj)


def _sorted(items: list[Any]) -> list[Any]:
    """Sort a set's items: by value when they compare, else by their text."""
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)
