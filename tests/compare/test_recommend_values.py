"""The recommendation's numbers and words, checked value by value on hand-made seed records."""

from __future__ import annotations

import math

from tests.compare.test_recommend import BASE, _result, _runs


def _two_of_three_meet():
    # "b" meets the gap bound (<= 0.05) in seeds 0 and 1 only; it loses 0.3 points of the
    # baseline's 0.800 accuracy (0.797), less than the 0.5-point "no accuracy lost" cut.
    return _result(
        BASE,
        _runs("b", 120, [0.02, 0.03, 0.08], [0.80, 0.80, 0.791]),
        _runs("c", 150, [0.02, 0.03, 0.02], [0.80, 0.81, 0.79]),
    )


def test_the_chosen_row_is_described_with_its_own_numbers():
    rec = _two_of_three_meet().recommendation
    assert rec.method == "b"
    assert "(met in 2/3 seeds," in rec.text
    assert "accuracy 0.797 (losing 0.3 accuracy points against no action), 120 rows." in rec.text


def test_a_loss_under_half_a_point_reads_as_no_accuracy_lost():
    result = _result(
        BASE,
        _runs("d", 80, [0.02, 0.03, 0.02], [0.8, 0.8, 0.7991]),  # loses 0.03 points
    )
    rec = result.recommendation
    assert rec.method == "d"
    assert "accuracy 0.800 (no accuracy lost against no action), 80 rows." in rec.text


def test_doing_nothing_reads_as_no_data_bought():
    result = _result(_runs("no action", 0, [0.01, 0.02, 0.01], [0.8, 0.8, 0.8]))
    rec = result.recommendation
    assert rec.method == "no action"
    assert "(no accuracy lost against no action), no data bought." in rec.text


def _unknown_a_and_good_b(*more):
    """Both meet the gap bound in every seed; "a" has no accuracy measured, "b" loses 0.3."""
    nan = math.nan
    return _result(
        BASE,
        _runs("a", 100, [0.02, 0.03, 0.02], [nan, nan, nan]),
        _runs("b", 100, [0.02, 0.03, 0.02], [0.80, 0.80, 0.79]),
        *more,
    )


def test_an_unknown_accuracy_loss_is_never_ranked_first():
    # "b" is the only strategy within the tolerance; of the others, both meeting the target
    # in every seed, "c" loses 5 points and "a" an unknown amount (no accuracy measured).
    # The runner-up weighed against "b" is "c": an unknown loss ranks last, not first.
    result = _unknown_a_and_good_b(_runs("c", 100, [0.02, 0.03, 0.02], [0.75, 0.75, 0.75]))
    rows = {r["method"]: r for r in result.to_frame().to_dict("records")}
    assert math.isnan(rows["a"]["accuracy_loss"])
    rec = result.recommendation
    assert rec.method == "b"
    assert rec.evidence is not None
    assert rec.evidence.runner_up == "c"


def test_an_unknown_accuracy_is_never_called_most_accurate_nor_an_infinite_loss():
    rec = _unknown_a_and_good_b().recommendation
    assert rec.method == "b"
    assert rec.most_accurate == "b"
    assert "inf" not in rec.text
    assert "a reached it, but its accuracy change is unknown" in rec.text
