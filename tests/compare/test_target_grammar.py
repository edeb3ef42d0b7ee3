"""The target grammar: a gap only pushed down, an accuracy only pushed up, a value in range."""

from __future__ import annotations

import math

import pytest

from fairacq.compare import METRIC_ALIASES, Target, parse_target
from fairacq.compare._target import check_bound
from fairacq.exceptions import InvalidParameterError, UnknownNameError
from fairacq.metrics import available, get_metric

# every metric a target may name: set by the predictions, with a better direction
TARGETABLE = [
    name
    for name in available()
    if "y_pred" in get_metric(name).needs
    and set(get_metric(name).needs) <= {"y_true", "y_pred", "s"}
    and get_metric(name).higher_is_better is not None
]


@pytest.mark.parametrize(
    ("text", "metric", "op", "value"),
    [
        ("dp<=0.05", "demographic_parity_diff_abs", "<=", 0.05),
        ("dp<=0", "demographic_parity_diff_abs", "<=", 0.0),
        ("eopp < 1", "equal_opportunity_diff", "<", 1.0),
        ("acc>=0.8", "accuracy", ">=", 0.8),
        ("worst>0", "worst_group_accuracy", ">", 0.0),
        ("demographic_parity_ratio>=0.8", "demographic_parity_ratio", ">=", 0.8),
        ("equalized_odds_diff_sum<=1.5", "equalized_odds_diff_sum", "<=", 1.5),
    ],
)
def test_sensible_targets_are_read(text, metric, op, value):
    assert parse_target(text) == Target(metric, op, value)


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("dp>=0.05", ("'dp>=0.05'", "lower demographic parity gap is fairer", "Write dp<=0.05.")),
        ("dp>0.05", ("pushes it down", "Write dp<=0.05.")),
        ("eo>=0.1", ("equalised odds gap", "Write eo<=0.1.")),
        ("worst<=0.7", ("higher worst-group accuracy is better", "Write worst>=0.7.")),
        ("acc<0.9", ("pushes it up", "Write acc>=0.9.")),
        ("dp<=-0.1", ("between 0 and 1", "Write e.g. dp<=0.1.")),
        ("eopp<=1.5", ("between 0 and 1", "Write e.g. eopp<=0.05.")),
        ("acc>=1.5", ("accuracy is between 0 and 1", "Write e.g. acc>=0.8.")),
        ("worst>=-0.2", ("between 0 and 1", "worst>=0.2")),
        ("dp>=-0.1", ("pushes it down", "Write dp<=0.1.")),
        ("equalized_odds_diff_sum<=3", ("between 0 and 2",)),
        ("non_parity_unfairness<=-1", ("is at least 0",)),
        ("dp<0", ("can never be met", "never below 0", "Write dp<=0.")),
        ("acc>1", ("can never be met", "never above 1", "Write acc>=1.")),
        ("demographic_parity_diff_signed<=0.1", ("signed", "write dp<=0.1")),
        ("equalized_odds_diff_signed>=-0.2", ("signed", "write eo<=0.2")),
        ("risk_ratio>=0.8", ("signed", "dp, eo, eopp, acc, worst")),
        ("base_rate_diff<=0.1", ("labels or groups alone", "dp, eo")),
        ("imbalance<=0.1", ("labels or groups alone",)),
        ("auc_roc>=0.8", ("scores or items",)),
    ],
)
def test_targets_that_make_no_sense_are_refused_with_the_fix(text, fragments):
    with pytest.raises(InvalidParameterError) as info:
        parse_target(text)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


@pytest.mark.parametrize("metric", TARGETABLE)
def test_every_registered_metric_takes_only_its_better_direction(metric):
    info = get_metric(metric)
    good, bad = (">=", "<=") if info.higher_is_better else ("<=", ">=")
    value = min(0.5, info.range[1])
    assert Target(metric, good, value).lower_is_better is (not info.higher_is_better)
    with pytest.raises(InvalidParameterError, match="a target pushes it"):
        Target(metric, bad, value)
    with pytest.raises(InvalidParameterError, match="so the bound must be too"):
        Target(metric, good, info.range[0] - 0.5)


def test_the_aliases_are_gaps_pushed_down_or_accuracies_pushed_up():
    lower = {alias for alias, m in METRIC_ALIASES.items() if not get_metric(m).higher_is_better}
    assert lower == {"dp", "eo", "eopp"}
    assert set(METRIC_ALIASES) - lower == {"acc", "worst"}


def test_a_target_built_directly_is_checked_too():
    with pytest.raises(InvalidParameterError, match=r"Write worst>=0\.7"):
        Target("worst_group_accuracy", "<=", 0.7)
    with pytest.raises(InvalidParameterError, match="compares with '=='"):
        Target("accuracy", "==", 0.7)
    with pytest.raises(InvalidParameterError, match="so the bound must be too"):
        Target("accuracy", ">=", math.nan)
    with pytest.raises(UnknownNameError):
        Target("dp", "<=", 0.05)  # aliases are for parse_target; a Target takes the name


def test_check_bound_accepts_the_boundaries_of_the_range():
    check_bound("demographic_parity_diff_abs", "<=", 0.0)
    check_bound("demographic_parity_diff_abs", "<", 1.0)
    check_bound("accuracy", ">=", 1.0)
    check_bound("accuracy", ">", 0.0)
