"""Independent trials of a sampler on a dataset: a fresh pool/test split per trial."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from fairacq._random import RandomState, child_seeds, spawn_seeds
from fairacq._typing import LearnerLike
from fairacq._validation import Interval, validate_parameter_constraints
from fairacq._warnings import warn_caller
from fairacq.data import FairDataset, standardize
from fairacq.exceptions import InvalidDataError, ResultWarning
from fairacq.sampling.allocation._budget import check_budget_fits, resolve_budget
from fairacq.sampling.loop._base import exhausted_message
from fairacq.sampling.loop._oracles import DatasetOracle
from fairacq.sampling.samplers._registry import make_sampler

if TYPE_CHECKING:
    from fairacq._trace import Trace

__all__ = ["TrialMapper", "check_dataset", "run_sampler_trials", "trial_split"]


class TrialMapper(Protocol):
    """Anything that maps a function over items in order (an experiments executor)."""

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]: ...


def trial_split(
    dataset: FairDataset, seed: np.random.SeedSequence, *, test_size: float = 0.3
) -> tuple[FairDataset, FairDataset, np.random.SeedSequence]:
    """Return the pool, the test set and the sampler's seed of one trial of ``seed``.

    The split :func:`run_sampler_trials` makes: ``test_size`` of ``dataset`` held out,
    stratified by group and label, both parts standardised with the pool's statistics. Its
    trial ``i`` uses ``spawn_seeds(random_state, n_trials)[i]``, so this gives the rows any
    sampler saw in that trial (to fit other models on the same splits).

    Examples
    --------
    >>> from fairacq._random import spawn_seeds
    >>> from fairacq.data import load_toy
    >>> pool, test, _ = trial_split(load_toy(400), spawn_seeds(0, 1)[0])
    >>> len(pool), len(test)
    (280, 120)
    """
    from sklearn.model_selection import train_test_split

    split_seed, run_seed = child_seeds(seed, 2)
    _check_strata(dataset)
    idx_pool, idx_test = train_test_split(
        np.arange(len(dataset)),
        test_size=test_size,
        stratify=dataset.s * 2 + dataset.y,
        random_state=int(split_seed.generate_state(1)[0]),
    )
    pool = dataset.subset(idx_pool)
    test = standardize(dataset.subset(idx_test), reference=pool)
    return standardize(pool), test, run_seed


def _check_strata(dataset: FairDataset) -> None:
    """Refuse a group and label with fewer than two rows: no split can hold it on both sides."""
    counts = np.bincount(dataset.s * 2 + dataset.y, minlength=2 * dataset.n_groups)
    short = [
        f"{dataset.group_names[code // 2]} with label {code % 2} ({count} row)"
        for code, count in enumerate(counts)
        if count == 1
    ]
    if short:
        raise InvalidDataError(
            f"the trials split every group and label between training and test rows, but "
            f"{', '.join(short)} has a single row. Give more rows of it, merge groups, or "
            "check --label and --positive."
        )


def _trial(
    dataset: FairDataset,
    method: str,
    params: Mapping[str, Any],
    test_size: float,
    validation: str | None,
    seed: np.random.SeedSequence,
) -> Trace:
    """One trial: a stratified pool/test split seeded by ``seed``, then the sampler."""
    pool, test, run_seed = trial_split(dataset, seed, test_size=test_size)
    sampler = make_sampler(method, random_state=run_seed, **params)
    held = np.bincount(np.asarray(test.s), minlength=len(test.group_names))
    held_out = {str(g): int(n) for g, n in zip(test.group_names, held, strict=True)}
    oracle = DatasetOracle(pool, held_out=held_out)
    with warnings.catch_warnings():  # said once for all trials by run_sampler_trials
        warnings.filterwarnings("ignore", "The pool ran out", ResultWarning)
        trace: Trace = sampler.fit(oracle, validation=validation, test=test).trace_
    return trace


def run_sampler_trials(
    dataset: FairDataset,
    method: str,
    *,
    n_trials: int = 10,
    random_state: RandomState = 0,
    test_size: float = 0.3,
    executor: TrialMapper | None = None,
    learner: LearnerLike | None = None,
    validation: str | None = None,
    **params: Any,
) -> list[Trace]:
    """Run sampler ``method`` in ``n_trials`` independent trials; return one trace each.

    Each trial splits ``dataset`` into a pool and a held-out test set (stratified by group and
    label, ``test_size`` held out), standardises both with the pool's statistics, and runs the
    sampler over a :class:`DatasetOracle` of the pool (rows drawn without replacement, per
    group), scoring on the test set. Trial seeds are spawned from ``random_state``: the same
    seed gives the same traces whatever the executor, and two methods run with the same seed
    see the same splits.

    Parameters
    ----------
    dataset : FairDataset
        The data, its groups the ones to sample from.
    method : str
        A sampler name (:func:`available_samplers`).
    n_trials : int, default=10
        Independent trials.
    random_state : int, SeedSequence or None, default=0
        Root seed of the trials.
    test_size : float, default=0.3
        Held-out fraction, in (0, 1).
    executor : object with ``map(fn, items)`` or None, default=None
        Runs the trials (e.g. :func:`fairacq.parallel.make_executor`); None runs them one
        after another here.
    learner : str, estimator or None, default=None
        A scikit-learn classifier (a Pipeline, a :func:`fairacq.models.make_learner` name or
        ``"module:Class"``) the sampler refits, as a fresh clone, on every drawn sample each
        round (``mode="refit"``); None keeps the paper's learner.
    validation : {None, "cross"}, default=None
        How each group's loss is measured (:meth:`GroupSampler.fit`): None pays for a paired
        validation draw per training draw (Shekhar et al.); ``"cross"`` pays for none and measures
        it by held-out predictions on the training rows, so the whole budget trains.
    **params
        Hyper-parameters of the sampler (e.g. ``budget``, ``c0``, ``epsilon``); those it does
        not take are dropped. ``budget`` may be a count or a percentage of ``dataset``'s rows
        written ``"20%"`` (:func:`resolve_budget`).

    Returns
    -------
    list of Trace
        One per trial, in order.

    Raises
    ------
    InvalidParameterError
        For ``n_trials < 1``, ``test_size`` outside (0, 1), a budget written otherwise, or a
        learner that cannot be built.
    BudgetError
        For a budget above the rows left once the test split is held out, or a trial whose
        pool runs out of every group (naming the last one chosen).

    Warns
    -----
    ResultWarning
        Once, when the pool ran out of a group the rule kept choosing in some trials (their
        rounds drew the rule's fallback group instead; the traces say which).
    UnknownNameError
        For an unknown ``method``.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> traces = run_sampler_trials(load_toy(400), "uniform", n_trials=2, budget=40)
    >>> len(traces), "test_worst_acc" in traces[0].to_frame()
    (2, True)
    """
    check_dataset(dataset, "run_sampler_trials")
    validate_parameter_constraints(
        {
            "n_trials": [Interval(int, 1, None, closed="left")],
            "test_size": [Interval(float, 0.0, 1.0, closed="neither")],
        },
        {"n_trials": n_trials, "test_size": test_size},
        "run_sampler_trials",
    )
    params = _checked_params(dataset, method, test_size, {**params, "learner": learner})
    make_sampler(method, **params).check_validation(validation)  # before any trial runs
    run = functools.partial(_trial, dataset, method, params, test_size, validation)
    seeds = spawn_seeds(random_state, n_trials)
    traces = [run(s) for s in seeds] if executor is None else list(executor.map(run, seeds))
    if any("exhausted" in t.meta for t in traces):
        warn_caller(f"{method}: {exhausted_message(traces, trials=True)}", ResultWarning)
    return traces


def check_dataset(dataset: Any, where: str) -> None:
    """Refuse data that is not a :class:`~fairacq.data.FairDataset`, naming the fix."""
    if not isinstance(dataset, FairDataset):
        raise InvalidDataError(
            f"{where}: dataset must be a FairDataset, got {type(dataset).__name__}. Build one "
            "with fairacq.FairDataset(X, y, sensitive) or fairacq.data.read_dataset(path, ...)."
        )


def _checked_params(
    dataset: FairDataset, method: str, test_size: float, params: dict[str, Any]
) -> dict[str, Any]:
    """Resolve the budget and check the sampler's parameters before any trial runs."""
    make_sampler(method)  # an unknown name fails first
    if len(np.unique(dataset.y)) < 2:
        raise InvalidDataError(
            f"{dataset.name}: every label is {int(dataset.y[0])}, so there is no classifier to "
            "learn and no accuracy to balance between groups. Give rows of both classes."
        )
    if "budget" in params:
        params["budget"] = resolve_budget(params["budget"], len(dataset))
        check_budget_fits(params["budget"], len(dataset), test_size)
    make_sampler(method, **params)._check_params()  # an unknown name or model fails here
    return params
