"""``reproduce --address`` with no scheduler there exits 2 within seconds, with one line."""

from __future__ import annotations

import time

import pytest
from typer.testing import CliRunner

from fairacq.cli import app

pytest.importorskip("distributed")


@pytest.mark.parametrize("extra", [[], ["--executor", "dask"]])
def test_reproduce_with_an_unreachable_scheduler_exits_2_with_one_line(tmp_path, extra):
    out = str(tmp_path / "out")
    args = ["reproduce", "filtering-fig1", *extra, "--address", "tcp://127.0.0.1:9", "--out", out]
    start = time.monotonic()
    res = CliRunner().invoke(app, args)
    assert time.monotonic() - start < 15
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: cannot reach the dask scheduler at tcp://127.0.0.1:9: ")
    assert lines[0].endswith("Start one with `dask scheduler` or check the address.")
    assert res.stdout == ""
    assert not (tmp_path / "out" / "summary.json").exists()
