from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError
from fairacq.relational import (
    Database,
    GroundModel,
    Rule,
    ground,
    parse_rule,
    parse_rules,
    psl_unavailable,
)
from fairacq.relational.psl._rules import Atom, Comparison, Constant, Literal, Variable

BIAS1 = "fair-a3sl/biasedPaperReview/bias1"


@pytest.fixture
def bias1(shared_data):
    """The authors' first paper-review sample (under FAIRACQ_DATA)."""
    return shared_data / BIAS1


def db_small():
    return Database.from_frames(
        observations={
            "good": pd.DataFrame({"p": ["a", "b", "c", "d"], "value": [1.0, 0.2, 0.0, 1.0]}),
            "friend": pd.DataFrame({"p": ["a", "b"], "q": ["b", "a"], "value": [0.5, 0.0]}),
            "accept": pd.DataFrame({"p": ["d"], "value": [1.0]}),
        },
        targets={"accept": pd.DataFrame({"p": ["a", "b", "e"]})},
    )


def rows(model):
    a = model.potentials.coefficients.toarray()
    consts = np.round(model.potentials.constants, 12)
    return [(tuple(r), float(c)) for r, c in zip(a, consts, strict=True)]


def test_logical_rule_hand_computed_coefficients():
    db = db_small()
    model = ground(parse_rules("2: good(P) -> accept(P) ^2"), db)
    # P=a: 1 - y_a ; P=b: 0.2 - y_b ; P=c: good 0 -> dropped ; P=d: accept(d) observed 1 -> 0
    assert sorted(rows(model)) == sorted([((-1.0, 0.0, 0.0), 1.0), ((0.0, -1.0, 0.0), 0.2)])
    assert model.potentials.squared.all()
    assert model.potentials.weights.tolist() == [2.0, 2.0]
    assert model.variables["args"].tolist() == [("a",), ("b",), ("e",)]  # e is in no potential


def test_collective_rule_and_closed_world_zero():
    db = db_small()
    model = ground(parse_rules("1: friend(P, Q) & accept(P) -> accept(Q)"), db)
    # (a, b): 0.5 + y_a - y_b - 1 ; (b, a): friend 0 -> dropped
    assert rows(model) == [((1.0, -1.0, 0.0), -0.5)]
    assert not model.potentials.squared.any()


def test_negated_body_literal_reads_absent_atoms_as_zero():
    db = db_small()
    model = ground(parse_rules("1: accept(P) & !good(P) -> !accept(P)"), db)
    # negated clause accept & !good & accept: y + (1 - good) + y - 2
    # a: good 1 -> 2 y_a - 2 <= 0, dropped ; b: 2 y_b - 1.2 ; e: good absent (0) -> 2 y_e - 1
    assert sorted(rows(model)) == sorted([((0.0, 2.0, 0.0), -1.2), ((0.0, 0.0, 2.0), -1.0)])


def test_prior_and_hard_rule():
    db = db_small()
    model = ground(parse_rules("1: !accept(P) ^2\nfriend(P, Q) -> !accept(Q) ."), db)
    assert sorted(rows(model)) == sorted(
        [((1.0, 0, 0), 0.0), ((0, 1.0, 0), 0.0), ((0, 0, 1.0), 0.0)]
    )
    c = model.constraints
    assert c.coefficients.toarray().tolist() == [[0.0, 1.0, 0.0]]
    assert c.constants.tolist() == [-0.5]
    assert not c.equality.any()
    assert c.labels == ("friend(P, Q) -> !accept(Q) .",)
    assert model.rule_names == ("1.0: !accept(P) ^2",)


def test_rule_index_and_weights_follow_soft_rules():
    db = db_small()
    rules = parse_rules("3: good(P) -> accept(P)\ngood(P) -> accept(P) .\n0.5: !accept(P)")
    model = ground(rules, db)
    assert model.rule_weights.tolist() == [3.0, 0.5]
    assert set(model.potentials.rule_index.tolist()) == {0, 1}
    w = model.potentials.weights
    np.testing.assert_array_equal(w, model.rule_weights[model.potentials.rule_index])
    assert isinstance(model, GroundModel)


