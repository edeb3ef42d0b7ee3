from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq.data import FairDataset, load_toy
from fairacq.exceptions import CorruptFileError, InvalidDataError
from fairacq.features import ActionSpace


def test_groups_from_dataset_are_actions_in_column_order():
    ds = load_toy()
    space = ActionSpace.from_dataset(ds)
    assert space.columns == tuple(ds.feature_names)
    assert space.n_actions == len(ds.feature_groups)
    assert space.stop == space.n_actions
    region = space.names.index("region")
    assert space.action_columns(region) == tuple(ds.feature_groups["region"])
    # actions are numbered by their first column
    first = [space.columns.index(space.action_columns(a)[0]) for a in range(space.n_actions)]
    assert first == sorted(first)
    assert space.action_columns(space.stop) == ()


def test_column_mask_and_membership_agree():
    space = ActionSpace.from_groups(
        ["a", "m=x", "b", "m=y"], {"a": ["a"], "m": ["m=x", "m=y"], "b": ["b"]}
    )
    assert space.names == ("a", "m", "b")
    assert space.column_action.tolist() == [0, 1, 2, 1]
    acquired = np.array([[False, True, False], [True, False, True]])
    assert space.column_mask(acquired).tolist() == [
        [False, True, False, True],
        [True, False, True, False],
    ]
    assert np.array_equal(space.membership.T.astype(int) @ np.ones(3), np.ones(4))
    with pytest.raises(InvalidDataError, match="last axis"):
        space.column_mask(np.zeros((2, 4), dtype=bool))


def test_without_grouping_every_column_is_an_action():
    X = pd.DataFrame({"u": [0.0, 1.0, 2.0, 3.0], "v": [1.0, 0.0, 1.0, 0.0]})
    ds = FairDataset(X, [0, 1, 0, 1], pd.Series(["f", "m", "f", "m"], name="sex"))
    space = ActionSpace.from_dataset(ds)
    assert space.names == ("u", "v")
    assert space.column_action.tolist() == [0, 1]
    assert ActionSpace.from_groups(["u", "v"], None) == space


@pytest.mark.parametrize(
    ("groups", "match"),
    [
        ({"g": ["a", "zz"], "b": ["b"]}, "not a feature column"),
        ({"g": ["a", "b"], "h": ["b"]}, "exactly one group"),
        ({"g": ["a"]}, "no feature group"),
    ],
)
def test_bad_groups_are_rejected(groups, match):
    with pytest.raises(InvalidDataError, match=match):
        ActionSpace.from_groups(["a", "b"], groups)


def test_duplicated_and_empty_columns_are_rejected():
    with pytest.raises(InvalidDataError, match="duplicated"):
        ActionSpace.from_groups(["a", "a"])
    with pytest.raises(InvalidDataError, match="no feature columns"):
        ActionSpace.from_groups([])


def test_dict_round_trip_and_corrupt_description():
    space = ActionSpace.from_dataset(load_toy())
    assert ActionSpace.from_dict(space.to_dict()) == space
    with pytest.raises(CorruptFileError, match="malformed"):
        ActionSpace.from_dict({"columns": ["a"]})
