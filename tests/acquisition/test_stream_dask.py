"""Pool chunks scored on a dask cluster give the serial scores and acquisition order."""

from __future__ import annotations

import pickle
import time
import warnings
from functools import partial

import numpy as np
import pytest
from typer.testing import CliRunner

from fairacq.acquisition import (
    DaskChunkExecutor,
    InMemoryPool,
    ParquetPool,
    PartitionDroppedWarning,
    SerialChunkExecutor,
    make_acquirer,
    make_chunk_executor,
)
from fairacq.acquisition.methods._entropy import _entropy_block
from fairacq.cli import app
from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError, SchedulerUnreachableError
from fairacq.models import make_learner
from fairacq.parallel._dask import local_cluster

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with (
        local_cluster(1, processes=False) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    ds = load_toy(700, random_state=2)
    train, val, pool = (
        ds.subset(range(150)),
        ds.subset(range(150, 300)),
        ds.subset(range(300, 700)),
    )
    path = tmp_path_factory.mktemp("dask") / "pool.parquet"
    pool.X.assign(label=pool.y, group=pool.sensitive["group"].to_numpy()).to_parquet(
        path, row_group_size=64
    )
    return train, val, pool, path


def _order(method, train, val, pool, executor=None):
    acq = make_acquirer(method, budget=60, batch_size=15, tau=0.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        acq.fit(train, pool, validation=val, executor=executor)
    return acq


@pytest.mark.parametrize("method", ["datasift-inf", "entropy"])
def test_dask_chunks_match_serial(method, client, data):
    train, val, pool, path = data
    serial = _order(method, train, val, InMemoryPool(pool, block_rows=32))
    streamed = ParquetPool(path, like=train, chunk_rows=100, block_rows=32)
    on_dask = _order(method, train, val, streamed, DaskChunkExecutor(client=client))
    np.testing.assert_array_equal(on_dask.acquired_, serial.acquired_)
    if method == "datasift-inf":
        np.testing.assert_array_equal(on_dask.pool_scores_, serial.pool_scores_)


def test_workers_read_their_own_rows(client, data):
    train, _, pool, path = data
    streamed = ParquetPool(path, like=train, chunk_rows=64, block_rows=32)
    out = streamed.map_blocks(_first_and_size, executor=DaskChunkExecutor(client=client))
    assert [n for _, n in out] == [32] * 12 + [16]
    np.testing.assert_array_equal([x for x, _ in out], pool.to_numpy()[::32, 0])


def _first_and_size(X, side):
    return float(X[0, 0]), X.shape[0]


def test_make_chunk_executor(client):
    assert isinstance(make_chunk_executor(), SerialChunkExecutor)
    with make_chunk_executor(address=client.scheduler.address) as ex:  # type: ignore[attr-defined]
        assert isinstance(ex, DaskChunkExecutor)
        assert ex.address == client.scheduler.address
        assert ex._opened is not None  # connected when built
    assert isinstance(make_chunk_executor("dask"), DaskChunkExecutor)
    with pytest.raises(InvalidParameterError, match="Unknown chunk executor"):
        make_chunk_executor("spark")  # type: ignore[arg-type]


def test_an_unreachable_scheduler_fails_within_the_connect_timeout():
    start = time.monotonic()
    with pytest.raises(SchedulerUnreachableError) as err:
        make_chunk_executor("dask", address="tcp://127.0.0.1:9")
    assert time.monotonic() - start < 15
    assert str(err.value).startswith("cannot reach the dask scheduler at tcp://127.0.0.1:9: ")
    assert "Start one with `dask scheduler` or check the address." in str(err.value)


def test_cli_acquire_with_an_unreachable_scheduler_exits_2_with_one_line(data, tmp_path):
    train, val, _, path = data
    args = _acquire_args(train, val, path, tmp_path)
    start = time.monotonic()
    res = CliRunner().invoke(
        app,
        [
            *args,
            "--executor",
            "dask",
            "--address",
            "tcp://127.0.0.1:9",
            "--out",
            str(tmp_path / "out"),
        ],
    )
    assert time.monotonic() - start < 15
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: cannot reach the dask scheduler at tcp://127.0.0.1:9: ")
    assert lines[0].endswith("Start one with `dask scheduler` or check the address.")


def test_a_relative_pool_path_reaches_workers_absolute(data, tmp_path, monkeypatch):
    train, _, pool, path = data
    monkeypatch.chdir(path.parent)
    streamed = ParquetPool(path.name, like=train, chunk_rows=50, block_rows=32)
    reader = streamed.reader()
    assert reader.path.is_absolute()
    assert reader.path == path.absolute()
    monkeypatch.chdir(tmp_path)  # a worker started in another folder
    moved = pickle.loads(pickle.dumps(reader))
    np.testing.assert_array_equal(np.concatenate(list(moved.read(0, 40))), pool.to_numpy()[:40])


def test_reader_and_block_functions_pickle(data):
    train, _, pool, path = data
    streamed = ParquetPool(path, like=train, chunk_rows=50, block_rows=32)
    reader = pickle.loads(pickle.dumps(streamed.reader()))
    np.testing.assert_array_equal(
        np.concatenate(list(reader.read(10, 130))), pool.to_numpy()[10:130]
    )
    model = make_learner("lr", random_state=0).fit(train.to_numpy(), train.y)
    fn = pickle.loads(pickle.dumps(partial(_entropy_block, model=model)))
    assert fn(pool.to_numpy()[:3], {}).shape == (3,)


def _acquire_args(train, val, path, folder):
    """Write the train and validation splits into ``folder``; return acquire's options."""
    frame_cols = [*train.feature_names, "group", "label"]
    for name, ds in (("train", train), ("val", val)):
        ds.X.assign(group=ds.sensitive["group"].to_numpy(), label=ds.y)[frame_cols].to_parquet(
            folder / f"{name}.parquet"
        )
    return [
        "acquire",
        "--pool",
        str(path),
        "--train",
        str(folder / "train.parquet"),
        "--val",
        str(folder / "val.parquet"),
        "--method",
        "datasift-inf",
        "--budget",
        "60",
        "--batch",
        "15",
        "--chunk-rows",
        "64",
    ]


def test_cli_scores_chunks_on_a_dask_scheduler(client, data, tmp_path):
    train, val, _, path = data
    args = _acquire_args(train, val, path, tmp_path)
    orders = []
    for extra in ([], ["--executor", "dask", "--address", client.scheduler.address]):
        out = tmp_path / f"out{len(extra)}"
        res = CliRunner().invoke(app, [*args, *extra, "--out", str(out)])
        assert res.exit_code == 0, res.output
        orders.append((out / "acquisition_order.csv").read_text())
    assert orders[0] == orders[1]
    assert len(orders[0].splitlines()) > 1
