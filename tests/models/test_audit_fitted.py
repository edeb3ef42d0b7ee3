"""``audit(..., refit=False)`` and ``audit_predictions``: audit what the user already has."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from fairacq.data import load_toy
from fairacq.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    ResultWarning,
)
from fairacq.models import audit, audit_predictions, make_learner, predict_scores


def _people(n: int = 500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n, p=[0.45, 0.55])
    job = rng.choice(["clerk", "nurse", "driver"], n)
    income = rng.normal(30, 8, n)
    score = (income - 30) / 8 + 0.6 * (sex == "M") + rng.normal(0, 0.8, n)
    return pd.DataFrame(
        {"income": income, "job": job, "sex": sex, "hired": np.where(score > 0, "yes", "no")}
    )


def test_refit_false_scores_every_row_with_the_model_as_it_is():
    ds = load_toy(400, random_state=1)
    model = make_learner("lr", random_state=0).fit(ds.to_numpy(), ds.y)
    coef = model[-1].coef_.copy()
    report = audit(ds, model, refit=False)
    assert (report.n_train, report.n_test, report.source) == (0, 400, "fitted")
    expected = (predict_scores(model, ds.to_numpy()) >= 0.5).astype(int)
    np.testing.assert_array_equal(report.y_pred, expected)
    np.testing.assert_array_equal(model[-1].coef_, coef)  # not refitted
    assert report.metrics["accuracy"] == pytest.approx((expected == ds.y).mean())
    assert report.to_dict()["source"] == "fitted"


def test_refit_false_takes_raw_rows_the_pipeline_was_fitted_on():
    people = _people()
    X = people[["income", "job"]]
    pipe = make_pipeline(
        make_column_transformer((OneHotEncoder(), ["job"]), (StandardScaler(), ["income"])),
        LogisticRegression(),
    ).fit(X, people["hired"])
    report = audit(X, pipe, y=people["hired"], sensitive_features=people["sex"],
                   positive="yes", refit=False)  # fmt: skip
    hired = pipe.predict(X) == "yes"
    np.testing.assert_array_equal(report.y_pred, hired.astype(int))
    assert report.sensitive == ("sex",)
    assert report.groups["group"].tolist() == ["F", "M"]


def test_refit_false_picks_the_favourable_column_by_class():
    people = _people()
    X = people[["income"]]
    model = LogisticRegression().fit(X, people["hired"])  # classes_ = ["no", "yes"]
    as_yes = audit(X, model, y=people["hired"], sensitive_features=people["sex"],
                   positive="yes", refit=False)  # fmt: skip
    as_no = audit(X, model, y=people["hired"], sensitive_features=people["sex"],
                  positive="no", refit=False)  # fmt: skip
    np.testing.assert_array_equal(as_yes.y_pred, (model.predict(X) == "yes").astype(int))
    np.testing.assert_array_equal(as_no.y_pred, (model.predict(X) == "no").astype(int))
    assert as_yes.metrics["accuracy"] == pytest.approx(as_no.metrics["accuracy"])


def test_refit_false_refuses_an_unfitted_model_in_one_line():
    with pytest.raises(NotFittedError, match="not fitted yet") as info:
        audit(load_toy(200), LogisticRegression(), refit=False)
    assert "refit=True" in str(info.value)
    assert "\n" not in str(info.value)


def test_refit_false_refuses_a_name_and_rows_of_another_shape():
    ds = load_toy(200)
    with pytest.raises(InvalidParameterError, match="refit=False audits a fitted classifier"):
        audit(ds, "lr", refit=False)
    model = LogisticRegression().fit(ds.to_numpy()[:, :1], ds.y)
    with pytest.raises(InvalidDataError, match="cannot score these rows"):
        audit(ds, model, refit=False)
    fitted = LogisticRegression().fit(ds.to_numpy(), ds.y)
    with pytest.raises(InvalidDataError, match="scored 190 rows but y has 200"):
        audit(ds.to_numpy()[:190], fitted, y=ds.y, sensitive_features=ds.s, refit=False)


def test_audit_predictions_decisions_from_label_values_and_scores():
    people = _people()
    scores = np.clip((people["income"] - 10) / 40, 0, 1)
    from_scores = audit_predictions(
        people["hired"], scores=scores, sensitive_features=people["sex"], positive="yes",
        threshold=0.6,
    )  # fmt: skip
    decided = np.where(scores >= 0.6, "yes", "no")
    from_labels = audit_predictions(
        people["hired"], decided, sensitive_features=people["sex"], positive="yes"
    )
    np.testing.assert_array_equal(from_scores.y_pred, (scores >= 0.6).astype(int))
    assert from_scores.metrics == from_labels.metrics
    assert from_scores.groups["auc"].notna().all()
    assert from_labels.groups["auc"].isna().all()
    assert (from_labels.source, from_labels.n_train) == ("predictions", 0)


def test_audit_predictions_one_class_warns_with_the_shared_words():
    people = _people(300)
    with pytest.warns(ResultWarning, match="predicts 0 for every one of the rows") as caught:
        report = audit_predictions(people["hired"], np.zeros(300, dtype=int),
                                   sensitive_features=people["sex"], positive="yes")  # fmt: skip
    assert report.one_class
    assert report.to_dict()["one_class"] is True
    assert any("do not read it as fair" in str(w.message) for w in caught)
    assert report.warnings[0].startswith("the model predicts 0")


@pytest.mark.parametrize(
    ("y_pred", "scores", "fragment"),
    [
        ([1, 0, np.nan, 1], None, "1 missing value(s) (rows [2])"),
        ([0.2, 0.9, 0.4, 0.7], None, "Pass them as scores="),
        ([0, 1, 2, 1], None, "holds 0, 1, 2"),
        (None, [0.1, 1.4, 0.3, 0.2], "from 0.1 to 1.4, outside 0 to 1"),
        (None, [0.1, "high", 0.3, 0.2], "holds text (high)"),
        ([1, 0, 1], None, "differ in length"),
    ],
)
def test_audit_predictions_refuses_what_no_model_predicts(y_pred, scores, fragment):
    with pytest.raises(InvalidDataError) as info:
        audit_predictions([1, 0, 1, 0], y_pred, scores=scores, sensitive_features=list("aabb"))
    assert fragment in str(info.value)


def test_audit_predictions_needs_something_to_audit():
    with pytest.raises(InvalidParameterError, match=r"decisions \(y_pred=\.\.\.\), its scores"):
        audit_predictions([1, 0], sensitive_features=["a", "b"])
