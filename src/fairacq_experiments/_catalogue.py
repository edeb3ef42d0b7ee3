"""Every paper's experiments, registered, and the harness's public names.

Importing this module imports every paper package (each registers its experiments), so
:func:`list_experiments` and :func:`get_experiment` see them all. The package's ``__init__``
loads it on the first access of a public name: ``import fairacq_experiments`` (done by the
``fairacq`` command line to find its ``reproduce`` and ``demo`` commands) stays cheap.
"""

import fairacq_experiments.aopt as aopt
import fairacq_experiments.dadi as dadi
import fairacq_experiments.datasift as datasift
import fairacq_experiments.filtering as filtering
import fairacq_experiments.peers as peers
import fairacq_experiments.relational as relational
from fairacq_experiments._framework import (
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
from fairacq_experiments.aopt import images as aopt_images
from fairacq_experiments.aopt import tabular as aopt_tabular
from fairacq_experiments.datasift import ablation as datasift_ablation
from fairacq_experiments.datasift import demo
from fairacq_experiments.datasift import scaling as datasift_scaling
from fairacq_experiments.filtering import intersect as filtering_intersect
from fairacq_experiments.filtering import proportions as filtering_proportions
from fairacq_experiments.relational import a3sl

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
