"""``fairacq acquire --pool FILE.parquet`` streams the pool and reports bad input clearly."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from typer.testing import CliRunner

from fairacq.acquisition import PartitionDroppedWarning, make_acquirer
from fairacq.cli import app
from fairacq.data import load_toy

runner = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    ds = load_toy(800, random_state=4)
    frame = ds.X.assign(group=ds.sensitive["group"].to_numpy(), label=ds.y)
    frame.iloc[:150].to_parquet(root / "train.parquet")
    frame.iloc[150:300].to_parquet(root / "val.parquet")
    frame.iloc[300:].to_parquet(root / "pool.parquet", row_group_size=100)
    return root, ds


def _acquire(root, pool, *extra):
    return runner.invoke(
        app,
        [
            "acquire",
            "--pool",
            str(pool),
            "--train",
            str(root / "train.parquet"),
            "--val",
            str(root / "val.parquet"),
            "--method",
            "datasift-inf",
            "--budget",
            "60",
            "--batch",
            "20",
            "--seed",
            "1",
            "--out",
            str(root / "out"),
            "--overwrite",  # the tests share one output folder
            *extra,
        ],
    )


def test_streamed_cli_run_matches_the_library_in_memory(files):
    root, ds = files
    res = _acquire(root, root / "pool.parquet", "--chunk-rows", "30")
    assert res.exit_code == 0, res.output
    rows = (root / "out" / "acquisition_order.csv").read_text().splitlines()[1:]
    order = [int(r.split(",")[1]) for r in rows]
    acq = make_acquirer(
        "datasift-inf",
        budget=60,
        batch_size=20,
        metric="demographic_parity_diff_abs",
        tau=0.01,
        alpha=0.1,
        random_state=1,
    )
    plain = ds.with_sensitive("group")  # files carry no privileged group
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        acq.fit(
            plain.subset(range(150)),
            plain.subset(range(300, 800)),
            validation=plain.subset(range(150, 300)),
        )
    assert order
    assert order == acq.acquired_.tolist()


def test_cli_bad_pool_files(files):
    root, ds = files
    frame = ds.X.assign(group=ds.sensitive["group"].to_numpy(), label=ds.y).iloc[300:]
    bad = root / "bad.parquet"
    frame.drop(columns=["x1"]).to_parquet(bad)
    res = _acquire(root, bad)
    assert res.exit_code == 2
    assert "lacks feature columns" in res.output
    assert "'x1'" in res.output
    nan = frame.copy()
    nan.iloc[17, 0] = np.nan
    nan.to_parquet(bad)
    res = _acquire(root, bad)
    assert res.exit_code == 2
    assert "row 17" in res.output
    bad.write_bytes(b"not a parquet file at all")
    res = _acquire(root, bad)
    assert res.exit_code == 2
    assert "bad.parquet" in res.output
    assert "Cannot read" in res.output
    res = _acquire(root, root / "pool.parquet", "--budget", "501")
    assert res.exit_code == 2
    assert "budget" in res.output
    res = _acquire(root, root / "pool.parquet", "--executor", "spark")
    assert res.exit_code == 2
    assert "serial or dask" in res.output
    res = _acquire(root, root / "pool.parquet", "--cost-column", "price")
    assert res.exit_code == 2
    assert "price" in res.output
