from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq.acquisition.methods._partition import (
    PartitionDroppedWarning,
    Partitioning,
    drop_small_partitions,
    partition_base_rate_diffs,
    partition_pool,
)
from fairacq.exceptions import (
    BudgetError,
    InvalidDataError,
    InvalidParameterError,
    UnknownNameError,
)

CENTRES = np.array([[0.0, 0.0, 0.0], [8.0, 0.0, 0.0], [0.0, 8.0, 8.0]])
BLOB_SIZES = (50, 120, 80)


def _blobs(seed=0):
    rng = np.random.default_rng(seed)
    X = np.concatenate(
        [rng.normal(c, 0.5, size=(m, 3)) for c, m in zip(CENTRES, BLOB_SIZES, strict=True)]
    )
    truth = np.repeat(np.arange(3), BLOB_SIZES)
    return X, truth


def _same_partition(a, b):
    """Labels agree up to a renumbering."""
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def test_bic_picks_true_k_on_separated_blobs(seed):
    X, truth = _blobs(seed)
    p = partition_pool(X, k_range=(2, 6), random_state=seed)
    assert p.method == "gmm"
    assert min(p.bic, key=p.bic.get) == 3
    assert sorted(p.bic) == [2, 3, 4, 5, 6]
    assert p.n_partitions == 3
    assert p.sizes.tolist() == [120, 80, 50]  # numbered by decreasing size
    assert p.sizes.sum() == len(X)
    assert _same_partition(p.labels, truth)
    assert p.centroids.shape == (3, 3)
    assert p.elapsed_s > 0
    assert p.details["k_chosen"] == 3
    # the largest partition is the blob centred at (8, 0, 0): positive first coordinate
    X_std = (X - X.mean(0)) / X.std(0)
    np.testing.assert_allclose(p.centroids[0], X_std[p.labels == 0].mean(0))


def test_same_seed_same_partition_and_subsample_paths(seed):
    X, truth = _blobs(seed)
    kwargs = {"k_range": (2, 5), "bic_sample": 120, "fit_sample": 200, "random_state": seed}
    a = partition_pool(X, **kwargs)
    b = partition_pool(X, **kwargs)
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.centroids, b.centroids)
    assert a.bic == b.bic
    assert a.details["bic_rows"] == 120
    assert a.details["fit_rows"] == 200
    assert a.n_partitions == 3
    assert _same_partition(a.labels, truth)


def test_gmm_with_given_k_and_pca_reduction():
    X, truth = _blobs(1)
    p = partition_pool(
        pd.DataFrame(X), n_partitions=3, reduce_dim=2, random_state=0, bic_sample=100
    )
    assert p.bic == {}
    assert p.centroids.shape == (3, 2)
    assert p.sizes.sum() == len(X)
    assert _same_partition(p.labels, truth)
    assert 0.9 < p.details["explained_variance"] <= 1.0 + 1e-12


def test_kmeans_partitions():
    X, truth = _blobs(2)
    p = partition_pool(X, method="kmeans", n_partitions=3, random_state=0)
    assert p.method == "kmeans"
    assert p.sizes.tolist() == [120, 80, 50]
    assert _same_partition(p.labels, truth)
    q = partition_pool(X, method="kmeans", n_partitions=3, random_state=0)
    np.testing.assert_array_equal(p.labels, q.labels)


def test_column_partitions_with_max_partitions():
    states = np.array(["CA"] * 5 + ["TX"] * 3 + ["NY"] * 3 + ["WA"] * 1)
    X = np.arange(len(states), dtype=float).reshape(-1, 1)
    p = partition_pool(X, method="column", column=states)
    assert p.names == ("CA", "NY", "TX", "WA")  # by size, ties by sorted value
    assert p.sizes.tolist() == [5, 3, 3, 1]
    assert p.sizes.sum() == len(states)
    top = partition_pool(X, method="column", column=states, max_partitions=2)
    assert top.names == ("CA", "NY")
    assert top.n_partitions == 2
    assert top.sizes.tolist() == [5, 3]
    expected = np.where(states == "CA", 0, np.where(states == "NY", 1, -1))
    np.testing.assert_array_equal(top.labels, expected)
    # centroids are means of the kept rows in the standardised space
    z = (X[:, 0] - X[:, 0].mean()) / X[:, 0].std()
    np.testing.assert_allclose(top.centroids[:, 0], [z[:5].mean(), z[8:11].mean()])


