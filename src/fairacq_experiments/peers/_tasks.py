"""Running one task of the peers experiments: load, split, acquire or mitigate, sample.

Kept apart from the summaries (``rows.py``, ``groups.py``) because the task cache keys every
result on the source of the module that defines the task function: editing how a summary
reads results must not throw away finished runs.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq._random import child, spawn_seeds
from fairacq._trace import Trace
from fairacq.acquisition import PartitionDroppedWarning, make_acquirer
from fairacq.data import FairDataset, load_dataset
from fairacq.metrics import accuracy, demographic_parity_diff_abs
from fairacq.models import fit_mitigation, make_learner
from fairacq.sampling import DatasetOracle, make_sampler, run_sampler_trials, trial_split
from fairacq_experiments.peers._config import parse_method, parse_sampler

if TYPE_CHECKING:
    from fairacq_experiments.peers._config import GroupsConfig, RowsConfig

__all__ = [
    "ACS_OFFLINE_STATES",
    "MITIGATION",
    "SPLIT_RATIOS",
    "RowTask",
    "group_accuracies",
    "groups_mitigation_task",
    "groups_task",
    "load_rows_dataset",
    "method_spec",
    "rows_task",
    "split_cells",
    "uniform_training_rows",
]

#: train : validation : pool : test, per (group, label) cell (Falcon's COMPAS sizes
#: 294 : 294 : 2,356 : 1,178 have these ratios; docs/paper-notes/peers-rows.md).
SPLIT_RATIOS = (1, 1, 8, 4)

#: The "collect nothing" comparator: fairlearn's ThresholdOptimizer on the initial data.
MITIGATION = "threshold-optimizer"

#: The 14 small states whose ACS files are kept offline (as the DataSift experiments use).
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

#: Each dataset's groups (paper-notes: COMPAS by race, Adult and ACS Income by sex).
GROUPS = {"compas": "race", "adult": "sex", "acs-income": "sex"}


@functools.lru_cache(maxsize=8)
def load_rows_dataset(name: str, include_sensitive: bool) -> FairDataset:
    """Load ``name`` grouped as in :data:`GROUPS` (raises ``DatasetNotFoundError``)."""
    if name.startswith("acs-"):
        return load_dataset(
            name,
            states=ACS_OFFLINE_STATES,
            sensitive=GROUPS[name],
            include_sensitive_features=include_sensitive,
        )
    # COMPAS is grouped by race and Adult by sex by default
    return load_dataset(name, include_sensitive_features=include_sensitive)


def split_cells(
    data: FairDataset, seed: np.random.SeedSequence, max_rows: int | None = None
) -> list[FairDataset]:
    """Train, validation, pool and test: each (group, label) cell split in SPLIT_RATIOS.

    With ``max_rows``, ``data`` is first subsampled to that many rows (the quick preset).
    """
    sub_seed, split_seed = child(seed, 1), child(seed, 2)
    if max_rows is not None and len(data) > max_rows:
        keep = np.random.default_rng(sub_seed).choice(len(data), max_rows, replace=False)
        data = data.subset(np.sort(keep))
    rng = np.random.default_rng(split_seed)
    parts: list[list[int]] = [[] for _ in SPLIT_RATIOS]
    s, y = np.asarray(data.s), np.asarray(data.y)
    for g in range(data.n_groups):
        for label in (0, 1):
            cell = rng.permutation(np.flatnonzero((s == g) & (y == label)))
            cuts = np.round(np.cumsum(SPLIT_RATIOS)[:-1] / sum(SPLIT_RATIOS) * cell.size)
            for i, chunk in enumerate(np.split(cell, cuts.astype(int))):
                parts[i] += chunk.tolist()
    return [data.subset(np.sort(np.asarray(p, dtype=np.int64))) for p in parts]


@dataclass(frozen=True)
class RowTask:
    """One (dataset, method label, trial) of ``peers-rows``."""

    dataset: str
    method: str
    trial: int


def method_spec(config: RowsConfig, label: str) -> tuple[str, dict[str, Any]]:
    """Return the registered acquirer and its extra parameters behind a method label.

    A label's own settings (``lam``, ``tol``, ``policy``, ``placement``,
    ``accuracy_weight``) pass through; FAL and DataSift-Inf take the rest from the config.
    """
    name, params = parse_method(label)
    if name == "fal":
        return "fal", {"n_candidates": config.fal_candidates, "alpha": config.fal_alpha}
    if name == "datasift-inf":
        return "datasift-inf", {"tau": config.datasift_tau, **params}
    return name, params


def rows_task(
    config: RowsConfig, seeds: Sequence[np.random.SeedSequence], task: RowTask
) -> Trace | dict[str, float]:
    """Run one acquirer (a Trace) or the mitigation comparator (test accuracy and |DP|)."""
    seed = seeds[task.trial]
    data = load_rows_dataset(task.dataset, config.include_sensitive)
    train, val, pool, test = split_cells(data, seed, config.max_rows)
    if task.method == MITIGATION:
        return _threshold_optimizer(train, test, child(seed, 4))
    budget, batch = config.budget_of(task.dataset)
    name, extra = method_spec(config, task.method)
    acquirer = make_acquirer(
        name,
        budget=budget,
        batch_size=batch,
        learner="lr",
        metric="demographic_parity_diff_abs",
        random_state=child(seed, 3),
        **extra,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        trace: Trace = acquirer.fit(train, pool, validation=val, test=test).trace_
    return trace


def _threshold_optimizer(
    train: FairDataset, test: FairDataset, seed: np.random.SeedSequence
) -> dict[str, float]:
    """Fit fairlearn's ThresholdOptimizer (demographic parity) on the initial training data."""
    from fairlearn.postprocessing import ThresholdOptimizer

    opt = ThresholdOptimizer(
        estimator=make_learner("lr"),
        constraints="demographic_parity",
        predict_method="predict_proba",
        objective="accuracy_score",
    )
    opt.fit(train.to_numpy(), np.asarray(train.y), sensitive_features=np.asarray(train.s))
    rng = np.random.default_rng(seed)
    pred = opt.predict(
        test.to_numpy(),
        sensitive_features=np.asarray(test.s),
        random_state=int(rng.integers(2**31 - 1)),
    )
    return {
        "test_accuracy": float(accuracy(np.asarray(test.y), pred)),
        "test_dp": float(demographic_parity_diff_abs(pred, np.asarray(test.s))),
        "test_rate": float(np.mean(pred)),
        "rows_paid": 0.0,
        "labels_seen": 0.0,
    }


