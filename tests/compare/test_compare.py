"""The back-test library: plans, seeded runs, the result's table, JSON and HTML."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairacq import Trace
from fairacq.compare import compare_strategies, make_plan, write_compare_report
from fairacq.data import load_toy
from fairacq.exceptions import (
    BudgetError,
    InvalidParameterError,
    ResultWarning,
    UnknownNameError,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    # a dp target on 80-100 toy test rows is within chance (tests/compare/test_noise_floor.py)
    pytest.mark.filterwarnings("ignore:the target .* is within the gap:UserWarning"),
]


@pytest.fixture(scope="module")
def rows_result():
    return compare_strategies(
        load_toy(400), "rows", budget=40, n_seeds=2, methods=["datasift", "threshold-dp"]
    )


def test_rows_runs_the_methods_random_and_the_comparators_on_each_seed(rows_result):
    frame = rows_result.to_frame()
    names = frame["method"].tolist()
    assert names == [
        "no action", "datasift", "random", "threshold-dp", "random + threshold-dp",
    ]  # fmt: skip
    assert frame["seeds"].tolist() == [2] * 5
    costs = dict(zip(names, frame["cost"], strict=True))
    assert costs["no action"] == costs["threshold-dp"] == 0
    assert costs["random + threshold-dp"] == costs["random"] == 40
    assert sorted(rows_result.traces) == ["datasift", "random"]
    assert rows_result.recommendation.text


def test_the_result_is_seeded(rows_result):
    again = compare_strategies(
        load_toy(400), "rows", budget=40, n_seeds=2, methods=["datasift", "threshold-dp"]
    )

    def strip(records):  # timings differ; NaN (a target never met) is not equal to itself
        return json.dumps([{k: v for k, v in r.items() if k != "seconds"} for r in records])

    assert strip(rows_result.records) == strip(again.records)


def test_result_renders_in_jupyter_and_as_one_page(rows_result):
    fragment = rows_result._repr_html_()
    assert isinstance(fragment, str)
    assert fragment.startswith('<div class="fairacq-compare">')
    assert "data:image/png;base64," in fragment
    assert "no action" in fragment
    page = rows_result.to_html()
    assert page.startswith("<!DOCTYPE html>")
    assert "document.body.dataset.figures" in page
    assert "http://" not in page
    assert "https://" not in page


def test_summary_json_is_written_atomically_with_config_and_version(rows_result, tmp_path):
    summary = write_compare_report(rows_result, tmp_path / "out", command="fairacq compare")
    on_disk = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert on_disk == json.loads(json.dumps(summary))
    for key in ("config", "seed", "fairacq_version", "elapsed_s", "rows", "runs"):
        assert key in on_disk
    assert on_disk["config"]["seeds"] == 2
    assert (tmp_path / "out" / "report.html").read_text().count("<img") == 2
    assert not list((tmp_path / "out").glob(".*"))  # no temporary file left


def test_groups_runs_every_requested_sampler_and_the_uniform_baseline():
    result = compare_strategies(load_toy(400), "groups", budget=60, n_seeds=1, methods=["aopt"])
    frame = result.to_frame()
    assert frame["method"].tolist() == ["aopt", "uniform"]
    row = frame.iloc[0]
    assert row["cost"] == 60
    assert sum(row["allocation"].values()) == 60
    assert result.baseline == "uniform"
    assert result.unit == "samples"
    assert "<img" in result._repr_html_()


def test_influence_methods_are_skipped_for_a_model_without_gradients():
    plan = make_plan("rows", "random_forest")
    assert {"inf", "datasift-inf"} <= set(plan.skipped)
    assert "gradients" in plan.skipped["inf"]
    assert "datasift" in plan.acquirers
    assert "random" in plan.acquirers


def test_comparators_needing_weights_are_skipped_for_a_model_without_them():
    from sklearn.neighbors import KNeighborsClassifier

    plan = make_plan("rows", KNeighborsClassifier())
    assert {"expgrad-dp", "expgrad-eo", "reweighing"} <= set(plan.skipped)
    assert "threshold-dp" in plan.mitigations


def test_every_registered_method_is_planned():
    from fairacq.acquisition import available_acquirers
    from fairacq.sampling import available_samplers

    assert set(make_plan("rows", "lr").acquirers) == set(available_acquirers())
    assert set(make_plan("groups", "lr").samplers) == set(available_samplers())


def test_bad_requests_are_refused():
    toy = load_toy(200)
    with pytest.raises(InvalidParameterError, match="question"):
        compare_strategies(toy, "people")
    with pytest.raises(UnknownNameError, match="datasift"):
        compare_strategies(toy, "rows", methods=["datasfit"])
    with pytest.raises(InvalidParameterError, match="--cost"):
        compare_strategies(toy, "groups", costs=np.ones(len(toy)))
    with pytest.raises(InvalidParameterError, match="seeds"):
        compare_strategies(toy, "rows", n_seeds=0)
    with pytest.raises(BudgetError, match=r"more than the samplers can draw.*105 or less"):
        compare_strategies(toy, "groups", budget="90%", n_seeds=1, methods=["aopt"])


def test_the_accuracy_tolerance_is_checked():
    for loss in (-0.1, 1.5, float("nan")):
        with pytest.raises(InvalidParameterError, match="--max-accuracy-loss"):
            compare_strategies(load_toy(200), "rows", max_accuracy_loss=loss)


def test_a_constant_model_warns_and_is_never_recommended():
    from sklearn.dummy import DummyClassifier

    with pytest.warns(ResultWarning, match="its model predicts one class") as caught:
        result = compare_strategies(
            load_toy(300), "rows", budget=20, n_seeds=1, methods=["threshold-dp"],
            learner=DummyClassifier(),
        )  # fmt: skip
    assert str(caught[0].message).startswith("no action: its model predicts one class")
    assert result.recommendation.method is None
    assert "no action" in result.recommendation.degenerate
    assert "already meets" not in result.recommendation.text
    assert result.to_dict()["warnings"][0].startswith("no action: its model predicts one class")
    assert (result.to_frame()["met_seeds"] == 0).all()


def test_the_rows_table_flags_its_strategies(rows_result):
    frame = rows_result.to_frame()
    assert (frame["one_class_seeds"] == 0).all()
    assert frame["same_as"].dropna().isin(frame["method"]).all()
    assert frame["pareto"].dtype == bool
    assert rows_result.to_dict()["recommendation"]["max_accuracy_loss"] == 0.02


def test_trace_renders_in_jupyter():
    from fairacq.acquisition import acquire

    ds = load_toy(300)
    trace = acquire(
        ds.subset(range(60)), ds.subset(range(150, 300)), validation=ds.subset(range(60, 150)),
        method="random", budget=100, batch_size=10, random_state=0,
    )  # fmt: skip
    assert isinstance(trace, Trace)
    html = trace._repr_html_()
    assert isinstance(html, str)
    assert html.startswith("<div>")
    assert "<b>random</b>" in html
    assert "seed 0" in html
    assert "last 8 rows" in html
    assert html.count("<tr>") == 1 + 8
    assert "(10 items)" in html  # a batch's row list is cut short


def test_plan_skips_a_method_that_cannot_steer_the_target():
    """threshold-aware steers demographic parity only: an equal-opportunity target skips it."""
    plan = make_plan("rows", "lr", steer="equal_opportunity_diff")
    assert "threshold-aware" not in plan.acquirers
    assert "demographic parity only" in plan.skipped["threshold-aware"]
    assert "post-thresholds" in plan.acquirers  # it steers equal opportunity too
    assert "threshold-aware" in make_plan("rows", "lr").acquirers