def test_comparisons_and_constants():
    db = Database.from_frames(
        observations={"knows": pd.DataFrame({"a": list("xxyyz"), "b": list("xyxzz")})},
        targets={"likes": pd.DataFrame({"a": list("xyz"), "b": list("yxz")})},
    )
    neq = ground([parse_rule("1: knows(A, B) & A != B -> likes(A, B)")], db)
    assert len(neq.potentials.constants) == 2  # (x,y), (y,x); (y,z) has no likes target -> 0
    lt = ground([parse_rule("1: knows(A, B) & A % B -> likes(A, B)")], db)
    assert len(lt.potentials.constants) == 1  # only (x, y)
    const = ground([parse_rule("1: knows(A, 'z') -> likes(A, 'z')")], db)
    assert rows(const) == [((0.0, 0.0, -1.0), 1.0)]  # y->z: likes(y,z) absent (dropped), z->z
    eq = ground([parse_rule("1: knows(A, B) & A == B -> likes(A, B)")], db)
    assert len(eq.potentials.constants) == 1


def test_repeated_variable_and_tautology_dropped():
    db = Database.from_frames(
        observations={"knows": pd.DataFrame({"a": list("xy"), "b": list("xz")})},
        targets={"likes": pd.DataFrame({"a": list("xy"), "b": list("xz")})},
    )
    model = ground([parse_rule("1: knows(A, A) -> likes(A, A)")], db)
    assert rows(model) == [((-1.0, 0.0), 1.0)]
    taut = ground([parse_rule("1: likes(A, B) -> likes(A, B)")], db)
    assert taut.potentials.n_potentials == 0


def test_arithmetic_summation_filters_cardinality():
    db = Database.from_frames(
        observations={
            "prot": pd.DataFrame({"p": list("abc"), "value": [1.0, 0.0, 1.0]}),
            "unprot": pd.DataFrame({"p": list("abcd"), "value": [0.0, 1.0, 0.0, 1.0]}),
            "y": pd.DataFrame({"p": ["d"], "value": [0.3]}),
        },
        targets={"y": pd.DataFrame({"p": list("abc")})},
    )
    rule = parse_rule("y(+P1) / |P1| - y(+P2) / |P2| <= 0.1 . {P1: prot(P1)} {P2: unprot(P2)}")
    model = ground([rule], db)
    c = model.constraints
    # P1 in {a, c}: (y_a + y_c) / 2 ; P2 in {b, d}: (y_b + 0.3) / 2 ; minus 0.1
    np.testing.assert_allclose(c.coefficients.toarray(), [[0.5, -0.5, 0.5]])
    np.testing.assert_allclose(c.constants, [-0.15 - 0.1])
    assert not c.equality.any()


def test_disjunctive_filter_splits_the_rule_as_psl_does():
    db = Database.from_frames(
        observations={
            "a": pd.DataFrame({"p": list("xy"), "value": [1.0, 0.0]}),
            "b": pd.DataFrame({"p": list("xyz"), "value": [1.0, 1.0, 0.0]}),
        },
        targets={"y": pd.DataFrame({"p": list("xyz")})},
    )
    model = ground([parse_rule("y(+P) <= 1 . {P: a(P) | b(P) & !a(P)}")], db)
    # disjunct a: {x} -> y_x <= 1 is trivial and dropped ; disjunct b & !a: {y}
    assert model.constraints.n_constraints == 0
    model = ground([parse_rule("y(+P) <= 0.5 . {P: a(P) | b(P)}")], db)
    got = sorted(map(tuple, model.constraints.coefficients.toarray().tolist()))
    assert got == [(1.0, 0.0, 0.0), (1.0, 1.0, 0.0)]


def test_weighted_equality_gives_two_hinges_and_hard_equality_one_row():
    db = Database.from_frames(
        observations={"y": pd.DataFrame({"p": ["d"], "value": [0.3]})},
        targets={"y": pd.DataFrame({"p": list("abc")})},
    )
    soft = ground([parse_rule("2: y(+P) = 1 ^2")], db)
    assert sorted(rows(soft)) == sorted([((-1.0, -1.0, -1.0), 0.7), ((1.0, 1.0, 1.0), -0.7)])
    assert soft.potentials.rule_index.tolist() == [0, 0]
    hard = ground([parse_rule("y(P) + y(P) = 1 .")], db)
    # one row per existing atom with a target: a, b, c (d is observed: no target, dropped)
    assert hard.constraints.equality.all()
    assert hard.constraints.n_constraints == 3
    np.testing.assert_allclose(hard.constraints.coefficients.toarray(), 2 * np.eye(3))
    np.testing.assert_allclose(hard.constraints.constants, [-1.0] * 3)
    ge = ground([parse_rule("y(P) >= 0.5 .")], db)
    assert ge.constraints.coefficients.toarray().tolist() == (-np.eye(3)).tolist()
    trivial = ground([parse_rule("y(P) <= 1 .")], db)
    assert trivial.constraints.n_constraints == 0


