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

from fairacq._lazy import lazy_exports

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

__getattr__, __dir__ = lazy_exports(
    __name__, dict.fromkeys(__all__, "fairacq_experiments._catalogue"), __all__
)
