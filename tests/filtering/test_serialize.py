"""A fitted proxy saved as plain JSON: round trip, no individual's group label."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairacq.exceptions import CorruptFileError, InvalidDataError
from fairacq.filtering import (
    BalancedFilter,
    FittedProxy,
    LabelProxy,
    load_proxy,
    proxy_to_dict,
    save_proxy,
)
from tests.filtering.test_proxies import make_sample


def _lengths(obj: Any) -> list[int]:
    """Length of every list anywhere in a JSON value."""
    if isinstance(obj, list):
        return [len(obj), *(n for item in obj for n in _lengths(item))]
    if isinstance(obj, dict):
        return [n for value in obj.values() for n in _lengths(value)]
    return []


@pytest.mark.parametrize(
    "proxy",
    [
        LabelProxy(predictor="tree", weights="qp", max_depth=4, random_state=0),
        LabelProxy(weights="qp", relaxed=True),
        LabelProxy(target=[0.5, 0.25, 0.25]),
    ],
    ids=lambda p: type(p).__name__,
)
def test_round_trip(proxy: Any, tmp_path: Path) -> None:
    X, s = make_sample(437, seed=2)
    proxy.fit(X, s)
    path = save_proxy(proxy, tmp_path / "proxy.json")
    loaded = load_proxy(path)
    assert isinstance(loaded, FittedProxy)
    assert loaded == proxy.fitted_
    np.testing.assert_array_equal(loaded.proxy_values(X), proxy.proxy_values(X))
    assert loaded.alpha == pytest.approx(proxy.alpha_)
    assert loaded.beta == pytest.approx(proxy.beta_)
    a = BalancedFilter(proxy=proxy, random_state=4).fit(X).mask_
    b = BalancedFilter(proxy=loaded, random_state=4).fit(X).mask_
    assert np.array_equal(a, b)
    # Plain JSON with no per-individual array: nothing as long as the sample.
    text = path.read_text()
    data = json.loads(text)
    assert len(X) not in _lengths(data)
    assert data["groups"] == ["a", "b", "c"]
    assert "pickle" not in text


def test_not_fitted() -> None:
    with pytest.raises(InvalidDataError, match="fitted proxy"):
        proxy_to_dict(LabelProxy(predictor="tree", weights="qp"))


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ('{"format": "other"}', "not a fairacq proxy"),
        ('{"format": "fairacq-proxy", "version": 99}', "version 99"),
        ('{"format": "fairacq-proxy", "version": 1, "method": "x"}', "incomplete"),
        ("{not json", "not valid JSON"),
    ],
)
def test_corrupt_file(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CorruptFileError, match=match):
        load_proxy(path)


def test_corrupt_rule(tmp_path: Path) -> None:
    X, s = make_sample(200)
    data = proxy_to_dict(
        LabelProxy(predictor="tree", weights="qp", max_depth=2, random_state=0).fit(X, s)
    )
    data["rule"] = {"kind": "forest"}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CorruptFileError, match="unknown rule kind"):
        load_proxy(path)
    del data["rule"]
    path.write_text(json.dumps(data))
    with pytest.raises(CorruptFileError, match="incomplete"):
        load_proxy(path)


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("rho", lambda v: [1.5, *v[1:]], r"rho must hold admission probabilities in \[0, 1\]"),
        ("rho", lambda v: [float("nan"), *v[1:]], "rho must hold"),
        ("rho", lambda v: v[1:], "rho needs one entry per row of A"),
        ("proxy_marginal", lambda v: [-0.1, *v[1:]], "proxy_marginal must hold a distribution"),
        ("A", lambda v: [[2.0] * len(v[0]), *v[1:]], "A must hold probabilities"),
        ("target", lambda v: v[:-1], "target needs one entry per column of A"),
    ],
)
def test_a_tampered_proxy_is_refused_in_one_line(field, value, match, tmp_path: Path) -> None:
    X, s = make_sample(300, seed=1)
    path = save_proxy(
        LabelProxy(predictor="tree", weights="qp", max_depth=3, random_state=0).fit(X, s),
        tmp_path / "p.json",
    )
    data = json.loads(path.read_text())
    data[field] = value(data[field])
    path.write_text(json.dumps(data))
    with pytest.raises(CorruptFileError, match=match) as info:
        load_proxy(path)
    assert "\n" not in str(info.value)


def test_load_proxy_on_a_folder_or_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CorruptFileError, match="is a folder"):
        load_proxy(tmp_path)
    with pytest.raises(CorruptFileError, match="does not exist"):
        load_proxy(tmp_path / "nope.json")