def test_arithmetic_plain_variables_group_sums():
    db = Database.from_frames(
        observations={"rated": pd.DataFrame({"u": list("uuv"), "i": list("ijk")})},
        targets={"rating": pd.DataFrame({"u": list("uuv"), "i": list("ijk")})},
    )
    model = ground([parse_rule("1: rating(U, +I) <= 0.5 * |I| ^2")], db)
    got = sorted(rows(model))
    assert got == sorted([((1.0, 1.0, 0.0), -1.0), ((0.0, 0.0, 1.0), -0.5)])


def test_zero_cardinality_in_a_constant_is_an_error():
    db = Database.from_frames(
        observations={"g": pd.DataFrame({"p": ["a"], "value": [0.0]})},
        targets={"y": pd.DataFrame({"p": ["a"]})},
    )
    with pytest.raises(InvalidDataError, match="divides by zero"):
        ground([parse_rule("y(+P) <= 1 / |P| . {P: g(P)}")], db)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("1: goood(P) -> accept(P)", "unknown predicate 'goood'. Did you mean 'good'"),
        ("1: friend(P) -> accept(P)", "'friend' takes 2 argument"),
        ("accept(+P) <= 1 . {P: accept(P)}", "Filters may only read observed predicates"),
    ],
)
def test_grounding_errors_name_predicate_and_fix(text, fragment):
    with pytest.raises(InvalidDataError, match=fragment):
        ground([parse_rule(text)], db_small())


def test_ground_rejects_non_rules():
    with pytest.raises(InvalidDataError, match="expected Rule"):
        ground(["1: a(X) -> b(X)"], db_small())
    with pytest.raises(InvalidDataError, match="expected a Database"):
        ground([], {"a": 1})


def test_no_rules_gives_an_empty_model_over_all_targets():
    model = ground([], db_small())
    assert model.n_variables == 3
    assert model.potentials.n_potentials == 0
    assert model.objective([0.5, 0.5, 0.5]) == 0.0


# ------------------------------------------------------------------ Lukasiewicz property

CONSTS = ["a", "b", "c"]
PREDS = {"o": 1, "r": 2, "y": 1, "z": 2}


@st.composite
def worlds(draw):
    obs, tgt = {}, {}
    for pred, k in PREDS.items():
        obs_rows, tgt_rows = [], []
        for args in itertools.product(CONSTS, repeat=k):
            status = draw(
                st.sampled_from(["absent", "obs", "target"] if pred in "yz" else ["absent", "obs"])
            )
            if status == "obs":
                obs_rows.append(
                    (*args, draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0, 1)))
                )
            elif status == "target":
                tgt_rows.append(args)
        cols = [f"a{j}" for j in range(k)]
        obs[pred] = pd.DataFrame(obs_rows, columns=[*cols, "value"])
        if pred in "yz":
            tgt[pred] = pd.DataFrame(tgt_rows, columns=cols)
    return obs, tgt


@st.composite
def rules(draw):
    term = st.sampled_from(["A", "B", "C"]).map(Variable) | st.sampled_from([*CONSTS, "q"]).map(
        Constant
    )
    literal = st.builds(
        lambda p, args, neg: Literal(Atom(p, tuple(args[: PREDS[p]])), neg),
        st.sampled_from(list(PREDS)),
        st.lists(term, min_size=2, max_size=2),
        st.booleans(),
    )
    comparison = st.builds(Comparison, st.sampled_from(["==", "!=", "%"]), term, term)
    body = draw(st.lists(literal | literal | comparison, max_size=3))
    head = draw(st.lists(literal, min_size=1, max_size=2))
    try:
        return Rule(tuple(body), tuple(head), 1.0, draw(st.booleans()))
    except InvalidDataError:
        assume(False)
        raise  # pragma: no cover


