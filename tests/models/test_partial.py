from __future__ import annotations

import numpy as np
import pytest

from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError
from fairacq.models import available_learners, learner_spec, make_learner, partial_update

# a 10-unit MLP on a few hundred toy rows stops before it converges; that is not under test
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _fitted(name="mlp"):
    ds = load_toy(400, random_state=0)
    X, y = ds.to_numpy(), ds.y
    return (
        make_learner(name, random_state=0, **({"max_iter": 50} if name == "mlp" else {})).fit(
            X[:200], y[:200]
        ),
        X,
        y,
    )


def test_update_learns_new_rows_and_leaves_the_original_alone():
    model, X, y = _fitted()
    before = model.predict_proba(X)
    coefs = [c.copy() for c in model[-1].coefs_]
    mean = model[0].mean_.copy()
    updated = partial_update(model, X[200:], y[200:])
    np.testing.assert_array_equal(model.predict_proba(X), before)
    for a, b in zip(coefs, model[-1].coefs_, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(updated.predict_proba(X), before)
    np.testing.assert_array_equal(updated[0].mean_, mean)  # the scaler keeps its first fit


def test_update_is_deterministic_and_accepts_one_class():
    model, X, y = _fitted()
    rows = np.flatnonzero(y[200:] == 1)[:20] + 200
    a = partial_update(model, X[rows], y[rows]).predict_proba(X)
    b = partial_update(model, X[rows], y[rows]).predict_proba(X)
    np.testing.assert_array_equal(a, b)


def test_update_on_a_bare_classifier():
    ds = load_toy(300, random_state=0)
    X, y = ds.to_numpy(), ds.y
    clf = make_learner("mlp", random_state=0, scale=False, max_iter=30).fit(X[:150], y[:150])
    assert partial_update(clf, X[150:], y[150:]) is not clf


def test_partial_fit_flag_matches_the_classifier():
    for name in available_learners():
        has = hasattr(make_learner(name, scale=False), "partial_fit")
        assert learner_spec(name).partial_fit == has, name


def test_learner_without_partial_fit_says_what_to_do():
    model, X, y = _fitted("lr")
    with pytest.raises(InvalidParameterError, match=r"no partial_fit.*refit='scratch'"):
        partial_update(model, X[200:], y[200:])
