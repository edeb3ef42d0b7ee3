from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError
from fairacq.features._leakage import group_auc, leakage_audit


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    X = np.column_stack([s + rng.normal(0, 0.7, n), rng.normal(size=n), rng.normal(size=n)])
    return X, s


def test_revealing_the_proxy_leaks_and_hiding_it_does_not():
    X, s = _data()
    shown = leakage_audit(X, s, [True, True, False])
    hidden = leakage_audit(X, s, [False, True, True])
    assert shown.auc > 0.8
    assert shown.accuracy > shown.majority
    assert abs(hidden.auc - 0.5) < 0.08
    assert hidden.majority == pytest.approx(np.bincount(s).max() / len(s))


def test_which_features_are_revealed_can_leak_by_itself():
    X, s = _data()
    X[:, 0] = 1.0  # the value carries nothing ...
    mask = np.zeros_like(X, dtype=bool)
    mask[s == 1, 0] = True  # ... but only one group reveals it
    assert leakage_audit(X, s, mask).auc > 0.95


def test_hidden_nans_are_ignored_and_revealed_nans_refused():
    X, s = _data()
    X[:, 2] = np.nan
    assert leakage_audit(X, s, [True, False, False]).auc > 0.8
    with pytest.raises(InvalidDataError, match="revealed value is NaN"):
        leakage_audit(X, s, [True, False, True])


def test_bad_inputs_say_what_to_do():
    X, s = _data(50)
    with pytest.raises(InvalidDataError, match="one group code per row"):
        leakage_audit(X, s[:-1], True)
    with pytest.raises(InvalidDataError, match="two groups"):
        leakage_audit(X, np.zeros(50, dtype=int), True)


def test_several_groups_and_determinism():
    rng = np.random.default_rng(1)
    s = rng.integers(0, 3, 600)
    X = np.column_stack([s + rng.normal(0, 0.5, 600), rng.normal(size=600)])
    a = leakage_audit(X, s, True, random_state=3)
    assert a == leakage_audit(X, s, True, random_state=3)
    assert a.auc > 0.8


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.01, 0.99), min_size=4, max_size=40), st.integers(0, 2**31 - 1))
def test_group_auc_is_a_probability_and_flips_with_the_groups(p, seed):
    rng = np.random.default_rng(seed)
    s = np.resize([0, 1], len(p))
    rng.shuffle(s)
    proba = np.asarray(p)
    auc = group_auc(s, proba)
    assert 0.0 <= auc <= 1.0
    assert group_auc(1 - s, proba) == pytest.approx(1.0 - auc)
    assert group_auc(s, np.column_stack([1 - proba, proba])) == pytest.approx(auc)
