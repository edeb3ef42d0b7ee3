"""Delta-fairness constraints (paper 004, §4.2) and fairness priors (§4.3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError
from fairacq.metrics import (
    equalized_odds_diff_sum,
    overestimation_unfairness,
    relative_chance,
    risk_difference,
    risk_ratio,
)
from fairacq.relational import (
    FairnessPrior,
    FairnessSpec,
    GroundModel,
    HingePotentials,
    LinearConstraints,
    admm_map,
    equalized_odds_prior,
    exact_map,
    fairness_constraints,
    overestimation_prior,
    parse_fairness,
)

SETTINGS = settings(max_examples=60, deadline=None, database=None)


def _empty_model(n: int) -> GroundModel:
    variables = pd.DataFrame({"predicate": ["ok"] * n, "args": [(str(i),) for i in range(n)]})
    return GroundModel(variables, HingePotentials.empty(n), LinearConstraints.empty(n))


# --- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "measure", "delta"),
    [
        ("rd<=0.1", "rd", 0.1),
        (" RR <= 0.05 ", "rr", 0.05),
        ("relative-chance<=0", "rc", 0.0),
        ("non_parity <= 1", "nonparity", 1.0),
        ("risk_difference<=1e-2", "rd", 0.01),
    ],
)
def test_parse_fairness(text: str, measure: str, delta: float) -> None:
    assert parse_fairness(text) == FairnessSpec(measure, delta)  # type: ignore[arg-type]


def test_parse_fairness_suggests_the_closest_measure() -> None:
    with pytest.raises(UnknownNameError, match="Did you mean 'rd'"):
        parse_fairness("rdd<=0.1")
    with pytest.raises(UnknownNameError, match="Did you mean 'nonparity'"):
        parse_fairness("nonparty<=0.1")


@pytest.mark.parametrize("text", ["rd", "rd < 0.1", "rd<=x", "<=0.1", "rd>=0.1"])
def test_parse_fairness_rejects_malformed_text(text: str) -> None:
    with pytest.raises(InvalidParameterError, match="measure> <= <delta>"):
        parse_fairness(text)


def test_delta_must_be_in_unit_interval() -> None:
    with pytest.raises(InvalidParameterError, match=r"\[0, 1\]"):
        parse_fairness("rd<=1.5")
    with pytest.raises(UnknownNameError):
        FairnessSpec("dp", 0.1)  # type: ignore[arg-type]
    assert str(FairnessSpec("rr", 0.25)) == "rr<=0.25"


# --- constraints agree with the measures' definitions ----------------------------------------

_MEASURE = {"rd": risk_difference, "nonparity": risk_difference, "rr": risk_ratio}


def _within(measure: str, y: np.ndarray, s: np.ndarray, delta: float) -> tuple[bool, float]:
    """Whether the measure is delta-fair, and its distance to the boundary."""
    if measure in ("rd", "nonparity"):
        value = risk_difference(y, s, protected=1)
        return abs(value) <= delta, abs(abs(value) - delta)
    if measure == "rr":
        value = risk_ratio(y, s, protected=1)
    else:
        value = relative_chance(y, s, protected=1)
    return 1 - delta <= value <= 1 + delta, min(abs(value - 1 - delta), abs(value - 1 + delta))


@SETTINGS
@given(
    measure=st.sampled_from(["rd", "rr", "rc", "nonparity"]),
    delta=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 30),
)
def test_rows_hold_exactly_when_the_measure_is_delta_fair(
    measure: str, delta: float, seed: int, n: int
) -> None:
    rng = np.random.default_rng(seed)
    y = rng.random(n) ** rng.uniform(0.2, 3.0)
    s = np.zeros(n, int)
    s[rng.permutation(n)[: rng.integers(1, n)]] = 1
    mean_u = y[s == 0].mean()
    assume(0.01 < mean_u < 0.99)  # the ratio measures need a non-degenerate denominator
    fair, margin = _within(measure, y, s, delta)
    assume(margin > 1e-9)
    rows = fairness_constraints(
        _empty_model(n),
        f"{measure}<={delta!r}",
        protected=np.flatnonzero(s == 1),
        unprotected=np.flatnonzero(s == 0),
    )
    assert rows.n_constraints == 2
    assert not rows.equality.any()
    assert (rows.violation(y).max() <= 1e-12) == fair


def test_rows_are_the_papers_rows_divided_by_g1_g2() -> None:
    # Paper §4.2: (g2 ... g2, -g1 ... -g1) y >= -g1 g2 delta for RD <= delta.
    rows = fairness_constraints(
        _empty_model(5), "rd<=0.1", protected=[0, 1], unprotected=[2, 3, 4]
    )
    g1, g2 = 2, 3
    paper = np.array([g2, g2, -g1, -g1, -g1]) / (g1 * g2)
    np.testing.assert_allclose(rows.coefficients.toarray()[0], -paper)  # RD <= delta
    np.testing.assert_allclose(rows.coefficients.toarray()[1], paper)  # RD >= -delta
    np.testing.assert_allclose(rows.constants, [-0.1, -0.1])
    assert rows.labels == ("rd<=0.1 (upper)", "rd<=0.1 (lower)")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"protected": [], "unprotected": [1]}, "protected group is empty"),
        ({"protected": [0], "unprotected": [0, 1]}, "share target atoms"),
        ({"protected": [0], "unprotected": [1, 9]}, r"outside \[0, 4\)"),
        ({"protected": [0, 0], "unprotected": [1]}, "more than once"),
        ({"protected": [0.5], "unprotected": [1]}, "integer variable indices"),
    ],
)
def test_bad_groups_are_rejected(kwargs: dict[str, list[float]], match: str) -> None:
    with pytest.raises(InvalidDataError, match=match):
        fairness_constraints(_empty_model(4), "rd<=0.1", **kwargs)  # type: ignore[arg-type]


def test_spec_of_wrong_type_is_rejected() -> None:
    with pytest.raises(InvalidParameterError, match="FairnessSpec"):
        fairness_constraints(_empty_model(2), 0.1, protected=[0], unprotected=[1])  # type: ignore[arg-type]


# --- fair MAP inference --------------------------------------------------------------------


def _biased_model(n_p: int, n_u: int) -> GroundModel:
    """Observed bias: protected atoms are pushed to 0.2, unprotected ones to 0.9."""
    n = n_p + n_u
    target = np.r_[np.full(n_p, 0.2), np.full(n_u, 0.9)]
    eye = np.eye(n)
    pots = HingePotentials.build(
        np.vstack([eye, -eye]),
        np.r_[-target, target],
        np.r_[np.linspace(1.0, 2.0, n), np.linspace(2.0, 1.0, n)],
        np.ones(2 * n, bool),
        n_variables=n,
    )
    variables = pd.DataFrame({"predicate": ["ok"] * n, "args": [(str(i),) for i in range(n)]})
    return GroundModel(variables, pots, LinearConstraints.empty(n))


@pytest.mark.parametrize("spec", ["rd<=0.1", "rr<=0.2", "rc<=0.3", "nonparity<=0.0"])
def test_fair_map_meets_the_constraint_and_matches_exact(spec: str) -> None:
    model = _biased_model(4, 6)
    p, u = np.arange(4), np.arange(4, 10)
    fair = model.with_constraints(fairness_constraints(model, spec, protected=p, unprotected=u))
    admm = admm_map(fair, eps_abs=1e-9, eps_rel=1e-8, max_iter=100_000)
    exact = exact_map(fair)
    assert admm.max_violation < 1e-5
    assert admm.objective == pytest.approx(exact.objective, rel=1e-4, abs=1e-6)
    assert admm.objective > admm_map(model, eps_abs=1e-9, eps_rel=1e-8).objective
    s = np.r_[np.ones(4, int), np.zeros(6, int)]
    fair_ok, _ = _within(
        parse_fairness(spec).measure, admm.values, s, parse_fairness(spec).delta + 1e-4
    )
    assert fair_ok


# --- priors --------------------------------------------------------------------------------


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 40))
def test_equalized_odds_prior_equals_the_metric_on_binary_predictions(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, n)
    y_pred = rng.integers(0, 2, n)
    s = rng.integers(0, 2, n)
    cells = {(g, y) for g, y in zip(s, y_true, strict=True)}
    assume(len(cells) == 4)  # every (group, label) cell is populated, so the metric is defined
    value = equalized_odds_prior(
        y_pred, y_true, protected=np.flatnonzero(s == 1), unprotected=np.flatnonzero(s == 0)
    )
    assert value == pytest.approx(equalized_odds_diff_sum(y_true, y_pred, s), abs=1e-12)


def test_equalized_odds_prior_is_soft_and_skips_empty_cells() -> None:
    values = np.array([0.9, 0.2, 0.6, 0.3, 0.1])
    truth = np.array([1, 0, 1, 0, 0])
    # positives: 0.9 vs 0.6; negatives: 0.2 vs mean(0.3, 0.1) = 0.2.
    assert equalized_odds_prior(values, truth, protected=[0, 1], unprotected=[2, 3, 4]) == (
        pytest.approx(0.3)
    )
    # the protected group has no positive: only the negative term (0.2 vs 0.3) counts.
    assert equalized_odds_prior(values, truth, protected=[1], unprotected=[2, 3]) == (
        pytest.approx(0.1)
    )


def test_overestimation_prior_equals_the_metric() -> None:
    rng = np.random.default_rng(0)
    n = 40
    truth, values = rng.random(n), rng.random(n)
    items = rng.integers(0, 5, n)
    p, u = np.arange(0, n, 2), np.arange(1, n, 2)
    s = np.arange(n) % 2 == 0
    expected = overestimation_unfairness(truth, values, s.astype(int), items, protected=1)
    got = overestimation_prior(values, truth, protected=p, unprotected=u, items=items)
    assert got == pytest.approx(expected)
    prior = FairnessPrior("overestimation", truth, p, u, alpha=0.5, items=items)
    assert prior(values) == pytest.approx(0.5 * expected)
    assert prior.name == "0.5*overestimation"


def test_prior_errors() -> None:
    with pytest.raises(InvalidParameterError, match="needs items"):
        FairnessPrior("overestimation", [0, 1], [0], [1])
    with pytest.raises(InvalidParameterError, match="measure must be"):
        FairnessPrior("parity", [0, 1], [0], [1])  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="alpha"):
        FairnessPrior("equalized_odds", [0, 1], [0], [1], alpha=-1.0)
    with pytest.raises(InvalidDataError, match="overlap"):
        equalized_odds_prior([0.1, 0.2], [0, 1], protected=[0, 1], unprotected=[1])
    with pytest.raises(InvalidDataError, match="entries"):
        equalized_odds_prior([0.1, 0.2], [0, 1, 1], protected=[0], unprotected=[1])
    with pytest.raises(InvalidDataError, match="non-empty"):
        overestimation_prior([0.1, 0.2], [0, 1], protected=[], unprotected=[1], items=[0, 0])
