"""Our grounding and ADMM against the reference PSL (pslpython) on the paper-review models.

The rule sets are the manually written models paper 004 (§5.1) compares with: Sensitive-PSL
(the relational rules plus a rule on the sensitive attribute) and Fair-PSL (Farnadi et al.
2018: the relational rules, with a risk-difference constraint in MAP inference), as the
paper's authors wrote them (``paperReview_baseline.groovy`` of ``yzhan202/fairness-A3SL``;
``acceptable`` is the paper's ``highQuality``). The data is one sample of the paper-review
generator. PSL runs with tight ADMM tolerances and no weight normalisation. Both engines
must build the same objective (ours evaluated at PSL's state equals PSL's objective) and reach
the same optimum (1e-3 relative). The paper's rule sets have flat directions, so their MAP
state is not unique; the values themselves (within 1e-3) are compared after adding weak
squared negative priors, which make the objective strictly convex.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fairacq.data.relational._paper_review import paper_review_data
from fairacq.data.relational._relational_data import RelationalData
from fairacq.data.synthetic import make_paper_review
from fairacq.relational.bridge import _pslpython as bridge
from fairacq.relational.hlmrf._database import Database
from fairacq.relational.hlmrf._grounding import ground
from fairacq.relational.inference._admm import admm_map
from fairacq.relational.inference._fairness import fairness_constraints
from fairacq.relational.psl._parser import parse_rules
from tests.relational.psl_available import needs_psl

pytestmark = needs_psl

RELATIONAL_RULES = [
    "5.0: acceptable(P) & reviews(R, P) -> positiveReviews(R, P) ^2",
    "5.0: !acceptable(P) & reviews(R, P) -> !positiveReviews(R, P) ^2",
    "5.0: student(A) & submits(A, P) & reviews(R, P) -> !positiveReviews(R, P) ^2",
    "5.0: !student(A) & submits(A, P) & reviews(R, P) -> positiveReviews(R, P) ^2",
    "5.0: positiveReviews(R1, P) & positiveReviews(R2, P) -> positiveSummary(P) ^2",
    "5.0: reviews(R, P) & !positiveReviews(R, P) -> !positiveSummary(P) ^2",
]
SENSITIVE_RULE = (
    "5.0: student(A) & submits(A, P) & affiliation(A, I) & highRank(I) & reviews(R, P)"
    " -> positiveReviews(R, P) ^2"
)
ADMM = {"eps_abs": 1e-7, "eps_rel": 1e-6, "max_iter": 200_000}


PRIORS = ["0.1: !positiveReviews(R, P) ^2", "0.1: !positiveSummary(P) ^2"]


@pytest.fixture(scope="module")
def data() -> RelationalData:
    """One sample of the paper-review network (100 papers, 30 reviewers)."""
    return paper_review_data(make_paper_review(random_state=0))


def _rules(model_name: str, *, priors: bool) -> list[str]:
    extra = [SENSITIVE_RULE] if model_name == "sensitive-psl" else []
    return RELATIONAL_RULES + extra + (PRIORS if priors else [])


def _check_same_problem(model: Any, psl: bridge.PslResult) -> None:
    assert psl.violated_constraints == 0
    assert psl.objective is not None
    # Same function: our objective at PSL's state is PSL's objective (values are float32).
    assert model.objective(psl.to_vector(model)) == pytest.approx(psl.objective, rel=1e-4)


@pytest.mark.parametrize("model_name", ["sensitive-psl", "fair-psl"])
def test_objective_of_the_paper_models_matches_psl(data: RelationalData, model_name: str) -> None:
    # The rule sets as written have flat directions (e.g. a summary whose reviews are both
    # 0.5 is optimal anywhere in [0, 0.5]), so only the optimal objective is unique.
    rules = _rules(model_name, priors=False)
    model = ground(parse_rules("\n".join(rules)), Database.from_data(data))
    assert model.n_variables == sum(len(t) for t in data.targets.values())
    ours = admm_map(model, **ADMM)
    psl = bridge.run_psl(rules, data.observations, data.targets, data.truth)
    _check_same_problem(model, psl)
    assert ours.objective == pytest.approx(psl.objective, rel=1e-3)
    assert ours.max_violation <= 1e-6


@pytest.mark.parametrize("model_name", ["sensitive-psl", "fair-psl"])
def test_map_state_with_priors_matches_psl(data: RelationalData, model_name: str) -> None:
    # Squared negative priors on every target make the objective strictly convex, so the
    # MAP state is unique and the values themselves can be compared.
    rules = _rules(model_name, priors=True)
    model = ground(parse_rules("\n".join(rules)), Database.from_data(data))
    ours = admm_map(model, **ADMM)
    psl = bridge.run_psl(rules, data.observations, data.targets)
    _check_same_problem(model, psl)
    np.testing.assert_allclose(ours.values, psl.to_vector(model), atol=1e-3)
    assert ours.objective == pytest.approx(psl.objective, rel=1e-3)


@pytest.mark.parametrize("delta", [0.1, 0.01])
def test_fair_psl_with_risk_difference_matches_psl(data: RelationalData, delta: float) -> None:
    spec = f"rd<={delta}"
    rules = _rules("fair-psl", priors=True)
    model = ground(parse_rules("\n".join(rules)), Database.from_data(data))
    protected, unprotected = data.group_variables(model)
    fair = model.with_constraints(
        fairness_constraints(model, spec, protected=protected, unprotected=unprotected)
    )
    ours = admm_map(fair, **ADMM)
    psl_rules, groups = bridge.psl_fairness(
        "positiveSummary", spec, protected=data.protected, unprotected=data.unprotected
    )
    psl = bridge.run_psl(rules + psl_rules, {**data.observations, **groups}, data.targets)
    _check_same_problem(fair, psl)
    psl_values = psl.to_vector(fair)
    np.testing.assert_allclose(ours.values, psl_values, atol=1e-3)
    assert ours.objective == pytest.approx(psl.objective, rel=1e-3)
    assert ours.max_violation <= 1e-4
    # Unconstrained, RD is about 0.21 on this sample, so both deltas bind: |RD| = delta.
    for values in (ours.values, psl_values):
        rd = values[unprotected].mean() - values[protected].mean()
        assert abs(rd) == pytest.approx(delta, abs=1e-3)
