"""Fronts read at matched accuracy, and the dominance verdict (hand-worked cases).

Ours: (0.60, 0.00) and (0.70, 0.20). At accuracy 0.65 the coin between them with w = 0.5
has accuracy 0.65 and |DP| at most 0.10: that is the reading.
"""

from __future__ import annotations

import pytest

from fairacq_experiments.peers._fronts import FrontPoint, front_verdict, reach_at

OURS = [FrontPoint("a", 0.60, 0.00, 0.01), FrontPoint("b", 0.70, 0.20, 0.03)]


def test_reach_reads_points_and_coins_between_them() -> None:
    assert reach_at(OURS, 0.55) == (0.0, 0.01)  # a point at least as accurate
    assert reach_at(OURS, 0.65) == pytest.approx((0.10, 0.02))
    assert reach_at(OURS, 0.70) == (0.2, 0.03)
    assert reach_at(OURS, 0.7001) is None


def test_a_front_lower_everywhere_and_clearly_somewhere_dominates() -> None:
    theirs = [FrontPoint("x", 0.60, 0.05, 0.01), FrontPoint("y", 0.65, 0.30, 0.05)]
    verdict = front_verdict("v", OURS, theirs)
    assert verdict.met
    assert verdict.ours == pytest.approx(-0.05)
    # at 0.65 ours read 0.10 ± 0.02 (the coin of the module docstring), theirs 0.30 ± 0.05:
    # 0.20 lower, more than the larger std 0.05
    assert verdict.facts["readings"]["y"] == pytest.approx([0.30, 0.05, 0.10, 0.02])
    assert verdict.facts["readings"]["x"] == pytest.approx([0.05, 0.01, 0.0, 0.01])
    assert verdict.facts["clearly_lower_somewhere"] is True


def test_higher_anywhere_is_not_dominance() -> None:
    theirs = [FrontPoint("x", 0.60, 0.00, 0.01), FrontPoint("y", 0.65, 0.30, 0.05)]
    theirs[0] = FrontPoint("x", 0.62, 0.01, 0.01)  # ours reach 0.04 there
    verdict = front_verdict("v", OURS, theirs)
    assert not verdict.met
    assert verdict.ours == pytest.approx(0.03)


def test_lower_only_within_the_spread_is_not_dominance() -> None:
    theirs = [FrontPoint("x", 0.60, 0.02, 0.05)]
    verdict = front_verdict("v", OURS, theirs)
    assert not verdict.met
    # ours 0.00 at 0.60 is 0.02 lower, within the larger std 0.05: not clearly lower
    assert verdict.facts["readings"]["x"] == pytest.approx([0.02, 0.05, 0.0, 0.01])
    assert verdict.facts["clearly_lower_somewhere"] is False
    assert verdict.ours == pytest.approx(-0.02)


def test_a_point_more_accurate_than_all_of_ours_is_not_dominated() -> None:
    verdict = front_verdict("v", OURS, [FrontPoint("z", 0.75, 0.5, 0.0)])
    assert not verdict.met
    assert verdict.facts["readings"] == {"z": None}  # ours stop at accuracy 0.70
    assert verdict.ours == float("inf")


def test_a_point_equal_to_theirs_is_no_higher() -> None:
    dp = 0.18570000000050602  # reach_at rounds it to 12 decimals: 5e-15 up
    ours = [FrontPoint("a", 0.5, dp, 0.0), FrontPoint("b", 0.4, 0.0, 0.0)]
    verdict = front_verdict(
        "v", ours, [FrontPoint("x", 0.5, dp, 0.0), FrontPoint("y", 0.45, 0.2, 0.0)]
    )
    assert verdict.ours <= 0
    assert verdict.met
