"""Unreadable input files and unusable --out paths: exit 2 with one line, before any work."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.data import load_toy

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def _one_line_error(res, *fragments: str) -> None:
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("files")
    ds = load_toy(600, random_state=2)
    frame = ds.X.assign(group=ds.sensitive["group"].to_numpy(), label=ds.y)
    frame.iloc[:150].to_csv(root / "train.csv", index=False)
    frame.iloc[150:300].to_csv(root / "val.csv", index=False)
    frame.iloc[300:].to_csv(root / "pool.csv", index=False)
    big = pd.concat([frame] * 5).to_csv(index=False).encode()
    (root / "truncated.csv.gz").write_bytes(gzip.compress(big)[:4000])
    (root / "empty.csv").write_bytes(b"")
    (root / "header.csv").write_text("x1,x2,group,label\n")
    (root / "garbage.parquet").write_bytes(b"PAR1 but not really")
    (root / "sheet.xlsx").write_bytes(b"PK\x03\x04")
    res = _run(
        "filter", "fit", "--dataset", "german", "--sensitive", "sex", "--proxy", "naive-tree",
        "--out", root / "proxy.json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return root


BAD = [
    ("missing.csv", "no such file"),
    ("empty.csv", "empty"),
    ("header.csv", "no rows"),
    ("truncated.csv.gz", "truncated"),
    ("garbage.parquet", "Cannot read"),
    ("sheet.xlsx", "unsupported file type"),
]


@pytest.mark.parametrize(("name", "fragment"), BAD)
def test_acquire_bad_training_file(files, name, fragment):
    res = _run(
        "acquire", "--pool", files / "pool.csv", "--train", files / name,
        "--val", files / "val.csv", "--method", "random", "--budget", "20", "--batch", "10",
        "--out", files / "out",
    )  # fmt: skip
    _one_line_error(res, name, fragment)
    assert "Aborted" not in res.output


@pytest.mark.parametrize(("name", "fragment"), BAD)
def test_acquire_bad_pool_file(files, name, fragment):
    res = _run(
        "acquire", "--pool", files / name, "--train", files / "train.csv",
        "--val", files / "val.csv", "--method", "random", "--budget", "20", "--batch", "10",
        "--out", files / "out",
    )  # fmt: skip
    _one_line_error(res, name, fragment)


@pytest.mark.parametrize(("name", "fragment"), BAD)
def test_filter_apply_bad_input(files, name, fragment):
    res = _run(
        "filter", "apply", "--proxy", files / "proxy.json", "--input", files / name,
        "--out", files / "admitted.csv",
    )  # fmt: skip
    _one_line_error(res, name, fragment)
    assert not (files / "admitted.csv").exists()


def test_acquire_csv_files_run(files):
    res = _run(
        "acquire", "--pool", files / "pool.csv", "--train", files / "train.csv",
        "--val", files / "val.csv", "--method", "random", "--budget", "20", "--batch", "10",
        "--out", files / "ok",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert (files / "ok" / "acquisition_order.csv").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["acquire", "--dataset", "german"],
        ["sample", "--dataset", "german", "--groups", "sex"],
        ["reproduce", "filtering-fig1"],
        ["demo"],
        ["features", "train", "--dataset", "german"],
        ["relational", "learn", "--dataset", "paper-review"],
    ],
)
def test_out_that_is_a_file_exits_before_any_work(tmp_path, command):
    taken = tmp_path / "taken.txt"
    taken.write_text("keep me")
    res = _run(*command, "--out", taken)
    _one_line_error(res, "--out", "taken.txt", "existing file")
    assert taken.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.txt"]


def test_out_inside_a_file(tmp_path):
    taken = tmp_path / "taken.txt"
    taken.write_text("x")
    res = _run("acquire", "--dataset", "german", "--out", taken / "run")
    _one_line_error(res, "is a file")


def test_relational_infer_out_is_a_file(tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("x")
    (tmp_path / "rules.psl").write_text("1: a(X) -> b(X) ^2\n")
    res = _run(
        "relational", "infer", "--rules", tmp_path / "rules.psl", "--data", tmp_path,
        "--out", taken,
    )  # fmt: skip
    _one_line_error(res, "existing file")


def test_table_outputs_need_a_file_name(files, tmp_path):
    res = _run(
        "filter", "apply", "--proxy", files / "proxy.json", "--input", files / "pool.csv",
        "--out", tmp_path,
    )  # fmt: skip
    _one_line_error(res, "existing folder")
    res = _run(
        "filter", "apply", "--proxy", files / "proxy.json", "--input", files / "pool.csv",
        "--out", tmp_path / "admitted.xlsx",
    )  # fmt: skip
    _one_line_error(res, "unsupported file type")
    res = _run("filter", "fit", "--dataset", "german", "--sensitive", "sex", "--out", tmp_path)
    _one_line_error(res, "existing folder")
