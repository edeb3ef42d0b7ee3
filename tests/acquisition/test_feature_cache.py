"""A streamed pool reads its rows from a local copy of the features, not the Parquet file."""

from __future__ import annotations

import os
import pickle
import tempfile

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from fairacq.acquisition import InMemoryPool, ParquetPool, SerialChunkExecutor
from fairacq.acquisition.pools._column_codes import ColumnCodes
from fairacq.acquisition.pools._feature_cache import FeatureCache
from fairacq.acquisition.pools._parquet_pool import ParquetReader
from fairacq.data import load_toy


@pytest.fixture(scope="module")
def toy():
    return load_toy(300, random_state=2)


@pytest.fixture
def pool_file(toy, tmp_path):
    path = tmp_path / "pool.parquet"
    frame = toy.X.assign(label=toy.y, group=toy.sensitive["group"].to_numpy())
    frame.to_parquet(path, row_group_size=64)
    return path


def test_cache_reads_rows_by_position_and_ranges():
    X = np.random.default_rng(0).normal(size=(50, 3))
    cache = FeatureCache([X[:20], X[20:45], X[45:]], n_rows=50, n_features=3, chunk_rows=16)
    pos = np.array([49, 0, 7, 7, 31])
    got = cache.rows(pos)
    assert got.flags.c_contiguous
    np.testing.assert_array_equal(got, X[pos])  # same bits, any order, repeats
    assert cache.rows(np.empty(0, dtype=np.int64)).shape == (0, 3)
    dense = np.array([3, 1, 2, 0, 4, 5, 20, 19, 18, 2])  # stretches read whole, then picked
    np.testing.assert_array_equal(cache.rows(dense), X[dense])
    every = np.arange(50)
    np.testing.assert_array_equal(cache.rows(every), X)
    np.testing.assert_array_equal(cache.rows(every[::-1]), X[::-1])
    pieces = list(cache.read(5, 40))
    assert [p.shape[0] for p in pieces] == [16, 16, 3]
    np.testing.assert_array_equal(np.concatenate(pieces), X[5:40])
    assert not cache.closed
    cache.close()
    assert cache.closed


def test_cache_refuses_pieces_that_do_not_add_up():
    X = np.zeros((10, 2))
    with pytest.raises(ValueError, match="got 9 rows, expected 10"):
        FeatureCache([X[:9]], n_rows=10, n_features=2, chunk_rows=4)
    with pytest.raises(ValueError, match="shape"):
        FeatureCache([np.zeros((10, 3))], n_rows=10, n_features=2, chunk_rows=4)


@pytest.mark.skipif(os.name != "posix", reason="only POSIX has unnamed temporary files")
def test_cache_leaves_no_file_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen = []

    def pieces():
        yield np.zeros((4, 2))
        seen.extend(tmp_path.iterdir())  # while the copy is being written
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        FeatureCache(pieces(), n_rows=8, n_features=2, chunk_rows=4)
    cache = FeatureCache([np.ones((8, 2))], n_rows=8, n_features=2, chunk_rows=4)
    assert seen == []
    assert list(tmp_path.iterdir()) == []
    assert cache.rows(np.array([7])).tolist() == [[1.0, 1.0]]


def test_column_codes_keep_values_and_type():
    codes = ColumnCodes(pa.int64())
    codes.add(pa.array([5, 7, None]))
    codes.add(pa.array([7, 9]))
    codes.finish()
    assert codes.codes.dtype == np.int8
    assert codes.take(np.array([3, 2, 0, 4])).to_pylist() == [7, None, 5, 9]
    cat = ColumnCodes(pa.dictionary(pa.int32(), pa.string()))
    cat.add(pa.array(["x", "y", "x"]).dictionary_encode())
    cat.finish()
    taken = cat.take(np.array([1, 2]))
    assert pa.types.is_dictionary(taken.type)
    assert taken.to_pylist() == ["y", "x"]
    many = ColumnCodes(pa.string())
    many.add(pa.array([f"v{i}" for i in range(300)]))
    many.finish()
    assert many.codes.dtype == np.int16
    assert many.take(np.array([299])).to_pylist() == ["v299"]


