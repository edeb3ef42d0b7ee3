from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq.data import FairDataset
from fairacq.data._toy import load_toy
from fairacq.data.splits import (
    DataSiftSplit,
    TrainTestSplit,
    TrainValTestSplit,
    _stratified_partition,
    kfold_splits,
    split_dadi,
    split_datasift,
    split_filtering,
)
from fairacq.exceptions import InvalidDataError, InvalidParameterError


def _gap(ds: FairDataset) -> float:
    rates = ds.base_rates()
    return float(rates[0] - rates[1])


def _assert_partition(indices: dict, n: int) -> None:
    parts = list(indices.values())
    allrows = np.concatenate(parts)
    assert len(allrows) == n
    assert len(np.unique(allrows)) == n  # pairwise disjoint and covering
    assert allrows.min() == 0
    assert allrows.max() == n - 1


def _cells(ds: FairDataset) -> np.ndarray:
    return np.bincount(2 * ds.s + ds.y, minlength=2 * ds.n_groups)


# --------------------------------------------------------------------------------------------
# DataSift
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bias", ["paper", "authors", None])
def test_datasift_sizes_and_partition(bias):
    toy = load_toy(2000)
    split = split_datasift(toy, bias=bias, random_state=0)
    assert isinstance(split, DataSiftSplit)
    sizes = [len(split.train), len(split.validation), len(split.test), len(split.pool)]
    assert sizes == [100, 100, 300, 1500]  # 1:4:15, a quarter of the test part validates
    _assert_partition(dict(split.indices), len(toy))
    for name in ("train", "validation", "test", "pool"):
        part = getattr(split, name)
        np.testing.assert_array_equal(part.y, toy.y[split.indices[name]])
        np.testing.assert_array_equal(part.s, toy.s[split.indices[name]])
        assert part.group_names == toy.group_names


def test_datasift_determinism_and_seed_dependence():
    toy = load_toy(1000)
    a = split_datasift(toy, random_state=1)
    b = split_datasift(toy, random_state=1)
    c = split_datasift(toy, random_state=2)
    for name in ("train", "validation", "test", "pool"):
        np.testing.assert_array_equal(a.indices[name], b.indices[name])
    assert not np.array_equal(a.indices["train"], c.indices["train"])
    assert not np.array_equal(a.indices["pool"], c.indices["pool"])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_paper_bias_is_really_there(seed):
    toy = load_toy(4000)
    split = split_datasift(toy, bias="paper", random_state=seed)
    assert _gap(split.train) > _gap(split.pool) + 0.15
    # under-representation of the protected group
    share = lambda ds: (ds.s == 1).mean()  # noqa: E731
    assert share(split.train) < share(split.pool) - 0.1
    # test and pool are drawn at random: close to the population
    assert _gap(split.test) == pytest.approx(_gap(toy), abs=0.05)
    assert _gap(split.pool) == pytest.approx(_gap(toy), abs=0.03)


def test_authors_bias_composition():
    toy = load_toy(4000)
    split = split_datasift(toy, bias="authors", random_state=0)
    train = split.train
    n = len(train)
    priv = train.s == 0
    assert priv.sum() == n // 2
    assert train.y[priv].mean() == pytest.approx(0.9, abs=0.01)
    assert _gap(train) > _gap(split.pool) + 0.3


def test_no_bias_is_close_to_population():
    toy = load_toy(4000)
    split = split_datasift(toy, bias=None, random_state=0)
    assert _gap(split.train) == pytest.approx(_gap(toy), abs=0.03)


def test_privileged_defaults_to_highest_base_rate():
    toy = load_toy(2000)
    frame = toy.sensitive
    unnamed = FairDataset(toy.X, toy.y, frame, feature_groups=toy.feature_groups)
    assert unnamed.privileged is None
    a = split_datasift(unnamed, random_state=0)
    b = split_datasift(toy, random_state=0)
    np.testing.assert_array_equal(a.indices["train"], b.indices["train"])


def test_validation_fraction_and_ratios():
    toy = load_toy(2000)
    split = split_datasift(toy, ratios=(2, 3, 5), validation_fraction=0.5, random_state=0)
    assert [len(split.train), len(split.validation), len(split.test), len(split.pool)] == [
        400,
        300,
        300,
        1000,
    ]


