from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError
from fairacq.features import compare_fronts
from fairacq.metrics import attainment, pareto_front

unit = st.floats(0.0, 1.0, allow_nan=False)
points = st.lists(st.tuples(unit, unit), min_size=1, max_size=30)


def _dominates(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """(auc, disparity) a dominates b."""
    return a[0] >= b[0] and a[1] <= b[1] and (a[0] > b[0] or a[1] < b[1])


@given(points)
def test_front_is_exactly_the_non_dominated_points(pts: list[tuple[float, float]]) -> None:
    auc, disp = np.array(pts).T
    front = set(pareto_front(auc, disp).tolist())
    for i, p in enumerate(pts):
        dominated = any(_dominates(q, p) for q in pts)
        if dominated:
            assert i not in front
        else:
            # a non-dominated point is on the front unless an identical earlier one is
            assert i in front or any(pts[j] == p for j in front)


@given(points)
def test_front_is_sorted_and_strictly_increasing(pts: list[tuple[float, float]]) -> None:
    auc, disp = np.array(pts).T
    idx = pareto_front(auc, disp)
    assert idx.size >= 1
    assert np.all(np.diff(disp[idx]) > 0)
    assert np.all(np.diff(auc[idx]) > 0)


@given(points, st.randoms(use_true_random=False))
def test_front_invariant_to_point_order(pts: list[tuple[float, float]], rnd) -> None:
    shuffled = list(pts)
    rnd.shuffle(shuffled)
    a = np.array(pts)[pareto_front(*np.array(pts).T)]
    b = np.array(shuffled)[pareto_front(*np.array(shuffled).T)]
    np.testing.assert_array_equal(a, b)


@given(points, points)
def test_adding_points_never_lowers_attainment(
    pts: list[tuple[float, float]], extra: list[tuple[float, float]]
) -> None:
    grid = np.linspace(0, 1, 21)
    base = attainment(*np.array(pts).T, grid)
    more = attainment(*np.array(pts + extra).T, grid)
    assert np.all(more >= base)
    assert np.all(base[1:] >= base[:-1])  # non-decreasing in the budget


@given(points, points)
def test_comparison_is_antisymmetric(
    a: list[tuple[float, float]], b: list[tuple[float, float]]
) -> None:
    ab = compare_fronts(*np.array(a).T, *np.array(b).T)
    ba = compare_fronts(*np.array(b).T, *np.array(a).T)
    assert ab.a_better == ba.b_better
    assert ab.b_better == ba.a_better
    assert ab.share_a_better + ab.share_b_better <= 1.0 + 1e-12


@given(points)
def test_front_never_loses_to_itself(pts: list[tuple[float, float]]) -> None:
    c = compare_fronts(*np.array(pts).T, *np.array(pts).T)
    assert c.a_better == ()
    assert c.b_better == ()
    assert c.max_gain == 0.0


def test_dominating_front_wins_everywhere_it_reaches() -> None:
    c = compare_fronts([0.8, 0.9], [0.0, 0.1], [0.7, 0.85], [0.0, 0.1], n_grid=11)
    assert c.a_better == ((0.0, 0.1),)
    assert c.share_a_better == 1.0
    assert c.max_gain == pytest.approx(0.1)
    assert "a has the higher AUC" in c.describe()


def test_bad_input() -> None:
    with pytest.raises(InvalidDataError, match="different lengths"):
        pareto_front([0.5, 0.6], [0.1])
    with pytest.raises(InvalidDataError, match="NaN"):
        pareto_front([0.5, np.nan], [0.1, 0.2])
    with pytest.raises(InvalidDataError, match="no points"):
        compare_fronts([], [], [0.5], [0.1])
