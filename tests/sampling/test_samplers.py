from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from fairacq import Trace
from fairacq._base import Strategy
from fairacq._trace import TraceRecorder
from fairacq.data import FairDataset, load_toy
from fairacq.data.synthetic import SyntheticModel1, SyntheticModel2
from fairacq.exceptions import BudgetError, InvalidDataError, InvalidParameterError
from fairacq.sampling import (
    AoptPlusSampler,
    AoptSampler,
    CallbackOracle,
    DatasetOracle,
    EpsilonGreedySampler,
    GeneratorOracle,
    GreedySampler,
    GroupSampler,
    UncuratedSampler,
    UniformSampler,
)
from tests.checks import Spec, check_strategy

MODEL1 = SyntheticModel1("I")


def _oracle() -> GeneratorOracle:
    return GeneratorOracle(MODEL1)


def all_samplers() -> list[GroupSampler]:
    return [
        AoptSampler(budget=30, random_state=0),
        AoptSampler(budget=30, bound="vc", random_state=0),
        AoptSampler(budget=30, bound="rademacher", loss="log", random_state=0),
        AoptSampler(budget=40, b0=4, n0=2, mode="incremental", random_state=0),
        AoptPlusSampler(budget=40, c1=0.5, mk_window=4, random_state=0),
        EpsilonGreedySampler(budget=30, epsilon=0.3, random_state=0),
        GreedySampler(budget=30, random_state=0),
        UniformSampler(budget=30, random_state=0),
        UncuratedSampler(budget=30, random_state=0),
    ]


@pytest.mark.parametrize("sampler", all_samplers(), ids=lambda s: type(s).__name__)
def test_check_strategy(sampler: GroupSampler, tmp_path: Path) -> None:
    """The common checks (tests/checks.py) on each sampler's variants, with a test set."""

    def run(s: Strategy, **resume: Any) -> GroupSampler:
        assert isinstance(s, GroupSampler)
        return s.fit(_oracle(), test=20, **resume)

    spec = Spec(
        cls=type(sampler),
        make=lambda: clone(sampler),
        run=run,
        decisions=lambda s, fitted: fitted.trace_.to_frame(),
        resume_steps=(1, 3),  # the battery tries more steps; the b0=4 variant has 5 rounds
    )
    check_strategy(spec, tmp_path)


@pytest.mark.parametrize(("budget", "b0"), [(30, 1), (31, 1), (45, 4), (100, 3)])
def test_allocation_spends_the_budget(budget: int, b0: int) -> None:
    sampler = AoptSampler(budget=budget, b0=b0, random_state=1)
    trace = sampler.fit(_oracle()).trace_
    frame = trace.to_frame()
    per_round = 2 * b0
    assert sum(sampler.allocation_.values()) * 2 == trace.final("cost")
    assert 0 <= budget - trace.final("cost") < per_round
    assert frame["n_u"].iloc[-1] + frame["n_v"].iloc[-1] == sum(sampler.allocation_.values())
    np.testing.assert_allclose(frame["pi_u"] + frame["pi_v"], 1.0)
    assert frame["cost"].is_monotonic_increasing
    assert list(frame["reason"][:2]) == ["initial", "initial"]


def test_aopt_moves_towards_the_minimax_mixture() -> None:
    target = MODEL1.minimax_pi_u  # about 0.20 for instance I
    finals = [
        AoptSampler(budget=400, c0=0.1, random_state=seed).fit(_oracle()).trace_.final("pi_u")
        for seed in range(3)
    ]
    assert abs(np.mean(finals) - target) < 0.1
    assert abs(np.mean(finals) - target) < abs(0.5 - target)


def test_forced_exploration_keeps_t_to_the_xi() -> None:
    sampler = AoptSampler(budget=200, xi=0.5, c0=0.0, random_state=0)
    frame = sampler.fit(_oracle()).trace_.to_frame()
    rounds = frame["round"].to_numpy() + 1
    least = np.minimum(frame["n_u"].to_numpy(), frame["n_v"].to_numpy())
    # after each round every group holds at least floor(sqrt(t)) - 1 draws
    assert np.all(least >= np.floor(np.sqrt(rounds)) - 1)
    assert "forced" in set(frame["reason"])


def test_greedy_picks_the_largest_validation_loss() -> None:
    frame = GreedySampler(budget=60, loss="log", random_state=0).fit(_oracle()).trace_.to_frame()
    later = frame.iloc[2:]
    assert set(later["reason"]) == {"greedy"}
    previous = frame.iloc[1:-1]
    expected = np.where(previous["val_loss_u"].to_numpy() >= previous["val_loss_v"], "u", "v")
    assert list(later["group"]) == list(expected)


