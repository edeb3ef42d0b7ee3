from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.metrics import (
    demographic_parity_diff_signed,
    relative_chance,
    risk_difference,
    risk_ratio,
)
from tests.metrics.strategies import METRIC_SETTINGS, Classified, classified, two_group_classified


def test_paper_004_definitions_by_hand() -> None:
    # protected: 3 rows, 2 denials (p1 = 2/3); unprotected: 4 rows, 1 denial (p2 = 1/4)
    y_pred = [0, 0, 1, 1, 1, 1, 0]
    s = ["p", "p", "p", "u", "u", "u", "u"]
    p1, p2 = 2 / 3, 1 / 4
    assert risk_difference(y_pred, s, protected="p") == pytest.approx(p1 - p2)
    assert risk_ratio(y_pred, s, protected="p") == pytest.approx(p1 / p2)
    assert relative_chance(y_pred, s, protected="p") == pytest.approx((1 - p1) / (1 - p2))


def test_favourable_zero_counts_predicted_harm() -> None:
    # COMPAS-style: y_pred = 1 predicts recidivism, the unfavourable outcome
    y_pred = [1, 1, 0, 0, 0, 1]
    s = ["aa", "aa", "aa", "o", "o", "o"]
    assert risk_difference(y_pred, s, protected="aa", favourable=0) == pytest.approx(1 / 3)
    assert risk_ratio(y_pred, s, protected="aa", favourable=0) == pytest.approx(2.0)


def test_protected_versus_everyone_else() -> None:
    y_pred = np.array([0, 0, 1, 1, 0, 1, 1, 1])
    s = np.array(["b", "b", "b", "w", "w", "h", "h", "a"])
    p1 = 2 / 3
    p2 = 1 / 5
    assert risk_difference(y_pred, s, protected="b") == pytest.approx(p1 - p2)
    with pytest.raises(InvalidParameterError, match="protected=<label>"):
        risk_difference(y_pred, s)


def test_soft_truth_values() -> None:
    # HL-MRF MAP states: not y = 1 - y (Lukasiewicz)
    y_pred = [0.2, 0.6, 0.9, 0.7]
    s = [0, 0, 1, 1]
    assert risk_difference(y_pred, s) == pytest.approx((0.8 + 0.4) / 2 - (0.1 + 0.3) / 2)


@given(two_group_classified())
@METRIC_SETTINGS
def test_rd_is_minus_signed_dp(d: Classified) -> None:
    a, b = d.labels
    rd = risk_difference(d.y_pred, d.s, protected=a)
    assert rd == pytest.approx(
        -demographic_parity_diff_signed(d.y_pred, d.s, protected=a, privileged=b), abs=1e-12
    )
    assert rd == pytest.approx(-risk_difference(d.y_pred, d.s, protected=b), abs=1e-12)
    assert -1.0 <= rd <= 1.0


@given(classified(), st.data())
@METRIC_SETTINGS
def test_ratios_in_range_and_order_invariant(d: Classified, data: st.DataObject) -> None:
    protected = data.draw(st.sampled_from(d.labels))
    perm = np.asarray(data.draw(st.permutations(range(len(d.s)))), dtype=np.int64)
    for fn in (risk_difference, risk_ratio, relative_chance):
        value = fn(d.scores, d.s, protected=protected)
        again = fn(d.scores[perm], d.s[perm], protected=protected)
        # summing in another order moves the last bits: a ratio of tiny means can be ~150
        close = again == pytest.approx(value, rel=1e-12, abs=1e-12)
        assert close or (math.isinf(value) and value == again)
    assert risk_ratio(d.y_pred, d.s, protected=protected) >= 0.0
    assert relative_chance(d.y_pred, d.s, protected=protected) >= 0.0


def test_zero_denominators() -> None:
    s = [0, 0, 1, 1]
    assert risk_ratio([1, 1, 1, 1], s) == 1.0  # nobody denied: groups equal
    assert risk_ratio([0, 1, 1, 1], s) == math.inf
    assert relative_chance([0, 0, 0, 0], s) == 1.0
    assert relative_chance([1, 0, 0, 0], s) == math.inf


def test_bad_favourable_and_values() -> None:
    with pytest.raises(InvalidParameterError, match="favourable must be 0 or 1"):
        risk_difference([1, 0], [0, 1], favourable=2)
    with pytest.raises(InvalidParameterError, match="favourable must be 0 or 1"):
        risk_difference([1, 0], [0, 1], favourable=True)
    with pytest.raises(InvalidDataError, match=r"\[0, 1\]"):
        risk_difference([1, 2], [0, 1])


def test_order_invariance_of_a_large_ratio() -> None:
    # the case hypothesis found: a ratio near 154 whose last bits depend on summation order
    scores = np.array([1.0, 0.0, 0.0, 0.02148481, 0.00448278])
    s = np.array([1, 0, 0, 0, 0])
    perm = np.array([0, 1, 2, 4, 3])
    value = risk_ratio(scores, s, protected=1)
    assert risk_ratio(scores[perm], s[perm], protected=1) == pytest.approx(value, rel=1e-12)
