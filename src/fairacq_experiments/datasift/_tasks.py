"""Running one task of the DataSift experiments: split, acquire, record.

Kept apart from ``datasift.py`` (configs and summaries) because the task cache keys every
result on the source of the module that defines the task function: editing how a summary
reads results must not throw away hours of finished acquisition runs.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from fairacq._random import KEY_TRIAL, child
from fairacq._trace import Trace
from fairacq.acquisition import PartitionDroppedWarning, make_acquirer
from fairacq.data import FairDataset, load_dataset, split_datasift
from fairacq.models import evaluate, make_learner

if TYPE_CHECKING:
    from fairacq_experiments.datasift._config import DataSiftConfig

__all__ = ["ACS_OFFLINE_STATES", "Task", "load_for_datasift", "run_task", "split_for_experiment"]

#: The 14 small states whose ACS files are offline (the paper uses California, §4.1.1).
ACS_OFFLINE_STATES = (
    "DE",
    "HI",
    "ID",
    "ME",
    "MT",
    "ND",
    "NE",
    "NH",
    "NM",
    "RI",
    "SD",
    "VT",
    "WV",
    "WY",
)


@functools.lru_cache(maxsize=8)
def load_for_datasift(name: str, adult_encoding: str = "one-hot") -> FairDataset:
    """Load ``name`` as paper 000 uses it (ACS: the union of the 14 offline states)."""
    if name.startswith("acs-"):
        return load_dataset(name, states=ACS_OFFLINE_STATES)
    if name == "adult":
        return load_dataset(name, encoding=adult_encoding)
    return load_dataset(name)


@dataclass(frozen=True)
class Task:
    """One (dataset, learner, method, trial) of a DataSift experiment."""

    dataset: str
    learner: str
    method: str
    trial: int


def split_for_experiment(
    config: DataSiftConfig, dataset: str, seed: np.random.SeedSequence
) -> Any:
    """DataSift's biased split of ``dataset`` for one trial (subsampled to ``max_rows``)."""
    # The ablation and scaling configs share max_rows and bias but keep Adult one-hot.
    data = load_for_datasift(dataset, getattr(config, "adult_encoding", "one-hot"))
    sub_seed, split_seed = _fixed_children(seed, 2)
    if config.max_rows is not None and len(data) > config.max_rows:
        keep = np.random.default_rng(sub_seed).choice(len(data), config.max_rows, replace=False)
        data = data.subset(np.sort(keep))
    return split_datasift(data, bias=config.bias, random_state=split_seed)  # type: ignore[arg-type]


def run_task(
    config: DataSiftConfig, seeds: Sequence[np.random.SeedSequence], task: Task
) -> Trace | dict[str, float]:
    """Run one method on one trial (``"whole-pool"``: train on train + pool, evaluate)."""
    seed = seeds[task.trial]
    split = split_for_experiment(config, task.dataset, seed)
    if task.method == "whole-pool":
        model = make_learner(task.learner, random_state=int(seed.generate_state(1)[0]))
        data = split.train.concat(split.pool)
        model.fit(data.to_numpy(), data.y)
        return evaluate(model, split.test, ["accuracy", config.metric])
    budget = max(1, round(config.budget_fraction * len(split.pool)))
    batch = max(1, round(config.batch_fraction * budget))
    name, extra = task.method, {}
    if task.method == "datasift-inf-acc":  # fairacq's accuracy-aware variant
        name, extra = "datasift-inf", {"accuracy_weight": config.accuracy_weight}
    shared = {
        **extra,
        "budget": budget,
        "batch_size": batch,
        "learner": task.learner,
        "metric": config.metric,
        "tau": config.tau,
        "alpha": config.alpha,
        "refit": config.refit,
        "random_state": _fixed_children(seed, 3)[2],
    }
    # One set drives every method; each takes those it declares (alpha is DataSift's).
    takes = make_acquirer(name).get_params(deep=False)
    acquirer = make_acquirer(name, **{k: v for k, v in shared.items() if k in takes})
    with warnings.catch_warnings():
        # dropped partitions are recorded in the trace's metadata and listed in the notes
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        return acquirer.fit(
            split.train, split.pool, validation=split.validation, test=split.test
        ).trace_


def _fixed_children(seed: np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """Return the trial's fixed streams (subsample, split, acquirer), apart from its steps'."""
    return [child(seed, KEY_TRIAL + i) for i in range(n)]