def _groups_data(config: GroupsConfig) -> FairDataset:
    return load_dataset(config.dataset).with_sensitive(*config.groups)


def groups_task(config: GroupsConfig, task: tuple[str, int]) -> list[Trace]:
    """Every trial of one group sampler at one budget (same splits for every method)."""
    label, budget = task
    method, settings = parse_sampler(label)
    validation = settings.get("validation", "paired")
    traces: list[Trace] = run_sampler_trials(
        _groups_data(config),
        method,
        n_trials=config.n_trials,
        random_state=config.seed,
        budget=budget,
        validation=None if validation == "paired" else validation,
    )
    return traces


class _RecordingOracle(DatasetOracle):
    """A :class:`DatasetOracle` that keeps every draw, in order, as (group code, X, y)."""

    def __init__(self, dataset: FairDataset) -> None:
        self.draws: list[tuple[int, NDArray[np.float64], NDArray[np.int64]]] = []
        super().__init__(dataset)

    def reset(self) -> None:
        super().reset()
        self.draws = []

    def draw(
        self, group: int, n: int, rng: np.random.Generator
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        X, y = super().draw(group, n, rng)
        self.draws.append((int(group), X, y))
        return X, y


def uniform_training_rows(
    pool: FairDataset, budget: int, seed: np.random.SeedSequence
) -> FairDataset:
    """Return the rows of ``pool`` Uniform trains on (``pool``, ``seed`` from ``trial_split``).

    Uniform's rule (the group drawn least so far) reads no model, so its draws do not depend
    on its learner: the run is replayed, with a constant learner, on an oracle whose only
    feature is the pool's row number and which keeps what it draws. Each round draws its
    training rows, then the paired validation rows: the even draws are the training set.
    """
    from sklearn.dummy import DummyClassifier

    ids = FairDataset(
        pd.DataFrame({"row": np.arange(len(pool), dtype=np.float64)}),
        pool.y,
        pool.sensitive,
        sensitive_attrs=pool.sensitive_attrs,
    )
    assert ids.group_names == pool.group_names
    oracle = _RecordingOracle(ids)
    sampler = make_sampler("uniform", budget=budget, random_state=seed, learner=DummyClassifier())
    sampler.fit(oracle)
    rows = np.concatenate([X[:, 0] for _, X, _ in oracle.draws[0::2]]).astype(np.int64)
    return pool.subset(rows)


def group_accuracies(pred: Any, test: FairDataset) -> dict[str, float]:
    """Return the overall, per-group (``test_acc_<g>``) and worst-group accuracy of ``pred``."""
    hit = np.asarray(pred) == np.asarray(test.y)
    s = np.asarray(test.s)
    out = {"test_accuracy": float(hit.mean())}
    for g, name in enumerate(test.group_names):
        out[f"test_acc_{name}"] = float(hit[s == g].mean())
    out["test_worst_acc"] = min(out[f"test_acc_{name}"] for name in test.group_names)
    return out


def groups_mitigation_task(config: GroupsConfig, task: tuple[str, int]) -> list[dict[str, float]]:
    """Every trial of one mitigation fitted on the training rows Uniform draws at one budget.

    Same splits as :func:`groups_task`; the base learner is the samplers' (logistic
    regression, C=1, on the pool-standardised features). Each trial also reports that
    learner refitted on the same rows without mitigation (``plain_*``: Uniform's own model).
    fairlearn's ThresholdOptimizer cannot fit a group whose rows all have one label (small
    budgets, rare positives): such a trial has NaN scores and ``fit_failed`` 1.
    """
    name, budget = task
    data = _groups_data(config)
    out = []
    for seed in spawn_seeds(config.seed, config.n_trials):
        pool, test, run_seed = trial_split(data, seed)
        train = uniform_training_rows(pool, budget, run_seed)
        plain = make_learner("lr", scale=False, random_state=child(seed, 2))
        plain.fit(train.to_numpy(), train.y)
        base = group_accuracies(plain.predict(test.to_numpy()), test)
        learner = make_learner("lr", scale=False)
        try:
            model = fit_mitigation(name, train, learner=learner, random_state=child(seed, 2))
        except ValueError:
            if not _one_label_group(train):
                raise
            scores = {key: float("nan") for key in base} | {"fit_failed": 1.0}
        else:
            pred = model.predict(test, random_state=child(seed, 3))
            scores = group_accuracies(pred, test) | {"fit_failed": 0.0}
        scores["plain_test_accuracy"] = base["test_accuracy"]
        scores["plain_test_worst_acc"] = base["test_worst_acc"]
        scores["n_train"] = float(len(train))
        out.append(scores)
    return out


def _one_label_group(data: FairDataset) -> bool:
    s, y = np.asarray(data.s), np.asarray(data.y)
    return any(np.unique(y[s == g]).size < 2 for g in range(data.n_groups))
