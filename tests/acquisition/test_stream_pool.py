"""A Parquet pool streamed chunk by chunk acquires exactly what the in-memory pool does."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from fairacq.acquisition import (
    InMemoryPool,
    ParquetPool,
    PartitionDroppedWarning,
    make_acquirer,
    partition_labels,
    partition_pool,
)
from fairacq.acquisition.pools._chunk_map import _rebatch, task_ranges
from fairacq.data import load_toy, one_hot_encode
from fairacq.exceptions import (
    BudgetError,
    CorruptFileError,
    InvalidDataError,
    InvalidParameterError,
)

BLOCK = 64
METHODS = ["random", "entropy", "inf", "autodata", "datasift", "datasift-inf", "falcon"]
PARAMS = {"budget": 100, "batch_size": 20, "tau": 0.0, "random_state": 3}


@pytest.fixture(scope="module")
def splits():
    ds = load_toy(900, random_state=1)
    return ds.subset(range(150)), ds.subset(range(150, 300)), ds.subset(range(300, 900))


def _frame(ds):
    return ds.X.assign(label=ds.y, group=ds.sensitive["group"].to_numpy())


@pytest.fixture(scope="module")
def pool_file(splits, tmp_path_factory):
    path = tmp_path_factory.mktemp("pool") / "pool.parquet"
    _frame(splits[2]).to_parquet(path, row_group_size=80)
    return path


def _run(method, train, val, pool, **kw):
    acq = make_acquirer(method, **PARAMS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        trace = acq.fit(train, pool, validation=val, **kw).trace_
    return acq, trace.to_frame()


@pytest.fixture(scope="module")
def reference(splits):
    train, val, pool = splits
    return {m: _run(m, train, val, InMemoryPool(pool, block_rows=BLOCK)) for m in METHODS}


@pytest.mark.parametrize("method", METHODS)
def test_parquet_pool_gives_the_in_memory_order(method, splits, pool_file, reference):
    train, val, _ = splits
    ref, ref_frame = reference[method]
    assert ref.acquired_.size > 0
    # 7 rows: smaller than a batch and than a block; 80: one row group; 1000: the whole pool
    for chunk in (7, 80, 1000):
        pool = ParquetPool(pool_file, like=train, chunk_rows=chunk, block_rows=BLOCK)
        acq, frame = _run(method, train, val, pool)
        np.testing.assert_array_equal(acq.acquired_, ref.acquired_)
        np.testing.assert_array_equal(
            frame["candidate_val_fairness"].to_numpy(), ref_frame["candidate_val_fairness"]
        )
    if method == "datasift-inf":
        np.testing.assert_array_equal(acq.pool_scores_, ref.pool_scores_)
        np.testing.assert_array_equal(acq.partitioning_.labels, ref.partitioning_.labels)
        np.testing.assert_array_equal(acq.partitioning_.centroids, ref.partitioning_.centroids)


def test_in_memory_chunk_size_changes_nothing(splits, reference):
    train, val, pool = splits
    ref, _ = reference["datasift-inf"]
    acq, _ = _run("datasift-inf", train, val, InMemoryPool(pool, chunk_rows=5, block_rows=BLOCK))
    np.testing.assert_array_equal(acq.acquired_, ref.acquired_)
    np.testing.assert_array_equal(acq.pool_scores_, ref.pool_scores_)


def test_column_and_kmeans_partitions_stream(splits, pool_file):
    train, _, pool = splits
    streamed = ParquetPool(pool_file, like=train, chunk_rows=30, block_rows=BLOCK)
    memory = InMemoryPool(pool, block_rows=BLOCK)
    for column in ("region", "x1", "group"):
        np.testing.assert_array_equal(
            partition_labels(streamed, column), partition_labels(pool, column)
        )
    a = partition_pool(streamed, method="kmeans", n_partitions=3, random_state=0, fit_sample=200)
    b = partition_pool(memory, method="kmeans", n_partitions=3, random_state=0, fit_sample=200)
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.centroids, b.centroids)
    c = partition_pool(streamed, reduce_dim=3, bic_sample=100, random_state=0)
    d = partition_pool(memory, reduce_dim=3, bic_sample=100, random_state=0)
    np.testing.assert_array_equal(c.labels, d.labels)
    with pytest.raises(InvalidParameterError, match="neither a feature group"):
        partition_labels(streamed, "state")


def test_pool_holds_only_side_arrays_and_takes_rows(splits, pool_file):
    train, _, pool = splits
    streamed = ParquetPool(pool_file, like=train, chunk_rows=50)
    assert streamed._y.dtype == np.int8
    assert streamed._s.dtype == np.int16
    assert streamed.costs is None
    np.testing.assert_array_equal(streamed.y, pool.y)
    np.testing.assert_array_equal(streamed.s, pool.s)
    rows = [599, 3, 81, 3, 80]
    got = streamed.take(rows)
    np.testing.assert_array_equal(got.to_numpy(), pool.to_numpy()[rows])
    assert got.group_names == pool.group_names
    assert got.sensitive.columns.tolist() == ["group"]
    both = train.concat(got)
    assert len(both) == len(train) + 5
    np.testing.assert_array_equal(streamed.take([]).to_numpy().shape, (0, 7))
    with pytest.raises(InvalidDataError, match="positions must lie"):
        streamed.take([600])


def test_raw_categorical_column_is_encoded_like_training(splits, tmp_path):
    train, _, pool = splits
    frame = _frame(pool)
    region = pool.X[pool.feature_groups["region"]].to_numpy().argmax(axis=1)
    raw = frame.drop(columns=pool.feature_groups["region"])
    raw.insert(2, "region", np.array(["north", "south", "west"])[region])
    raw.to_parquet(tmp_path / "raw.parquet", row_group_size=100)
    streamed = ParquetPool(tmp_path / "raw.parquet", like=train, chunk_rows=33)
    np.testing.assert_array_equal(streamed.take(range(600)).to_numpy(), pool.to_numpy())
    blocks = streamed.map_blocks(lambda X, side: X)
    np.testing.assert_array_equal(np.concatenate(blocks), pool.to_numpy())
    # the encoder is fairacq's own, with the training split's levels
    encoded, _ = one_hot_encode(raw.iloc[:5, :-2], ["region"])
    assert [c for c in encoded.columns if c.startswith("region=")] == train.feature_groups[
        "region"
    ]


def test_cost_column_matches_in_memory_costs(splits, tmp_path):
    train, val, pool = splits
    costs = np.tile([1.0, 2.0, 0.5], 200)
    _frame(pool).assign(cost=costs).to_parquet(tmp_path / "cost.parquet", row_group_size=128)
    streamed = ParquetPool(tmp_path / "cost.parquet", like=train, cost_column="cost")
    np.testing.assert_array_equal(streamed.costs, costs)
    a, fa = _run("datasift", train, val, streamed)
    b, fb = _run("datasift", train, val, pool, costs=costs)
    np.testing.assert_array_equal(a.acquired_, b.acquired_)
    assert fa["cost"].iloc[-1] == fb["cost"].iloc[-1] <= PARAMS["budget"]


def test_bad_files_raise_clear_errors(splits, tmp_path):
    train, val, pool = splits
    frame = _frame(pool)
    path = tmp_path / "p.parquet"
    frame.drop(columns=["x2"]).to_parquet(path)
    with pytest.raises(InvalidDataError, match=r"lacks feature columns.*'x2'"):
        ParquetPool(path, like=train)
    frame.assign(id=1).to_parquet(path)
    with pytest.raises(InvalidDataError, match=r"\['id'\] are neither"):
        ParquetPool(path, like=train)
    frame.assign(x3="a").to_parquet(path)
    with pytest.raises(InvalidDataError, match="'x3' is not numeric"):
        ParquetPool(path, like=train)
    frame.assign(label=np.where(np.arange(600) == 42, 2, frame["label"])).to_parquet(path)
    with pytest.raises(InvalidDataError, match="row 42 holds 2"):
        ParquetPool(path, like=train)
    frame.assign(group=np.where(np.arange(600) == 7, "g9", frame["group"])).to_parquet(path)
    with pytest.raises(InvalidDataError, match=r"row 7 is in group 'g9'"):
        ParquetPool(path, like=train)
    frame.assign(cost=np.where(np.arange(600) == 5, np.nan, 1.0)).to_parquet(path)
    with pytest.raises(InvalidDataError, match="row 5 holds nan"):
        ParquetPool(path, like=train, cost_column="cost")
    nan_frame = frame.copy()
    nan_frame.loc[333, "x4"] = np.nan
    nan_frame.to_parquet(path, row_group_size=100)
    streamed = ParquetPool(path, like=train, chunk_rows=40)
    with pytest.raises(InvalidDataError, match=r"row 333 has a missing .* feature 'x4'"):
        streamed.map_blocks(lambda X, side: 0)
    with pytest.raises(InvalidDataError, match="row 333"):
        streamed.take([1, 333])
    path.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(CorruptFileError, match=r"p\.parquet"):
        ParquetPool(path, like=train)
    with pytest.raises(FileNotFoundError, match="No pool file"):
        ParquetPool(tmp_path / "none.parquet", like=train)
    frame.to_parquet(path)
    with pytest.raises(BudgetError, match="budget"):
        make_acquirer("random", budget=601, batch_size=10).fit(
            train, ParquetPool(path, like=train), validation=val
        )


def test_truncated_file_is_corrupt(splits, tmp_path):
    train = splits[0]
    path = tmp_path / "t.parquet"
    _frame(splits[2]).to_parquet(path, row_group_size=100)
    data = path.read_bytes()
    path.write_bytes(data[:200] + bytes(len(data) - 400) + data[-200:])
    with pytest.raises(CorruptFileError, match=r"t\.parquet"):
        ParquetPool(path, like=train).map_blocks(lambda X, side: 0)


def test_blocks_do_not_depend_on_chunks():
    assert task_ranges(10, 3, 4) == [(0, 4), (4, 8), (8, 10)]
    assert task_ranges(10, 9, 4) == [(0, 8), (8, 10)]
    X = np.arange(22.0).reshape(11, 2)
    for size in (1, 2, 3, 5, 11):
        pieces = [X[i : i + size] for i in range(0, 11, size)]
        blocks = list(_rebatch(pieces, 4))
        assert [b.shape[0] for b in blocks] == [4, 4, 3]
        np.testing.assert_array_equal(np.concatenate(blocks), X)
    with pytest.raises(InvalidParameterError, match="block_rows"):
        InMemoryPool(load_toy(20), block_rows=0)


def test_pool_type_is_checked(splits):
    with pytest.raises(InvalidParameterError, match="FairDataset or a PoolSource"):
        make_acquirer("random", budget=10, batch_size=5).fit(
            splits[0], pd.DataFrame(), validation=splits[1]
        )
