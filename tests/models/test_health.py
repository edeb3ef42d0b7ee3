"""Model-output checks: probabilities no classifier gives are refused; one class is named."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

from fairacq.exceptions import DegenerateModelError
from fairacq.models import check_probabilities, is_one_class, one_class_problem, predict_scores

_PROBS = arrays(np.float64, st.integers(1, 40), elements=st.floats(0, 1))


@given(_PROBS)
def test_valid_two_columns_give_the_second_column(p):
    proba = np.column_stack([1 - p, p])
    np.testing.assert_array_equal(check_probabilities(proba), p)


@given(_PROBS)
def test_one_dimensional_scores_pass_through(p):
    np.testing.assert_array_equal(check_probabilities(p), p)


@given(_PROBS, st.integers(0, 39), st.sampled_from([np.nan, np.inf, -np.inf]))
def test_any_non_number_is_refused(p, at, bad):
    p = p.copy()
    p[at % p.size] = bad
    with pytest.raises(DegenerateModelError, match="not numbers"):
        check_probabilities(np.column_stack([1 - p, p]))


@pytest.mark.parametrize("bad", [-0.2, 1.5, 7.0])
def test_values_outside_unit_interval_are_refused(bad):
    with pytest.raises(DegenerateModelError, match="outside 0 to 1"):
        check_probabilities([0.2, bad, 0.9])


def test_rounding_outside_the_interval_is_clipped():
    out = check_probabilities([-1e-9, 1 + 1e-9, 0.5])
    np.testing.assert_array_equal(out, [0.0, 1.0, 0.5])


@pytest.mark.parametrize(("columns", "words"), [(1, "one class only"), (3, "binary")])
def test_wrong_column_count_is_refused(columns, words):
    with pytest.raises(DegenerateModelError, match=words):
        check_probabilities(np.full((4, columns), 1 / columns))


def test_three_dimensional_output_is_refused():
    with pytest.raises(DegenerateModelError, match="shape"):
        check_probabilities(np.zeros((2, 2, 2)))


class _NanModel:
    def predict_proba(self, X):
        return np.full((len(X), 2), np.nan)


def test_predict_scores_refuses_a_nan_model():
    with pytest.raises(DegenerateModelError, match="diverged"):
        predict_scores(_NanModel(), np.zeros((3, 2)))


def test_predict_scores_of_a_fitted_model_is_unchanged():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    y = (X[:, 0] > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    np.testing.assert_array_equal(predict_scores(model, X), model.predict_proba(X)[:, 1])


def test_a_constant_model_is_one_class():
    X, y = np.zeros((10, 1)), np.array([0] * 7 + [1] * 3)
    pred = DummyClassifier().fit(X, y).predict(X)
    assert is_one_class(pred)
    problem = one_class_problem(pred, where="validation rows")
    assert problem is not None
    assert "predicts 0 for every one of the validation rows" in problem
    assert "fair" in problem


@given(arrays(np.int64, st.integers(1, 30), elements=st.integers(0, 1)))
def test_one_class_exactly_when_a_single_value(pred):
    assert is_one_class(pred) == (len(np.unique(pred)) == 1)
    assert (one_class_problem(pred) is None) == (len(np.unique(pred)) > 1)


def test_empty_predictions_are_not_one_class():
    assert not is_one_class(np.array([], dtype=int))
    assert one_class_problem([]) is None


def test_string_predictions_are_named_as_they_are():
    assert "predicts yes" in (one_class_problem(np.array(["yes", "yes"])) or "")
