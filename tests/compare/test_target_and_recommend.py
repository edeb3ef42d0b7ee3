from __future__ import annotations

import math

import pytest

from fairacq.compare import Target, parse_target
from fairacq.exceptions import InvalidParameterError

DP = "demographic_parity_diff_abs"
TARGET = Target(DP, "<=", 0.05)


@pytest.mark.parametrize(
    ("text", "metric", "op", "value"),
    [
        ("dp<=0.05", DP, "<=", 0.05),
        (" eo < 0.1 ", "equalized_odds_diff", "<", 0.1),
        ("worst>=0.7", "worst_group_accuracy", ">=", 0.7),
        ("equal_opportunity_diff<=1e-2", "equal_opportunity_diff", "<=", 0.01),
    ],
)
def test_parse_target(text, metric, op, value):
    assert parse_target(text) == Target(metric, op, value)


@pytest.mark.parametrize("text", ["dp=0.05", "dp<=", "0.05", "nope<=0.1", "auc_roc>=0.8"])
def test_bad_targets_are_refused_with_the_forms(text):
    with pytest.raises(InvalidParameterError, match="dp"):
        parse_target(text)


def test_met_and_shortfall_follow_the_direction():
    assert TARGET.met(0.05)
    assert not TARGET.met(0.06)
    assert not TARGET.met(math.nan)
    assert TARGET.shortfall(0.08) == pytest.approx(0.03)
    worst = Target("worst_group_accuracy", ">=", 0.7)
    assert worst.met(0.71)
    assert worst.shortfall(0.6) == pytest.approx(0.1)
