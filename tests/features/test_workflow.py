"""``reveal_table``: one episode per person, unrevealed values missing (stub agent)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fairacq.exceptions import InvalidDataError
from fairacq.features import reveal_table


class _Agent:
    """Reveals ``a`` for everyone and ``b`` when a > 0; P(y=1) = a / 10."""

    def __init__(self):
        self.columns_ = ("a", "b1", "b2")
        self.feature_groups_ = {"a": ["a"], "b": ["b1", "b2"]}

    def acquire(self, row):
        features = ("a", "b") if row["a"] > 0 else ("a",)
        return SimpleNamespace(features=features, proba=row["a"] / 10)


def test_reveal_table():
    frame = pd.DataFrame({"a": [0.0, 7.0], "b1": [1.0, 2.0], "b2": [3.0, 4.0], "id": ["x", "y"]})
    out = reveal_table(_Agent(), frame)
    assert list(out.columns) == ["a", "b1", "b2", "revealed", "n_revealed", "proba", "prediction"]
    assert out["revealed"].tolist() == ["a", "a,b"]
    assert out["n_revealed"].tolist() == [1, 2]
    assert out["prediction"].tolist() == [0, 1]
    assert np.isnan(out.loc[0, "b1"])
    assert out.loc[1, "b2"] == 4.0


@pytest.mark.parametrize(
    ("frame", "fragment"),
    [
        (pd.DataFrame({"a": [1.0]}), "feature columns are missing"),
        (pd.DataFrame({"a": ["x"], "b1": [1.0], "b2": [1.0]}), "must be numeric"),
        (pd.DataFrame({"a": [1.0, np.nan], "b1": [1.0, 1.0], "b2": [1.0, 1.0]}), "row 1"),
    ],
)
def test_reveal_table_errors(frame, fragment):
    with pytest.raises(InvalidDataError, match=fragment) as info:
        reveal_table(_Agent(), frame, source="people.csv")
    assert str(info.value).startswith("people.csv: ")
