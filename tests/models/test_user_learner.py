"""make_learner with a user's estimator, a Pipeline or a module:Class path."""

from __future__ import annotations

import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError
from fairacq.models import describe_learner, is_learner, make_learner


def test_estimator_is_cloned_and_seeded():
    user = RandomForestClassifier(n_estimators=5)
    model = make_learner(user, random_state=3)
    assert model is not user
    assert user.random_state is None
    assert model.random_state is not None
    assert make_learner(user, random_state=3).random_state == model.random_state


def test_pipeline_is_accepted_and_fits():
    pipe = make_pipeline(StandardScaler(), LogisticRegression(C=0.1))
    ds = load_toy()
    model = make_learner(pipe, random_state=0).fit(ds.to_numpy(), ds.y)
    assert model.predict_proba(ds.to_numpy()).shape == (len(ds), 2)
    assert describe_learner(pipe) == "Pipeline(StandardScaler, LogisticRegression)"


def test_import_path_with_params():
    model = make_learner("sklearn.ensemble:RandomForestClassifier", random_state=0, n_estimators=7)
    assert isinstance(model, RandomForestClassifier)
    assert model.n_estimators == 7
    assert is_learner("sklearn.tree:DecisionTreeClassifier")
    assert is_learner("lr")
    assert not is_learner("nope")
    assert not is_learner(object())


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("nosuchmodule_xyz:Model", "Cannot import module 'nosuchmodule_xyz'"),
        ("sklearn.ensemble:NoSuchForest", "has no 'NoSuchForest'"),
        ("sklearn.preprocessing:StandardScaler", "has no fit/predict_proba"),
    ],
)
def test_import_path_errors(path, message):
    with pytest.raises(InvalidParameterError, match=message):
        make_learner(path)
