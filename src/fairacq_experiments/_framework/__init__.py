"""The machinery every paper's experiments share.

Configurations with ``quick`` and ``full`` presets (:mod:`.config`), executors that map tasks
serially, over a local process pool or on dask (:mod:`.executor`), seeded trials
(:mod:`.trials`), the catalogue of experiments by name (:mod:`.registry`), what a run returns
and how it is written (:mod:`.result`), running and merging by name (:mod:`.runner`), and the
task cache that lets an interrupted run resume (:mod:`.task_cache`). Nothing here knows a
paper or a family: the paper packages beside it build on it.
"""

from fairacq.parallel import (
    DaskExecutor,
    Executor,
    LocalExecutor,
    SerialExecutor,
    make_executor,
    single_thread,
)
from fairacq_experiments._framework.config import ExperimentConfig, lists_to_tuples
from fairacq_experiments._framework.registry import (
    ExperimentSpec,
    get_experiment,
    list_experiments,
    register,
)
from fairacq_experiments._framework.result import (
    ExperimentResult,
    mean_std_row,
    rows_from_mapping,
)
from fairacq_experiments._framework.runner import merge_experiment, run_experiment
from fairacq_experiments._framework.task_cache import CachingExecutor, TaskCacheWarning, task_key
from fairacq_experiments._framework.trials import run_trials
from fairacq_experiments._framework.verdict import Verdict

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
    "get_experiment",
    "list_experiments",
    "lists_to_tuples",
    "make_executor",
    "mean_std_row",
    "merge_experiment",
    "register",
    "rows_from_mapping",
    "run_experiment",
    "run_trials",
    "single_thread",
    "task_key",
]
