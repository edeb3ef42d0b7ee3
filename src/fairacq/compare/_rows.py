"""The rows question, one seed: which pool rows to buy, against fixing the model instead.

The table is split (stratified on group x label) into a small initial training part, a pool,
validation and test rows. Every acquisition method buys from the pool up to the whole budget
(steered on the validation rows); the mitigation comparators are trained on the initial rows
("collect nothing", cost 0) and on the initial rows plus those Random bought (Random's cost).
Everything is scored on the test rows, which no strategy sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fairacq._random import child, child_rng
from fairacq._trace import Trace
from fairacq.acquisition import make_acquirer
from fairacq.compare._noise import seed_floor
from fairacq.compare._runs import RunLog, Settings, one_class_on
from fairacq.data import FairDataset, split_parts
from fairacq.models import (
    evaluate,
    fit_mitigation,
    is_one_class,
    make_learner,
    predict_scores,
    prediction_metrics,
)

__all__ = ["NO_ACTION", "RowsParts", "rows_parts", "run_rows_seed"]

#: The strategy of doing nothing: the model trained on the initial rows.
NO_ACTION = "no action"
_SPLIT, _MODEL, _METHOD, _PREDICT = 0, 1, 2, 3


@dataclass(frozen=True)
class RowsParts:
    """One seed's initial, pool, validation and test rows, and the pool's costs."""

    initial: FairDataset
    pool: FairDataset
    validation: FairDataset
    test: FairDataset
    pool_costs: NDArray[np.float64] | None


def rows_parts(
    dataset: FairDataset,
    costs: NDArray[np.float64] | None,
    fractions: Sequence[float],
    seed: np.random.SeedSequence,
) -> RowsParts:
    """Split ``dataset`` for one seed: initial, pool, validation and test, in ``fractions``."""
    parts, index = split_parts(
        dataset,
        fractions,
        names=("initial", "pool", "validation", "test"),
        random_state=child_rng(seed, _SPLIT),
    )
    pool_costs = None if costs is None else np.asarray(costs, dtype=np.float64)[index["pool"]]
    initial, pool, validation, test = parts
    return RowsParts(initial, pool, validation, test, pool_costs)


def _finals(trace: Trace, metrics: Sequence[str]) -> dict[str, float]:
    return {m: float(trace.final(f"test_{m}")) for m in metrics}


def _first_met(trace: Trace, settings: Settings) -> float:
    """Return the first cost at which the test curve met the target (NaN: never).

    Read off the test rows for orientation only: a real run sees no test rows, so the
    comparison judges every method at the end of its budget.
    """
    frame = trace.to_frame()
    met = [settings.target.met(float(v)) for v in frame[f"test_{settings.target.metric}"]]
    return float(frame["cost"][met].iloc[0]) if any(met) else float("nan")


def _no_action(
    parts: RowsParts, settings: Settings, seed: np.random.SeedSequence
) -> dict[str, Any]:
    model = make_learner(settings.learner, random_state=child(seed, _MODEL))
    model.fit(parts.initial.to_numpy(), parts.initial.y)
    scores = evaluate(model, parts.test, settings.metrics)
    y_pred = predict_scores(model, parts.test.to_numpy()) >= 0.5
    floor = seed_floor(y_pred, parts.test, settings.target.metric)
    return {"cost": 0.0, **scores, "one_class": is_one_class(y_pred), **floor}


def _acquire(
    method: str, parts: RowsParts, settings: Settings, seed: np.random.SeedSequence
) -> tuple[dict[str, Any], Any]:
    shared = {
        "budget": settings.budget,
        "batch_size": settings.batch,
        "learner": settings.learner,
        "metric": settings.steer,
        "tau": 0.0,
        "track": settings.metrics,
        "cost_model": settings.cost_model,
        "random_state": child(seed, _METHOD),
    }
    # One set drives every method; each takes the parameters it declares (e.g. falcon
    # has no cost_model), since make_acquirer refuses any other.
    takes = make_acquirer(method).get_params(deep=False)
    acquirer = make_acquirer(method, **{k: v for k, v in shared.items() if k in takes})
    trace = acquirer.fit(
        parts.initial,
        parts.pool,
        validation=parts.validation,
        test=parts.test,
        costs=parts.pool_costs,
    ).trace_
    values: dict[str, Any] = {"cost": float(trace.final("cost"))}
    values.update(_finals(trace, settings.metrics))
    values["stop_reason"] = str(acquirer.stop_reason_)
    values["first_met_cost"] = _first_met(trace, settings)
    # post-thresholds deploys its model with a threshold per group
    final = getattr(acquirer, "thresholds_", None) or acquirer.model_
    values["one_class"] = one_class_on(final, parts.test, random_state=child(seed, _PREDICT))
    return values, acquirer


def _acquire_and_keep(
    method: str,
    parts: RowsParts,
    settings: Settings,
    seed: np.random.SeedSequence,
    traces: dict[str, Trace],
    bought: dict[str, Any],
) -> dict[str, Any]:
    """Run ``method``; keep its trace, and Random's rows (initial + bought) in ``bought``."""
    values, acquirer = _acquire(method, parts, settings, seed)
    traces[method] = acquirer.trace_
    if method == "random":
        rows = parts.pool.subset(acquirer.acquired_)
        bought.update(train=parts.initial.concat(rows), cost=values["cost"])
    return values


def _mitigate(
    name: str,
    train: FairDataset,
    cost: float,
    parts: RowsParts,
    settings: Settings,
    seed: np.random.SeedSequence,
) -> dict[str, Any]:
    model = fit_mitigation(name, train, learner=settings.learner, random_state=child(seed, _MODEL))
    y_pred = model.predict(parts.test, random_state=child(seed, _PREDICT))
    scores = prediction_metrics(y_pred, parts.test, settings.metrics)
    return {"cost": cost, **scores, "one_class": is_one_class(y_pred)}


def run_rows_seed(
    parts: RowsParts,
    settings: Settings,
    *,
    acquirers: Sequence[str],
    mitigations: Sequence[str],
    seed: np.random.SeedSequence,
    index: int,
    log: RunLog,
) -> dict[str, Trace]:
    """Run every strategy on one seed's parts; keep their records in ``log``.

    Returns
    -------
    dict of str to Trace
        Each acquisition method's trace (for the fairness-against-cost figure).
    """
    log.run(NO_ACTION, "none", index, partial(_no_action, parts, settings, seed))
    traces: dict[str, Trace] = {}
    bought: dict[str, Any] = {}
    for method in acquirers:
        run = partial(_acquire_and_keep, method, parts, settings, seed, traces, bought)
        log.run(method, "acquire", index, run)
    runs = [(name, name, "mitigate", parts.initial, 0.0) for name in mitigations]
    if bought:
        runs += [
            (f"random + {name}", name, "acquire + mitigate", bought["train"], bought["cost"])
            for name in mitigations
        ]
    for label, name, kind, train, cost in runs:
        log.run(label, kind, index, partial(_mitigate, name, train, cost, parts, settings, seed))
    return traces