def test_normalised_distances():
    p = Partitioning(
        labels=np.array([0, 1, 2]),
        centroids=np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 10.0]]),
        sizes=np.array([1, 1, 1]),
        method="kmeans",
        n_partitions=3,
    )
    d = p.normalised_distances()
    np.testing.assert_allclose(
        d, np.array([[0, 0.5, 1], [0.5, 0, np.hypot(3, 6) / 10], [1, np.hypot(3, 6) / 10, 0]])
    )
    one = Partitioning(
        labels=np.zeros(4, dtype=np.int64),
        centroids=np.ones((1, 2)),
        sizes=np.array([4]),
        method="gmm",
        n_partitions=1,
    )
    np.testing.assert_array_equal(one.normalised_distances(), [[0.0]])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "gm"}, UnknownNameError, "Did you mean 'gmm'"),
        ({"method": "kmeans"}, InvalidParameterError, "needs n_partitions"),
        ({"method": "column"}, InvalidParameterError, "needs column"),
        ({"n_partitions": 11}, InvalidDataError, "fewer than n_partitions"),
        ({"k_range": (5, 2)}, InvalidParameterError, "k_range"),
        ({"k_range": (20, 30)}, InvalidDataError, "into the 20 or more partitions"),
        ({"reduce_dim": 4}, InvalidParameterError, "reduce_dim=4 exceeds"),
        ({"bic_sample": 0}, InvalidParameterError, "bic_sample"),
        ({"max_partitions": 2}, InvalidParameterError, "only apply to method='column'"),
        ({"method": "column", "column": [1, 2]}, InvalidDataError, "different lengths"),
    ],
)
def test_bad_input(kwargs, error, match):
    X = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.raises(error, match=match):
        partition_pool(X, **kwargs)


def test_bad_features():
    X = np.ones((5, 2))
    X[3, 1] = np.nan
    with pytest.raises(InvalidDataError, match="NaN"):
        partition_pool(X)
    X[3, 1] = np.inf
    with pytest.raises(InvalidDataError, match="infinite"):
        partition_pool(X)
    with pytest.raises(InvalidDataError, match="2-D"):
        partition_pool(np.ones(5))
    with pytest.raises(InvalidDataError, match="numeric"):
        partition_pool(np.array([["a", "b"]]))


def test_base_rate_diffs_binary():
    labels = np.array([0, 0, 0, 0, 0, 1, 1, 1, 2, 2, -1])
    y = np.array([1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1])
    s = np.array([0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0])
    # partition 0: group 0 rate 2/3, group 1 rate 1/2; partition 1 only group 1; 2 only group 0
    out = partition_base_rate_diffs(labels, y, s, n_partitions=4, privileged=1)
    np.testing.assert_allclose(out, [2 / 3 - 1 / 2, 0.0, 0.0, 0.0])
    out = partition_base_rate_diffs(labels, y, s, n_partitions=3, privileged=0)
    np.testing.assert_allclose(out, [1 / 2 - 2 / 3, 0.0, 0.0])
    unsigned = partition_base_rate_diffs(labels, y, s, n_partitions=3)
    np.testing.assert_allclose(unsigned, [2 / 3 - 1 / 2, 0.0, 0.0])
    same = partition_base_rate_diffs(labels, y, s, n_partitions=3, protected=1)
    np.testing.assert_allclose(same, [1 / 2 - 2 / 3, 0.0, 0.0])