def brute_force(rule, obs, tgt, y):
    index = {}
    for pred, frame in tgt.items():
        for args in frame.itertuples(index=False):
            index[(pred, tuple(args))] = len(index)
    values = {(p, tuple(r[:-1])): r[-1] for p, f in obs.items() for r in f.itertuples(index=False)}
    names = rule.variables()
    out = []
    for combo in itertools.product(CONSTS, repeat=len(names)):
        sub = dict(zip(names, combo, strict=True))

        def val(term, sub=sub):
            return sub[term.name] if isinstance(term, Variable) else term.value

        ok = True
        for comp in rule.comparisons():
            a, b = val(comp.left), val(comp.right)
            ok &= {"==": a == b, "!=": a != b, "%": a < b}[comp.op]
        if not ok:
            continue
        total, has_target = 0.0, False
        for item in rule.body:
            if isinstance(item, Literal):
                key = (item.atom.predicate, tuple(val(t) for t in item.atom.args))
                x = y[index[key]] if key in index else values.get(key, 0.0)
                has_target |= key in index
                v = 1.0 - x if item.negated else x
                total += 1.0 - v
        for item in rule.head:
            key = (item.atom.predicate, tuple(val(t) for t in item.atom.args))
            x = y[index[key]] if key in index else values.get(key, 0.0)
            has_target |= key in index
            total += 1.0 - x if item.negated else x
        d = max(0.0, 1.0 - total)
        if has_target and d > 1e-9:
            out.append(d * d if rule.squared else d)
    return sorted(out)


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(worlds(), rules(), st.integers(0, 2**32 - 1))
def test_hinge_equals_lukasiewicz_distance(world, rule, seed):
    obs, tgt = world
    db = Database.from_frames(obs, tgt)
    model = ground([rule], db)
    y = np.random.default_rng(seed).random(model.n_variables)
    got = model.potentials.distances(y)
    np.testing.assert_allclose(sorted(got[got > 1e-9]), brute_force(rule, obs, tgt, y), atol=1e-9)
    assert (
        model.potentials.n_potentials == 0
        or (np.diff(model.potentials.coefficients.indptr) > 0).all()
    )


# ------------------------------------------------------------------ the authors' paper-review data

FAIR_PSL = """
1: acceptable(P) & positiveReviews(R, P) -> positiveSummary(P) ^2
1: reviews(R, P) & !acceptable(P) -> !positiveSummary(P) ^2
1: positiveReviews(R, P) -> positiveSummary(P) ^2
1: reviews(R, P) & !positiveReviews(R, P) -> !positiveSummary(P) ^2
1: submits(A, P) & student(A) & positiveReviews(R, P) -> !positiveSummary(P) ^2
1: submits(A, P) & affiliation(A, I) & highRank(I) -> positiveSummary(P) ^2
1: !positiveSummary(P) ^2
positiveSummary(+P1) / |P1| - positiveSummary(+P2) / |P2| <= 0.1 .
    {P1: protectedPaper(P1)} {P2: unprotectedPaper(P2)}
positiveSummary(+P1) / |P1| - positiveSummary(+P2) / |P2| >= -0.1 .
    {P1: protectedPaper(P1)} {P2: unprotectedPaper(P2)}
"""

TABLE3 = """
5: submits(A, P) & student(A) & positiveReviews(R1, P) -> !positiveSummary(P) ^2
5: acceptable(P) & positiveReviews(R1, P) -> positiveSummary(P) ^2
5: !acceptable(P) -> !positiveReviews(R1, P) ^2
5: acceptable(P) & reviews(R1, P) -> positiveReviews(R1, P) ^2
5: acceptable(P) & positiveReviews(R1, P) & reviews(R2, P) & R1 != R2 -> positiveReviews(R2, P) ^2
5: positiveSummary(P) & positiveReviews(R1, P) & reviews(R2, P) & R1 != R2
    -> positiveReviews(R2, P) ^2
"""


def protected_papers(db):
    subs = db.frame("submits")
    student = db.frame("student").rename(
        columns={db.argument_names("student")[0]: "a", "value": "s"}
    )
    aff = db.frame("affiliation")
    rank = db.frame("highRank").rename(columns={"value": "h"})
    t = subs.set_axis(["a", "p", "v"], axis=1).merge(student, on="a")
    t = t.merge(aff.set_axis(["a", "i", "v2"], axis=1), on="a")
    t = t.merge(rank.set_axis(["i", "h"], axis=1), on="i")
    prot = (t["s"] == 1) & (t["h"] == 0)
    return {
        "protectedPaper": pd.DataFrame({"p": t["p"], "value": prot.astype(float)}),
        "unprotectedPaper": pd.DataFrame({"p": t["p"], "value": (~prot).astype(float)}),
    }


