from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq.data import FairDataset
from fairacq.exceptions import DegenerateModelError
from fairacq.filtering.proxies._holdout import (
    HeldOutCheck,
    admits_everyone_problem,
    held_out_group_check,
)


def _data(*, tied: bool, n: int = 400) -> FairDataset:
    rng = np.random.default_rng(0)
    group = rng.choice(["a", "b"], n, p=[0.6, 0.4])
    x = (group == "b") * 3.0 + rng.normal(size=n) if tied else rng.normal(size=n)
    X = pd.DataFrame({"x": x, "z": rng.normal(size=n)})
    return FairDataset(X, rng.integers(0, 2, n), pd.Series(group, name="g"))


def test_signal_is_found_only_where_the_columns_differ_between_groups() -> None:
    assert held_out_group_check(_data(tied=True), random_state=0).has_signal
    blind = held_out_group_check(_data(tied=False), random_state=0)
    assert not blind.has_signal
    assert blind.largest_group == "a"
    assert blind.n_rows == 100


def test_a_one_group_classifier_is_named() -> None:
    check = held_out_group_check(
        _data(tied=True), model="sklearn.dummy:DummyClassifier", random_state=0
    )
    assert check.one_group == "a"


class _NanModel:
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)

    def predict_proba(self, X):
        return np.full((len(X), 2), np.nan)

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


def test_nan_probabilities_are_refused() -> None:
    with pytest.raises(DegenerateModelError, match="not numbers"):
        held_out_group_check(_data(tied=True), model=_NanModel(), random_state=0)


REPORT = {"acceptance_rate": 1.0, "rows_per_group": {"a": 60, "b": 40}, "proxy": "alpha-beta",
          "beta": 0.2}  # fmt: skip


@pytest.mark.parametrize(
    ("accuracy", "fragment"),
    [(0.6, "do not tell the groups apart"), (0.9, "Raise --alpha")],
)
def test_admitting_everyone_says_why(accuracy: float, fragment: str) -> None:
    check = HeldOutCheck(accuracy, 0.6, "a", 100, None)
    message = admits_everyone_problem(REPORT, 0.0, check, 0.2)
    assert message is not None
    assert fragment in message
    assert "a 0.60, b 0.40" in message


def test_a_selecting_filter_with_signal_is_fine() -> None:
    report = {**REPORT, "acceptance_rate": 0.5}
    assert (
        admits_everyone_problem(report, 0.4, HeldOutCheck(0.9, 0.6, "a", 100, None), 0.2) is None
    )
    blind = admits_everyone_problem(report, 0.4, HeldOutCheck(0.6, 0.6, "a", 100, None), 0.2)
    assert blind is not None
    assert "comes from chance" in blind
