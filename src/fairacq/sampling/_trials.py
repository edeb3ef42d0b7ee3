"""Independent trials of a sampler on a dataset: a fresh pool/test split per trial."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from fairacq._random import RandomState, child_seeds, spawn_seeds
from fairacq._validation import Interval, validate_parameter_constraints
from fairacq.data import FairDataset, standardize
from fairacq.sampling._oracles import DatasetOracle
from fairacq.sampling._registry import make_sampler

if TYPE_CHECKING:
    from fairacq._trace import Trace

__all__ = ["TrialMapper", "run_sampler_trials"]


class TrialMapper(Protocol):
    """Anything that maps a function over items in order (an experiments executor)."""

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]: ...


def _trial(
    dataset: FairDataset,
    method: str,
    params: Mapping[str, Any],
    test_size: float,
    seed: np.random.SeedSequence,
) -> Trace:
    """One trial: a stratified pool/test split seeded by ``seed``, then the sampler."""
    from sklearn.model_selection import train_test_split

    split_seed, run_seed = child_seeds(seed, 2)
    idx_pool, idx_test = train_test_split(
        np.arange(len(dataset)),
        test_size=test_size,
        stratify=dataset.s * 2 + dataset.y,
        random_state=int(split_seed.generate_state(1)[0]),
    )
    pool = dataset.subset(idx_pool)
    test = standardize(dataset.subset(idx_test), reference=pool)
    pool = standardize(pool)
    sampler = make_sampler(method, random_state=run_seed, **params)
    trace: Trace = sampler.run(DatasetOracle(pool), test=test)
    return trace


def run_sampler_trials(
    dataset: FairDataset,
    method: str,
    *,
    n_trials: int = 10,
    random_state: RandomState = 0,
    test_size: float = 0.3,
    executor: TrialMapper | None = None,
    **params: Any,
) -> list[Trace]:
    """Run sampler ``method`` in ``n_trials`` independent trials; return one trace each.

    Each trial splits ``dataset`` into a pool and a held-out test set (stratified by group and
    label, ``test_size`` held out), standardises both with the pool's statistics, and runs the
    sampler over a :class:`DatasetOracle` of the pool, scoring on the test set. Trial seeds
    are spawned from ``random_state``: the same seed gives the same traces whatever the
    executor.

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
        Runs the trials (e.g. :func:`fairacq.experiments.make_executor`); None runs them one
        after another here.
    **params
        Hyper-parameters of the sampler (e.g. ``budget``, ``c0``, ``epsilon``); those it does
        not take are dropped.

    Returns
    -------
    list of Trace
        One per trial, in order.

    Raises
    ------
    InvalidParameterError
        For ``n_trials < 1`` or ``test_size`` outside (0, 1).
    UnknownNameError
        For an unknown ``method``.

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> traces = run_sampler_trials(load_toy(400), "uniform", n_trials=2, budget=40)
    >>> len(traces), "test_worst_acc" in traces[0].to_frame()
    (2, True)
    """
    validate_parameter_constraints(
        {
            "n_trials": [Interval(int, 1, None, closed="left")],
            "test_size": [Interval(float, 0.0, 1.0, closed="neither")],
        },
        {"n_trials": n_trials, "test_size": test_size},
        "run_sampler_trials",
    )
    make_sampler(method)  # an unknown name fails before any trial
    run = functools.partial(_trial, dataset, method, dict(params), test_size)
    seeds = spawn_seeds(random_state, n_trials)
    if executor is None:
        return [run(s) for s in seeds]
    return list(executor.map(run, seeds))
