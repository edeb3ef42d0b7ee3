"""``validation="cross"``: no validation draws, group losses from held-out predictions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq import Trace
from fairacq.data import load_toy
from fairacq.sampling import (
    DatasetOracle,
    EpsilonGreedySampler,
    MinimaxFairSampler,
    UniformSampler,
    run_sampler_trials,
)
from fairacq.sampling.learners._held_out import logistic_loo_proba
from fairacq.sampling.loop._sampling_loop import group_scores


def _oracle() -> DatasetOracle:
    return DatasetOracle(load_toy(400, random_state=0))


def test_every_sample_paid_for_trains() -> None:
    sampler = EpsilonGreedySampler(budget=40, random_state=0)
    trace = sampler.fit(_oracle(), validation="cross", test=20).trace_
    frame = trace.to_frame()
    assert trace.meta["validation"] == "cross"
    assert len(frame) == 40
    assert frame["cost"].iloc[-1] == 40
    names = trace.meta["groups"]
    trained = frame[[f"n_{g}" for g in names]].sum(axis=1)
    np.testing.assert_array_equal(trained, frame["cost"])  # nothing spent on validation
    assert sum(sampler.allocation_.values()) == 40


def test_last_round_losses_equal_the_closed_form_on_the_drawn_rows() -> None:
    from fairacq.sampling.loop._sampling_loop import SamplingLoop

    seen: dict[str, Any] = {}
    original = SamplingLoop._held_out_scores

    def spy(self: SamplingLoop) -> list[tuple[float, float]]:
        seen["X"], seen["y"], seen["z"] = self._training()
        seen["model"] = self.learner._model  # type: ignore[attr-defined]
        return original(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SamplingLoop, "_held_out_scores", spy)
        trace = UniformSampler(budget=30, random_state=1).fit(_oracle(), validation="cross").trace_
    p = logistic_loo_proba(seen["model"], seen["X"], seen["y"])
    for g, name in enumerate(trace.meta["groups"]):
        rows = seen["z"] == g
        loss, acc = group_scores(p[rows], seen["y"][rows], "zero_one")
        assert trace.final(f"val_acc_{name}") == pytest.approx(acc)
        assert trace.final(f"val_loss_{name}") == pytest.approx(loss)


@pytest.mark.parametrize(
    "make",
    [
        lambda: EpsilonGreedySampler(budget=40, epsilon=0.3, random_state=4),
        lambda: MinimaxFairSampler(budget=40, random_state=4),
        lambda: UniformSampler(budget=24, learner="lr", random_state=4),
    ],
)
def test_resume_equals_uninterrupted(make: Any, tmp_path: Path) -> None:
    def stop_after_7(rec: Any) -> bool:
        return rec.n_steps < 7

    first = make().fit(_oracle(), validation="cross", test=20, callbacks=[stop_after_7]).trace_
    assert len(first) == 7
    first.save(tmp_path / "ckpt")
    resumed = (
        make()
        .fit(_oracle(), validation="cross", test=20, continue_from=Trace.load(tmp_path / "ckpt"))
        .trace_
    )
    full = make().fit(_oracle(), validation="cross", test=20).trace_
    pd.testing.assert_frame_equal(resumed.to_frame(), full.to_frame(), check_exact=True)


def test_trials_pass_it_to_every_run_and_same_seed_same_traces() -> None:
    data = load_toy(400, random_state=0)
    a = run_sampler_trials(data, "epsilon-greedy", n_trials=2, budget=40, validation="cross")
    b = run_sampler_trials(data, "epsilon-greedy", n_trials=2, budget=40, validation="cross")
    assert [t.meta["validation"] for t in a] == ["cross", "cross"]
    for x, y in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(x.to_frame(), y.to_frame(), check_exact=True)
    paired = run_sampler_trials(data, "epsilon-greedy", n_trials=1, budget=40)
    assert len(paired[0]) == 20
    assert len(a[0]) == 40
