"""The clause-list environment of Fair-A3SL: masks, typed variables, rendering."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.relational.a3sl._clause_env import (
    END,
    Clause,
    ClauseEnv,
    ClauseLiteral,
    ClauseSpace,
    PredicateSignature,
    canonical_clause_list,
    signatures_from_frames,
)

REVIEW = [
    PredicateSignature("student", ("author",)),
    PredicateSignature("submits", ("author", "paper")),
    PredicateSignature("reviews", ("reviewer", "paper")),
    PredicateSignature("positiveReviews", ("reviewer", "paper"), target=True),
    PredicateSignature("positiveSummary", ("paper",), target=True),
]
COMPAS = [
    PredicateSignature("oldAge", ("user",)),
    PredicateSignature("priors", ("user", "instance")),
    PredicateSignature("user", ("user",)),
    PredicateSignature("recidivism", ("user",), target=True),
]


def _action(space: ClauseSpace, text: str) -> int:
    return space.action_names().index(text)


def test_actions_are_end_and_signed_predicates():
    space = ClauseSpace(COMPAS)
    assert space.n_actions == 1 + 2 * len(COMPAS)
    assert space.action_names()[:3] == ["END", "oldAge", "~oldAge"]
    for a in range(1, space.n_actions):
        assert space.action_of(space.literal_of(a)) == a
    with pytest.raises(InvalidParameterError, match="not a literal"):
        space.literal_of(END)


def test_end_on_empty_clause_and_repeated_predicate_are_masked():
    space = ClauseSpace(COMPAS, max_literals=4)
    mask = space.valid_actions([])
    assert not mask[END]
    mask = space.valid_actions([ClauseLiteral("oldAge"), ClauseLiteral("recidivism")])
    assert mask[END]
    assert not mask[_action(space, "oldAge")]
    assert not mask[_action(space, "~oldAge")]
    assert not mask[_action(space, "~recidivism")]


def test_target_required_and_literal_limit():
    space = ClauseSpace(COMPAS, max_literals=2)
    mask = space.valid_actions([ClauseLiteral("oldAge")])
    allowed = {space.action_names()[a] for a in np.flatnonzero(mask)}
    assert allowed == {"recidivism", "~recidivism"}  # the last slot must hold the target
    full = space.valid_actions([ClauseLiteral("oldAge"), ClauseLiteral("recidivism")])
    assert np.flatnonzero(full).tolist() == [END]


def test_unsafe_variables_are_masked_unless_a_domain_binds_them():
    space = ClauseSpace(COMPAS, max_literals=2)
    # ~oldAge(User) -> recidivism(User): User is in no positive body atom.
    assert not space.valid_actions([])[_action(space, "~oldAge")]
    # ~priors needs a positive atom over its instance type; nothing else has one.
    assert not space.valid_actions([])[_action(space, "~priors")]
    anchored = ClauseSpace(COMPAS, max_literals=2, domains={"user": "user"})
    assert anchored.valid_actions([])[_action(anchored, "~oldAge")]
    rule = anchored.render(Clause(ClauseLiteral("recidivism"), (ClauseLiteral("oldAge", True),)))
    assert rule == "5.0: user(User) & ~oldAge(User) -> recidivism(User) ^2"
    # A negated head binds its own variables (PSL's clause-negative literal).
    assert space.render(Clause(ClauseLiteral("recidivism", True))) == "5.0: ~recidivism(User) ^2"


def test_variables_unify_by_type_across_literals():
    space = ClauseSpace(REVIEW)
    clause = space.close(
        [
            ClauseLiteral("submits"),
            ClauseLiteral("student"),
            ClauseLiteral("positiveSummary", True),
        ]
    )
    assert space.render(clause, weight=2.5) == (
        "2.5: student(Author) & submits(Author, Paper) -> ~positiveSummary(Paper) ^2"
    )
    relational = space.close(
        [
            ClauseLiteral("reviews"),
            ClauseLiteral("positiveSummary"),
            ClauseLiteral("positiveReviews"),
        ]
    )
    # the first target is the head; a later target joins the body (a collective rule)
    assert relational.head == ClauseLiteral("positiveSummary")
    assert space.render(relational).startswith(
        "5.0: positiveReviews(Reviewer, Paper) & reviews(Reviewer, Paper) -> "
    )
    same_type = ClauseSpace(
        [
            PredicateSignature("friends", ("user", "user")),
            PredicateSignature("t", ("user",), True),
        ],
        squared=False,
    )
    assert same_type.render(Clause(ClauseLiteral("t"), (ClauseLiteral("friends"),))) == (
        "5.0: friends(User, User2) -> t(User)"
    )


def test_canonical_form_ignores_choice_order_and_duplicates():
    space = ClauseSpace(REVIEW)
    a = space.close(
        [ClauseLiteral("student"), ClauseLiteral("submits"), ClauseLiteral("positiveSummary")]
    )
    b = space.close(
        [ClauseLiteral("positiveSummary"), ClauseLiteral("submits"), ClauseLiteral("student")]
    )
    assert a == b
    other = space.close([ClauseLiteral("submits"), ClauseLiteral("positiveSummary", True)])
    assert canonical_clause_list([a, other, b]) == canonical_clause_list([other, a])
    assert len(space.render_rules([a, b, other])) == 2


def test_signatures_from_frames_reads_types_from_columns():
    obs = {
        "reviews": pd.DataFrame({"reviewer": ["r"], "paper": ["p"], "value": [1.0]}),
        "friends": pd.DataFrame({"user1": ["a"], "user2": ["b"], "value": [1.0]}),
        "rating": pd.DataFrame({"user": ["a"], "item": ["i"], "value": [0.5]}),
    }
    targets = {"rating": pd.DataFrame({"user": ["b"], "item": ["i"]})}
    sigs = signatures_from_frames(obs, targets, arg_types={"reviews": ("person", "doc")})
    by_name = {s.name: s for s in sigs}
    assert by_name["friends"].arg_types == ("user", "user")
    assert by_name["reviews"].arg_types == ("person", "doc")
    assert by_name["rating"].target
    assert [s.name for s in sigs] == ["friends", "reviews", "rating"]


def test_space_rejects_bad_configuration():
    with pytest.raises(InvalidDataError, match="no predicate is a target"):
        ClauseSpace([PredicateSignature("a", ("x",))])
    with pytest.raises(InvalidDataError, match="repeat"):
        ClauseSpace([COMPAS[0], COMPAS[0], COMPAS[3]])
    with pytest.raises(InvalidDataError, match="domain predicate"):
        ClauseSpace(COMPAS, domains={"user": "priors"})
    with pytest.raises(InvalidParameterError, match="max_literals"):
        ClauseSpace(COMPAS, max_literals=0)


def test_env_steps_scores_once_and_rejects_invalid_actions():
    calls = []

    def scorer(clauses):
        calls.append(clauses)
        return 0.75

    space = ClauseSpace(COMPAS, max_literals=3, max_clauses=2)
    env = ClauseEnv(space, scorer)
    assert env.features().shape == (env.n_features,)
    with pytest.raises(InvalidParameterError, match="not valid"):
        env.step(END)
    script = ["oldAge", "recidivism", "END", "priors", "~recidivism", "END"]
    rewards = [env.step(_action(space, name)) for name in script]
    assert rewards[:-1] == [(0.0, False)] * 5
    assert rewards[-1] == (0.75, True)
    assert len(calls) == 1
    assert calls[0] == env.clause_list()
    with pytest.raises(InvalidParameterError, match="episode is over"):
        env.step(END)
    env.reset()
    assert env.tokens == []
    assert env.clause_list() == ()


def test_allow_stop_finishes_a_list_early():
    calls = []

    def scorer(clauses):
        calls.append(clauses)
        return 0.5

    space = ClauseSpace(COMPAS, max_literals=3, max_clauses=4, allow_stop=True)
    env = ClauseEnv(space, scorer)
    assert not env.action_mask()[END]  # no clause yet: nothing to stop
    for name in ["oldAge", "recidivism"]:
        env.step(_action(space, name))
    assert env.step(END) == (0.0, False)
    assert env.action_mask()[END]  # empty clause after one closed clause: may stop
    assert env.step(END) == (0.5, True)
    assert len(calls) == 1
    assert len(calls[0]) == 1
    fixed = ClauseEnv(ClauseSpace(COMPAS, max_literals=3, max_clauses=4), scorer)
    for name in ["oldAge", "recidivism", "END"]:
        fixed.step(_action(fixed.space, name))
    assert not fixed.action_mask()[END]


def _is_safe(space: ClauseSpace, clause: Clause) -> bool:
    types = {t for lit in clause.literals() for t in space._types(lit)}
    covered = set(space.domains)
    for lit in clause.body:
        if not lit.negated:
            covered |= space._types(lit)
    if clause.head.negated:
        covered |= space._types(clause.head)
    return types <= covered


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    max_literals=st.integers(1, 5),
    max_clauses=st.integers(1, 4),
    anchored=st.booleans(),
    review=st.booleans(),
    connected=st.booleans(),
    allow_stop=st.booleans(),
)
def test_random_walks_never_get_stuck_and_give_valid_clauses(
    seed, max_literals, max_clauses, anchored, review, connected, allow_stop
):
    preds = REVIEW if review else COMPAS
    domains = {"user": "user"} if anchored and not review else {}
    space = ClauseSpace(
        preds,
        max_literals=max_literals,
        max_clauses=max_clauses,
        domains=domains,
        connected=connected,
        allow_stop=allow_stop,
    )
    env = ClauseEnv(space, lambda clauses: float(len(clauses)))
    rng = np.random.default_rng(seed)
    done, steps = False, 0
    while not done:
        mask = env.action_mask()
        assert mask.any(), env.describe()
        _, done = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert steps <= max_clauses * (max_literals + 1)
    for clause in env.clause_list():
        assert clause.length <= max_literals
        assert space.is_target(clause.head.predicate)
        assert _is_safe(space, clause)
        assert len({lit.predicate for lit in clause.literals()}) == clause.length
        if connected:
            assert _is_connected(space, clause)


def _is_connected(space: ClauseSpace, clause: Clause) -> bool:
    groups = [space._types(lit) for lit in clause.literals()]
    reached = set(groups.pop())
    while groups:
        linked = [g for g in groups if g & reached]
        if not linked:
            return False
        for g in linked:
            reached |= g
            groups.remove(g)
    return True


def test_connected_clauses_join_every_literal():
    space = ClauseSpace(REVIEW, max_literals=3)
    mask = space.valid_actions([ClauseLiteral("student")])
    names = {space.action_names()[a] for a in np.flatnonzero(mask)}
    # student(Author) reaches positiveSummary(Paper) only through submits(Author, Paper)
    assert names == {"submits"}
    loose = ClauseSpace(REVIEW, max_literals=3, connected=False)
    assert loose.valid_actions([ClauseLiteral("student")])[_action(loose, "reviews")]
    short = ClauseSpace(REVIEW, max_literals=2)
    assert not short.valid_actions([])[_action(short, "student")]


def test_private_types_and_domain_negation():
    obs = {
        "priors": pd.DataFrame({"user": ["a"], "instance": ["i"], "value": [1.0]}),
        "juvFel": pd.DataFrame({"user": ["a"], "instance": ["j"], "value": [1.0]}),
        "user": pd.DataFrame({"user": ["a"], "value": [1.0]}),
    }
    targets = {"recid": pd.DataFrame({"user": ["a"]})}
    sigs = signatures_from_frames(obs, targets, private_types=("instance",))
    by_name = {s.name: s for s in sigs}
    assert by_name["priors"].arg_types == ("user", "priorsInstance")
    space = ClauseSpace(sigs, domains={"user": "user"})
    clause = space.close(
        [ClauseLiteral("priors"), ClauseLiteral("juvFel"), ClauseLiteral("recid")]
    )
    assert space.render(clause) == (
        "5.0: juvFel(User, JuvFelInstance) & priors(User, PriorsInstance) -> recid(User) ^2"
    )
    # a negated history atom would leave its private instance unbound
    assert not space.valid_actions([])[_action(space, "~priors")]
    assert space.valid_actions([])[_action(space, "user")]
    assert not space.valid_actions([])[_action(space, "~user")]
