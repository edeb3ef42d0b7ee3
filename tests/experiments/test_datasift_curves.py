"""Per-seed readings of acquisition traces and the DataSift-Inf acceptance check."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq import TraceRecorder
from fairacq_experiments.datasift._curves import (
    budget_share_to_fairness,
    datasift_inf_check,
)


def _trace(points, accuracy=0.8, rejected=()):
    rec = TraceRecorder(method="m", config={})
    for cost, gap in points:
        rec.record(cost=cost, accepted=True, gap=gap, test_accuracy=accuracy)
        if cost in rejected:
            rec.record(cost=cost, accepted=False, gap=0.0, test_accuracy=0.0)
    return rec.finish()


def test_share_to_fairness_first_under_tau_else_best():
    t = _trace([(0, 0.3), (2, 0.05), (4, 0.008), (6, 0.001)])
    assert budget_share_to_fairness(t, "gap", 10, 0.01) == (0.4, 0.008, True)
    t = _trace([(0, 0.3), (2, 0.05), (4, 0.02), (6, 0.04)])
    assert budget_share_to_fairness(t, "gap", 10, 0.01) == (0.4, 0.02, False)
    # a rejected batch's value is never the value reached
    t = _trace([(0, 0.3), (2, 0.05)], rejected=(2,))
    assert budget_share_to_fairness(t, "gap", 10, 0.01) == (0.2, 0.05, False)


@given(st.lists(st.floats(0, 1), min_size=1, max_size=8), st.floats(0, 1))
def test_share_to_fairness_properties(gaps, tau):
    t = _trace([(2 * i, g) for i, g in enumerate(gaps)])
    share, value, under = budget_share_to_fairness(t, "gap", 2 * len(gaps), tau)
    assert 0 <= share < 1
    assert value in gaps
    assert under == (min(gaps) <= tau)
    assert under or value == min(gaps)


def test_check_reports_each_part():
    fair = [_trace([(0, 0.3), (4, 0.005)], accuracy=0.80) for _ in range(2)]
    slow = [_trace([(0, 0.3), (8, 0.2)], accuracy=0.81) for _ in range(2)]
    verdicts = datasift_inf_check(
        {"datasift-inf": fair, "random": slow, "entropy": slow}, "gap", 10, 0.01, where="a/lr: "
    )
    assert [(v.met, v.ours, v.target, v.op) for v in verdicts] == [(True, 2, 2, ">=")] * 3
    assert all(v.name.startswith("a/lr: DataSift-Inf's ") for v in verdicts)
    # the gap first reaches 0.005 <= tau at cost 4 of 10: 40 % of the budget, both seeds
    reached = verdicts[0].facts["reached"]
    assert reached == [{"share": 0.4, "gap": 0.005, "under_tau": True}] * 2
    assert [v.facts["part"] for v in verdicts] == ["in_half", "area", "accuracy"]
    late = [_trace([(0, 0.3), (8, 0.005)], accuracy=0.75), fair[0]]
    in_half, area, accuracy = datasift_inf_check(
        {"datasift-inf": late, "random": slow, "entropy": slow}, "gap", 10, 0.01
    )
    assert (in_half.met, in_half.ours, in_half.target) == (False, 1, 2)
    assert in_half.facts["holds"] == [False, True]  # the late seed reaches 0.005 at 80 %
    assert in_half.facts["reached"][0]["share"] == 0.8
    assert (area.met, area.ours) == (True, 2)
    assert (accuracy.met, accuracy.ours) == (False, 1)
    # Random 0.81 against 0.75 and 0.80: 6 and 1 points below; 6 > 2 fails the first seed
    assert accuracy.facts["points_below_random"] == pytest.approx([6.0, 1.0])
    assert accuracy.facts["holds"] == [False, True]
    assert datasift_inf_check({"random": slow}, "gap", 10, 0.01) == []