def test_uniform_and_uncurated_shares() -> None:
    uni = UniformSampler(budget=101, random_state=0)
    uni.fit(_oracle())
    assert uni.allocation_ == {"u": 25, "v": 25}
    skewed = GeneratorOracle(MODEL1, proportions=[0.8, 0.2])
    pi_u = UncuratedSampler(budget=400, random_state=0).fit(skewed).trace_.final("pi_u")
    assert pi_u == pytest.approx(0.8, abs=0.08)


def test_epsilon_greedy_explores() -> None:
    frame = EpsilonGreedySampler(budget=200, epsilon=0.5, random_state=0).fit(_oracle()).trace_
    reasons = set(frame.to_frame()["reason"])
    assert {"explore", "greedy"} <= reasons


def test_aopt_plus_trend_changes_the_scores() -> None:
    oracle = GeneratorOracle(SyntheticModel2())
    plain = AoptPlusSampler(budget=80, c1=0.0, random_state=0).fit(oracle).trace_.to_frame()
    plus = AoptPlusSampler(budget=80, c1=1.0, mk_window=5, random_state=0).fit(oracle).trace_
    assert plus.method == "aopt+"
    assert not plain["score_u"].equals(plus.to_frame()["score_u"])


def test_trace_columns_and_test_set() -> None:
    trace = AoptSampler(budget=40, random_state=0).fit(_oracle(), test=50).trace_
    frame = trace.to_frame()
    for col in ("group", "pi_u", "pi_v", "val_loss_u", "val_acc_v", "test_loss_u", "test_acc_v"):
        assert col in frame.columns
    np.testing.assert_allclose(
        frame["test_worst_acc"], np.minimum(frame["test_acc_u"], frame["test_acc_v"])
    )
    assert frame["val_acc_u"].between(0, 1).all()
    assert trace.meta["groups"] == ["u", "v"]


def test_fixed_validation_dataset_and_dataset_oracle() -> None:
    data = load_toy(600, random_state=0)
    idx = np.random.default_rng(0).permutation(len(data))
    pool, val, test = data.subset(idx[:400]), data.subset(idx[400:500]), data.subset(idx[500:])
    sampler = AoptSampler(budget=60, b0=5, n0=2, random_state=0)
    trace = sampler.fit(DatasetOracle(pool), validation=val, test=test).trace_
    frame = trace.to_frame()
    assert trace.final("cost") == 60
    assert sum(sampler.allocation_.values()) == 60  # no paired draws with a fixed validation set
    assert trace.meta["validation"] == "fixed"
    assert not frame["test_worst_acc"].isna().any()
    again = AoptSampler(budget=60, b0=5, n0=2, random_state=0)
    oracle = DatasetOracle(pool)
    assert again.fit(oracle, validation=val, test=test).trace_ == trace
    assert again.fit(oracle, validation=val, test=test).trace_ == trace  # the oracle is reset


def _stop_after(n: int) -> Any:
    def callback(rec: TraceRecorder) -> bool:
        return rec.n_steps < n

    return callback


@pytest.mark.parametrize(
    "make",
    [
        lambda: AoptSampler(budget=60, random_state=3),
        lambda: AoptSampler(budget=80, b0=4, n0=2, mode="incremental", random_state=3),
        lambda: AoptPlusSampler(budget=60, c1=0.5, mk_window=4, random_state=3),
        lambda: EpsilonGreedySampler(budget=60, epsilon=0.4, random_state=None),
    ],
)
def test_resume_equals_uninterrupted(make: Any, tmp_path: Path) -> None:
    oracle = DatasetOracle(load_toy(400, random_state=0))
    first = make().fit(oracle, test=20, callbacks=[_stop_after(7)]).trace_
    assert len(first) == 7
    first.save(tmp_path / "ckpt")
    resumed = make().fit(oracle, test=20, continue_from=Trace.load(tmp_path / "ckpt")).trace_
    if make().random_state is None:  # entropy comes from the checkpoint
        rerun = make().set_params(random_state=int(first.meta["resume_state"]["entropy"]))
        full = rerun.fit(oracle, test=20).trace_
    else:
        full = make().fit(oracle, test=20).trace_
    pd.testing.assert_frame_equal(resumed.to_frame(), full.to_frame(), check_exact=True)


def _uv_dataset(n_features: int) -> FairDataset:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        rng.normal(size=(40, n_features)), columns=[f"x{i}" for i in range(n_features)]
    )
    return FairDataset(X, np.tile([0, 1], 20), pd.Series(np.repeat(["u", "v"], 20), name="z"))


