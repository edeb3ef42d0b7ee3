"""Local search around the agent's best clause list (fairacq's addition to A3SL)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.exceptions import InvalidParameterError
from fairacq.relational import FairA3SL, enumerate_clauses, refine_clause_list
from fairacq.relational.a3sl._clause_env import (
    END,
    Clause,
    ClauseEnv,
    ClauseLiteral,
    ClauseSpace,
    PredicateSignature,
)

COMPAS = [
    PredicateSignature("oldAge", ("user",)),
    PredicateSignature("priors", ("user", "instance")),
    PredicateSignature("felony", ("user",)),
    PredicateSignature("user", ("user",)),
    PredicateSignature("recidivism", ("user",), target=True),
]


def _space(**kw):
    return ClauseSpace(COMPAS, domains={"user": "user"}, **kw)


def _clause(text: str) -> Clause:
    """``"priors ~oldAge -> ~recidivism"`` -> Clause."""
    body, head = text.split("->")

    def lit(t: str) -> ClauseLiteral:
        return ClauseLiteral(t.lstrip("~"), negated=t.startswith("~"))

    return Clause(lit(head.strip()), tuple(sorted(lit(t) for t in body.split())))


def _closes_in_env(space: ClauseSpace, clause: Clause) -> bool:
    """Whether an agent can build ``clause`` by some order of its literals."""
    env = ClauseEnv(space, lambda c: 0.0)
    for lit in (clause.head, *clause.body):
        action = space.action_of(lit)
        if not env.action_mask()[action]:
            return False
        env.step(action)
    if not env.action_mask()[END]:
        return False
    env.step(END)
    return env.clauses == [clause]


@pytest.mark.parametrize("max_literals", [1, 2, 3])
def test_enumerated_clauses_are_exactly_the_buildable_ones(max_literals):
    space = _space(max_literals=3)
    found = enumerate_clauses(space, max_literals)
    assert found == sorted(set(found))
    assert all(c.length <= max_literals and _closes_in_env(space, c) for c in found)
    # brute force over every signed head and body of that size
    lits = [ClauseLiteral(p.name, n) for p in COMPAS for n in (False, True)]
    heads = [x for x in lits if x.predicate == "recidivism"]
    body_lits = [x for x in lits if x.predicate != "recidivism"]
    every = {Clause(h, ()) for h in heads}
    if max_literals >= 2:
        every |= {Clause(h, (b,)) for h in heads for b in body_lits}
    if max_literals >= 3:
        every |= {
            Clause(h, tuple(sorted((a, b))))
            for h in heads
            for a in body_lits
            for b in body_lits
            if a.predicate < b.predicate
        }
    assert set(found) == {c for c in every if _closes_in_env(space, c)}
    assert _clause("~oldAge -> recidivism") in found if max_literals >= 2 else True
    with pytest.raises(InvalidParameterError, match="max_literals"):
        enumerate_clauses(space, 0)


PLANTED = (
    _clause("priors -> recidivism"),
    _clause("oldAge -> ~recidivism"),
    _clause(" -> ~recidivism"),
)


def planted_reward(clauses) -> float:
    """Larger the closer the list is to PLANTED (minus the symmetric difference)."""
    return -float(len(set(clauses) ^ set(PLANTED)))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n_start=st.integers(1, 4))
def test_hill_climbing_recovers_a_planted_list(seed, n_start):
    space = _space(max_literals=2, max_clauses=4)
    pool = enumerate_clauses(space)
    rng = np.random.default_rng(seed)
    start = [pool[i] for i in rng.choice(len(pool), n_start, replace=False)]
    out = refine_clause_list(start, space, planted_reward, random_state=seed)
    assert out.converged
    assert set(out.clauses) == set(PLANTED)
    assert out.reward == 0.0
    assert out.start_reward == planted_reward(start)
    rewards = out.history["reward"].to_numpy()
    assert np.all(np.diff(rewards) > 0)
    assert len(rewards) == 0 or rewards[-1] == 0.0
    assert (out.history["n_clauses"] <= space.max_clauses).all()


def test_refinement_is_seeded_and_keeps_to_its_budget():
    space = _space(max_literals=2, max_clauses=4)
    start = [_clause("felony -> recidivism")]
    a = refine_clause_list(start, space, planted_reward, random_state=1)
    b = refine_clause_list(start, space, planted_reward, random_state=1)
    assert a.clauses == b.clauses
    assert a.history["move"].tolist() == b.history["move"].tolist()
    calls = []

    def counting(clauses):
        calls.append(clauses)
        return planted_reward(clauses)

    capped = refine_clause_list(start, space, counting, max_evaluations=5, random_state=1)
    assert len(calls) == capped.evaluations == 5
    assert not capped.converged
    # a full list only swaps clauses, never grows past max_clauses
    full = [_clause(t) for t in ("felony -> recidivism", "user -> recidivism")]
    tight = _space(max_literals=2, max_clauses=2)
    out = refine_clause_list(full, tight, planted_reward, random_state=0)
    assert len(out.clauses) <= 2
    assert out.reward > planted_reward(full)


def test_refinement_rejects_bad_starts():
    space = _space(max_literals=2, max_clauses=2)
    with pytest.raises(InvalidParameterError, match="empty"):
        refine_clause_list([], space, planted_reward)
    three = [_clause(t) for t in ("felony -> recidivism", "user -> recidivism", " -> recidivism")]
    with pytest.raises(InvalidParameterError, match="max_clauses=2"):
        refine_clause_list(three, space, planted_reward)


def test_fair_a3sl_refines_the_agents_best_list():
    from tests.relational.test_a3sl import DATA

    kw = {"n_episodes": 4, "max_literals": 2, "max_clauses": 3, "random_state": 0}
    plain = FairA3SL(scorer=planted_reward, **kw).fit(DATA)
    assert set(plain.trace_.to_frame()["phase"]) == {"agent"}
    assert plain.best_rules_ == plain.agent_rules_
    refined = FairA3SL(scorer=planted_reward, refine_evaluations=400, **kw).fit(DATA)
    assert refined.agent_clauses_ == plain.agent_clauses_  # the agent's run is unchanged
    assert refined.agent_reward_ == plain.best_reward_
    assert refined.best_reward_ >= refined.agent_reward_
    assert refined.best_reward_ == planted_reward(refined.best_clauses_)
    rows = refined.trace_.to_frame()
    moves = rows[rows["phase"] == "refine"]
    assert len(moves) >= 1
    assert moves["best_reward"].iloc[-1] == refined.best_reward_
    assert moves["best_reward"].is_monotonic_increasing  # only improving moves are taken
    assert (moves["cost"] == rows["episodes"].max() + moves["evaluations"]).all()
    assert moves["evaluations"].max() <= 400
    again = FairA3SL(scorer=planted_reward, refine_evaluations=400, **kw).fit(DATA)
    assert again.trace_ == refined.trace_  # a count, not a clock: the same moves every time
