"""Fair-A3SL end to end: the reward pipeline and the estimator on a tiny recidivism problem."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq import CheckpointCallback
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import (
    CorruptFileError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
)
from fairacq.relational.a3sl._a3sl import FairA3SL
from fairacq.relational.a3sl._clause_env import (
    Clause,
    ClauseLiteral,
    ClauseSpace,
    signatures_from_frames,
)
from fairacq.relational.a3sl._structure_scorer import (
    StructureScorer,
    UtilityConfig,
    semantic_distance,
)


def tiny_recidivism(n=40, seed=0):
    """Recidivism driven by priors; the protected group (race) has more priors."""
    rng = np.random.default_rng(seed)
    users = [f"u{i}" for i in range(n)]
    race = (np.arange(n) < n // 2).astype(float)
    priors = (rng.random(n) < 0.3 + 0.4 * race).astype(float)
    old = (rng.random(n) < 0.5).astype(float)
    recid = ((priors + 0.3 * (1 - old) + 0.2 * rng.random(n)) > 0.6).astype(float)
    obs = {
        "priors": pd.DataFrame({"user": users, "value": priors}),
        "oldAge": pd.DataFrame({"user": users, "value": old}),
        "race": pd.DataFrame({"user": users, "value": race}),
        "user": pd.DataFrame({"user": users, "value": 1.0}),
    }
    return RelationalData(
        observations=obs,
        targets={"recidivism": pd.DataFrame({"user": users})},
        truth={"recidivism": pd.DataFrame({"user": users, "value": recid})},
        protected=pd.DataFrame({"user": [u for u, r in zip(users, race, strict=True) if r]}),
        unprotected=pd.DataFrame({"user": [u for u, r in zip(users, race, strict=True) if not r]}),
        metadata={"fairness_predicate": "recidivism", "favourable": 0},
    )


DATA = tiny_recidivism()
FAST = {"n_iter": 5}
PRIORS_RULE = Clause(ClauseLiteral("recidivism"), (ClauseLiteral("priors"),))
RACE_RULE = Clause(ClauseLiteral("recidivism"), (ClauseLiteral("race"),))
NEG_PRIOR = Clause(ClauseLiteral("recidivism", True))


def _space(**kw):
    return ClauseSpace(signatures_from_frames(DATA.observations, DATA.targets), **kw)


def _rd(frame, data=DATA):
    values = dict(zip(frame["arg0"], frame["value"], strict=True))
    prot = np.mean([values[u] for u in data.protected["user"]])
    unprot = np.mean([values[u] for u in data.unprotected["user"]])
    return abs(prot - unprot)


def test_semantic_distance_follows_table_1():
    pos = {ClauseLiteral("priors"), ClauseLiteral("recidivism"), ClauseLiteral("oldAge", True)}
    neg = {ClauseLiteral("oldAge"), ClauseLiteral("recidivism", True)}
    ok = [
        Clause(ClauseLiteral("recidivism"), (ClauseLiteral("priors"),)),
        Clause(
            ClauseLiteral("recidivism"), (ClauseLiteral("priors"), ClauseLiteral("oldAge", True))
        ),
        Clause(
            ClauseLiteral("recidivism", True),
            (ClauseLiteral("oldAge"), ClauseLiteral("priors", True)),
        ),
    ]
    bad = [
        Clause(ClauseLiteral("recidivism"), (ClauseLiteral("oldAge"),)),
        Clause(ClauseLiteral("recidivism", True), (ClauseLiteral("priors"),)),
    ]
    assert [semantic_distance(c, pos, neg) for c in ok] == [0, 0, 0]
    assert [semantic_distance(c, pos, neg) for c in bad] == [1, 1]


def test_utility_config_presets_and_validation():
    assert UtilityConfig.authors().fairness == ("rd<=0",)
    assert UtilityConfig.authors().utility == "auc"
    paper = UtilityConfig.paper()
    assert paper.utility == "loglik"
    assert paper.fairness == ("rd<=0.1", "rr<=0.1", "rc<=0.1")
    with pytest.raises(InvalidParameterError, match="utility"):
        UtilityConfig(utility="accuracy")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="prior"):
        UtilityConfig(priors=(("demographic", 0.1),))


def test_scorer_auc_fairness_and_cache():
    space = _space(domains={"user": "user"})
    sensitive = StructureScorer(
        DATA, space, UtilityConfig.authors(()), weight_learning=FAST, random_state=0
    )
    detail = sensitive.evaluate((PRIORS_RULE, NEG_PRIOR))
    assert detail.error is None
    assert detail.reward == pytest.approx(detail.data_term)
    assert detail.reward > 0.75  # priors predict recidivism
    assert _rd(detail.predictions) > 0.1  # and the protected group has more priors
    assert detail.rules[0].endswith("-> recidivism(User) ^2")
    # cached by canonical list: clause order does not matter
    assert sensitive((NEG_PRIOR, PRIORS_RULE)) == detail.reward
    assert sensitive.n_evaluations == 1

    fair = StructureScorer(
        DATA, space, UtilityConfig.authors(("rd<=0",)), weight_learning=FAST, random_state=0
    )
    fair_detail = fair.evaluate((PRIORS_RULE, NEG_PRIOR))
    assert _rd(fair_detail.predictions) < 0.01
    assert fair_detail.max_violation < 0.01


def test_scorer_paper_utility_subtracts_priors():
    space = _space()
    config = UtilityConfig.paper(
        ("rd<=0.1",),
        priors=(("equalized_odds", 0.5),),
        alpha_sem=1.0,
        positive_signals=(ClauseLiteral("priors"), ClauseLiteral("recidivism")),
        negative_signals=(ClauseLiteral("oldAge"), ClauseLiteral("recidivism", True)),
    )
    scorer = StructureScorer(DATA, space, config, weight_learning=FAST, random_state=0)
    against = Clause(ClauseLiteral("recidivism"), (ClauseLiteral("oldAge"),))
    detail = scorer.evaluate((PRIORS_RULE, against))
    assert detail.data_term <= 1e-9  # log-likelihood with MAP-approximated partition function
    assert set(detail.penalties) == {"len", "num", "sem", "0.5*equalized_odds"}
    assert detail.penalties["num"] == pytest.approx(0.02)
    assert detail.penalties["len"] == pytest.approx(0.02)
    assert detail.penalties["sem"] == pytest.approx(detail.weights[0] * 1.0)  # only `against`
    assert detail.reward == pytest.approx(detail.data_term - sum(detail.penalties.values()))


def test_scorer_rejects_single_class_truth_and_reports_failures():
    users = DATA.truth["recidivism"]["user"]
    one_class = RelationalData(
        observations=DATA.observations,
        targets=DATA.targets,
        truth={"recidivism": pd.DataFrame({"user": users, "value": 1.0})},
        protected=DATA.protected,
        unprotected=DATA.unprotected,
        metadata=DATA.metadata,
    )
    with pytest.raises(InvalidDataError, match="single class"):
        StructureScorer(one_class, _space(), UtilityConfig.authors())
    scorer = StructureScorer(DATA, _space(), failure_reward=-1.0, random_state=0)
    broken = Clause(ClauseLiteral("recidivism"), (ClauseLiteral("noSuchPredicate"),))
    detail = scorer.evaluate((broken,))
    assert detail.reward == -1.0
    assert detail.error is not None


def test_estimator_end_to_end_learns_fair_rules_without_race():
    learner = FairA3SL(
        n_episodes=12,
        max_literals=2,
        max_clauses=2,
        exclude=("race",),
        domains={"user": "user"},
        weight_learning=FAST,
        agent_options={"n_envs": 2, "t_max": 6},
        random_state=0,
    ).fit(DATA)
    episodes = learner.agent_.history()
    trace = learner.trace_.to_frame()
    assert len(episodes) == trace["episodes"].iloc[-1] >= 12
    assert set(trace["phase"]) == {"agent"}  # no local search asked for
    assert learner.best_reward_ == episodes["reward"].max() == trace["best_reward"].iloc[-1]
    assert learner.best_reward_ > 0.7
    assert not any("race" in rule for rule in learner.best_rules_)
    assert not episodes["clauses"].str.contains("race").any()
    assert all(rule.endswith("^2") for rule in learner.best_rules_)
    test = tiny_recidivism(seed=1)
    frame = learner.predict(test)
    assert frame["value"].between(0, 1).all()
    assert _rd(frame, test) < 0.01


def test_estimator_variants_map_to_utilities():
    assert FairA3SL(variant="sensitive").utility_config().fairness == ()
    assert FairA3SL(variant="fair1").utility_config().priors == ()
    assert FairA3SL(variant="fair2").utility_config().priors == (("equalized_odds", 0.1),)
    fair3 = FairA3SL(preset="paper", variant="fair3").utility_config()
    assert fair3.priors == (("equalized_odds", 0.5),)
    assert fair3.fairness == ("rd<=0.1", "rr<=0.1", "rc<=0.1")
    custom = FairA3SL(fairness=("rd<=0.05",), alpha_odds=0.2).utility_config()
    assert custom.fairness == ("rd<=0.05",)
    assert custom.priors == (("equalized_odds", 0.2),)


def test_estimator_contract(tmp_path):
    with pytest.raises(NotFittedError, match="not fitted"):
        FairA3SL().predict(DATA)
    with pytest.raises(InvalidParameterError, match="'variant' parameter of FairA3SL"):
        FairA3SL(variant="fair9").fit(DATA)
    with pytest.raises(InvalidDataError, match="exclude names unknown"):
        FairA3SL(exclude=("gender",), scorer=lambda c: 0.0).fit(DATA)

    def reward(clauses):
        return float(sum(c == PRIORS_RULE for c in clauses))

    kw = {"n_episodes": 30, "max_clauses": 1, "scorer": reward, "random_state": 5}
    straight = FairA3SL(**kw).fit(DATA)
    FairA3SL(**{**kw, "n_episodes": 10}).fit(
        DATA, callbacks=[CheckpointCallback(tmp_path, every=1)]
    )
    resumed = FairA3SL(**kw).fit(DATA, continue_from=tmp_path)
    cols = ["episode", "reward", "clauses"]
    assert straight.agent_.history()[cols].equals(resumed.agent_.history()[cols])
    assert straight.trace_ == resumed.trace_
    assert straight.best_rules_ == resumed.best_rules_
    assert FairA3SL(**kw).fit(DATA).trace_ == straight.trace_


class _Interrupt(Exception):
    """Raised by a callback to simulate a killed run."""


def _interrupt_after(k):
    def callback(rec):
        if rec.n_steps > k:
            raise _Interrupt

    return callback


def _priors_reward(clauses):
    return float(sum(c == PRIORS_RULE for c in clauses))


RESUME_KW = {
    "n_episodes": 16,
    "max_clauses": 2,
    "scorer": _priors_reward,
    "agent_options": {"t_max": 4},
    "random_state": 5,
}
EPISODE_COLS = ["episode", "env", "update", "reward", "n_clauses", "clauses"]


def _agent_tensors(learner):
    import torch

    net = learner.agent_.net.state_dict()
    opt = learner.agent_.optimizer.state_dict()["state"]
    tensors = [net[k] for k in sorted(net)]
    tensors += [opt[i][k] for i in sorted(opt) for k in sorted(opt[i])]
    tensors.append(torch.as_tensor(learner.agent_._gen.get_state()))
    return tensors


@pytest.fixture(scope="module")
def straight_a3sl():
    return FairA3SL(**RESUME_KW).fit(DATA)


@pytest.mark.parametrize("k", [1, 3, 6])
def test_interrupted_then_resumed_equals_uninterrupted(k, tmp_path, straight_a3sl):
    import torch

    from fairacq import CheckpointCallback, Trace

    full = straight_a3sl
    trace = full.trace_.to_frame()
    assert len(trace) > k + 1
    assert trace["update"].tolist() == list(range(1, len(trace) + 1))
    assert trace["cost"].tolist() == trace["episodes"].tolist()
    assert trace["episodes"].iloc[-1] == len(full.agent_.history()) >= 16
    ck = tmp_path / "ck"
    with pytest.raises(_Interrupt):
        FairA3SL(**RESUME_KW).fit(
            DATA, callbacks=[CheckpointCallback(ck, every=1), _interrupt_after(k)]
        )
    assert {p.name for p in ck.iterdir()} == {
        "trace.parquet",
        "trace.json",
        "agent.pt",
        "agent.json",
    }
    assert len(Trace.load(ck)) == k + 1
    for source in (ck, Trace.load(ck)):
        resumed = FairA3SL(**RESUME_KW).fit(DATA, continue_from=source)
        assert resumed.trace_ == full.trace_
        episodes = resumed.agent_.history()[EPISODE_COLS]
        assert episodes.equals(full.agent_.history()[EPISODE_COLS])
        assert resumed.best_rules_ == full.best_rules_
        assert resumed.best_reward_ == full.best_reward_
        a, b = _agent_tensors(resumed), _agent_tensors(full)
        assert len(a) == len(b) > 10
        assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def test_an_agent_folder_without_a_trace_is_refused(tmp_path):
    first = FairA3SL(**{**RESUME_KW, "n_episodes": 6}).fit(DATA)
    first.agent_.save(tmp_path / "agent")  # the agent's own files, no trace: not a checkpoint
    with pytest.raises(CorruptFileError, match=r"trace\.parquet is missing"):
        FairA3SL(**RESUME_KW).fit(DATA, continue_from=tmp_path / "agent")
