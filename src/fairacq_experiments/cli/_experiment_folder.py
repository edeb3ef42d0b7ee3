"""The folder of a paper experiment (``reproduce``, ``demo``): its own run, or refused.

``reproduce`` keeps finished tasks in ``OUT/task-cache`` so that the same command run again
goes on where it stopped; it writes its files into ``--out`` rather than swapping a new
folder in. A folder holding another command's run (``acquired.parquet``, ``agent.pt``, ...)
or another experiment's is refused before any work, so two runs never mix.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from fairacq.exceptions import InvalidParameterError

__all__ = ["check_experiment_folder", "experiment_in", "reuse_task_cache"]

_CACHE = "task-cache"


def experiment_in(folder: str | os.PathLike[str]) -> str | None:
    """Return the experiment whose run ``folder`` holds (its ``config.json``), or None.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> experiment_in(d) is None
    True
    >>> _ = (d / "config.json").write_text(json.dumps({"experiment": "demo-datasift"}))
    >>> experiment_in(d)
    'demo-datasift'
    """
    from fairacq._io import read_json
    from fairacq.exceptions import FairacqError

    path = Path(folder) / "config.json"
    if not path.is_file():
        return None
    try:
        data = read_json(path)
    except (FairacqError, OSError, ValueError):
        return None
    name = data.get("experiment") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def check_experiment_folder(
    path: str | os.PathLike[str], experiment: str, *, option: str = "--out"
) -> None:
    """Refuse, before any work, a folder holding another command's or experiment's run.

    Parameters
    ----------
    path : path-like
        The output folder; missing, empty, or holding a run of ``experiment`` is fine (the
        run goes on from its task cache). Files fairacq did not write are left alone.
    experiment : str
        The experiment about to run.
    option : str, default="--out"
        The option that named the folder, quoted in the error.

    Raises
    ------
    InvalidParameterError
        One line naming what the folder holds and the fix.
    """
    from fairacq._run_folder import EXPERIMENT_NAMES, RUN_NAMES

    folder = Path(path)
    if not folder.is_dir():
        return
    names = {p.name for p in folder.iterdir()}
    others = sorted((names & RUN_NAMES) - EXPERIMENT_NAMES)
    if others:
        raise InvalidParameterError(
            f"{option} {folder} holds the run of another fairacq command ({', '.join(others[:3])})"
            f"; pass another {option}, so the two runs do not mix."
        )
    found = experiment_in(folder)
    if "config.json" in names and found != experiment:
        what = f"a run of {found!r}" if found else "a config.json that is no experiment's"
        raise InvalidParameterError(
            f"{option} {folder} holds {what}, not of {experiment!r}; pass another {option}, "
            "so the two runs do not mix."
        )


def reuse_task_cache(earlier: Path, building: Path) -> None:
    """Link the task cache of the earlier run in ``earlier`` into ``building`` (if any).

    Cache entries are replaced, never edited in place, so hard links share them safely with
    the earlier run, which stays whole until the new one is swapped in. Where links cannot
    be made, the entries are copied.
    """
    source = earlier / _CACHE
    if source.is_dir():
        shutil.copytree(source, building / _CACHE, copy_function=_link_or_copy)


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)
