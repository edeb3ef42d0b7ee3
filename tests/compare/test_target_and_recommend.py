from __future__ import annotations

import math

import pytest

from fairacq.compare import Target, parse_target, recommend
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


def _row(method, cost, gap, loss, *, met=3, seeds=3):
    return {
        "method": method, "kind": "k", "seeds": seeds, "cost": cost, DP: gap,
        f"{DP}_std": 0.01, "accuracy": 0.8 - loss, "accuracy_loss": loss, "met_seeds": met,
        "reached": TARGET.met(gap), "shortfall": TARGET.shortfall(gap),
    }  # fmt: skip


def _recommend(rows):
    return recommend(rows, TARGET, unit="rows", baseline="no action", budget=100)


def test_the_cheapest_strategy_reaching_the_target_is_recommended():
    rec = _recommend(
        [
            _row("no action", 0, 0.2, 0.0, met=0),
            _row("datasift", 60, 0.04, 0.01),
            _row("threshold-dp", 0, 0.03, 0.05),
            _row("random", 100, 0.1, 0.0, met=0),
        ]
    )
    assert rec.reached
    assert rec.method == "threshold-dp"
    assert "least cost" in rec.text
    assert "losing 5.0 accuracy points" in rec.text
    assert "If accuracy matters more: datasift" in rec.text


def test_no_action_already_meeting_the_target_says_so():
    rec = _recommend(
        [
            _row("no action", 0, 0.04, 0.0),
            _row("reweighing", 0, 0.03, -0.001),
            _row("datasift", 50, 0.02, -0.01),
        ]
    )
    assert rec.method == "no action"
    assert "already meets" in rec.text
    assert "If accuracy matters more: datasift" in rec.text


def test_none_reaching_the_target_names_the_closest_honestly():
    rec = _recommend([_row("no action", 0, 0.2, 0.0, met=0), _row("inf", 80, 0.07, 0.02, met=1)])
    assert not rec.reached
    assert rec.method is None
    assert rec.closest == "inf"
    assert rec.text.startswith("No strategy reached demographic parity gap <= 0.05")
    assert "Closest: inf" in rec.text
