"""Paper-direction regression tests for the DataSift experiments (quick presets)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fairacq_experiments import LocalExecutor, run_experiment
from fairacq_experiments.datasift import (
    area_under_curve,
    dropped_partition_notes,
    dropped_partitions,
)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("fig")
    res = run_experiment(
        "datasift-fig5",
        preset="quick",
        out_dir=out,
        executor=LocalExecutor(2),
        methods=("random", "entropy", "datasift-inf"),
    )
    return res, out


@pytest.mark.slow
def test_datasift_inf_beats_random_and_entropy_on_every_seed(result):
    res, _ = result
    col = "test_demographic_parity_diff_abs"
    traces = {m.split("/")[-1]: ts for m, ts in res.traces.items()}
    for i, inf_trace in enumerate(traces["datasift-inf"]):
        budget = float(inf_trace.meta["config"]["budget"])
        ours = area_under_curve(inf_trace, col, budget)
        for baseline in ("random", "entropy"):
            assert ours < area_under_curve(traces[baseline][i], col, budget), (baseline, i)
        # fairness improves over the initial model
        frame = inf_trace.to_frame()
        assert frame[col].iloc[-1] < frame[col].iloc[0]


@pytest.mark.slow
def test_summary_has_paper_values(result):
    res, out = result
    data = json.loads((out / "summary.json").read_text())
    rows = [r for r in data["rows"] if r["metric"] == "test_accuracy"]
    assert any(r["paper_value"] == 0.77 and r["method"] == "datasift-inf" for r in rows)
    assert (out / "datasift-fig5-adult-lr.png").exists()
    table = res.tables["Test accuracy after acquisition: ours (paper's Table 2)"]
    assert list(table.columns) == [
        "dataset",
        "learner",
        "initial",
        "random",
        "entropy",
        "datasift-inf",
    ]
    inf = next(r for r in rows if r["method"] == "datasift-inf")
    cell = table.loc[table["dataset"] == inf["dataset"], "datasift-inf"].iloc[0]
    assert cell == f"{inf['value']:.3f} ± {inf['std']:.3f} (0.77)"


def test_area_under_curve_step_function():
    from fairacq import TraceRecorder

    rec = TraceRecorder(method="m", config={})
    rec.record(cost=0, accepted=True, f=0.4)
    rec.record(cost=5, accepted=False, f=0.1)
    rec.record(cost=5, accepted=True, f=0.2)
    assert area_under_curve(rec.finish(), "f", 10) == pytest.approx((5 * 0.4 + 5 * 0.2) / 10)
    assert np.isfinite(area_under_curve(rec.finish(), "f", 5))


@pytest.mark.slow
def test_ablation_panels(tmp_path):
    res = run_experiment(
        "datasift-fig7",
        preset="quick",
        out_dir=tmp_path,
        batch_fractions=(0.1,),
        alphas=(0.1,),
        rewards=("datasift", "distance"),
        n_trials=1,
        max_rows=4000,
    )
    panels = {(r["panel"], r["setting"], r["method"]) for r in res.rows}
    assert ("partitioning", "column", "datasift-inf") in panels
    assert ("reward", "distance", "datasift") in panels
    assert all(0 <= r["value"] <= 1 for r in res.rows)
    assert (tmp_path / "datasift-fig7.png").exists()


@pytest.mark.slow
def test_scaling_rows_per_pool_size(tmp_path):
    res = run_experiment(
        "datasift-fig8",
        preset="quick",
        out_dir=tmp_path,
        pool_sizes=(2_000, 40_000),
        budget=200,
        batch_size=50,
    )
    sizes = {r["pool"] for r in res.rows}
    assert sizes == {2_000, 40_000}
    times = [r["value"] for r in res.rows if r["metric"] == "run_s"]
    assert all(t > 0 for t in times)
    assert (tmp_path / "datasift-fig8.png").exists()


@pytest.mark.slow
def test_accuracy_aware_variant_runs_beside_the_paper_method(tmp_path):
    res = run_experiment(
        "datasift-table2",
        preset="quick",
        out_dir=tmp_path,
        n_trials=1,
        max_rows=6000,
        methods=("datasift-inf", "datasift-inf-acc"),
        accuracy_weight=2.0,
    )
    traces = {m.split("/")[-1]: ts for m, ts in res.traces.items()}
    aware = traces["datasift-inf-acc"][0]
    assert aware.meta["config"]["accuracy_weight"] == 2.0
    assert traces["datasift-inf"][0].meta["config"]["accuracy_weight"] == 0.0
    assert aware.to_frame()["test_accuracy"].notna().all()


def test_adult_encoding_reaches_the_split():
    from fairacq_experiments.datasift import Table2Config
    from fairacq_experiments.datasift._tasks import load_for_datasift, split_for_experiment

    assert load_for_datasift("adult", "datasift-authors").X.shape[1] == 8
    config = Table2Config.preset_named("quick", adult_encoding="datasift-authors")
    split = split_for_experiment(config, "adult", np.random.SeedSequence(0))
    assert list(split.train.feature_names)[-1] == "hours-per-week"
    assert split.train.X.shape[1] == 8


def test_dropped_partition_notes_name_the_runs_that_share_a_partitioning():
    from fairacq._trace import Trace

    def trace(dropped):
        return Trace(
            pd.DataFrame({"step": [0], "cost": [0.0]}),
            {"dropped_partitions": dropped, "n_partitions": 5},
        )

    traces = {
        "adult/lr/datasift": [trace([3]), trace([])],
        "adult/mlp/autodata": [trace([3]), trace([])],
        "adult/lr/random": [trace([]), trace([])],
        "credit/lr/datasift": [trace([1]), trace([2])],
    }
    # adult's two runs share one partitioning (sizes and dropped ids); random dropped none
    assert dropped_partitions(traces) == [
        {
            "dataset": "adult",
            "n_partitions": [5, 5],
            "dropped": [[3], []],
            "runs": ["lr/datasift", "mlp/autodata"],
        },
        {
            "dataset": "credit",
            "n_partitions": [5, 5],
            "dropped": [[1], [2]],
            "runs": ["lr/datasift"],
        },
    ]
    assert len(dropped_partition_notes(traces)) == 2  # one sentence per partitioning
