"""``run_sampler_trials``: seeded, independent of the executor."""

from __future__ import annotations

import numpy as np
import pytest

from fairacq._random import spawn_seeds
from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError, UnknownNameError
from fairacq.parallel import make_executor
from fairacq.sampling import DatasetOracle, make_sampler, run_sampler_trials, trial_split


def test_same_seed_same_traces_whatever_the_executor():
    data = load_toy(300, random_state=1)
    serial = run_sampler_trials(data, "aopt", n_trials=2, random_state=3, budget=40)
    mapped = run_sampler_trials(
        data, "aopt", n_trials=2, random_state=3, budget=40, executor=make_executor("serial")
    )
    assert len(serial) == 2
    for a, b in zip(serial, mapped, strict=True):
        assert (
            a.to_frame()
            .drop(columns="elapsed_s", errors="ignore")
            .equals(b.to_frame().drop(columns="elapsed_s", errors="ignore"))
        )
    assert (
        not serial[0].to_frame()["test_worst_acc"].equals(serial[1].to_frame()["test_worst_acc"])
    )


def test_bad_input():
    data = load_toy(100)
    with pytest.raises(UnknownNameError, match="Did you mean 'aopt'"):
        run_sampler_trials(data, "aoptt")
    with pytest.raises(InvalidParameterError, match="n_trials"):
        run_sampler_trials(data, "aopt", n_trials=0)
    with pytest.raises(InvalidParameterError, match="test_size"):
        run_sampler_trials(data, "aopt", test_size=1.0)


def test_trial_split_gives_the_pool_and_test_rows_of_each_trial():
    data = load_toy(300, random_state=1)
    traces = run_sampler_trials(data, "uniform", n_trials=2, random_state=3, budget=40)
    for trace, seed in zip(traces, spawn_seeds(3, 2), strict=True):
        pool, test, run_seed = trial_split(data, seed)
        assert len(pool) + len(test) == len(data)
        np.testing.assert_allclose(pool.to_numpy().mean(axis=0), 0.0, atol=1e-9)
        again = (
            make_sampler("uniform", budget=40, random_state=run_seed)
            .fit(DatasetOracle(pool), test=test)
            .trace_
        )
        assert again.to_frame()["test_worst_acc"].equals(trace.to_frame()["test_worst_acc"])
