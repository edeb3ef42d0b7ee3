"""Reproducible experiments: configs with presets, seeded trials, executors and outputs.

Each paper module registers one experiment per figure or table it reproduces. An experiment
is run by name with :func:`run_experiment` (or ``fairacq reproduce NAME``): its config comes
from a ``quick`` (seconds) or ``full`` (the paper's settings) preset, its trials get
independent seeds spawned from one root seed and run on an :class:`Executor` (serial, a local
process pool, or dask.distributed), and its :class:`ExperimentResult` is written as traces,
PNG plots, ``summary.md`` (ours beside the paper's numbers) and ``summary.json``.

The machinery is in ``_framework``; each paper has its own package (:mod:`.datasift`,
:mod:`.aopt`, :mod:`.dadi`, :mod:`.filtering`, :mod:`.relational`), which builds on the
machinery and on its own family only; :mod:`.peers` measures the peers of papers 000 and
001 and uses the acquisition and sampling families. ``aopt_images``, ``aopt_tabular``,
``datasift_ablation``, ``datasift_scaling``, ``demo``, ``filtering_intersect``,
``filtering_proportions`` and ``a3sl`` name modules of those packages.
"""

from fairacq.experiments import aopt, dadi, datasift, filtering, peers, relational
from fairacq.experiments._framework import (
    CachingExecutor,
    DaskExecutor,
    Executor,
    ExperimentConfig,
    ExperimentResult,
    ExperimentSpec,
    LocalExecutor,
    SerialExecutor,
    TaskCacheWarning,
    Verdict,
    get_experiment,
    list_experiments,
    make_executor,
    merge_experiment,
    register,
    rows_from_mapping,
    run_experiment,
    run_trials,
    single_thread,
    task_key,
)
from fairacq.experiments.aopt import images as aopt_images
from fairacq.experiments.aopt import tabular as aopt_tabular
from fairacq.experiments.datasift import ablation as datasift_ablation
from fairacq.experiments.datasift import demo
from fairacq.experiments.datasift import scaling as datasift_scaling
from fairacq.experiments.filtering import intersect as filtering_intersect
from fairacq.experiments.filtering import proportions as filtering_proportions
from fairacq.experiments.relational import a3sl

__all__ = [
    "CachingExecutor",
    "DaskExecutor",
    "Executor",
    "ExperimentConfig",
    "ExperimentResult",
    "ExperimentSpec",
    "LocalExecutor",
    "SerialExecutor",
    "TaskCacheWarning",
    "Verdict",
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
    "peers",
    "register",
    "relational",
    "rows_from_mapping",
    "run_experiment",
    "run_trials",
    "single_thread",
    "task_key",
]
