"""``read_pool``: Parquet pools stream, CSV pools load, costs come out of the features."""

from __future__ import annotations

import numpy as np
import pytest

from fairacq.acquisition import ParquetPool, read_pool
from fairacq.data import FairDataset, load_toy
from fairacq.exceptions import CorruptFileError, InvalidDataError


@pytest.fixture
def toy():
    ds = load_toy(120, random_state=0)
    frame = ds.X.assign(group=ds.sensitive["group"].to_numpy(), label=ds.y)
    return ds.with_sensitive("group"), frame.assign(cost=np.arange(120) % 3 + 1.0)


def test_csv_pool_in_memory_with_costs(tmp_path, toy):
    ds, frame = toy
    frame.to_csv(tmp_path / "pool.csv.gz", index=False)
    pool, costs = read_pool(tmp_path / "pool.csv.gz", like=ds, cost_column="cost")
    assert isinstance(pool, FairDataset)
    assert pool.feature_names == ds.feature_names
    np.testing.assert_array_equal(costs, frame["cost"].to_numpy())
    np.testing.assert_array_equal(pool.y, ds.y)


def test_parquet_pool_streams(tmp_path, toy):
    ds, frame = toy
    frame.to_parquet(tmp_path / "pool.parquet")
    pool, costs = read_pool(tmp_path / "pool.parquet", like=ds, cost_column="cost", chunk_rows=32)
    assert isinstance(pool, ParquetPool)
    np.testing.assert_array_equal(costs, frame["cost"].to_numpy())
    pool, costs = read_pool(tmp_path / "pool.parquet", like=ds, cost_column="cost")
    assert len(pool) == 120


def test_errors_name_the_file(tmp_path, toy):
    ds, frame = toy
    frame.drop(columns="cost").to_csv(tmp_path / "pool.csv", index=False)
    with pytest.raises(InvalidDataError, match="no cost column 'price'"):
        read_pool(tmp_path / "pool.csv", like=ds, cost_column="price")
    with pytest.raises(CorruptFileError, match="no such file"):
        read_pool(tmp_path / "none.parquet", like=ds)
    with pytest.raises(InvalidDataError, match="no column 'grp'"):
        read_pool(tmp_path / "pool.csv", like=ds, sensitive="grp")
