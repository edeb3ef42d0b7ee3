"""Proxies by name, fitted on a dataset; evaluation groups of candidates."""

from __future__ import annotations

import pandas as pd
import pytest

from fairacq.data import load_dataset
from fairacq.exceptions import InvalidDataError, UnknownNameError
from fairacq.filtering import (
    PROXY_NAMES,
    AlphaBetaProxy,
    GroupClasses,
    evaluation_groups,
    fit_proxy,
    make_proxy,
)


def test_every_name_builds():
    for name in PROXY_NAMES:
        assert make_proxy(name) is not None
    proxy = make_proxy("alpha-beta", alpha=0.3, gamma=0.2)
    assert isinstance(proxy, AlphaBetaProxy)
    assert (proxy.alpha, proxy.gamma) == (0.3, 0.2)
    with pytest.raises(UnknownNameError, match="Did you mean 'qp-tree'"):
        make_proxy("qp-tre")


def test_fit_one_attribute_and_intersecting_classes():
    data = load_dataset("compas", sensitive="race")
    one = fit_proxy(data, "naive-tree")
    assert len(one.groups_) == data.n_groups
    both = fit_proxy(data, "qp-tree", sensitive=["race", "sex"])
    assert [str(g) for g in both.groups_][-2:] == ["sex=Female", "sex=Male"]


def test_evaluation_groups():
    frame = pd.DataFrame({"x": [1, 2], "r": ["a", "b"], "s": ["f", "m"]})
    assert evaluation_groups(frame, ["r"], None).tolist() == ["a", "b"]
    classes = GroupClasses(("race", "sex"), (("a", "b"), ("f", "m")))
    got = evaluation_groups(frame, [" r", "s "], classes)
    assert list(got.columns) == ["race", "sex"]
    with pytest.raises(InvalidDataError, match="lacks"):
        evaluation_groups(frame, ["gender"], None)
    with pytest.raises(InvalidDataError, match="Pass one column"):
        evaluation_groups(frame, ["r", "s"], None)
    with pytest.raises(InvalidDataError, match="one column per class"):
        evaluation_groups(frame, ["r"], classes)
