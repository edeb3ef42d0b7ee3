"""End-to-end PSL pipeline: ground, learn weights, fair MAP inference, evaluate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.data.synthetic import make_paper_review
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.relational import (
    Database,
    MetricsWarning,
    RelationalData,
    apply_fairness,
    fairness_rows,
    ground,
    make_psl_model,
    paper_review_data,
    parse_rules,
    run_pipeline,
)

RULES = ["5: risky(U) -> recid(U) ^2", "5: !recid(U) ^2"]


def _toy(risk: list[float], truth: list[float], n_protected: int) -> RelationalData:
    users = [f"u{i}" for i in range(len(risk))]
    frame = pd.DataFrame({"user": users})
    return RelationalData(
        observations={"risky": frame.assign(value=risk)},
        targets={"recid": frame},
        truth={"recid": frame.assign(value=truth)},
        protected=frame.iloc[:n_protected].reset_index(drop=True),
        unprotected=frame.iloc[n_protected:].reset_index(drop=True),
        metadata={"fairness_predicate": "recid", "favourable": 0, "task": "classification"},
    )


@pytest.fixture(scope="module")
def review_pair():
    train = paper_review_data(make_paper_review(random_state=1))
    test = paper_review_data(make_paper_review(random_state=2))
    return train, test


def test_fair_psl_meets_delta_and_sensitive_psl_does_not(review_pair):
    train, test = review_pair
    fast = {"n_iter": 8}
    sens = make_psl_model("paper-review-sensitive")
    fair = make_psl_model("paper-review-fair")
    s_out = run_pipeline(sens.rules, train, test, weight_learning=fast, random_state=0)
    f_out = run_pipeline(
        fair.rules, train, test, fairness=fair.fairness, weight_learning=fast, random_state=0
    )
    assert abs(f_out.metrics["rd"]) <= 0.1 + 1e-4
    assert abs(s_out.metrics["rd"]) > 0.1  # the data are biased; no constraint, no parity
    assert f_out.map_result.max_violation < 1e-4
    assert f_out.learning is not None
    assert f_out.learning.n_iter == 8
    assert 0.5 < f_out.metrics["auc_roc"] <= 1.0
    assert set(f_out.seconds) == {"ground_train", "learn", "ground_test", "infer", "evaluate"}
    summary = f_out.summary()
    assert summary["fairness"] == ["rd<=0.1"]
    assert len(summary["rules"]) == len(summary["weights"]) == len(fair.parse())


def test_rules_carry_the_learned_weights_and_parse_back(review_pair):
    train, test = review_pair
    out = run_pipeline(
        make_psl_model("paper-review-fair").rules,
        train,
        test,
        weight_learning={"n_iter": 3},
        random_state=0,
    )
    reparsed = parse_rules("\n".join(out.rules))
    np.testing.assert_allclose([r.weight for r in reparsed], out.weights, atol=1e-6)
    # learned on train, so the weights moved away from 5.0
    assert not np.allclose(out.weights, 5.0)


def test_given_weights_skip_learning_and_are_checked():
    data = _toy([1, 1, 0, 1, 0, 0], [1, 1, 0, 1, 0, 0], 3)
    out = run_pipeline(RULES, data, data, weights=[2.0, 1.0])
    assert out.learning is None
    np.testing.assert_allclose(out.weights, [2.0, 1.0])
    # squared hinges: y = w1 x / (w1 + w2) = 2/3 where risky, 0 elsewhere
    np.testing.assert_allclose(out.predictions["value"], [2 / 3, 2 / 3, 0, 2 / 3, 0, 0], atol=1e-4)
    no_train = run_pipeline(RULES, None, data)
    np.testing.assert_allclose(no_train.weights, [5.0, 5.0])
    with pytest.raises(InvalidParameterError, match="one weight per weighted rule"):
        run_pipeline(RULES, data, data, weights=[1.0])


def test_missing_training_truth_and_empty_rules_are_reported():
    data = _toy([1, 0, 1, 0], [1, 0, 1, 0], 2)
    partial = RelationalData(
        observations=data.observations,
        targets=data.targets,
        truth={"recid": data.truth["recid"].iloc[:2]},
        protected=data.protected,
        unprotected=data.unprotected,
        metadata=data.metadata,
    )
    with pytest.raises(InvalidDataError, match="have no truth value"):
        run_pipeline(RULES, partial, data)
    with pytest.raises(InvalidDataError, match="no rule"):
        run_pipeline("# only a comment", None, data)


def test_fair_learning_imposes_rows_during_weight_learning():
    data = _toy([1, 1, 1, 0, 0, 0], [1, 1, 1, 0, 0, 0], 3)
    with pytest.warns(MetricsWarning, match="equal_odds_neg, equal_odds_pos undefined"):
        out = run_pipeline(
            RULES,
            data,
            data,
            fairness="rd<=0.2",
            fair_learning=True,
            weight_learning={"n_iter": 3},
        )
    assert any("undefined" in w for w in out.warnings)
    assert out.summary()["metrics"]["equal_odds_pos"] is None
    assert out.learning is not None
    assert out.learning.model.constraints.n_constraints == 2
    assert abs(out.metrics["rd"]) <= 0.2 + 1e-4


def test_apply_fairness_with_no_spec_is_the_identity():
    data = _toy([1, 0, 1, 0], [1, 0, 1, 0], 2)
    model = ground(parse_rules("\n".join(RULES)), Database.from_data(data))
    assert apply_fairness(model, data, ()) is model
    rows = fairness_rows(model, data, ("rd<=0.1", "rr<=0.2"))
    assert rows.n_constraints == 4


@settings(max_examples=15, deadline=None)
@given(
    risk=st.lists(st.sampled_from([0.0, 0.3, 0.7, 1.0]), min_size=6, max_size=10),
    delta=st.floats(0.0, 0.5),
)
def test_fair_map_meets_any_delta(risk, delta):
    n_protected = len(risk) // 2
    data = _toy(risk, risk, n_protected)
    out = run_pipeline(RULES, None, data, fairness=f"rd<={delta}", evaluate=False)
    values = out.predictions["value"].to_numpy()
    gap = values[:n_protected].mean() - values[n_protected:].mean()
    assert abs(gap) <= delta + 1e-4
