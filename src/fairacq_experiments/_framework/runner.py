"""Run a registered experiment by name and write its outputs."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fairacq._io import check_output_dir, read_json
from fairacq._version import __version__
from fairacq.exceptions import CorruptFileError, InvalidParameterError
from fairacq.parallel import Executor, ProgressExecutor, SerialExecutor
from fairacq_experiments._framework.registry import get_experiment
from fairacq_experiments._framework.result import ExperimentResult
from fairacq_experiments._framework.task_cache import CachingExecutor

__all__ = ["merge_experiment", "run_experiment"]


def run_experiment(
    name: str,
    *,
    preset: str = "quick",
    out_dir: str | os.PathLike[str] | None = None,
    executor: Executor | None = None,
    command: str = "",
    resume: bool = True,
    on_progress: Callable[..., None] | None = None,
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
    on_progress : callable or None, default=None
        ``on_progress(done, total, reused=n)``, called in this process whenever a task
        finishes (tasks reused from the cache count at once) and whenever the experiment
        hands out more tasks: ``total`` is the number of tasks handed out so far, so it can
        grow while an experiment runs one phase after another, and ``n`` of the ``done``
        tasks were reused rather than run, so a time-left estimate can leave them out (see
        :class:`ProgressExecutor`). An ``on_progress(done, total)`` without the ``reused``
        keyword is called without it.
    **overrides
        Config fields to change, e.g. ``n_trials=3``.

    Returns
    -------
    ExperimentResult
    """
    spec = get_experiment(name)
    config = spec.config_cls.preset_named(preset, **overrides)
    if out_dir is not None:
        check_output_dir(out_dir)  # before any work: a file there is one line, not a traceback
    start = time.perf_counter()
    inner = executor or SerialExecutor()
    cache = CachingExecutor(inner, Path(out_dir) / "task-cache") if resume and out_dir else None
    outer: Executor = cache or inner
    result = spec.run(
        config, outer if on_progress is None else ProgressExecutor(outer, on_progress)
    )
    result.meta.setdefault("elapsed_s", round(time.perf_counter() - start, 3))
    result.meta.setdefault("fairacq_version", __version__)
    result.meta.setdefault("seed", config.seed)
    if cache is not None:
        result.meta["tasks_reused"] = cache.hits
    if out_dir is not None:
        result.write(out_dir, command=command)
    return result


def merge_experiment(
    name: str,
    parts: Sequence[str | os.PathLike[str]],
    *,
    out_dir: str | os.PathLike[str] | None = None,
    command: str = "",
) -> ExperimentResult:
    """Summarise runs of parts of experiment ``name`` (e.g. some folds each) as one run.

    Long experiments can so be run piece by piece, on several machines or sessions (for
    ``dadi-fig2``: ``--set folds=[2,3]``), each part written to its own directory.

    Parameters
    ----------
    name : str
        The experiment every part ran.
    parts : sequence of path-like
        Output directories of the parts (each with ``config.json`` and ``summary.json``).
    out_dir : path-like or None, default=None
        Where to write the merged summary and plots.
    command : str, default=""
        The command line, recorded in the summary.

    Returns
    -------
    ExperimentResult

    Raises
    ------
    InvalidParameterError
        If the experiment cannot be merged, a part is missing or unreadable, belongs to
        another experiment, or the parts' settings differ beyond what the experiment allows.
    """
    spec = get_experiment(name)
    if spec.merge is None:
        raise InvalidParameterError(
            f"Experiment {name!r} cannot be merged from parts; run it whole "
            "(interrupted runs resume from OUT/task-cache)."
        )
    loaded = []
    for part in parts:
        config, meta = _read_part(Path(part))
        if config.get("experiment", name) != name:
            raise InvalidParameterError(
                f"{part} holds a run of {config.get('experiment')!r}, not {name!r}."
            )
        loaded.append((spec.config_cls.from_dict(config), meta))
    result = spec.merge(loaded)
    result.meta.setdefault("fairacq_version", __version__)
    result.meta["merged_from"] = [str(p) for p in parts]
    if out_dir is not None:
        result.write(out_dir, command=command)
    return result


def _read_part(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return a written run's configuration and summary meta."""
    if folder.exists() and not folder.is_dir():
        raise InvalidParameterError(
            f"{folder} is a file, not the output folder of a run. Pass the --out directory of "
            "each part."
        )
    for name in ("config.json", "summary.json"):
        if not (folder / name).exists():
            raise InvalidParameterError(
                f"{folder} is not the output of a finished run ({name} is missing). Pass the "
                "--out directory of each part."
            )
    try:
        config = read_json(folder / "config.json")["config"]
        meta = read_json(folder / "summary.json")["meta"]
    except (CorruptFileError, KeyError, TypeError) as err:
        raise InvalidParameterError(
            f"{folder}: config.json or summary.json is corrupt ({err}). Re-run that part."
        ) from None
    return dict(config), dict(meta)
