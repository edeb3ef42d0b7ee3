"""MinimaxFair's regulator (Diana et al. 2021) as a sampling rule."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone

from fairacq._base import Strategy
from fairacq.data.synthetic import SyntheticModel1
from fairacq.sampling import (
    GeneratorOracle,
    GroupSampler,
    MinimaxFairSampler,
    exponentiated_update,
    make_sampler,
    regulator_step_size,
)
from tests.checks import Spec, check_strategy


def test_step_size_is_a_t_to_the_minus_b() -> None:
    assert regulator_step_size(1, 1.0, 0.5) == 1.0
    assert regulator_step_size(9, 2.0, 0.5) == pytest.approx(2.0 / 3.0)
    assert regulator_step_size(5, 0.3, 0.0) == 0.3


def test_weights_after_hand_computed_updates() -> None:
    w = np.array([0.2, 0.3, 0.5])
    losses = [np.array([0.4, 0.1, 0.2]), np.array([0.3, 0.3, 0.0])]
    # Round 1, eta = 1: w_g * exp(L_g), normalised.
    raw = [0.2 * math.exp(0.4), 0.3 * math.exp(0.1), 0.5 * math.exp(0.2)]
    first = [v / sum(raw) for v in raw]
    # Round 2, eta = 1 / sqrt(2).
    eta = 1 / math.sqrt(2)
    raw = [first[0] * math.exp(0.3 * eta), first[1] * math.exp(0.3 * eta), first[2]]
    second = [v / sum(raw) for v in raw]
    for t, (loss, expected) in enumerate(zip(losses, [first, second], strict=True), start=1):
        w = exponentiated_update(w, loss, regulator_step_size(t, 1.0, 0.5))
        np.testing.assert_allclose(w, expected, rtol=1e-12)


def test_huge_losses_do_not_overflow() -> None:
    w = exponentiated_update(np.array([0.5, 0.5]), np.array([2000.0, 1000.0]), 1.0)
    np.testing.assert_allclose(w, [1.0, 0.0], atol=1e-300)


def _oracle() -> GeneratorOracle:
    return GeneratorOracle(SyntheticModel1("I"), proportions=[0.8, 0.2])


def test_recorded_weights_are_the_regulator_updates_of_the_recorded_losses() -> None:
    sampler = MinimaxFairSampler(budget=60, eta0=2.0, random_state=3)
    frame = sampler.fit(_oracle()).trace_.to_frame()
    names = ["u", "v"]
    w = np.array([0.8, 0.2])  # the population's shares start the game
    for t, i in enumerate(range(2, len(frame)), start=1):  # rounds after Phase 1
        losses = frame.loc[i - 1, [f"val_loss_{g}" for g in names]].to_numpy(float)
        w = exponentiated_update(w, losses, 2.0 * t**-0.5)
        np.testing.assert_allclose(frame.loc[i, [f"score_{g}" for g in names]], w, rtol=1e-12)
        assert frame.loc[i, "reason"] == "regulator"
    rule = sampler.trace_.meta["resume_state"]["rule"]
    np.testing.assert_allclose(rule["weights"], w, rtol=1e-12)
    assert rule["round"] == len(frame) - 2


def test_draws_follow_the_weights() -> None:
    """A group whose loss stays larger gains weight and most of the draws."""
    sampler = MinimaxFairSampler(budget=400, random_state=0)
    frame = sampler.fit(_oracle()).trace_.to_frame()
    last = frame.iloc[-1]
    worse = "u" if last["val_loss_u"] > last["val_loss_v"] else "v"
    assert last[f"score_{worse}"] > 0.5


def test_registered() -> None:
    sampler = make_sampler("minimax-fair", eta0=0.5)
    assert isinstance(sampler, MinimaxFairSampler)
    assert sampler.eta0 == 0.5


@pytest.mark.parametrize(
    "sampler",
    [
        MinimaxFairSampler(budget=30, random_state=0),
        MinimaxFairSampler(budget=40, b0=2, eta_power=0.0, loss="log", random_state=0),
    ],
    ids=["default", "constant-eta-log"],
)
def test_check_strategy(sampler: GroupSampler, tmp_path: Path) -> None:
    """Determinism, another seed, and resume equal to the whole run (weights restored)."""

    def run(s: Strategy, **resume: Any) -> GroupSampler:
        assert isinstance(s, GroupSampler)
        return s.fit(_oracle(), test=20, **resume)

    spec = Spec(
        cls=type(sampler),
        make=lambda: clone(sampler),
        run=run,
        decisions=lambda s, fitted: fitted.trace_.to_frame(),
        resume_steps=(1, 4, 7),
    )
    check_strategy(spec, tmp_path)
