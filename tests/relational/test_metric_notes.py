"""Soft truth and undefined metrics are said, never reported as a silent NaN."""

from __future__ import annotations

import json
import warnings

import pandas as pd
import pytest

from fairacq.relational import (
    MetricsWarning,
    RelationalData,
    json_metrics,
    metric_notes,
    run_pipeline,
    write_inference,
)

RULES = ["5: risky(U) -> recid(U) ^2", "5: !recid(U) ^2"]


def _data(truth, task="classification"):
    users = [f"u{i}" for i in range(len(truth))]
    frame = pd.DataFrame({"user": users})
    half = len(users) // 2
    return RelationalData(
        observations={"risky": frame.assign(value=[1.0, 0.0] * half)},
        targets={"recid": frame},
        truth={"recid": frame.assign(value=truth)},
        protected=frame.iloc[:half].reset_index(drop=True),
        unprotected=frame.iloc[half:].reset_index(drop=True),
        metadata={"fairness_predicate": "recid", "task": task},
    )


def test_binary_truth_has_no_note():
    data = _data([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = run_pipeline(RULES, None, data)
    assert out.warnings == ()
    assert out.summary()["warnings"] == []


def test_soft_truth_is_read_with_threshold_and_said():
    data = _data([0.7, 0.3, 0.7, 0.3, 0.3, 0.7])
    with pytest.warns(MetricsWarning, match="6 of 6 truth values of 'recid'.*threshold 0.5"):
        out = run_pipeline(RULES, None, data)
    # by hand: MAP gives risky users (u0, u2, u4) 0.5 (5 (1 - r)^2 + 5 r^2 is least at 0.5),
    # the others 0; read at 0.5 the labels are 1, 0, 1, 0, 0, 1. Of the 9 positive-negative
    # pairs, u0 and u2 beat u1 and u3 (4), tie u4 (2 x 0.5), u5 ties u1 and u3 (2 x 0.5):
    # 6 / 9
    assert out.metrics["auc_roc"] == pytest.approx(2 / 3)
    risky = out.predictions.sort_values("arg0")["value"].to_numpy()
    assert risky == pytest.approx([0.5, 0.0, 0.5, 0.0, 0.5, 0.0], abs=1e-3)
    assert len(out.warnings) == 1


def test_one_class_truth_names_the_undefined_metrics_and_writes_null(tmp_path):
    data = _data([0.3, 0.4, 0.3, 0.2, 0.3, 0.4])
    with pytest.warns(MetricsWarning) as caught:
        out = run_pipeline(RULES, None, data)
    text = " ".join(str(w.message) for w in caught)
    assert "auc_roc" in text
    assert "undefined" in text
    assert "the protected group has 0 positive and 3 negative atoms" in text
    summary = write_inference(out, tmp_path)
    assert summary["metrics"]["auc_roc"] is None
    saved = (tmp_path / "summary.json").read_text()
    assert "NaN" not in saved
    assert json.loads(saved)["warnings"] == list(out.warnings)
    assert json.loads((tmp_path / "metrics.json").read_text()) == json.loads(saved)


def test_rating_task_takes_soft_truth_without_a_note():
    data = _data([0.7, 0.3, 0.7, 0.3, 0.3, 0.7], task="rating")
    assert metric_notes(data, {"mse": 0.1}) == []


def test_json_metrics_and_no_metrics():
    assert json_metrics({"rr": float("inf"), "rd": 0.5}) == {"rr": None, "rd": 0.5}
    assert metric_notes(_data([0.5, 0.5]), {}) == []
