"""``reveal_table`` with a stub agent: raw or encoded columns, ids, blanks, errors."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fairacq.data import TableEncoder, load_toy
from fairacq.exceptions import InvalidDataError
from fairacq.features import DadiModel, reveal_table
from fairacq.features._tables import encoder_from_groups
from fairacq.features.dadi._diagnostics import exploration_warning, one_class_warning
from fairacq.features.dadi._qlearning import JointConfig


class _Agent:
    """Reveals ``a`` for everyone and ``b`` when a > 0; P(y=1) = a / 10."""

    def __init__(self):
        self.columns_ = ("a", "b=x", "b=y")
        self.feature_groups_ = {"a": ["a"], "b": ["b=x", "b=y"]}

    def acquire_many(self, X):
        assert list(X.columns) == list(self.columns_)
        out = []
        for a in X["a"].to_numpy(dtype=float):
            features = ("a", "b") if a > 0 else ("a",)
            out.append(SimpleNamespace(features=features, proba=a / 10))
        return out


_ENCODER = TableEncoder().fit(pd.DataFrame({"a": [0.0, 1.0], "b": ["x", "y"]}))


def test_encoded_columns_kept_with_row_numbers():
    frame = pd.DataFrame(
        {"a": [0.0, 7.0], "b=x": [1.0, 0.0], "b=y": [0.0, 1.0], "name": ["x", "y"]}
    )
    out = reveal_table(_Agent(), frame)
    assert list(out.columns) == [
        "row",
        "a",
        "b=x",
        "b=y",
        "name",
        "revealed",
        "n_revealed",
        "proba",
        "prediction",
    ]
    assert out["row"].tolist() == [0, 1]
    assert out["revealed"].tolist() == ["a", "a,b"]
    assert out["n_revealed"].tolist() == [1, 2]
    assert out["prediction"].tolist() == [0, 1]
    assert out.loc[0, "b=x"] == 1.0  # kept as given
    blanked = reveal_table(_Agent(), frame, blank_unrevealed=True)
    assert np.isnan(blanked.loc[0, "b=x"])
    assert blanked.loc[1, "b=y"] == 1.0
    assert blanked.loc[0, "name"] == "x"


def test_raw_columns_through_the_encoder_with_an_id():
    frame = pd.DataFrame({"who": ["p", "q", "r"], "a": [3, 0, 2], "b": ["y", "x", "z"]})
    model = DadiModel(_Agent(), _ENCODER)
    with pytest.warns(UserWarning, match=r"people.csv: 1 value\(s\) in categories"):
        out = reveal_table(model, frame, id_column="who", source="people.csv")
    assert list(out.columns)[:3] == ["who", "a", "b"]
    assert out["who"].tolist() == ["p", "q", "r"]
    assert out["revealed"].tolist() == ["a,b", "a", "a,b"]
    assert model.encoder.unknown_counts_ == {"b": 1}
    blanked = reveal_table(model, frame.iloc[:2], id_column="who", blank_unrevealed=True)
    assert blanked["b"].tolist()[0] == "y"
    assert pd.isna(blanked["b"].tolist()[1])


def test_a_group_column_may_come_as_sensitive_prefix():
    frame = pd.DataFrame({"a": [1.0], "sensitive:b": ["x"]})
    out = reveal_table(_Agent(), frame, encoder=_ENCODER)
    assert out["revealed"].tolist() == ["a,b"]


@pytest.mark.parametrize(
    ("frame", "kwargs", "fragment"),
    [
        (pd.DataFrame({"a": [1.0]}), {}, "no column 'b', a feature the model was trained on"),
        (pd.DataFrame({"a": ["x"], "b": ["x"]}), {}, "holds text"),
        (pd.DataFrame({"a": [1.0, np.nan], "b": ["x", "y"]}), {}, "row 1, 1 in all"),
        (pd.DataFrame({"a": [1.0], "b": ["x"], "row": [5]}), {}, "--id COL"),
        (pd.DataFrame({"a": [1.0], "b": ["x"]}), {"id_column": "who"}, "no column 'who'"),
        (pd.DataFrame({"a": [1, 2], "b": ["x", "y"], "k": [1, 1]}), {"id_column": "k"}, "k"),
        (pd.DataFrame({"a": [1.0], "b": ["x"], "proba": [0.3]}), {}, "'proba'"),
    ],
)
def test_reveal_table_errors(frame, kwargs, fragment):
    with pytest.raises(InvalidDataError, match=fragment) as info:
        reveal_table(_Agent(), frame, encoder=_ENCODER, source="people.csv", **kwargs)
    assert str(info.value).startswith("people.csv")


def test_without_an_encoder_the_encoded_columns_are_needed():
    with pytest.raises(InvalidDataError, match="has no encoder of raw columns"):
        reveal_table(_Agent(), pd.DataFrame({"a": [1.0], "b": ["x"]}))


def test_encoder_from_groups():
    toy = load_toy()
    encoder = encoder_from_groups(toy)
    assert encoder is not None
    assert encoder.categories_ == {"region": ["north", "south", "west"]}
    raw = pd.DataFrame({c: [1.0] for c in ("x1", "x2", "x3", "x4")} | {"region": ["west"]})
    assert encoder.transform(raw).columns.tolist() == list(toy.X.columns)
    odd = toy.X.rename(columns={"region=west": "west"})
    groups = {**toy.feature_groups, "region": ["region=north", "region=south", "west"]}
    from fairacq.data import FairDataset

    assert encoder_from_groups(FairDataset(odd, toy.y, toy.s, feature_groups=groups)) is None


def test_diagnostic_messages():
    assert one_class_warning(np.zeros(4, dtype=int), "test", disparity=0.0).startswith(
        "one-class classifier: the classifier predicts 0 for all 4 test rows"
    )
    assert one_class_warning(np.array([0, 1]), "test") is None
    config = JointConfig(epsilon_decay_iter=100)
    assert "epsilon is still 0.973" in exploration_warning(config, 3)
    assert exploration_warning(config, 100) is None
    assert exploration_warning(config, 0) is None
    assert exploration_warning(JointConfig(epsilon_start=0.2, epsilon_end=0.2), 3) is None
