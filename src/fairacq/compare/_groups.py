"""The groups question, one seed: how many rows of each group to collect.

The table is split into rows to draw from and test rows. Each sampler runs once
(:func:`fairacq.sampling.allocate_budget`, steered on its own validation draws) and says how
many samples of each group to collect; that allocation is then bought: as many rows of each
group drawn from the rows to draw from (the same draw order for every sampler), the model
trained on them and scored on the test rows, which no sampler sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from fairacq._random import child, child_rng
from fairacq.compare._noise import seed_floor
from fairacq.compare._runs import RunLog, Settings, one_class_on
from fairacq.data import FairDataset, split_parts
from fairacq.models import evaluate, make_learner, predict_scores
from fairacq.sampling import allocate_budget

__all__ = ["BASELINE_SAMPLER", "groups_parts", "run_groups_seed"]

#: The sampler others are measured against (its accuracy is the reference of the losses).
BASELINE_SAMPLER = "uniform"
_SPLIT, _MODEL, _METHOD, _DRAW = 0, 1, 2, 4


def groups_parts(
    dataset: FairDataset, test_fraction: float, seed: np.random.SeedSequence
) -> tuple[FairDataset, FairDataset]:
    """Split ``dataset`` for one seed into the rows to draw from and the test rows."""
    (source, test), _ = split_parts(
        dataset,
        (1 - test_fraction, test_fraction),
        names=("rows to draw from", "test"),
        random_state=child_rng(seed, _SPLIT),
    )
    return source, test


def _allocation(
    method: str, source: FairDataset, settings: Settings, seed: np.random.SeedSequence
) -> dict[str, int]:
    """Return the samples per group the sampler asks for (training and validation draws)."""
    plain_lr = isinstance(settings.learner, str) and settings.learner == "lr"
    result = allocate_budget(
        source,
        method,
        budget=settings.budget,
        n_trials=1,
        random_state=child(seed, _METHOD),
        learner=None if plain_lr else settings.learner,
        baseline=None,
    )
    counts = result.counts()
    return {str(g): int(n) for g, n in zip(counts["group"], counts["samples"], strict=True)}


def _buy(
    allocation: dict[str, int], source: FairDataset, seed: np.random.SeedSequence
) -> FairDataset:
    """Draw ``allocation[g]`` rows of each group ``g`` (capped at the group's rows)."""
    order = child_rng(seed, _DRAW).permutation(len(source))
    codes = np.asarray(source.s)[order]
    chosen = [
        order[codes == code][: allocation.get(str(name), 0)]
        for code, name in enumerate(source.group_names)
    ]
    return source.subset(np.sort(np.concatenate(chosen)))


def _sample(
    method: str,
    source: FairDataset,
    test: FairDataset,
    settings: Settings,
    seed: np.random.SeedSequence,
) -> dict[str, Any]:
    allocation = _allocation(method, source, settings, seed)
    bought = _buy(allocation, source, seed)
    model = make_learner(settings.learner, random_state=child(seed, _MODEL))
    model.fit(bought.to_numpy(), bought.y)
    floor = {}  # the gap an exactly fair rule shows on these test rows, at uniform's rate
    if method == BASELINE_SAMPLER:
        y_pred = predict_scores(model, test.to_numpy()) >= 0.5
        floor = seed_floor(y_pred, test, settings.target.metric)
    return {
        "cost": float(len(bought)),
        **evaluate(model, test, settings.metrics),
        "allocation": allocation,
        "one_class": one_class_on(model, test),
        **floor,
    }


def run_groups_seed(
    source: FairDataset,
    test: FairDataset,
    settings: Settings,
    *,
    samplers: Sequence[str],
    seed: np.random.SeedSequence,
    index: int,
    log: RunLog,
) -> None:
    """Run every sampler on one seed's rows; keep their records in ``log``."""
    for method in samplers:
        log.run(method, "sample", index, partial(_sample, method, source, test, settings, seed))
