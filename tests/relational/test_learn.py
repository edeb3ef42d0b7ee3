"""learn_rules: Fair-A3SL on train, checked on test; what deserves a look becomes a warning."""

from __future__ import annotations

import warnings

import pytest

from fairacq.relational import (
    EXPLORATION_LIMIT,
    ExplorationWarning,
    FairA3SL,
    FairA3SLWarning,
    FairnessBoundWarning,
    fairness_excess,
    learn_rules,
)
from fairacq.relational.a3sl._warnings import exploration_message
from tests.relational.test_a3sl import tiny_recidivism

TRAIN, TEST = tiny_recidivism(seed=0), tiny_recidivism(seed=1)
QUICK = {
    "max_literals": 2,
    "max_clauses": 2,
    "exclude": ("race",),
    "domains": {"user": "user"},
    "weight_learning": {"n_iter": 5},
    "agent_options": {"n_envs": 2, "t_max": 2},
}


def _learn(**kw):
    return learn_rules(TRAIN, TEST, n_episodes=4, options=QUICK, random_state=0, **kw)


def test_a_short_run_warns_that_exploration_did_not_decay():
    with pytest.warns(ExplorationWarning, match="exploration did not decay") as caught:
        result = _learn(fairness=("rd<=0.05",))
    assert all(issubclass(w.category, FairA3SLWarning) for w in caught)
    learner = result.learner
    assert EXPLORATION_LIMIT < learner.exploration_ <= 1.0
    assert learner.trace_.to_frame()["exploration"].between(0, 1).all()
    assert learner.warnings_ == [m for m in result.warnings if "exploration" in m]
    summary = result.summary()
    assert summary["warnings"] == list(result.warnings)
    assert summary["exploration"] == learner.exploration_
    assert summary["variant"] == "fair1"
    assert summary["fairness"] == ["rd<=0.05"]
    # The constraint holds on the test atoms: no bound warning.
    assert not any("exceeds the bound" in m for m in result.warnings)
    value, excess = fairness_excess(TEST, result.predictions, "rd<=0.05")
    assert abs(value) <= 0.05 + 1e-4
    assert excess <= 1e-4


def test_a_test_measure_past_its_bound_is_warned(monkeypatch):
    plain = FairA3SL.predict

    def unfair(self, data, *, fair=True):  # as if inference had missed the constraint
        frame = plain(self, data, fair=fair)
        protected = frame["arg0"].isin(data.protected["user"])
        frame["value"] = protected * 0.2 + 0.5
        return frame

    monkeypatch.setattr(FairA3SL, "predict", unfair)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _learn(fairness=("rd<=0.01",))
    bound = [w for w in caught if issubclass(w.category, FairnessBoundWarning)]
    assert len(bound) == 1
    message = str(bound[0].message)
    assert message.startswith("test RD -0.2000 exceeds the bound 0.01 (rd<=0.01)")
    assert message in result.warnings
    assert bound[0].filename == __file__  # attributed to the caller's line


def test_exploration_message_threshold():
    assert exploration_message(EXPLORATION_LIMIT, 10) is None
    assert exploration_message(0.1, 10) is None
    assert "after 10 episodes" in exploration_message(0.9, 10)


def test_sensitive_run_has_no_bounds():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExplorationWarning)
        result = _learn()
    assert result.settings["variant"] == "sensitive"
    assert all("bound" not in m for m in result.warnings)
