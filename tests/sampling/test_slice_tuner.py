"""Slice Tuner (Tae & Whang 2021): learning curves, the convex split, the T limit, the sampler."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone

from fairacq._base import Strategy
from fairacq.data import load_toy
from fairacq.data.synthetic import SyntheticModel1
from fairacq.sampling import (
    GeneratorOracle,
    GroupSampler,
    SliceTunerSampler,
    allocate_slices,
    fit_power_law,
    make_sampler,
    run_sampler_trials,
    slice_objective,
)
from fairacq.sampling.samplers._learning_curve import fit_slice_curve, subset_sizes
from fairacq.sampling.samplers._slice_allocation import (
    imbalance_ratio,
    limit_imbalance,
    round_allocation,
)
from tests.checks import Spec, check_strategy


# -- learning curves ----------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b"), [(0.5, 2.0), (0.12, 0.7), (1.3, 5.0)])
def test_power_law_fit_recovers_known_curves(a: float, b: float) -> None:
    n = np.array([20.0, 50.0, 90.0, 150.0, 300.0, 600.0])
    fitted = fit_power_law(n, b * n**-a)
    assert fitted is not None
    np.testing.assert_allclose(fitted, (a, b), rtol=1e-5)


def test_power_law_fit_with_noise_stays_close() -> None:
    rng = np.random.default_rng(0)
    n = np.linspace(30, 1000, 10)
    loss = 1.5 * n**-0.4 * (1 + 0.01 * rng.normal(size=n.size))
    a, b = fit_power_law(n, loss) or (np.nan, np.nan)
    assert abs(a - 0.4) < 0.03
    assert abs(b - 1.5) < 0.2


def test_curve_fallback_when_a_slice_has_one_size() -> None:
    assert fit_power_law([10.0, 10.0, 0.0], [0.5, 0.7, 0.9]) is None
    a, b = fit_slice_curve([10.0, 10.0, 0.0], [0.5, 0.7, 0.9])
    assert a == 0.5
    assert b == pytest.approx(0.6 * 10**0.5)  # through the mean point (n=10, loss=0.6)


def test_subset_sizes_span_the_training_set() -> None:
    assert subset_sizes(1000, 10, 100).tolist()[::3] == [100, 400, 700, 1000]
    assert subset_sizes(3, 10, 100).tolist() == [1, 2, 3]


# -- the convex allocation against brute force --------------------------------------------
CASES = [
    (np.array([0.5, 0.1]), np.array([1.0, 0.6]), np.array([10.0, 10.0])),
    (np.array([0.3, 0.6]), np.array([0.4, 2.0]), np.array([40.0, 5.0])),
    (np.array([0.5, 0.1, 0.3]), np.array([1.0, 0.5, 0.8]), np.array([10.0, 10.0, 20.0])),
    (np.array([0.2, 0.0, 0.7]), np.array([0.9, 0.3, 3.0]), np.array([8.0, 30.0, 12.0])),
]


def _grid_best(a: Any, b: Any, n: Any, total: int, lam: float) -> tuple[float, np.ndarray]:
    m = len(n)
    best = (np.inf, np.zeros(m))
    for head in itertools.product(range(total + 1), repeat=m - 1):
        if sum(head) <= total:
            x = np.array([*head, total - sum(head)], dtype=np.float64)
            value = slice_objective(x, a, b, n, lam)
            if value < best[0]:
                best = (value, x)
    return best


@pytest.mark.parametrize("lam", [0.0, 0.1, 1.0, 10.0])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_allocation_matches_a_brute_force_grid(case: int, lam: float) -> None:
    a, b, n = CASES[case]
    total = 30
    x = allocate_slices(a, b, n, total, lam)
    assert x.sum() == pytest.approx(total)
    assert np.all(x >= 0)
    best, best_x = _grid_best(a, b, n, total, lam)
    # The continuous optimum is at least as good as the best whole split ...
    assert slice_objective(x, a, b, n, lam) <= best + 1e-6
    # ... and rounding it loses little against that split.
    counts = round_allocation(x, total)
    assert counts.sum() == total
    assert slice_objective(counts.astype(float), a, b, n, lam) <= best + 1e-3
    assert np.abs(counts - best_x).max() <= 1


def test_unfairness_term_moves_budget_to_the_worse_slice() -> None:
    a, b, n = np.array([0.5, 0.5]), np.array([1.0, 3.0]), np.array([100.0, 100.0])
    plain = allocate_slices(a, b, n, 100, 0.0)
    fair = allocate_slices(a, b, n, 100, 10.0)
    assert fair[1] > plain[1]


def test_limit_imbalance_keeps_the_ratio_change_within_t() -> None:
    n = np.array([10.0, 40.0, 20.0])
    x = np.array([300.0, 0.0, 0.0])  # the ratio first falls to 2, then rises to 15.5
    limited, was = limit_imbalance(n, x, 1.0)
    assert was
    assert abs(imbalance_ratio(n + limited) - imbalance_ratio(n)) <= 1.0 + 1e-9
    assert np.all(limited <= x)
    assert limited[0] == pytest.approx(90.0)  # the largest share within T: ratio 100 / 20
    same, was = limit_imbalance(n, np.array([0.0, 0.0, 10.0]), 1.0)
    assert not was
    np.testing.assert_array_equal(same, [0.0, 0.0, 10.0])


# -- the sampler --------------------------------------------------------------------------
def _oracle() -> GeneratorOracle:
    return GeneratorOracle(SyntheticModel1("I"))


def _small(**kw: Any) -> SliceTunerSampler:
    return SliceTunerSampler(budget=60, n_repeats=2, n_subsets=4, random_state=0, **kw)


def test_rounds_follow_the_plan_then_a_new_iteration() -> None:
    sampler = _small(strategy="conservative", T=0.2)
    frame = sampler.fit(_oracle()).trace_.to_frame()
    assert set(frame["reason"]) == {"initial", "plan"}
    rule = sampler.trace_.meta["resume_state"]["rule"]
    assert rule["iteration"] >= 2  # the ratio may move by 0.2 only: the budget takes several
    assert rule["T"] == 0.2  # conservative keeps the limit
    counts = [frame[f"n_{g}"].iloc[-1] for g in ("u", "v")]
    assert rule["target"] == [int(c) for c in counts]  # the last plan is drawn in full


def test_one_shot_plans_once_and_spends_the_budget() -> None:
    sampler = _small(strategy="one-shot")
    trace = sampler.fit(_oracle()).trace_
    assert trace.meta["resume_state"]["rule"]["iteration"] == 1
    assert trace.final("cost") == 60.0


def test_aggressive_doubles_the_limit() -> None:
    sampler = _small(strategy="aggressive")
    sampler.fit(_oracle())
    rule = sampler.trace_.meta["resume_state"]["rule"]
    assert rule["T"] == 2.0 ** rule["iteration"]


def test_registered_and_runs_in_trials() -> None:
    assert isinstance(make_sampler("slice-tuner", lam=1.0), SliceTunerSampler)
    traces = run_sampler_trials(
        load_toy(400), "slice-tuner", n_trials=2, budget=60, n_repeats=2, n_subsets=4
    )
    assert [t.method for t in traces] == ["slice-tuner", "slice-tuner"]
    assert {"pi_g0", "pi_g1", "test_worst_acc", "val_worst_acc"} <= set(traces[0].to_frame())


@pytest.mark.parametrize(
    "sampler",
    [_small(), _small(strategy="one-shot", loss="zero_one", b0=2)],
    ids=["moderate", "one-shot-b0"],
)
def test_check_strategy(sampler: GroupSampler, tmp_path: Path) -> None:
    """Determinism, another seed, resume mid-plan (k=1, 7, 12) equal to the whole run."""

    def run(s: Strategy, **resume: Any) -> GroupSampler:
        assert isinstance(s, GroupSampler)
        return s.fit(_oracle(), test=20, **resume)

    spec = Spec(
        cls=type(sampler),
        make=lambda: clone(sampler),
        run=run,
        decisions=lambda s, fitted: fitted.trace_.to_frame(),
        resume_steps=(1, 7, 12),
    )
    check_strategy(spec, tmp_path)


# -- values computed by hand, independent of the solver's own helpers -----------------------
def test_objective_measures_unfairness_against_the_mean_loss() -> None:
    # Losses at x = 0: b * n ** -1 = [1, 2]; their mean is 1.5, so only slice 2 is unfair:
    # 2 / 1.5 - 1 = 1/3. (Against the max loss, 2, nothing would be unfair.)
    a, b, n = np.array([1.0, 1.0]), np.array([1.0, 2.0]), np.array([1.0, 1.0])
    assert slice_objective(np.zeros(2), a, b, n, lam=3.0) == pytest.approx(3.0 + 3.0 / 3.0)
    # After x = [1, 3]: losses [1/2, 2/4], both below the mean 1.5: no unfairness.
    assert slice_objective(np.array([1.0, 3.0]), a, b, n, lam=3.0) == pytest.approx(1.0)


def _own_best_split(total: float, lam: float) -> np.ndarray:
    """The §4 program for three slices (a = 1/2, b = [1, 1.2, 3], n = 10), on a 0.02 grid.

    Written out here, apart from the library's helpers: loss ``b / sqrt(10 + x)``, and
    unfairness against the mean loss now, ``(1 + 1.2 + 3) / 3 / sqrt(10)``.
    """
    grid = np.arange(0.0, total + 1e-9, 0.02)
    x1, x2 = np.meshgrid(grid, grid)
    x3 = total - x1 - x2
    b = (1.0, 1.2, 3.0)
    losses = [
        bi / np.sqrt(10.0 + np.clip(x, 0.0, None)) for bi, x in zip(b, (x1, x2, x3), strict=True)
    ]
    mean_now = sum(b) / 3 / np.sqrt(10.0)
    value = sum(loss + lam * np.maximum(0.0, loss / mean_now - 1.0) for loss in losses)
    value[x3 < -1e-9] = np.inf
    at = np.unravel_index(np.argmin(value), value.shape)
    return np.array([x1[at], x2[at], x3[at]])


def test_allocation_matches_an_independent_fine_grid() -> None:
    a, b, n = np.full(3, 0.5), np.array([1.0, 1.2, 3.0]), np.full(3, 10.0)
    x = allocate_slices(a, b, n, 25.0, 5.0)
    np.testing.assert_allclose(x, _own_best_split(25.0, 5.0), atol=0.05)
    # Without the unfairness term slice 3 would get about 17.2; with it, about 20.
    assert x[2] > 19.5


def test_limit_applies_when_the_ratio_falls_too() -> None:
    # n = [10, 30]: ratio 3. All of x = [40, 0] would bring it to 50 / 30 (a fall of 4/3 > 1);
    # the largest share within T = 1 brings it to 2: 30 / (10 + 40 r) = 2, r = 1/8.
    limited, was = limit_imbalance(np.array([10.0, 30.0]), np.array([40.0, 0.0]), 1.0)
    assert was
    np.testing.assert_allclose(limited, [5.0, 0.0], atol=1e-9)


def test_moderate_adds_one_to_the_limit_each_iteration() -> None:
    sampler = _small(strategy="moderate", T=0.2)
    sampler.fit(_oracle())
    rule = sampler.trace_.meta["resume_state"]["rule"]
    assert rule["iteration"] >= 2
    assert rule["T"] == pytest.approx(0.2 + rule["iteration"])


def test_limited_plan_counts_whole_draws_of_b0() -> None:
    # The limit allows x = [5, 0] more samples (see above): with b0 = 2 that is 2 draws.
    sampler = SliceTunerSampler(strategy="conservative")
    rounds = sampler._rounds(np.array([10.0, 30.0]), np.array([40.0, 0.0]), 1.0, 20, 2)
    assert rounds.tolist() == [2, 0]


@pytest.mark.parametrize("strategy", ["one-shot"])
def test_plan_targets_are_in_samples_of_b0(strategy: str) -> None:
    sampler = _small(strategy=strategy, T=0.5, b0=3)
    frame = sampler.fit(_oracle()).trace_.to_frame()
    rule = sampler.trace_.meta["resume_state"]["rule"]
    counts = [int(frame[f"n_{g}"].iloc[-1]) for g in ("u", "v")]
    assert rule["target"] == counts  # the last plan, in samples, is drawn in full
    assert all(c % 3 == 0 for c in counts)


def test_plan_spends_rounds_times_b0_samples_within_the_limit() -> None:
    # Equal curves (a = 1/2, b = 1), sizes [10, 30], 10 rounds of b0 = 2: the program puts
    # all 20 samples on slice 1 (sizes [30, 30]). That moves the ratio 3 by 2 > T = 1.6, so
    # the share r with 30 / (10 + 20 r) = 1.4 is kept: 11.43 samples, 5 whole draws of 2.
    sampler = SliceTunerSampler(strategy="conservative", T=1.6, lam=0.0)
    sampler._curves = lambda state, rng: (np.array([0.5, 0.5]), np.array([1.0, 1.0]))
    state = SimpleNamespace(counts=np.array([10, 30]), rounds_left=10, b0=2, memory={})
    sampler._plan(state, np.random.default_rng(0))
    assert state.memory["target"] == [20, 30]
    assert state.memory["T"] == 1.6
