"""A CompareResult is a Result: its strategies' table, and a saved folder read back whole."""

from __future__ import annotations

import dataclasses
import html
import warnings

import pandas as pd
import pytest

from fairacq import Result, Trace
from fairacq.compare import CompareResult, Plan, Target, compare_strategies
from fairacq.data import load_toy

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def rows_result() -> CompareResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare_strategies(
            load_toy(300), "rows", budget=20, n_seeds=2, methods=["random"], target="dp<=0.2"
        )


def _same_traces(a: dict[str, list[Trace]], b: dict[str, list[Trace]]) -> None:
    assert sorted(a) == sorted(b)
    for method, traces in a.items():
        assert len(b[method]) == len(traces)
        for mine, back in zip(traces, b[method], strict=True):
            pd.testing.assert_frame_equal(back.to_frame(), mine.to_frame())
            assert back.meta["method"] == mine.meta["method"]


def test_to_frame_has_one_row_per_strategy(rows_result):
    frame = rows_result.to_frame()
    assert isinstance(rows_result, Result)
    assert list(frame["method"]) == ["no action", "random"]
    assert list(frame["seeds"]) == [2, 2]
    assert list(frame["cost"]) == [0.0, 20.0]
    assert frame.columns[:3].tolist() == ["method", "kind", "seeds"]


def test_a_saved_comparison_comes_back_field_for_field(rows_result, tmp_path):
    back = CompareResult.load(rows_result.save(tmp_path / "r"))
    for field in dataclasses.fields(CompareResult):
        if field.name not in ("traces", "records"):
            assert getattr(back, field.name) == getattr(rows_result, field.name), field.name
    assert isinstance(back.target, Target)
    assert isinstance(back.plan, Plan)
    assert back.plan.acquirers == ("random",)
    pd.testing.assert_frame_equal(
        pd.DataFrame(back.records), pd.DataFrame(rows_result.records)
    )  # NaN (a first cost never met) compares equal here, not with ==
    _same_traces(rows_result.traces, back.traces)
    pd.testing.assert_frame_equal(back.to_frame(), rows_result.to_frame())
    assert back.to_dict() == rows_result.to_dict()


def test_a_saved_groups_comparison_keeps_its_allocations(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare_strategies(
            load_toy(300), "groups", budget=30, n_seeds=1, methods=["aopt"], target="dp<=0.2"
        )
    back = CompareResult.load(result.save(tmp_path / "g"))
    assert back.plan.samplers == result.plan.samplers
    assert back.records == result.records
    assert back.to_frame()["allocation"].tolist() == result.to_frame()["allocation"].tolist()
    assert back.recommendation == result.recommendation
    view = back._repr_html_()  # the rich report, not the default table
    assert view.startswith('<div class="fairacq-compare">')
    assert html.escape(result.recommendation.text) in view
    assert "<img" in view
