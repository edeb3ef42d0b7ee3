"""``run_sampler_trials``: seeded, independent of the executor."""

from __future__ import annotations

import pytest

from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError, UnknownNameError
from fairacq.experiments import make_executor
from fairacq.sampling import run_sampler_trials


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
