from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError
from fairacq.metrics import RowGroups, demographic_parity_diff_abs, group_selection_rates
from tests.metrics.strategies import METRIC_SETTINGS, Classified, classified


@METRIC_SETTINGS
@given(data=classified(min_groups=2, max_groups=5, max_rows=80), seed=st.integers(0, 2**32 - 1))
def test_equals_the_metric_bit_for_bit(data: Classified, seed: int) -> None:
    groups = RowGroups(data.s)
    gap = demographic_parity_diff_abs(data.y_pred, data.s)
    rates = group_selection_rates(data.y_pred, data.s).to_numpy()
    for pred in (data.y_pred, data.y_pred.astype(bool), data.y_pred.astype(np.float64)):
        assert groups.demographic_parity_diff_abs(pred) == gap
        assert np.array_equal(groups.selection_rates(pred), rates)
    # a stack of prediction vectors: each one's gap and rates are the metric's
    rng = np.random.default_rng(seed)
    stack = np.vstack([data.y_pred, rng.random((4, data.s.size)) < rng.random((4, 1))])
    gaps = groups.demographic_parity_diff_abs_many(stack)
    assert gaps.tolist() == [demographic_parity_diff_abs(p.astype(int), data.s) for p in stack]
    assert np.array_equal(
        groups.selection_rates(stack),
        np.vstack([group_selection_rates(p.astype(int), data.s).to_numpy() for p in stack]),
    )
    assert groups.labels == data.labels


def test_uneven_groups_give_the_metric_rounding() -> None:
    # thirds and sevenths do not divide evenly: every rate is a rounded float
    rng = np.random.default_rng(0)
    s = rng.choice(["a", "b", "c"], size=2101, p=[0.5, 0.3, 0.2])
    preds = rng.random((50, s.size)) < 0.37
    groups = RowGroups(s)
    expected = [demographic_parity_diff_abs(p.astype(int), s) for p in preds]
    assert [groups.demographic_parity_diff_abs(p) for p in preds] == expected
    assert groups.demographic_parity_diff_abs_many(preds).tolist() == expected
    assert groups.counts.tolist() == [float(np.sum(s == g)) for g in ("a", "b", "c")]
    assert groups.n_rows == 2101
    assert "n_rows=2101" in repr(groups)


@pytest.mark.parametrize(
    "s",
    [
        pytest.param(["a", "a", "a"], id="one group"),
        pytest.param([0.0, np.nan, 1.0], id="NaN"),
        pytest.param([[0, 1, 0]], id="2-D"),
    ],
)
def test_bad_groups_raise_the_metric_error(s: list[object]) -> None:
    with pytest.raises(InvalidDataError) as metric:
        demographic_parity_diff_abs([1, 0, 1], s)
    with pytest.raises(type(metric.value), match=r"^RowGroups: ") as ours:
        RowGroups(s)
    # the same message, but for the name of the caller
    assert str(ours.value).split(": ", 1)[1] == str(metric.value).split(": ", 1)[1]


@pytest.mark.parametrize(
    ("call", "y_pred", "message"),
    [
        ("demographic_parity_diff_abs", [1, 0, 1], r"shape \(4,\)\. Got shape \(3,\)"),
        (
            "demographic_parity_diff_abs",
            [[1, 0, 1, 1]],
            r"shape \(4,\)\. Got shape \(1, 4\)\. For one .* use demographic_parity_diff_abs_many",
        ),
        ("demographic_parity_diff_abs_many", [1, 0, 1, 1], r"shape \(k, 4\)\. Got shape \(4,\)"),
        ("selection_rates", [[1, 0, 1]], r"shape \(4,\) or \(k, 4\)\. Got shape \(1, 3\)"),
        ("selection_rates", 1, r"Got shape \(\)"),
        ("selection_rates", [1, 0, 2, 1], r"must be binary 0/1\. Found values \{0, 1, 2\}"),
        ("demographic_parity_diff_abs", [1.0, 0.5, 1.0, 0.0], r"must be binary 0/1"),
    ],
)
def test_bad_predictions_name_the_problem(call: str, y_pred: object, message: str) -> None:
    groups = RowGroups(["m", "f", "f", "m"])
    with pytest.raises(InvalidDataError, match=message):
        getattr(groups, call)(y_pred)
