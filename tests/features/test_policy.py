from __future__ import annotations

import pytest

from fairacq.features import policy_variety, policy_warnings


def test_variety_counts_sets_whatever_the_order() -> None:
    v = policy_variety([["age", "trade"], ["trade", "age"], ["age"], []])
    assert v.n_sets == 3
    assert v.top_set == ("age", "trade")
    assert v.top_share == pytest.approx(0.5)
    assert v.shares == {"age and trade": 0.5, "age only": 0.25, "no feature": 0.25}
    assert v.sentence() == "asked 3 different feature sets; 50 % were asked for age and trade"
    assert v.to_dict()["n_feature_sets"] == 3


def test_one_set_for_everybody_is_a_warning() -> None:
    same = policy_variety([["age"]] * 25)
    assert same.sentence() == "asked 1 feature set; 100 % were asked for age only"
    (message,) = policy_warnings(same, where="people in people.csv")
    assert "every one of the 25 people in people.csv" in message
    assert "(age only)" in message


def test_nobody_asked_anything_is_a_collapse() -> None:
    (message,) = policy_warnings(policy_variety([[]] * 40), where="test rows")
    assert "asks none of the 40 test rows" in message
    assert "collapsed" in message


def test_a_varied_policy_or_a_handful_of_people_gets_no_warning() -> None:
    assert policy_warnings(policy_variety([["a"], ["b"], ["a", "b"]] * 10)) == []
    assert policy_warnings(policy_variety([["a"]] * 5)) == []
