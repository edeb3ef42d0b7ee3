"""The kernel's helpers for fits done in one go: ``one_shot_trace`` and ``refuse_resume``."""

from __future__ import annotations

from typing import Any

import pytest

from fairacq import TraceRecorder
from fairacq._loop import one_shot_trace, refuse_resume
from fairacq.exceptions import InvalidParameterError


def test_one_shot_trace_records_rows_then_calls_callbacks_once_with_a_request() -> None:
    seen: list[tuple[int, bool, dict[str, Any]]] = []

    def callback(recorder: TraceRecorder) -> bool:
        seen.append((recorder.n_steps, recorder.checkpoint_requested, recorder.last()))
        return False

    trace = one_shot_trace(
        method="demo",
        config={"c": 1},
        random_state=7,
        rows=[{"cost": 3.0, "loss": 0.5}, {"cost": 5.0, "loss": 0.25}],
        callbacks=[callback],
        dataset="toy",
    )
    assert [(n, asked) for n, asked, _ in seen] == [(2, True)]
    assert seen[0][2]["loss"] == 0.25
    assert trace.to_frame()["cost"].tolist() == [3.0, 5.0]
    assert trace.final("loss") == 0.25
    meta = trace.meta
    assert (meta["method"], meta["seed"], meta["config"], meta["dataset"]) == (
        "demo",
        7,
        {"c": 1},
        "toy",
    )
    assert meta["stop_reason"] == "fitted"


def test_refuse_resume_accepts_none_only() -> None:
    refuse_resume("Demo", None)
    with pytest.raises(InvalidParameterError, match=r"^Demo\.fit fits in one go.*continue_from"):
        refuse_resume("Demo", "checkpoint/")