def test_held_out_test_dataset_with_generator_oracle() -> None:
    trace = UniformSampler(budget=20, random_state=0).fit(_oracle(), test=_uv_dataset(2)).trace_
    assert trace.to_frame()["test_acc_u"].between(0, 1).all()


def test_bad_input_raises_clear_errors() -> None:
    with pytest.raises(BudgetError, match="smaller than Phase 1"):
        AoptSampler(budget=10, n0=6).fit(_oracle())
    with pytest.raises(InvalidParameterError, match="'n0' parameter"):
        AoptSampler(budget=10, n0=1).fit(_oracle())
    with pytest.raises(InvalidParameterError, match="bound"):
        AoptSampler(bound="hoeffding").fit(_oracle())
    with pytest.raises(InvalidParameterError, match="group oracle"):
        UniformSampler().fit(load_toy(50))  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="an int >= 1"):
        UniformSampler(budget=20).fit(_oracle(), test=0)
    data = load_toy(300, n_groups=3, random_state=0)
    two_groups = data.subset(np.flatnonzero(np.asarray(data.s) < 2))
    with pytest.raises(InvalidDataError, match="no samples of group 'g2'"):
        UniformSampler(budget=20).fit(DatasetOracle(data), validation=two_groups)
    with pytest.raises(InvalidDataError, match="feature columns"):
        UniformSampler(budget=20).fit(_oracle(), test=_uv_dataset(n_features=3))
    trace = UniformSampler(budget=20, random_state=0).fit(_oracle()).trace_
    with pytest.raises(InvalidDataError, match="Resume with the sampler"):
        GreedySampler(budget=30).fit(_oracle(), continue_from=trace)
    with pytest.raises(BudgetError, match="group 'g1'"):
        UniformSampler(budget=10_000).fit(DatasetOracle(load_toy(60)))


def test_callback_oracle_with_wrong_shape_fails_inside_run() -> None:
    def fn(group: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return rng.normal(size=(n, 2)), rng.integers(0, 2, size=n + (group == "b"))

    with pytest.raises(InvalidDataError, match="group 'b'"):
        UniformSampler(budget=20, random_state=0).fit(CallbackOracle(fn, ["a", "b"]))


_INVALID = {int: -7, float: float("nan"), str: "__no_such_option__"}


@pytest.mark.parametrize("sampler", all_samplers(), ids=lambda s: type(s).__name__)
def test_invalid_parameters_rejected(sampler: GroupSampler) -> None:
    for name, value in sampler.get_params(deep=False).items():
        bad = _INVALID.get(type(value), object())
        broken = sampler.__class__(**{**sampler.get_params(deep=False), name: bad})
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of"):
            broken.fit(_oracle())


@settings(max_examples=15, deadline=None)
@given(budget=st.integers(4, 80), b0=st.integers(1, 5), paired=st.booleans())
def test_uniform_allocation_property(budget: int, b0: int, paired: bool) -> None:
    per_round = b0 * (2 if paired else 1)
    validation = None if paired else 5
    sampler = UniformSampler(budget=budget, b0=b0, random_state=0)
    if budget < 2 * per_round:
        with pytest.raises(BudgetError):
            sampler.fit(_oracle(), validation=validation)
        return
    trace = sampler.fit(_oracle(), validation=validation).trace_
    drawn = sum(sampler.allocation_.values()) * (2 if paired else 1)
    assert drawn == trace.final("cost")
    assert 0 <= budget - drawn < per_round
    counts = list(sampler.allocation_.values())
    assert max(counts) - min(counts) <= b0


class _Interrupt(Exception):
    """Raised by a callback to simulate a killed run."""


@pytest.mark.parametrize("k", [3, 5, 8])
def test_interrupted_then_resumed_from_checkpoint_path_equals_uninterrupted(
    k: int, tmp_path: Path
) -> None:
    from fairacq import CheckpointCallback

    def interrupt(rec: Any) -> None:
        if rec.n_steps >= k:
            raise _Interrupt

    oracle = DatasetOracle(load_toy(400, random_state=0))
    make = lambda: AoptSampler(budget=40, random_state=np.random.RandomState(5))  # noqa: E731
    with pytest.raises(_Interrupt):
        make().fit(
            oracle, test=20, callbacks=[CheckpointCallback(tmp_path / "ck", every=1), interrupt]
        )
    sampler = make()
    resumed = sampler.fit(oracle, test=20, continue_from=tmp_path / "ck").trace_
    seed = int(resumed.meta["resume_state"]["entropy"])  # drawn from the RandomState once
    full = AoptSampler(budget=40, random_state=seed).fit(oracle, test=20).trace_
    assert resumed.to_frame().equals(full.to_frame())
    assert sampler.trace_ is resumed
    assert resumed.meta["stop_reason"] == "budget"