@pytest.mark.needs_data(BIAS1)
def test_paper_review_sample_grounds_with_the_papers_rules(bias1):
    base = Database.from_csv_dir(bias1, targets=["positiveSummary"])
    db = base.with_observations(protected_papers(base))
    model = ground(parse_rules(FAIR_PSL), db)
    assert model.n_variables == 98
    assert model.n_rules == 7
    assert model.potentials.n_potentials > 98
    assert model.constraints.n_constraints == 2
    # the fairness rows are the linearised risk difference: +1/g1 on protected, -1/g2 else
    row = model.constraints.coefficients.toarray()[0]
    g1 = int(protected_papers(base)["protectedPaper"]["value"].sum())
    assert np.isclose(row[row > 0], 1 / g1).all()
    assert (row != 0).all()
    truth = db.truth_vector()
    assert np.isfinite(model.objective(truth))

    collective = Database.from_csv_dir(bias1, targets=["positiveSummary", "positiveReviews"])
    model2 = ground(parse_rules(TABLE3), collective)
    assert model2.n_variables == 98 + 196
    assert model2.n_rules == 6
    counts = np.bincount(model2.potentials.rule_index, minlength=6)
    assert (counts > 0).all()


# ------------------------------------------------------------------ cross-check with real PSL

COMBO = """
2: reviews(R, P) & !acceptable(P) & submits(A, P) -> !positiveSummary(P) | student(A)
1: submits(A, P) & affiliation(A, I) & highRank(I) & reviews(R1, P) & reviews(R2, P) & R1 % R2
    -> positiveSummary(P) ^2
1: acceptable(P) & positiveReviews(R, P) -> positiveSummary(P) ^2
0.5: positiveSummary(+P) <= 0.3 * |P| ^2 {P: acceptable(P) & !highRank('i3')}
paper(P) & !acceptable(P) & student(A) & submits(A, P) -> !positiveSummary(P) .
1: !positiveSummary(P) ^2
positiveSummary(+P1) / |P1| - positiveSummary(+P2) / |P2| <= 0.05 .
    {P1: protectedPaper(P1)} {P2: unprotectedPaper(P2)}
2: positiveSummary(+P1) / |P1| - positiveSummary(+P2) / |P2| >= 0.0
    {P1: protectedPaper(P1)} {P2: unprotectedPaper(P2)}
"""


@pytest.mark.needs_data(BIAS1)
@pytest.mark.skipif(psl_unavailable() is not None, reason="pslpython or Java unavailable")
def test_grounding_matches_real_psl_on_paper_review(bias1):
    from fairacq.relational import exact_map
    from fairacq.relational.bridge._pslpython import run_psl

    base = Database.from_csv_dir(bias1, targets=["positiveSummary"])
    db = base.with_observations(protected_papers(base))
    rules = parse_rules(COMBO)
    model = ground(rules, db)
    ours = exact_map(model)
    result = run_psl([r.to_psl() for r in rules], *db.to_frames())
    args = sorted(c for c in result.values.columns if c.startswith("arg"))
    psl = {(row["predicate"], row[args[0]]): row["value"] for _, row in result.values.iterrows()}
    theirs = np.array([psl[("positiveSummary", a[0])] for a in model.variables["args"]])
    np.testing.assert_allclose(theirs, ours.values, atol=1e-3)
    assert model.objective(theirs) == pytest.approx(ours.objective, rel=1e-4)
    assert model.max_violation(theirs) < 1e-4


# ------------------------------------------------------------------ integer joins (internals)


def _frame(columns):
    from fairacq.relational.hlmrf._grounding import _Frame

    arrays = {k: np.asarray(v, dtype=np.int64) for k, v in columns.items()}
    return _Frame.of(arrays, len(next(iter(arrays.values()))))


@settings(max_examples=80, deadline=None, database=None)
@given(
    st.integers(0, 2),
    st.sampled_from([3, 2**40]),
    st.integers(0, 12),
    st.integers(0, 12),
    st.data(),
)
def test_merge_equals_pandas_inner_merge_in_order(n_on, base, n_left, n_right, data):
    from fairacq.relational.hlmrf._grounding import _merge

    low = st.integers(0, 2) if base == 3 else st.sampled_from([0, 5, 2**40 - 1])
    on = [f"V:k{j}" for j in range(n_on)]

    def draw(n, extra):
        cols = {c: data.draw(st.lists(low, min_size=n, max_size=n)) for c in on}
        cols[extra] = list(range(n))
        return cols

    left, right = draw(n_left, "left"), draw(n_right, "right")
    got = _merge(_frame(left), _frame(right), on, base)
    if on:
        want = pd.DataFrame(left).merge(pd.DataFrame(right), on=on, how="inner", sort=False)
    else:
        want = pd.DataFrame(left).merge(pd.DataFrame(right), how="cross")
    assert len(got) == len(want)
    for name in [*on, "left", "right"]:
        np.testing.assert_array_equal(got.column(name), want[name].to_numpy())