def test_datasift_split_is_frozen():
    split = split_datasift(load_toy(400), random_state=0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        split.train = split.test  # type: ignore[misc]


@pytest.mark.parametrize(
    "ratios", [(1, 4), (1, -4, 15), (0, 4, 15), ("a", "b", "c"), (1, np.nan, 2)]
)
def test_bad_ratios(ratios):
    with pytest.raises(InvalidParameterError, match="ratios"):
        split_datasift(load_toy(400), ratios=ratios)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"bias": "strong"}, "bias"),
        ({"validation_fraction": 1.0}, "validation_fraction"),
        ({"validation_fraction": 0.0}, "validation_fraction"),
        ({"random_state": -1}, "random_state"),
    ],
)
def test_bad_datasift_options(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        split_datasift(load_toy(400), **kwargs)


def test_too_small_dataset():
    with pytest.raises(InvalidDataError, match="too few"):
        split_datasift(load_toy(60), random_state=0)


def _with_tiny_group(n_tiny: int) -> FairDataset:
    toy = load_toy(2000)
    groups = np.array(toy.group_names, dtype=object)[toy.s]
    groups[:n_tiny] = "rare"
    return FairDataset(toy.X, toy.y, pd.Series(groups, name="group"), privileged="g0", name="tiny")


def test_group_missing_from_train_raises():
    with pytest.raises(InvalidDataError, match="no rows of group"):
        split_datasift(_with_tiny_group(1), random_state=0)


def test_authors_bias_needs_enough_rows():
    toy = load_toy(2000)
    y = toy.y.copy()
    y[toy.s == 0] = 0  # no privileged positives at all
    y[np.flatnonzero(toy.s == 0)[:3]] = 1
    ds = FairDataset(toy.X, y, toy.sensitive, privileged="g0")
    with pytest.raises(InvalidDataError, match="privileged positive"):
        split_datasift(ds, bias="authors", random_state=0)


# --------------------------------------------------------------------------------------------
# k-fold
# --------------------------------------------------------------------------------------------


def test_kfold_partition_and_stratification():
    toy = load_toy(403)
    pairs = list(kfold_splits(toy, 5, random_state=0))
    assert len(pairs) == 5
    sizes = [len(test) for _, test in pairs]
    assert max(sizes) - min(sizes) <= 1
    assert sum(sizes) == 403
    for train, test in pairs:
        assert len(train) + len(test) == 403
    cells = np.array([_cells(test) for _, test in pairs])
    assert (cells.max(axis=0) - cells.min(axis=0)).max() <= 1
    # the test folds, through their features, cover every row exactly once
    x1 = np.concatenate([test.X["x1"].to_numpy() for _, test in pairs])
    np.testing.assert_array_equal(np.sort(x1), np.sort(toy.X["x1"].to_numpy()))


def test_kfold_determinism_and_unstratified():
    toy = load_toy(200)
    a = [test.X["x1"].sum() for _, test in kfold_splits(toy, 4, random_state=3)]
    b = [test.X["x1"].sum() for _, test in kfold_splits(toy, 4, random_state=3)]
    c = [test.X["x1"].sum() for _, test in kfold_splits(toy, 4, random_state=4)]
    assert a == b
    assert a != c
    plain = list(kfold_splits(toy, 4, stratify=False, random_state=0))
    assert [len(t) for _, t in plain] == [50, 50, 50, 50]


@pytest.mark.parametrize("k", [1, 0, 201, 2.5])
def test_kfold_bad_k(k):
    with pytest.raises(InvalidParameterError, match="'k'"):
        kfold_splits(load_toy(200), k)


def test_kfold_group_with_one_row_raises_eagerly():
    with pytest.raises(InvalidDataError, match="no rows of group"):
        kfold_splits(_with_tiny_group(1), 5, random_state=0)


@given(n=st.integers(20, 200), k=st.integers(2, 10), seed=st.integers(0, 1000))
def test_kfold_property(n, k, seed):
    toy = load_toy(max(n, 20), random_state=seed)
    tests = [test for _, test in kfold_splits(toy, k, random_state=seed)]
    assert sum(len(t) for t in tests) == len(toy)
    assert max(len(t) for t in tests) - min(len(t) for t in tests) <= 1


# --------------------------------------------------------------------------------------------
# DADI and balanced filtering
# --------------------------------------------------------------------------------------------


def test_split_dadi_sizes_and_folds():
    toy = load_toy(800)
    split = split_dadi(toy, random_state=0)
    assert isinstance(split, TrainValTestSplit)
    assert (len(split.train), len(split.validation), len(split.test)) == (560, 140, 100)
    _assert_partition(dict(split.indices), 800)
    tests = [split_dadi(toy, fold=f, random_state=5).indices["test"] for f in range(8)]
    allrows = np.concatenate(tests)
    assert len(np.unique(allrows)) == 800  # the 8 test folds partition the data
    again = split_dadi(toy, fold=3, random_state=5)
    np.testing.assert_array_equal(again.indices["test"], tests[3])
    other = split_dadi(toy, fold=3, random_state=6)
    assert not np.array_equal(other.indices["test"], tests[3])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"fold": 8}, "fold"), ({"fold": -1}, "fold"), ({"validation_fraction": 1.2}, "validation")],
)
def test_split_dadi_bad_arguments(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        split_dadi(load_toy(800), **kwargs)


def test_split_dadi_too_small():
    with pytest.raises(InvalidDataError, match="at least"):
        split_dadi(load_toy(40), random_state=0)


def test_split_filtering():
    toy = load_toy(900)
    split = split_filtering(toy, random_state=0)
    assert isinstance(split, TrainTestSplit)
    assert (len(split.train), len(split.test)) == (600, 300)
    _assert_partition(dict(split.indices), 900)
    ratio = _cells(split.train) / _cells(toy)
    np.testing.assert_allclose(ratio, 2 / 3, atol=0.02)
    a = split_filtering(toy, random_state=1).indices["train"]
    b = split_filtering(toy, random_state=1).indices["train"]
    c = split_filtering(toy, random_state=2).indices["train"]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_split_filtering_errors():
    with pytest.raises(InvalidParameterError, match="train_fraction"):
        split_filtering(load_toy(90), train_fraction=1.0)
    with pytest.raises(InvalidDataError, match="no rows of group"):
        split_filtering(_with_tiny_group(1), random_state=0)


# --------------------------------------------------------------------------------------------
# the partition helper
# --------------------------------------------------------------------------------------------


@given(
    strata=st.lists(st.integers(0, 5), min_size=1, max_size=200),
    cut=st.floats(0, 1),
    seed=st.integers(0, 100),
)
def test_stratified_partition_two_parts(strata, cut, seed):
    arr = np.asarray(strata, dtype=np.int64)
    n = len(arr)
    first = round(cut * n)
    a, b = _stratified_partition(arr, [first, n - first], np.random.default_rng(seed))
    assert len(a) == first
    assert len(b) == n - first
    assert len(np.unique(np.concatenate([a, b]))) == n
    for value in np.unique(arr):
        expected = (arr == value).sum() * first / n
        assert abs((arr[a] == value).sum() - expected) < 1


@given(
    strata=st.lists(st.integers(0, 3), min_size=1, max_size=100),
    k=st.integers(1, 7),
    seed=st.integers(0, 100),
)
def test_stratified_partition_many_parts(strata, k, seed):
    arr = np.asarray(strata, dtype=np.int64)
    rng = np.random.default_rng(seed)
    sizes = rng.multinomial(len(arr), np.full(k, 1 / k)).tolist()
    parts = _stratified_partition(arr, sizes, rng)
    assert [len(p) for p in parts] == sizes
    assert len(np.unique(np.concatenate(parts))) == len(arr)


def test_split_parts_is_stratified_with_exact_sizes_and_names():
    from fairacq.data import load_toy, split_parts

    toy = load_toy(400)
    parts, index = split_parts(toy, [0.2, 0.4, 0.2, 0.2], names="abcd", random_state=0)
    assert [len(p) for p in parts] == [80, 160, 80, 80]
    assert sorted(index) == ["a", "b", "c", "d"]
    everything = np.sort(np.concatenate(list(index.values())))
    np.testing.assert_array_equal(everything, np.arange(400))
    for part in parts:
        assert abs(part.y.mean() - toy.y.mean()) < 0.02


@pytest.mark.parametrize("fractions", [[1.0], [0.5, 0.6], [0.5, 0.5, 0.0]])
def test_split_parts_refuses_bad_fractions(fractions):
    from fairacq.data import load_toy, split_parts
    from fairacq.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="fractions"):
        split_parts(load_toy(100), fractions)
