"""Reproducible experiments: configs with presets, seeded trials, executors and outputs.

Each paper module registers one experiment per figure or table it reproduces. An experiment
is run by name with :func:`run_experiment` (or ``fairacq reproduce NAME``): its config comes
from a ``quick`` (seconds) or ``full`` (the paper's settings) preset, its trials get
independent seeds spawned from one root seed and run on an :class:`Executor` (serial, a local
process pool, or dask.distributed), and its :class:`ExperimentResult` is written as traces,
PNG plots, ``summary.md`` (ours beside the paper's numbers) and ``summary.json``.
"""

from fairacq.experiments import (
    a3sl,
    aopt,
    aopt_images,
    aopt_tabular,
    dadi,
    datasift,
    datasift_ablation,
    datasift_scaling,
    demo,
    filtering,
    filtering_intersect,
    filtering_proportions,
    relational,
)
from fairacq.experiments._config import ExperimentConfig
from fairacq.experiments._executor import (
    DaskExecutor,
    Executor,
    LocalExecutor,
    SerialExecutor,
    make_executor,
    single_thread,
)
from fairacq.experiments._registry import (
    ExperimentSpec,
    get_experiment,
    list_experiments,
    register,
)
from fairacq.experiments._result import ExperimentResult, rows_from_mapping
from fairacq.experiments._runner import merge_experiment, run_experiment
from fairacq.experiments._task_cache import CachingExecutor, task_key
from fairacq.experiments._trials import run_trials

__all__ = [
    "CachingExecutor",
    "DaskExecutor",
    "Executor",
    "ExperimentConfig",
    "ExperimentResult",
    "ExperimentSpec",
    "LocalExecutor",
    "SerialExecutor",
    "a3sl",
    "aopt",
    "aopt_images",
    "aopt_tabular",
    "dadi",
    "datasift",
    "datasift_ablation",
    "datasift_scaling",
    "demo",
    "filtering",
    "filtering_intersect",
    "filtering_proportions",
    "get_experiment",
    "list_experiments",
    "make_executor",
    "merge_experiment",
    "register",
    "relational",
    "rows_from_mapping",
    "run_experiment",
    "run_trials",
    "single_thread",
    "task_key",
]
