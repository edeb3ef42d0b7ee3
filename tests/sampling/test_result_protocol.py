"""An AllocationResult is a Result: one row per group, and a saved folder read back whole."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from fairacq import Result
from fairacq.data import load_toy
from fairacq.sampling import AllocationResult, allocate_budget


@pytest.fixture(scope="module")
def result() -> AllocationResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a small budget may leave a model one-class
        return allocate_budget(load_toy(300), budget=40, n_trials=2)


def test_to_frame_has_one_row_per_group(result):
    frame = result.to_frame()
    assert isinstance(result, Result)
    assert frame["group"].tolist() == result.groups
    assert frame["rows"].tolist() == [result.available[g] for g in result.groups]
    assert frame["aopt samples"].sum() == pytest.approx(40)
    assert frame["uniform samples"].tolist() == [20.0, 20.0]


def test_a_saved_allocation_comes_back_field_for_field(result, tmp_path):
    back = AllocationResult.load(result.save(tmp_path / "a"))
    assert (back.method, back.budget, back.baseline) == ("aopt", 40, "uniform")
    assert back.groups == result.groups
    assert back.available == result.available
    for mine, loaded in [
        (result.traces, back.traces),
        (result.baseline_traces, back.baseline_traces),
    ]:
        assert len(loaded) == len(mine) == 2
        for a, b in zip(mine, loaded, strict=True):
            pd.testing.assert_frame_equal(b.to_frame(), a.to_frame())
            assert b.meta["seed"] == a.meta["seed"]
    pd.testing.assert_frame_equal(back.to_frame(), result.to_frame())
    assert back.to_dict() == result.to_dict()


def test_the_notebook_view_names_the_sampler_and_its_groups(result):
    view = result._repr_html_()
    assert (
        "<b>AllocationResult</b>: aopt beside uniform: 40 samples over 2 groups, 2 trials" in view
    )
    assert view.count("<tr") == 1 + len(result.groups)
    assert "aopt share" in view