def test_base_rate_diffs_multi_group():
    labels = np.array([0] * 6 + [1] * 4)
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1])
    s = np.array([0, 0, 1, 1, 2, 2, 0, 0, 2, 2])
    # partition 0 rates: g0 1/2, g1 1, g2 0 -> max - min = 1
    # partition 1 rates: g0 1/2, g2 1 (no g1) -> gap over present groups = 1/2
    out = partition_base_rate_diffs(labels, y, s, n_partitions=2)
    np.testing.assert_allclose(out, [1.0, 0.5])
    out = partition_base_rate_diffs(labels, y, s, n_partitions=2, privileged=0)
    np.testing.assert_allclose(out, [1.0, 0.5])
    signed = partition_base_rate_diffs(labels, y, s, n_partitions=2, protected=2, privileged=1)
    np.testing.assert_allclose(signed, [-1.0, 0.5])  # partition 1 lacks group 1: fallback


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"labels": [0, 3]}, InvalidDataError, "labels must lie in"),
        ({"y": [0, 2]}, InvalidDataError, "binary"),
        ({"s": [1, 1]}, InvalidDataError, "single group"),
        ({"labels": [0, 1, 1]}, InvalidDataError, "different lengths"),
        ({"privileged": 5}, InvalidParameterError, "not a group code"),
        ({"privileged": 1, "protected": 1}, InvalidParameterError, "same group"),
    ],
)
def test_base_rate_diffs_bad_input(kwargs, error, match):
    args = {"labels": [0, 1], "y": [0, 1], "s": [0, 1]} | kwargs
    extra = {k: v for k, v in kwargs.items() if k in ("privileged", "protected")}
    with pytest.raises(error, match=match):
        partition_base_rate_diffs(args["labels"], args["y"], args["s"], n_partitions=2, **extra)


def test_protected_without_privileged_needs_two_groups():
    with pytest.raises(InvalidParameterError, match="without privileged"):
        partition_base_rate_diffs([0, 0, 0], [0, 1, 1], [0, 1, 2], n_partitions=1, protected=2)


def test_drop_small_partitions_warns():
    states = np.array(["CA"] * 6 + ["TX"] * 4 + ["NY"] * 2 + ["WA"] * 1)
    X = np.zeros((len(states), 1))
    p = partition_pool(X, method="column", column=states)
    with pytest.warns(PartitionDroppedWarning, match=r"partition 2 'NY' \(2 rows\).*'WA' \(1"):
        kept, dropped = drop_small_partitions(p, 3)
    assert kept.tolist() == [0, 1]
    assert dropped.tolist() == [2, 3]
    kept, dropped = drop_small_partitions(p, 1)  # nothing dropped: no warning escapes
    assert kept.tolist() == [0, 1, 2, 3]
    assert dropped.size == 0
    with pytest.raises(BudgetError, match="every partition is smaller"):
        drop_small_partitions(p, 7)
    with pytest.raises(InvalidParameterError, match="min_size"):
        drop_small_partitions(p, 0)


def test_knee_of_bic_curve():
    from fairacq.acquisition.methods._partition import _knee

    ks = [2, 3, 4, 5, 6, 7]
    assert _knee(ks, [100.0, 40.0, 30.0, 25.0, 22.0, 20.0], default=7) == 3
    assert _knee(ks, [100.0, 80.0, 60.0, 40.0, 20.0, 0.0], default=7) == 7  # straight: no elbow
    assert _knee(ks, [10.0, 20.0, 30.0, 35.0, 38.0, 40.0], default=2) == 2  # minimum first
    # the rise after the minimum is ignored
    assert _knee(ks, [100.0, 30.0, 20.0, 15.0, 60.0, 90.0], default=5) == 3


def test_knee_selection_in_partition_pool():
    # two far-apart pairs of close blobs: BIC is lowest at k=4, its elbow is at k=2
    rng = np.random.default_rng(0)
    centres = [0.0, 3.0, 40.0, 43.0]
    X = np.concatenate([rng.normal(c, 0.5, size=(100, 1)) for c in centres])
    best = partition_pool(X, k_range=(1, 7), random_state=0)
    assert best.n_partitions == 4
    knee = partition_pool(X, k_range=(1, 7), k_selection="knee", random_state=0)
    assert knee.details["k_selection"] == "knee"
    assert knee.bic == best.bic
    assert knee.n_partitions == 2
    assert knee.sizes.tolist() == [200, 200]
    with pytest.raises(InvalidParameterError, match="k_selection"):
        partition_pool(X, k_selection="elbow")


def test_accepts_a_fair_dataset():
    from fairacq.data import load_toy

    ds = load_toy(200)
    a = partition_pool(ds, method="kmeans", n_partitions=3, random_state=0)
    b = partition_pool(ds.X, method="kmeans", n_partitions=3, random_state=0)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.centroids.shape == (3, ds.X.shape[1])
