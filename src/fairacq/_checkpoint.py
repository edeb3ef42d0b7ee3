"""Checkpoint folders: a trace and a strategy's own files, written and swapped in as one unit.

A strategy whose state is more than its trace (network weights, optimiser state) attaches a
writer to its :class:`~fairacq.TraceRecorder`; :class:`~fairacq.CheckpointCallback` then writes
a folder::

    path/
      trace.parquet, trace.json     the steps so far and the metadata (resume state, seed)
      <the strategy's files>        e.g. checkpoint.pt (tensors only) + checkpoint.json

The folder is built as a hidden sibling (``.<name>.partial``), flushed to disk, then moved
into place; the previous checkpoint is moved aside (``.<name>.previous``) for the instant of
the swap and deleted afterwards. A kill at any moment leaves a whole checkpoint: either the
previous one or the new one (:func:`resolve_checkpoint` finds the previous one if the kill fell
between the two renames). Tensors are written and read with torch's tensors-only format
(``torch.load(weights_only=True)``), so loading a stranger's checkpoint runs no code.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from fairacq._io import fsync_path
from fairacq.exceptions import CorruptFileError, InvalidParameterError

__all__ = [
    "TRACE_NAME",
    "StateWriter",
    "check_checkpoint_folder",
    "is_checkpoint_folder",
    "load_tensors",
    "resolve_checkpoint",
    "save_tensors",
    "write_checkpoint",
]

#: Base name of the trace inside a checkpoint folder (``trace.parquet`` + ``trace.json``).
TRACE_NAME = "trace"

#: Writes a strategy's own files into the folder it is given.
StateWriter = Callable[[Path], None]


def _partial(final: Path) -> Path:
    return final.parent / f".{final.name}.partial"


def _previous(final: Path) -> Path:
    return final.parent / f".{final.name}.previous"


def is_checkpoint_folder(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder holding a checkpoint trace (``trace.json``)."""
    folder = Path(path)
    return folder.is_dir() and (folder / f"{TRACE_NAME}.json").exists()


def resolve_checkpoint(path: str | os.PathLike[str]) -> Path:
    """Return where the checkpoint written at ``path`` is.

    That is ``path`` itself, unless a run was killed in the middle of swapping a new
    checkpoint folder in: then ``path`` is missing and the previous checkpoint, kept whole
    beside it, is returned.
    """
    final = Path(path)
    if final.exists() or final.with_name(final.name + ".parquet").exists():
        return final
    previous = _previous(final)
    return previous if is_checkpoint_folder(previous) else final


class _SavesItself(Protocol):
    """What a checkpoint needs of a :class:`~fairacq.Trace`: to save itself."""

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the trace at ``path``."""


def write_checkpoint(
    path: str | os.PathLike[str], trace: _SavesItself, writer: StateWriter | None = None
) -> Path:
    """Write ``trace`` and the strategy's files (``writer``) as the checkpoint folder ``path``.

    Parameters
    ----------
    path : path-like
        The checkpoint folder. It may exist only as an earlier checkpoint (a folder with
        ``trace.json``) or as an empty folder: a folder with other files is refused, so that
        a swap never removes anything else.
    trace : Trace
        The steps so far.
    writer : callable or None, default=None
        Writes the strategy's own files into the folder it is given.

    Returns
    -------
    pathlib.Path
        The folder.

    Raises
    ------
    InvalidParameterError
        If ``path`` is a file, or a folder holding files of something else.
    """
    final = Path(path)
    partial, previous = _partial(final), _previous(final)
    if not final.exists() and is_checkpoint_folder(previous):
        os.replace(previous, final)  # an earlier swap was cut short between its renames
    check_checkpoint_folder(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    if partial.exists():
        shutil.rmtree(partial)
    partial.mkdir()
    trace.save(partial / TRACE_NAME)
    if writer is not None:
        writer(partial)
    _fsync_tree(partial)
    if previous.exists():
        shutil.rmtree(previous)
    if final.exists():
        os.replace(final, previous)
    os.replace(partial, final)
    fsync_path(final.parent)
    shutil.rmtree(previous, ignore_errors=True)
    return final


def check_checkpoint_folder(path: str | os.PathLike[str]) -> None:
    """Check that a checkpoint folder may be written at ``path`` (before a long run).

    Raises
    ------
    InvalidParameterError
        If ``path`` is a file, or a folder holding files that are not a checkpoint (a swap
        would remove them).
    """
    final = Path(path)
    if final.exists() and not final.is_dir():
        raise InvalidParameterError(
            f"Checkpoint: {final} is a file, but this strategy writes a checkpoint folder "
            "(its trace plus its own files). Give a folder path."
        )
    if final.is_dir() and any(final.iterdir()) and not is_checkpoint_folder(final):
        raise InvalidParameterError(
            f"Checkpoint: {final} already holds files that are not a checkpoint; writing one "
            "would replace them. Give the checkpoint a folder of its own."
        )


def _fsync_tree(folder: Path) -> None:
    for p in folder.rglob("*"):
        if p.is_file():
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    fsync_path(folder)


def save_tensors(obj: Any, path: str | os.PathLike[str]) -> None:
    """Write a state of tensors and plain containers with ``torch.save``, atomically."""
    from fairacq._deps import require
    from fairacq._io import atomic_path

    torch = require("torch", purpose="saving network weights")
    with atomic_path(path) as tmp:
        torch.save(obj, tmp)


def load_tensors(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a file of :func:`save_tensors` with ``weights_only=True`` (no code runs).

    Raises
    ------
    CorruptFileError
        If the file is missing, unreadable, or holds no dictionary.
    """
    from fairacq._deps import require

    torch = require("torch", purpose="loading network weights")
    if not Path(path).exists():
        raise CorruptFileError(f"{path} is missing. Re-save the model or the checkpoint.")
    try:
        out = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a bad file
        raise CorruptFileError(
            f"{path} cannot be read as a tensors-only torch file ({type(exc).__name__}). "
            "Re-save the model or restore the file."
        ) from exc
    if not isinstance(out, dict):
        raise CorruptFileError(f"{path} does not hold a state dictionary. Re-save the model.")
    return out
