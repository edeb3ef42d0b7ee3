"""Write a comparison: ``report.html`` (self-contained) and ``summary.json``, atomically."""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path
from typing import Any

from fairacq._io import atomic_write, write_json
from fairacq._version import __version__
from fairacq.compare._result import CompareResult

__all__ = ["compare_summary", "write_compare_report"]


def compare_summary(result: CompareResult, *, command: str = "") -> dict[str, Any]:
    """Return what ``summary.json`` holds: the result, the version, the time, the command."""
    summary: dict[str, Any] = {
        "experiment": f"compare-{result.question}",
        **result.to_dict(),
        "seed": result.config.get("seed"),
        "fairacq_version": __version__,
        "python": platform.python_version(),
        "created_unix": round(time.time(), 3),
        "files": ["report.html", "summary.json"],
    }
    if command:
        summary["command"] = command
    return summary


def write_compare_report(
    result: CompareResult, out: str | os.PathLike[str], *, command: str = ""
) -> dict[str, Any]:
    """Write ``report.html`` and ``summary.json`` into ``out`` (created if missing).

    Parameters
    ----------
    result : CompareResult
        From :func:`compare_strategies`.
    out : path
        The output folder.
    command : str, default=""
        The command line that produced it, recorded in the summary.

    Returns
    -------
    dict
        The summary written to ``summary.json``.
    """
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_write(folder / "report.html") as f:
        f.write(result.to_html())
    summary = compare_summary(result, command=command)
    write_json(folder / "summary.json", summary)
    return summary
