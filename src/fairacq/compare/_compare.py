"""``compare_strategies``: back-test every applicable strategy on a user's labelled table."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._random import spawn_seeds
from fairacq._trace import Trace
from fairacq._typing import LearnerLike
from fairacq.compare._groups import BASELINE_SAMPLER, groups_parts, run_groups_seed
from fairacq.compare._plan import Plan, make_plan
from fairacq.compare._result import CompareResult
from fairacq.compare._rows import NO_ACTION, rows_parts, run_rows_seed
from fairacq.compare._runs import RunLog, Settings
from fairacq.compare._sizes import check_sizes
from fairacq.compare._target import Target, parse_target
from fairacq.data import FairDataset
from fairacq.exceptions import BudgetError, FairacqError, InvalidParameterError, ResultWarning
from fairacq.models import DEFAULT_METRICS, describe_learner
from fairacq.sampling import resolve_budget

__all__ = ["compare_strategies"]

#: Shares of the initial training part, the pool, the validation and the test rows.
ROWS_FRACTIONS = (0.2, 0.4, 0.2, 0.2)


def _size(value: int | str, total: float, what: str) -> int:
    size = resolve_budget(value, int(total))
    if size < 1:
        raise BudgetError(f"{what} {value!r} is less than one row (or cost unit) of {total:g}.")
    return size


def _settings(target: Target, learner: Any, budget: int, batch: int | str) -> Settings:
    metrics = tuple(dict.fromkeys([*DEFAULT_METRICS, "worst_group_accuracy", target.metric]))
    # the methods push the target's gap down (a lower bound such as worst>=0.7: the DP gap)
    return Settings(
        learner=learner,
        budget=budget,
        batch=_size(batch, budget, "--batch"),
        metrics=metrics,
        steer=_steered_metric(target),
        target=target,
    )


def _steered_metric(target: Target) -> str:
    """Return the metric the methods push down for ``target``.

    The target's own gap, or for a lower bound such as ``worst>=0.7`` the demographic
    parity gap.
    """
    return target.metric if target.lower_is_better else "demographic_parity_diff_abs"


def _check(question: str, costs: Any, n_seeds: int, max_accuracy_loss: float) -> None:
    if n_seeds < 1:
        raise InvalidParameterError(f"--seeds must be at least 1, got {n_seeds}.")
    if not 0 <= max_accuracy_loss <= 1:  # NaN fails too
        raise InvalidParameterError(
            f"--max-accuracy-loss is a share of accuracy in [0, 1] (0.02: two points), got "
            f"{max_accuracy_loss}. Pass e.g. 0.02."
        )
    if costs is not None and question != "rows":
        raise InvalidParameterError(
            "--cost prices each row for the rows question; the samplers of --question groups "
            "count samples. Drop --cost, or use --question rows."
        )


def compare_strategies(
    dataset: FairDataset,
    question: str = "rows",
    *,
    budget: int | str = "20%",
    target: str | Target = "dp<=0.05",
    learner: LearnerLike = "lr",
    n_seeds: int = 3,
    random_state: int = 0,
    costs: ArrayLike | None = None,
    batch: int | str = "10%",
    methods: Sequence[str] | None = None,
    test_fraction: float = 0.25,
    progress: Callable[[int, int], object] | None = None,
    max_accuracy_loss: float = 0.02,
) -> CompareResult:
    """Back-test the strategies that answer ``question`` on a labelled table.

    ``"rows"``: split the table (stratified) into an initial training part (20 %), a pool
    (40 %), validation (20 %) and test rows (20 %); run every registered acquisition method
    that works with the model (influence methods need gradients), Random, and the mitigation
    comparators on the initial rows and on those plus Random's. ``"groups"``: hold out
    ``test_fraction`` as test rows and run every registered sampler on the rest, each
    allocation then bought and scored. Everything is repeated on ``n_seeds`` seeds and scored
    on the test rows.

    Parameters
    ----------
    dataset : FairDataset
        The labelled table (:func:`fairacq.data.prepare_table` builds it from a raw one).
    question : {"rows", "groups"}, default="rows"
        Which pool rows to buy, or how many rows of each group to collect.
    budget : int or str, default="20%"
        Rows (cost units with ``costs``; samples for groups) each strategy may buy, or a share
        of the pool (groups: of the rows to draw from) such as ``"20%"``.
    target : str or Target, default="dp<=0.05"
        The bound to reach on the test rows (:func:`parse_target`).
    learner : str or estimator, default="lr"
        The model every strategy trains (:func:`fairacq.models.make_learner` takes it).
    n_seeds : int, default=3
        Seeds: splits, methods and models are redrawn on each.
    random_state : int, default=0
        Root seed.
    costs : array-like or None, default=None
        Price of each row of ``dataset`` (rows question only).
    batch : int or str, default="10%"
        Rows per acquisition batch, or a share of the budget.
    methods : sequence of str or None, default=None
        Run only these strategies (Random / Uniform always run as the baseline).
    test_fraction : float, default=0.25
        Share of test rows of the groups question.
    progress : callable or None, default=None
        Called as ``progress(done, total)`` after each run.
    max_accuracy_loss : float, default=0.02
        The accuracy a recommended strategy may lose against the baseline ("no action" for
        rows, "uniform" for groups), seed by seed and on average: 0.02 is two points.

    Returns
    -------
    CompareResult

    Raises
    ------
    InvalidParameterError, UnknownNameError, BudgetError
        Before any run starts: for a bad question or seed count, a target in the wrong
        direction or out of its metric's range (:class:`Target`), an unknown method or one
        that cannot run with ``learner`` (:func:`make_plan`), a budget of nothing or above
        the simulated pool, or a batch above the budget.
    InvalidDataError
        For a table too small to split with every group in each part.
    DegenerateModelError
        When the baseline's model gives no usable probabilities (NaN, outside [0, 1]).
    FairacqError
        When every run failed, naming the first failure. A run that fails while others
        succeed is listed in ``failures`` instead.

    Warns
    -----
    ResultWarning
        For each strategy whose model predicted one class on the test rows in most seeds
        (the baseline: in any seed), and when a demographic parity or equal opportunity
        target is below the gap an exactly fair rule shows on the test rows by chance
        (:attr:`CompareResult.noise_floor`, mean plus one std); also kept in
        ``to_dict()["warnings"]``.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> result = compare_strategies(load_toy(400), "groups", budget=60, n_seeds=1,
    ...                             methods=["aopt"], target="dp<=0.2")
    >>> list(result.to_frame()["method"])
    ['aopt', 'uniform']
    """
    clock = time.perf_counter()
    _check(question, costs, n_seeds, max_accuracy_loss)
    goal = target if isinstance(target, Target) else parse_target(target)
    plan = make_plan(question, learner, methods, _steered_metric(goal))
    baseline = NO_ACTION if question == "rows" else BASELINE_SAMPLER
    log = RunLog(progress=progress, total=plan.runs_per_seed() * n_seeds, baseline=baseline)
    job = _Job(
        dataset=dataset, question=question, target=goal, plan=plan, learner=learner,
        budget=budget, batch=batch, test_fraction=test_fraction,
        costs=None if costs is None else np.asarray(costs, dtype=np.float64),
    )  # fmt: skip
    check_sizes(
        dataset, question, budget=budget, batch=batch, costs=job.costs,
        seeds=spawn_seeds(random_state, n_seeds), fractions=ROWS_FRACTIONS,
        test_fraction=test_fraction,
    )  # fmt: skip
    traces: dict[str, list[Trace]] = {}
    budgets = [
        _run_seed(job, seed, index, log, traces)
        for index, seed in enumerate(spawn_seeds(random_state, n_seeds))
    ]
    if not log.records:
        raise FairacqError(f"No strategy ran to the end. The first failure: {log.failures[0]}")
    settings = _settings(goal, learner, budgets[0], batch)
    unit = "samples" if question == "groups" else "rows" if costs is None else "cost units"
    config = {
        "question": question, "budget": str(budget), "batch": str(batch), "target": str(goal),
        "model": describe_learner(learner), "seeds": n_seeds, "seed": random_state,
        "methods": list(methods) if methods else None, "cost": costs is not None,
        "metrics": list(settings.metrics), "steer": settings.steer,
        "cost_model": settings.cost_model, "test_fraction": test_fraction,
        "fractions": list(ROWS_FRACTIONS) if question == "rows" else None,
        "max_accuracy_loss": max_accuracy_loss,
    }  # fmt: skip
    result = CompareResult(
        question=question,
        target=goal,
        records=log.records,
        plan=plan,
        metrics=settings.metrics,
        baseline=baseline,
        unit=unit,
        budget=float(budgets[0]),
        config=config,
        dataset=dataset.name,
        sensitive=", ".join(dataset.sensitive_attrs),
        failures=log.failures,
        notes=list(log.notes),
        traces=traces,
        elapsed_s=time.perf_counter() - clock,
        max_accuracy_loss=max_accuracy_loss,
    )
    for text in [*result.one_class_warnings(), *result.floor_warnings()]:
        warnings.warn(text, ResultWarning, stacklevel=2)
    return result


@dataclass(frozen=True)
class _Job:
    """What every seed of one comparison shares."""

    dataset: FairDataset
    question: str
    target: Target
    plan: Plan
    learner: Any
    budget: int | str
    batch: int | str
    test_fraction: float
    costs: NDArray[np.float64] | None


def _run_seed(
    job: _Job,
    seed: np.random.SeedSequence,
    index: int,
    log: RunLog,
    traces: dict[str, list[Trace]],
) -> int:
    """Run every strategy of ``job`` on one seed; return the budget it resolved to."""
    if job.question == "groups":
        source, test = groups_parts(job.dataset, job.test_fraction, seed)
        budget = _size(job.budget, len(source), "--budget")
        settings = _settings(job.target, job.learner, budget, 1)
        run_groups_seed(
            source, test, settings, samplers=job.plan.samplers, seed=seed, index=index, log=log
        )
        return budget
    parts = rows_parts(job.dataset, job.costs, ROWS_FRACTIONS, seed)
    total = len(parts.pool) if parts.pool_costs is None else float(parts.pool_costs.sum())
    budget = _size(job.budget, total, "--budget")
    settings = _settings(job.target, job.learner, budget, job.batch)
    found = run_rows_seed(
        parts, settings, acquirers=job.plan.acquirers, mitigations=job.plan.mitigations,
        seed=seed, index=index, log=log,
    )  # fmt: skip
    for method, trace in found.items():
        traces.setdefault(method, []).append(trace)
    return budget
