"""gap_noise_floor: the gap an exactly fair rule shows, against a simulation of binomial shares."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fairacq.exceptions import InvalidParameterError
from fairacq.metrics import gap_noise_floor


def _simulated(sizes: list[int], rate: float, draws: int = 40_000) -> tuple[float, float]:
    """Mean and std of max - min of the groups' shares Binomial(n_g, rate) / n_g."""
    rng = np.random.default_rng(7)
    n = np.asarray(sizes)
    shares = rng.binomial(n, rate, size=(draws, n.size)) / n
    gaps = shares.max(axis=1) - shares.min(axis=1)
    return float(gaps.mean()), float(gaps.std())


@pytest.mark.parametrize(
    ("sizes", "rate"),
    [([908, 601], 0.5), ([300, 1200], 0.3), ([400, 250, 600, 900], 0.4), ([200, 200, 200], 0.5)],
)
def test_matches_a_simulation_of_binomial_shares(sizes: list[int], rate: float) -> None:
    mean, std = gap_noise_floor(sizes, rate)
    sim_mean, sim_std = _simulated(sizes, rate)
    assert mean == pytest.approx(sim_mean, rel=0.015)
    assert std == pytest.approx(sim_std, rel=0.03)


def test_two_groups_is_the_half_normal_closed_form() -> None:
    sigma = math.sqrt(0.25 * (1 / 908 + 1 / 601))
    assert gap_noise_floor([908, 601], 0.5) == pytest.approx(
        (sigma * math.sqrt(2 / math.pi), sigma * math.sqrt(1 - 2 / math.pi)), rel=1e-12
    )


def test_more_groups_is_deterministic_and_grows_with_groups() -> None:
    four = gap_noise_floor([500] * 4, 0.5)
    assert gap_noise_floor([500] * 4, 0.5) == four
    assert four[0] > gap_noise_floor([500] * 2, 0.5)[0] * 1.5
    assert gap_noise_floor([500] * 3, 0.5)[0] < four[0]


def test_more_rows_or_a_rarer_rate_lower_the_floor() -> None:
    base = gap_noise_floor([1000, 1000], 0.5)[0]
    assert gap_noise_floor([4000, 4000], 0.5)[0] == pytest.approx(base / 2)
    assert gap_noise_floor([1000, 1000], 0.1)[0] < base
    assert gap_noise_floor([1000, 1000, 50], 0.0) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("sizes", "rate", "fragment"),
    [
        ([100, 0], 0.5, "at least one row"),
        ([100, -3], 0.5, "at least one row"),
        ([100, float("nan")], 0.5, "at least one row"),
        ([100], 0.5, "at least two groups"),
        ([], 0.5, "at least two groups"),
        ([100, 100], 1.5, r"rate is a share of rows in \[0, 1\]"),
        ([100, 100], -0.1, "rate is a share"),
        ([100, 100], float("nan"), "rate is a share"),
    ],
)
def test_refuses_bad_input_in_one_line(sizes: list[float], rate: float, fragment: str) -> None:
    with pytest.raises(InvalidParameterError, match=fragment) as info:
        gap_noise_floor(sizes, rate)
    assert "\n" not in str(info.value)
