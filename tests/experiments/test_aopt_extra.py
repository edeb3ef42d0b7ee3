"""Paper 001 extra experiments: digit pairs with a CNN, German credit, the Adult LR ceiling."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq.data import load_dataset
from fairacq.exceptions import InvalidParameterError
from fairacq_experiments import SerialExecutor, run_experiment
from fairacq_experiments.aopt.images import (
    CONFUSION_PAIRS,
    PLAIN_PAIRS,
    DigitsConfig,
    load_digit_pairs,
    run_digits,
    split_by_group,
    trial_seeds,
)
from fairacq_experiments.aopt.tabular import PoolResampler, mixture_grid


def test_digit_pairs_are_groups_with_binary_labels() -> None:
    data = load_digit_pairs(PLAIN_PAIRS)
    assert list(data.group_names) == ["0v1", "2v3", "4v5", "6v7", "8v9"]
    assert data.X.shape == (1797, 64)
    assert data.X.to_numpy().min() >= 0.0
    assert data.X.to_numpy().max() <= 1.0
    # within each pair about half the images are the second digit (Y = 1)
    np.testing.assert_allclose(data.base_rates(), 0.5, atol=0.03)
    assert sorted(load_digit_pairs(CONFUSION_PAIRS).group_names) == sorted(
        ["1v8", "2v3", "7v9", "4v5", "0v6"]
    )


@pytest.mark.parametrize("pairs", [((0, 1),), ((0, 1), (1, 2)), ((0, 10), (2, 3))])
def test_digit_pairs_reject_bad_pairs(pairs: tuple) -> None:
    with pytest.raises(InvalidParameterError, match="disjoint"):
        load_digit_pairs(pairs)


def test_split_is_stratified_and_repeatable() -> None:
    data = load_digit_pairs()
    (ss, _), (ss2, _) = trial_seeds(0, 2)
    pool, test = split_by_group(data, 0.2, ss)
    again, _ = split_by_group(data, 0.2, ss)
    other, _ = split_by_group(data, 0.2, ss2)
    np.testing.assert_array_equal(pool.X.to_numpy(), again.X.to_numpy())
    assert not np.array_equal(pool.X.to_numpy(), other.X.to_numpy())
    np.testing.assert_allclose(test.group_sizes() / data.group_sizes(), 0.2, atol=0.01)


def test_digits_budget_larger_than_a_pairs_pool_is_rejected() -> None:
    with pytest.raises(InvalidParameterError, match="smallest pair's pool"):
        run_digits(DigitsConfig.quick(budget=400), SerialExecutor())


@given(st.integers(2, 5), st.sampled_from([0.5, 0.25, 0.2]))
def test_mixture_grid_covers_the_simplex(n_groups: int, step: float) -> None:
    grid = mixture_grid(n_groups, step)
    k = round(1 / step)
    assert len(grid) == math.comb(k + n_groups - 1, n_groups - 1)
    np.testing.assert_allclose(grid.sum(axis=1), 1.0)
    assert grid.min() >= 0
    assert len(np.unique(grid, axis=0)) == len(grid)


def test_pool_resampler_draws_one_group_with_replacement() -> None:
    pool = load_dataset("german").with_sensitive("sex", "age")
    fn = PoolResampler(pool)
    name = "male & age < 25"
    X, _y = fn(name, 500, np.random.default_rng(0))
    assert X.shape == (500, pool.X.shape[1])
    rows = pool.to_numpy()[np.asarray(pool.s) == pool.group_names.index(name)]
    assert len(np.unique(X, axis=0)) <= len(rows) < 500  # repeats: with replacement
    assert {tuple(r) for r in X} <= {tuple(r) for r in rows}
    X2, _ = fn(name, 500, np.random.default_rng(0))
    np.testing.assert_array_equal(X, X2)


@pytest.mark.slow
def test_digits_quick_concentrates_on_the_hard_pair(tmp_path) -> None:
    res = run_experiment("aopt-digits", preset="quick", out_dir=tmp_path)
    assert {r["method"] for r in res.rows} == {"aopt", "epsilon-greedy", "uniform", "greedy"}
    budget = DigitsConfig.quick().budget
    shares = {g: res.value(method="aopt", metric=f"pi_{g}") for g in ("1v8", "2v3", "0v6")}
    # 1 vs 8, the hardest pair, gets more than the uniform share and the most samples
    assert shares["1v8"] > 0.2
    assert shares["1v8"] == max(shares.values())
    aopt = res.value(method="aopt", metric=f"test_worst_acc@{budget}")
    uniform = res.value(method="uniform", metric=f"test_worst_acc@{budget}")
    assert aopt >= uniform - 0.05
    # the substitution the notes word: one group per configured digit pair
    pairs = {f"{a}v{b}" for a, b in DigitsConfig.quick().pairs}
    assert set(res.traces["aopt"][0].meta["groups"]) == pairs
    # the spread is each seed's best pair minus its worst pair at the end, averaged
    finals = [[t.final(f"test_acc_{g}") for g in pairs] for t in res.traces["aopt"]]
    spread = np.mean([max(f) - min(f) for f in finals])
    assert res.value(method="aopt", metric="test_acc_spread") == pytest.approx(spread)
    assert (tmp_path / "aopt-digits.png").exists()


@pytest.mark.slow
def test_german_quick_favours_the_hardest_group(tmp_path) -> None:
    res = run_experiment("aopt-german", preset="quick", out_dir=tmp_path)
    assert {r["method"] for r in res.rows} == {"aopt", "epsilon-greedy", "uniform"}
    groups = load_dataset("german").with_sensitive("sex", "age").group_names
    shares = {g: res.value(method="aopt", metric=f"pi_{g}") for g in groups}
    # young men are the hardest group for LR; Aopt gives them the largest share
    assert max(shares, key=shares.__getitem__) == "male & age < 25"
    assert shares["male & age < 25"] > 0.25
    aopt = res.value(method="aopt", metric="test_worst_acc@150")
    uniform = res.value(method="uniform", metric="test_worst_acc@150")
    assert aopt >= uniform - 0.05
    # the paper's German numbers are in an appendix our copy lacks: no row has one
    assert all(r["paper_value"] is None for r in res.rows)


@pytest.mark.slow
def test_adult_ceiling_quick(tmp_path) -> None:
    res = run_experiment("aopt-adult-ceiling", preset="quick", out_dir=tmp_path)
    best = res.value(method="lr-mixture-grid", metric="best_worst_group_acc")
    fixed = res.value(method="lr-mixture-grid", metric="worst_group_acc_at_best_mean_mixture")
    aopt = res.value(method="aopt", metric="final_test_worst_acc")
    assert best >= fixed
    assert 0.6 < aopt <= 1
    assert 0.6 < best <= 1
    assert res.value(method="aopt", metric="gap_to_ceiling") == pytest.approx(best - aopt)
    within = res.value(method="aopt", metric="within_1_point_of_ceiling")
    assert within in (0.0, 1.0)
    (verdict,) = res.verdicts
    assert (verdict.ours, verdict.op, verdict.target) == (pytest.approx(best - aopt), "<=", 0.01)
    assert verdict.met == bool(within)
    (written,) = json.loads((tmp_path / "summary.json").read_text())["verdicts"]
    # the gap is the ceiling minus Aopt's mean final worst-group accuracy
    assert written["facts"] == {"aopt": pytest.approx(aopt), "ceiling": pytest.approx(best)}
    assert (written["ours"], written["target"], written["met"]) == (
        pytest.approx(best - aopt),
        0.01,
        verdict.met,
    )
    # White men are the hardest group (paper 001, §5)
    assert res.value(method="lr-pool", metric="acc_White & Male") == pytest.approx(
        res.value(method="lr-pool", metric="worst_group_acc")
    )
    assert (tmp_path / "aopt-adult-ceiling.png").exists()