def test_distinct_keeps_first_occurrences_and_overflowing_keys_stay_exact():
    from fairacq.relational.hlmrf._database import _row_keys
    from fairacq.relational.hlmrf._grounding import _distinct

    big = 2**40
    cols = {"V:a": [0, big - 1, 0, 1, big - 1], "V:b": [1, 1, 1, 1, 1], "V:c": [2, 0, 2, 2, 0]}
    got = _distinct(_frame(cols), big)
    want = pd.DataFrame(cols).drop_duplicates()
    for name in cols:
        np.testing.assert_array_equal(got.column(name), want[name].to_numpy())
    codes = np.array([[big - 1, 0, 7], [big - 1, 0, 7], [0, big - 1, 7], [-1, 0, 7]])
    keys = _row_keys(codes, big)
    assert keys[0] == keys[1]
    assert len(set(keys.tolist())) == 3


def test_many_constants_and_arity_four_overflow_paths():
    # (50,001 + 1) ** 4 codes do not fit int64 keys: joins and lookups renumber rows instead
    many = pd.DataFrame({"x": [f"c{i}" for i in range(50_001)]})
    quads = pd.DataFrame({"a": ["c1", "c2", "c3"], "b": ["c4"] * 3, "c": ["c5"] * 3})
    db = Database.from_frames(
        observations={
            "const": many,
            "r": quads.assign(d=["c6", "c7", "c8"], value=[1.0, 0.5, 0.0]),
            "q": pd.DataFrame({"a": ["c1"], "value": [0.25]}),
        },
        targets={"t": quads.assign(d=["c6", "c7", "c50000"])},
    )
    lookup = ground([parse_rule("1: r(A, B, C, D) -> t(A, B, C, D)")], db)
    # c1..c6: 1 - y0 ; c2..c7: 0.5 - y1 ; r(c3..c8) is 0: dropped
    assert sorted(rows(lookup)) == sorted([((-1.0, 0.0, 0.0), 1.0), ((0.0, -1.0, 0.0), 0.5)])
    join = ground([parse_rule("1: t(A, B, C, D) & r(A, B, C, D) -> q(A)")], db)
    # t & r & !q: y0 + 1 + (1 - 0.25) - 2 ; y1 + 0.5 + 1 - 2 ; t(c3, .., c50000) has no r
    assert sorted(rows(join)) == sorted([((1.0, 0.0, 0.0), -0.25), ((0.0, 1.0, 0.0), -0.5)])


def _risky_db(n_people: int) -> Database:
    people = [f"u{i}" for i in range(n_people)]
    return Database.from_frames(
        observations={"risky": pd.DataFrame({"u": people, "value": 1.0})},
        targets={"recid": pd.DataFrame({"u": people})},
    )


def test_a_rule_that_would_multiply_its_domains_is_refused_before_it_is_built() -> None:
    """12 unrelated variables over 200 people would be 200**12 ground rules: a pure cross
    product, whose size is exact before any join, so nothing is built."""
    from fairacq.exceptions import ResourceLimitError
    from fairacq.relational.hlmrf._grounding import MAX_GROUND_RULES

    body = " & ".join(f"risky(U{i})" for i in range(12))
    with pytest.raises(ResourceLimitError, match=f"at least {200**12:,} ground rules"):
        ground(parse_rules(f"1: {body} -> recid(U0)"), _risky_db(200))
    assert MAX_GROUND_RULES == 20_000_000


def test_the_guard_counts_key_joins_exactly() -> None:
    """Two atoms joined on U give n rows (allowed at limit n); a free V multiplies by n."""
    from fairacq.exceptions import ResourceLimitError

    db = _risky_db(30)
    joined = parse_rules("1: risky(U) & risky(U) -> recid(U)")
    assert ground(joined, db, max_ground_rules=30).potentials.n_potentials == 30
    free = parse_rules("1: risky(U) & risky(V) -> recid(U)")
    with pytest.raises(ResourceLimitError, match="at least 900 ground rules"):
        ground(free, db, max_ground_rules=899)
    assert ground(free, db, max_ground_rules=900).potentials.n_potentials == 900
    arithmetic = parse_rules("recid(+U) <= 20 . {U: risky(U)}")
    assert ground(arithmetic, db, max_ground_rules=30).constraints is not None
