"""Seeded trials: one independent random stream per trial, spawned from the root seed."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from fairacq._random import spawn_seeds
from fairacq.parallel import Executor, SerialExecutor

__all__ = ["run_trials"]

C = TypeVar("C")
R = TypeVar("R")


def run_trials(
    trial: Callable[[C, np.random.SeedSequence], R],
    config: C,
    *,
    n_trials: int,
    seed: int,
    executor: Executor | None = None,
    **kwargs: Any,
) -> list[R]:
    """Run ``trial(config, seed_sequence, **kwargs)`` for ``n_trials`` spawned seeds.

    Trial ``i`` always receives the ``i``-th child of ``SeedSequence(seed)``, whatever the
    executor, so any single trial can be replayed alone.

    Parameters
    ----------
    trial : callable
        A module-level (picklable) function.
    config : object
        Passed unchanged to every trial.
    n_trials : int
        Number of trials.
    seed : int
        Root seed.
    executor : Executor or None, default=None
        Serial when None.

    Examples
    --------
    >>> def draw(cfg, ss):
    ...     return int(np.random.default_rng(ss).integers(1000))
    >>> run_trials(draw, None, n_trials=3, seed=0) == run_trials(draw, None, n_trials=3, seed=0)
    True
    """
    seeds = spawn_seeds(seed, n_trials)
    fn = functools.partial(_call, trial, config, kwargs)
    return (executor or SerialExecutor()).map(fn, seeds)


def _call(
    trial: Callable[..., R], config: Any, kwargs: dict[str, Any], seed: np.random.SeedSequence
) -> R:
    return trial(config, seed, **kwargs)
