"""Abernethy et al.'s epsilon-greedy (ICML 2022): population draws, worst group, averaged SGD."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone

from fairacq._base import Strategy
from fairacq.data.synthetic import SyntheticModel1
from fairacq.sampling import (
    AbernethyGreedySampler,
    AveragedSGDLogistic,
    GeneratorOracle,
    GroupSampler,
    SamplerState,
    make_sampler,
)
from tests.checks import Spec, check_strategy


class ScriptedRng:
    """A generator whose uniform draws are given, recording what ``choice`` was asked."""

    def __init__(self, uniforms: list[float], picks: list[int]) -> None:
        self.uniforms, self.picks, self.asked = list(uniforms), list(picks), []

    def random(self) -> float:
        return self.uniforms.pop(0)

    def choice(self, n: int, p: Any) -> int:
        self.asked.append((n, list(p)))
        return self.picks.pop(0)


def _state(val_loss: list[float], proportions: list[float]) -> SamplerState:
    m = len(val_loss)
    return SamplerState(
        t=5,
        counts=np.ones(m, dtype=np.int64),
        val_loss=np.array(val_loss),
        val_acc_history=[[] for _ in range(m)],
        proportions=np.array(proportions),
        n_features=2,
        b0=1,
    )


def test_explore_draws_the_population_and_exploit_the_worst_group() -> None:
    sampler = AbernethyGreedySampler(p=0.3)
    state = _state([0.2, 0.9, 0.5], [0.6, 0.1, 0.3])
    rng = ScriptedRng(uniforms=[0.29, 0.3, 0.95], picks=[2])
    z, reason, scores = sampler._choose(state, rng)  # type: ignore[arg-type]
    assert (z, reason) == (2, "population")  # 0.29 < p: a draw with the population's shares
    assert rng.asked == [(3, [0.6, 0.1, 0.3])]
    for _ in range(2):  # 0.3 and 0.95 are not below p: the largest validation loss
        z, reason, scores = sampler._choose(state, rng)  # type: ignore[arg-type]
        assert (z, reason) == (1, "worst")
    assert scores is not None
    np.testing.assert_array_equal(scores, [0.2, 0.9, 0.5])
    assert len(rng.asked) == 1


def test_p_zero_never_explores_and_p_one_always_does() -> None:
    state = _state([0.1, 0.4], [0.5, 0.5])
    rng = ScriptedRng(uniforms=[], picks=[0])
    assert AbernethyGreedySampler(p=0.0)._choose(state, rng)[:2] == (1, "worst")  # type: ignore[arg-type]
    rng = ScriptedRng(uniforms=[0.999], picks=[0])
    assert AbernethyGreedySampler(p=1.0)._choose(state, rng)[:2] == (0, "population")  # type: ignore[arg-type]


def test_population_draws_follow_the_shares() -> None:
    oracle = GeneratorOracle(SyntheticModel1("I"), proportions=[0.75, 0.25])
    sampler = AbernethyGreedySampler(budget=1200, p=1.0, random_state=0)
    frame = sampler.fit(oracle).trace_.to_frame()
    drawn = frame.loc[frame["reason"] == "population", "group"]
    assert abs(np.mean(drawn == "u") - 0.75) < 0.06


# -- the averaged-SGD learner -------------------------------------------------------------
def test_averaged_sgd_by_hand() -> None:
    X = np.array([[1.0, 0.0], [0.0, 2.0]])
    y = np.array([1, 0])
    model = AveragedSGDLogistic(eta0=0.5)
    model.update(X[:1], y[:1], seed=0)
    # Step 1 from zero: p = 1/2, error -1/2, eta = 0.5 -> theta = (0.25, 0, 0.25).
    theta1 = np.array([0.25, 0.0, 0.25])
    model.update(X, y, seed=0)  # only the new row steps
    margin = 0.25
    error = 1 / (1 + math.exp(-margin))
    eta = 0.5 / math.sqrt(2)
    theta2 = theta1 - eta * error * np.array([0.0, 2.0, 1.0])
    average = (theta1 + theta2) / 2
    state = model.state()
    np.testing.assert_allclose(state["theta"], theta2, rtol=1e-12)
    np.testing.assert_allclose(state["average"], average, rtol=1e-12)
    assert (state["steps"], state["seen"]) == (2, 2)
    expected = 1 / (1 + np.exp(-(X @ average[:2] + average[2])))
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-12)


def test_averaged_sgd_state_round_trip_and_l2() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(np.int64)
    model = AveragedSGDLogistic(alpha=0.1)
    model.update(X[:20], y[:20], seed=0)
    copy = AveragedSGDLogistic(alpha=0.1)
    copy.load_state(json.loads(json.dumps(model.state())))
    model.update(X, y, seed=1)
    copy.update(X, y, seed=2)  # the seed is not used: the rows are taken in order
    np.testing.assert_array_equal(copy.predict_proba(X), model.predict_proba(X))
    assert np.mean((model.predict_proba(X) >= 0.5) == y) > 0.8
    plain = AveragedSGDLogistic()
    plain.update(X, y, seed=0)
    assert np.linalg.norm(model.state()["average"][:3]) < np.linalg.norm(
        plain.state()["average"][:3]
    )


# -- the sampler --------------------------------------------------------------------------
def _oracle() -> GeneratorOracle:
    return GeneratorOracle(SyntheticModel1("I"))


def test_learner_is_the_averaged_sgd_unless_a_learner_is_given() -> None:
    sampler = AbernethyGreedySampler(budget=20, random_state=0)
    sampler.fit(_oracle())
    learner = sampler.trace_.meta["resume_state"]["learner"]
    assert learner["steps"] == 10  # one SGD step per training draw
    refit = AbernethyGreedySampler(budget=20, learner="lr", random_state=0)
    refit.fit(_oracle())
    assert refit._round_mode() == "refit"
    assert refit.trace_.meta["resume_state"]["learner"] == {}


def test_registered_beside_epsilon_greedy() -> None:
    sampler = make_sampler("abernethy-greedy", p=0.2)
    assert isinstance(sampler, AbernethyGreedySampler)
    assert sampler.p == 0.2
    assert sampler.method_name == "abernethy-greedy"


@pytest.mark.parametrize(
    "sampler",
    [
        AbernethyGreedySampler(budget=30, p=0.3, random_state=0),
        AbernethyGreedySampler(budget=60, b0=3, mode="exact", loss="zero_one", random_state=0),
    ],
    ids=["averaged-sgd", "exact-b0"],
)
def test_check_strategy(sampler: GroupSampler, tmp_path: Path) -> None:
    """Determinism, another seed, and resume equal to the whole run (SGD state restored)."""

    def run(s: Strategy, **resume: Any) -> GroupSampler:
        assert isinstance(s, GroupSampler)
        return s.fit(_oracle(), test=20, **resume)

    spec = Spec(
        cls=type(sampler),
        make=lambda: clone(sampler),
        run=run,
        decisions=lambda s, fitted: fitted.trace_.to_frame(),
        resume_steps=(1, 3, 5),
    )
    check_strategy(spec, tmp_path)
