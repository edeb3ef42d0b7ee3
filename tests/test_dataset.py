from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq.data import FairDataset, encode_groups
from fairacq.exceptions import InvalidDataError, UnknownNameError


def _ds(**kw) -> FairDataset:
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "c_x": [1, 0, 1, 0], "c_y": [0, 1, 0, 1]})
    sens = pd.DataFrame({"sex": ["f", "m", "f", "m"], "race": ["w", "w", "b", "b"]})
    return FairDataset(
        X,
        [0, 1, 1, 1],
        sens,
        feature_groups={"a": ["a"], "c": ["c_x", "c_y"]},
        privileged="m",
        name="t",
        **kw,
    )


def test_construction_and_views():
    ds = _ds()
    assert len(ds) == 4
    assert ds.n_groups == 2
    assert ds.group_names == ("f", "m")
    assert ds.privileged_code == 1
    assert ds.base_rates().tolist() == [0.5, 1.0]
    assert ds.group_sizes().tolist() == [2, 2]
    assert ds.feature_groups == {"a": ["a"], "c": ["c_x", "c_y"]}
    assert ds.to_numpy().shape == (4, 3)
    assert ds.to_numpy(include_sensitive=True).shape == (4, 4)
    frame = ds.to_frame()
    assert {"group", "label", "sensitive:sex"} <= set(frame.columns)
    X = ds.X
    X.loc[0, "a"] = 99
    assert ds.X.loc[0, "a"] == 0


def test_intersectional_and_subset():
    inter = _ds().with_sensitive("sex", "race")
    assert inter.group_names == ("f & b", "f & w", "m & b", "m & w")
    sub = _ds().subset([0, 2])
    assert sub.group_names == ("f", "m")
    assert sub.group_sizes().tolist() == [2, 0]
    both = sub.concat(_ds().subset([1]))
    assert len(both) == 3
    assert both.s.tolist() == [0, 0, 1]
    mask = _ds().subset(np.array([True, False, False, True]))
    assert len(mask) == 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"y": [0, 1, 2, 1]}, "binary"),
        ({"y": [0, 1]}, "different lengths"),
        ({"sensitive": ["a"] * 4}, "single group"),
        ({"X": pd.DataFrame({"a": [0.0, np.nan, 1.0, 2.0]})}, "NaN"),
        (
            {"X": pd.DataFrame({"a": [0.0, np.inf, 1.0, 2.0]})},
            r"'a' has 1 infinite values \(rows 1\)",
        ),
        ({"X": pd.DataFrame({"a": [0.0, 1.0, -np.inf, 2.0]})}, r"infinite values \(rows 2\)"),
        ({"X": pd.DataFrame({"a": [0.0, 1.0, 2.0, 1e308]})}, r"square overflows\) \(rows 3\)"),
        ({"X": pd.DataFrame({"a": ["x", "y", "z", "w"]})}, "not numeric"),
        ({"X": np.zeros((4, 1))}, "must be a pandas DataFrame"),
        ({"privileged": "zz"}, "privileged group"),
        ({"feature_groups": {"g": ["nope"]}}, "not in X"),
        ({"feature_groups": {"g": ["a"], "h": ["a"]}}, "exactly one group"),
        ({"feature_groups": {}}, "belong to no feature group"),
    ],
)
def test_bad_input(kwargs, match):
    base = {
        "X": pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0]}),
        "y": [0, 1, 0, 1],
        "sensitive": ["a", "b", "a", "b"],
    }
    base.update(kwargs)
    with pytest.raises(InvalidDataError, match=match):
        FairDataset(base.pop("X"), base.pop("y"), base.pop("sensitive"), **base)


def test_unknown_sensitive_attribute():
    with pytest.raises(UnknownNameError, match="unknown sensitive attribute 'age'"):
        _ds().with_sensitive("age")


def test_concat_mismatch():
    other = FairDataset(pd.DataFrame({"z": [0.0, 1.0]}), [0, 1], ["f", "m"])
    with pytest.raises(InvalidDataError, match="differ in columns"):
        _ds().concat(other)


def test_encode_groups_sorted():
    codes, names = encode_groups(np.array([3, 1, 3]), "w", "g")
    assert codes.tolist() == [1, 0, 1]
    assert names == ("1", "3")


def test_standardize_uses_reference_statistics():
    from fairacq.data import standardize

    ds = _ds()
    ref = ds.subset([0, 1])
    out = standardize(ds, reference=ref)
    assert out.X["a"].tolist() == [-1.0, 1.0, 3.0, 5.0]
    assert out.group_names == ds.group_names
    assert out.y.tolist() == ds.y.tolist()
    assert ds.X["a"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_sensitive_attribute_named_twice_or_none_is_refused():
    from fairacq.exceptions import InvalidParameterError

    data = _ds()
    with pytest.raises(InvalidParameterError, match="'sex' is named more than once"):
        data.with_sensitive("sex", "sex")
    with pytest.raises(InvalidParameterError, match="no sensitive attribute"):
        data.with_sensitive()