def test_take_reads_the_local_copy_not_the_file(toy, pool_file, monkeypatch):
    pool = ParquetPool(pool_file, like=toy, chunk_rows=50, block_rows=32)
    pool.read_rows([0])  # builds the local copy

    def refuse(*args, **kwargs):
        raise AssertionError("the Parquet file was read by position")

    monkeypatch.setattr(ParquetReader, "read_positions", refuse)
    rows = [299, 3, 64, 3, 128]
    got = pool.take(rows)
    np.testing.assert_array_equal(got.to_numpy(), toy.to_numpy()[rows])
    pd.testing.assert_frame_equal(got.sensitive, toy.sensitive.iloc[rows].reset_index(drop=True))
    np.testing.assert_array_equal(pool.read_rows(rows), toy.to_numpy()[rows])
    assert pool.reader_for(None) is pool.local_reader()
    assert pool.reader_for(SerialChunkExecutor()) is pool._cache


def test_remote_executors_get_the_file_reader(toy, pool_file):
    pool = ParquetPool(pool_file, like=toy)

    class Remote:  # any executor other than a serial one runs elsewhere
        def map(self, fn, items, shared):
            return [fn(shared, item) for item in items]

    assert isinstance(pool.reader_for(Remote()), ParquetReader)
    assert pool._cache is None
    blocks = pool.map_blocks(lambda X, side: X, executor=Remote())
    np.testing.assert_array_equal(np.concatenate(blocks), toy.to_numpy())


def test_copies_and_closed_pools_build_their_own_cache(toy, pool_file):
    pool = ParquetPool(pool_file, like=toy)
    pool.read_rows([1])
    cache = pool._cache
    clone = pickle.loads(pickle.dumps(pool))
    assert clone._cache is None
    np.testing.assert_array_equal(clone.read_rows([2, 1]), toy.to_numpy()[[2, 1]])
    assert clone._cache is not None
    assert clone._cache is not cache
    pool.close()
    assert cache.closed
    assert pool._cache is None
    np.testing.assert_array_equal(pool.read_rows([7]), toy.to_numpy()[[7]])
    assert not pool._cache.closed


def test_no_room_for_the_copy_warns_and_reads_the_file(toy, pool_file, monkeypatch):
    import fairacq.acquisition.pools._parquet_pool as module

    def no_room(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(module, "FeatureCache", no_room)
    pool = ParquetPool(pool_file, like=toy, block_rows=32)
    with pytest.warns(UserWarning, match="could not keep a local copy.*TMPDIR"):
        got = pool.take([5, 250])
    np.testing.assert_array_equal(got.to_numpy(), toy.to_numpy()[[5, 250]])
    blocks = pool.map_blocks(lambda X, side: X)  # no second warning: the file is read
    np.testing.assert_array_equal(np.concatenate(blocks), toy.to_numpy())


@pytest.mark.parametrize("kind", ["parquet", "memory"])
def test_rows_read_by_position_are_the_rows_take_gives(toy, pool_file, kind):
    # The acquisition loop fits on read_rows / labels_at and builds take()'s dataset only for
    # a kept batch: the two must give the same numbers, dtype included.
    pool = ParquetPool(pool_file, like=toy) if kind == "parquet" else InMemoryPool(toy)
    rows = [299, 3, 64, 3, 128]
    taken = pool.take(rows)
    np.testing.assert_array_equal(pool.read_rows(rows), taken.to_numpy())
    labels = pool.labels_at(rows)
    assert labels.dtype == taken.y.dtype == np.int64
    np.testing.assert_array_equal(labels, toy.y[rows])
    np.testing.assert_array_equal(pool.labels_at(np.array([], dtype=np.int64)), [])
