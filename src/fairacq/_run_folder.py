"""Run folders: a command's outputs are built in a hidden sibling and swapped in whole.

``acquire``, ``sample``, ``compare``, ``features train``, ``relational infer``/``learn``
and ``demo`` write into ``.<name>.partial-<pid>`` beside their ``--out`` folder; when the
run finishes, the finished folder replaces ``--out`` with two renames (the earlier run, if
any, is moved aside to ``.<name>.previous-<pid>`` and deleted after the swap). A run
killed at any moment leaves ``--out`` as it was (the earlier run, or nothing); a kill
between the two renames leaves the earlier run aside, and the next run puts it back.
``acquire``'s checkpoint is written into ``--out`` itself (so ``--resume`` finds it) and is
not part of the finished folder: the swap removes it.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from fairacq._io import fsync_path
from fairacq.exceptions import InvalidParameterError

__all__ = ["CHECKPOINT_NAMES", "EXPERIMENT_NAMES", "RUN_NAMES", "check_run_folder", "run_folder"]

#: What a paper experiment (``reproduce``, ``demo``) writes at the top of its folder, besides
#: its figures (``<name>.png``); ``task-cache`` is what lets a stopped run go on.
EXPERIMENT_NAMES = frozenset({"config.json", "summary.json", "summary.md", "task-cache", "traces"})
#: What fairacq writes at the top of a run folder: acquire, sample, compare, reports;
#: features train (the agent); relational infer and learn; demo.
RUN_NAMES = EXPERIMENT_NAMES | frozenset(
    {
        "acquired.parquet", "acquisition_order.csv", "baselines", "counts.csv",
        "encoder.json", "fairness.png", "report.html", "sampling.png",
        "thresholds.json", "trace.json", "trace.parquet",
        "adversary.pt", "agent.pt", "columns.json", "history.json",
        "agent_rules.psl", "atoms.csv", "atoms.parquet", "history.csv", "metrics.json",
        "model.psl", "rules.psl", "datasift-vs-random.png", "result", "manifest.json",
    }
)  # fmt: skip
#: The checkpoint of a run under way (``acquire --checkpoint-every``), kept in the folder.
CHECKPOINT_NAMES = frozenset({"checkpoint", "checkpoint.json", "checkpoint.parquet"})


def _ours(name: str) -> bool:
    """Whether a top-level entry of a run folder is fairacq's (its temporary files too)."""
    temporary = name.startswith(".") and (name.endswith(".tmp") or name.startswith(".checkpoint."))
    return name in RUN_NAMES or name in CHECKPOINT_NAMES or temporary


def check_run_folder(
    path: str | os.PathLike[str],
    *,
    option: str = "--out",
    overwrite: bool = False,
    checkpoint_ok: bool = False,
) -> None:
    """Check, before any work, that a run may be written into the folder ``path``.

    Parameters
    ----------
    path : path-like
        The run folder; missing or empty is fine.
    option : str, default="--out"
        The option that named it, quoted in the error.
    overwrite : bool, default=False
        Whether an earlier run in ``path`` may be replaced.
    checkpoint_ok : bool, default=False
        Whether a folder holding only a checkpoint (an unfinished run) is fine without
        ``overwrite``: the command resumes from it or writes its own over it.

    An earlier run that a kill left aside in the middle of a swap is first put back.

    Raises
    ------
    InvalidParameterError
        If ``path`` holds files fairacq did not write (never replaced), or an earlier run
        and not ``overwrite`` (one line, with the fix).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "summary.json").write_text("{}")
    >>> check_run_folder(d, overwrite=True)
    >>> try:
    ...     check_run_folder(d)
    ... except InvalidParameterError as exc:
    ...     print(str(exc).split("; ")[0].endswith("already holds a finished run"))
    True
    """
    folder = Path(path)
    if folder.resolve().parent.is_dir():
        _tidy(folder.resolve())  # an earlier run a killed swap left aside is back in place
    if not folder.is_dir():
        return
    names = sorted(p.name for p in folder.iterdir())
    foreign = [n for n in names if not _ours(n)]
    if foreign:
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        raise InvalidParameterError(
            f"{option} {folder} holds files fairacq did not write ({shown}); a run replaces "
            f"its folder whole, so pass an empty or new {option}."
        )
    finished = [n for n in names if n in RUN_NAMES]
    unfinished = any(n in CHECKPOINT_NAMES for n in names) and not checkpoint_ok
    if (finished or unfinished) and not overwrite:
        what = "a finished run" if finished else "the checkpoint of an unfinished run"
        raise InvalidParameterError(
            f"{option} {folder} already holds {what}; pass --overwrite to replace it, or "
            f"another {option}."
        )


def _aside(final: Path, kind: str, pid: int) -> Path:
    return final.parent / f".{final.name}.{kind}-{pid}"


@contextlib.contextmanager
def run_folder(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a fresh hidden sibling folder of ``path``; swap it in when the block succeeds.

    Check the folder with :func:`check_run_folder` first: the swap replaces ``path`` whole
    (its checkpoint included). On an error the sibling is removed and ``path`` is untouched.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> with run_folder(out) as building:
    ...     _ = (building / "summary.json").write_text("{}")
    ...     out.exists()
    False
    >>> sorted(p.name for p in out.iterdir())
    ['summary.json']
    """
    final = Path(path).resolve()
    if final.parent == final:
        raise InvalidParameterError(f"{path} is the root folder. Pass a folder of its own.")
    final.parent.mkdir(parents=True, exist_ok=True)
    _tidy(final)
    staging, previous = (
        _aside(final, "partial", os.getpid()),
        _aside(final, "previous", os.getpid()),
    )
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        yield staging
        _fsync_tree(staging)
        if final.exists():
            os.replace(final, previous)
        os.replace(staging, final)
        fsync_path(final.parent)
        shutil.rmtree(previous, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _tidy(final: Path) -> None:
    """Put back an earlier run a killed swap left aside; remove dead runs' partial folders."""
    from fairacq._io import _alive

    for kind in ("previous", "partial"):
        for left in final.parent.glob(f".{glob.escape(final.name)}.{kind}-*"):
            pid = left.name.rsplit("-", 1)[1]
            if not pid.isdigit() or _alive(int(pid)):
                continue
            if kind == "previous" and not final.exists():
                os.replace(left, final)
            else:
                shutil.rmtree(left, ignore_errors=True)


def _fsync_tree(folder: Path) -> None:
    for p in folder.rglob("*"):
        if p.is_file():
            fsync_path(p)
    fsync_path(folder)
