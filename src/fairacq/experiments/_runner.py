"""Run a registered experiment by name and write its outputs."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from fairacq._version import __version__
from fairacq.experiments._executor import Executor, SerialExecutor
from fairacq.experiments._registry import get_experiment
from fairacq.experiments._result import ExperimentResult
from fairacq.experiments._task_cache import CachingExecutor

__all__ = ["run_experiment"]


def run_experiment(
    name: str,
    *,
    preset: str = "quick",
    out_dir: str | os.PathLike[str] | None = None,
    executor: Executor | None = None,
    command: str = "",
    resume: bool = True,
    **overrides: Any,
) -> ExperimentResult:
    """Run experiment ``name`` with a preset (plus overrides) and optionally write it.

    Parameters
    ----------
    name : str
        A name from :func:`list_experiments`.
    preset : {"quick", "full"}, default="quick"
        Which configuration preset to start from.
    out_dir : path-like or None, default=None
        Where to write traces, plots, ``summary.md`` and ``summary.json``.
    executor : Executor or None, default=None
        Runs the trials (serial when None).
    command : str, default=""
        The command line, recorded in the summary.
    resume : bool, default=True
        With ``out_dir``, keep every finished task's result in ``out_dir/task-cache`` and
        reuse it, so re-running an interrupted command only runs the unfinished tasks (see
        :class:`CachingExecutor`). ``False`` runs everything afresh.
    **overrides
        Config fields to change, e.g. ``n_trials=3``.

    Returns
    -------
    ExperimentResult
    """
    spec = get_experiment(name)
    config = spec.config_cls.preset_named(preset, **overrides)
    start = time.perf_counter()
    inner = executor or SerialExecutor()
    cache = CachingExecutor(inner, Path(out_dir) / "task-cache") if resume and out_dir else None
    result = spec.run(config, cache or inner)
    result.meta.setdefault("elapsed_s", round(time.perf_counter() - start, 3))
    result.meta.setdefault("fairacq_version", __version__)
    result.meta.setdefault("seed", config.seed)
    if cache is not None:
        result.meta["tasks_reused"] = cache.hits
    if out_dir is not None:
        result.write(out_dir, command=command)
    return result
