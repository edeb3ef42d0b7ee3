"""No command writes over one of its inputs: each clash is one line, exit 2, the input intact.

Each case copies the shared tables into a fresh folder, names an output that is (or holds)
an input, and checks the command refuses it before any work and leaves the bytes unchanged.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.bad_input._corpus import assert_cli_error, run_cli

ROLES = ("--label", "approved", "--positive", "yes", "--sensitive", "gender", "--drop", "person")


@pytest.fixture
def work(files: Path, tmp_path: Path) -> Path:
    """A fresh folder with ``people.csv`` and ``pool.parquet``, and a run folder holding both."""
    for name in ("people.csv", "pool.parquet"):
        shutil.copy(files / name, tmp_path / name)
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(files / "people.csv", run / "counts.csv")
    shutil.copy(files / "pool.parquet", run / "acquired.parquet")
    return tmp_path


def _acquire(work: Path, pool: str, out: str) -> list[str]:
    return [
        "acquire", "--data", str(work / "people.csv"), "--pool", str(work / pool), *ROLES,
        "--method", "random", "--budget", "20", "--batch", "10", "--out", out,
    ]  # fmt: skip


def _compare(work: Path) -> list[str]:
    data = str(work / "run" / "counts.csv")
    return ["compare", "--data", data, *ROLES, "--out", str(work / "run")]


def _filter_apply(work: Path, *extra: str) -> list[str]:
    proxy = work / "proxy.json"
    proxy.write_text("{}")  # refused before it is read
    return ["filter", "apply", str(proxy), str(work / "people.csv"), *extra]


def _features_acquire(work: Path, out: str) -> list[str]:
    model = work / "dadi"
    model.mkdir(exist_ok=True)
    (model / "summary.json").write_text("{}")
    return ["features", "acquire", str(model), str(work / "people.csv"), "--out", out]


CASES = {
    "acquire --pool inside --out": lambda w: _acquire(w, "run/acquired.parquet", str(w / "run")),
    "acquire --out is the folder of --data": lambda w: _acquire(w, "pool.parquet", str(w)),
    "acquire --out empty": lambda w: _acquire(w, "pool.parquet", ""),
    "compare --data inside --out": lambda w: _compare(w),
    "sample --data inside --out": lambda w: [
        "sample",
        "--data",
        str(w / "run" / "counts.csv"),
        *ROLES,
        "--out",
        str(w / "run"),
    ],
    "filter fit --out is --data": lambda w: [
        "filter",
        "fit",
        "--data",
        str(w / "people.csv"),
        *ROLES,
        "--out",
        str(w / "people.csv"),
    ],
    "filter fit --summary is --data": lambda w: [
        "filter",
        "fit",
        "--data",
        str(w / "people.csv"),
        *ROLES,
        "--out",
        str(w / "p.json"),
        "--summary",
        str(w / "people.csv"),
    ],
    "filter apply --out is the candidates": lambda w: _filter_apply(
        w, "--out", str(w / "people.csv")
    ),
    "filter apply --summary is the proxy": lambda w: _filter_apply(
        w, "--out", str(w / "admitted.csv"), "--summary", str(w / "proxy.json")
    ),
    "features train --data inside --out": lambda w: [
        "features",
        "train",
        "--data",
        str(w / "run" / "counts.csv"),
        *ROLES,
        "--out",
        str(w / "run"),
    ],
    "features acquire --out is the people": lambda w: _features_acquire(w, str(w / "people.csv")),
    "features acquire --out inside the model": lambda w: _features_acquire(
        w, str(w / "dadi" / "summary.json")
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_output_that_would_overwrite_an_input_is_refused(work: Path, case: str) -> None:
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    args = CASES[case](work)
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    line = assert_cli_error(run_cli(*args), ("--",))
    assert "would overwrite an input" in line or "current folder" in line or "unsupported" in line
    after = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing replaced
