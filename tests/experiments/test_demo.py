from __future__ import annotations

import json

import pytest

from fairacq_experiments import LocalExecutor, run_experiment


@pytest.mark.slow
def test_demo_quick_writes_outputs(tmp_path):
    result = run_experiment(
        "demo-datasift", preset="quick", out_dir=tmp_path, executor=LocalExecutor(2)
    )
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["experiment"] == "demo-datasift"
    assert data["preset"] == "quick"
    metrics = {(r["method"], r["metric"], r["stage"]) for r in data["rows"]}
    assert ("datasift-inf", "test_demographic_parity_diff_abs", "final") in metrics
    assert (tmp_path / "datasift-vs-random.png").stat().st_size > 10_000
    assert len(list((tmp_path / "traces").glob("*.parquet"))) == 4
    assert {(r["dataset"], r["method"]) for r in data["rows"]} == {
        ("adult", "datasift-inf"),
        ("adult", "random"),
    }
    acc = result.value(metric="test_accuracy", stage="final", method="random")
    assert 0.7 < acc < 0.9
    ours = result.value(
        metric="test_demographic_parity_diff_abs", stage="final", method="datasift-inf"
    )
    theirs = result.value(
        metric="test_demographic_parity_diff_abs", stage="final", method="random"
    )
    assert ours < theirs
    # A re-run into the same folder reads both trials back from the task cache (JSON, with
    # their traces) and writes the same summary.
    again = run_experiment("demo-datasift", preset="quick", out_dir=tmp_path)
    assert (result.meta["tasks_reused"], again.meta["tasks_reused"]) == (0, 2)
    assert again.rows == result.rows
    assert again.notes == result.notes
    assert again.traces == result.traces
