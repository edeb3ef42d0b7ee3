"""``fairacq datasets list|describe|fetch``: offline or not, what is needed, one-line refusals.

No network: downloads go to ``file://`` URLs of the test fixtures.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

import fairacq.data.loaders._fetch as fetch_module
from fairacq.cli import _datasets, app
from fairacq.data.loaders import RemoteFile

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"
UCI = "https://archive.ics.uci.edu/dataset/350/default+of+credit+card+clients"


def _run(*args: object) -> Any:
    return runner.invoke(app, [str(a) for a in args])


def _records(data_dir: Path) -> dict[str, dict[str, Any]]:
    res = _run("datasets", "list", "--data-dir", data_dir, "--json")
    assert res.exit_code == 0, res.output
    return {r["name"]: r for r in json.loads(res.stdout)}


def test_list_says_what_is_offline_and_what_each_dataset_needs(tmp_path: Path) -> None:
    rows = _records(tmp_path)
    assert rows["adult"]["available_offline"]
    assert rows["adult"]["needs"] is None
    assert rows["movielens-100k"]["fetchable"]
    assert rows["movielens-100k"]["needs"] == "a download: fairacq datasets fetch movielens-100k"
    taiwan = rows["taiwan-credit"]
    assert not taiwan["available_offline"]
    assert not taiwan["fetchable"]
    assert UCI in taiwan["needs"]
    assert str(tmp_path / "uci-credit-card-default/raw/UCI_Credit_Card.csv") in taiwan["needs"]
    folds = rows["psl-compas"]
    assert folds["kind"] == "authors' files"
    assert not folds["available_offline"]
    assert "the authors' folds, compas_5cv.tar.gz" in folds["needs"]
    assert "github.com/yzhan202/fairness-A3SL" in folds["needs"]
    assert str(tmp_path / "fair-a3sl" / "compas_5cv.tar.gz") in folds["needs"]
    assert "fairacq reproduce psl-compas --full" in folds["used_by"]
    assert rows["psl-paper-review"]["kind"] == "authors' files"


def test_list_marks_files_once_they_are_in_the_data_directory(tmp_path: Path) -> None:
    (tmp_path / "fair-a3sl").mkdir()
    (tmp_path / "fair-a3sl" / "compas_5cv.tar.gz").write_bytes(b"")
    taiwan = tmp_path / "uci-credit-card-default" / "raw" / "UCI_Credit_Card.csv.gz"
    taiwan.parent.mkdir(parents=True)
    taiwan.write_bytes(b"")
    rows = _records(tmp_path)
    for name in ("psl-compas", "taiwan-credit"):
        assert rows[name]["available_offline"], name
        assert rows[name]["needs"] is None, name


def test_list_table_has_offline_and_needs_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_datasets, "console", Console(width=300, highlight=False))
    res = _run("datasets", "list", "--data-dir", tmp_path)
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "offline" in text
    assert "needs" in text
    assert "nothing (bundled)" in text
    assert "fairacq datasets fetch movielens-100k" in text
    assert "psl-compas" in text
    assert "the authors' folds, compas_5cv.tar.gz" in text


def test_describe_a_dataset_and_the_authors_files(tmp_path: Path) -> None:
    res = _run("datasets", "describe", "psl-compas", "--data-dir", tmp_path, "--json")
    assert res.exit_code == 0, res.output
    record = json.loads(res.stdout)
    assert record["files"] == ["fair-a3sl/compas_5cv.tar.gz"]
    assert record["papers"]
    assert record["used_by"]
    german = json.loads(_run("datasets", "describe", "german", "--json").stdout)
    assert german["n_rows"] == 1000
    assert german["available_offline"]
    bad = _run("datasets", "describe", "psl-compass")
    assert bad.exit_code == 2
    assert "Did you mean 'psl-compas'" in bad.stderr


@pytest.mark.parametrize("as_json", [False, True])
def test_fetch_taiwan_says_in_one_line_what_to_download_and_where(
    tmp_path: Path, as_json: bool
) -> None:
    res = _run("datasets", "fetch", "taiwan-credit", "--data-dir", tmp_path,
               *(["--json"] if as_json else []))  # fmt: skip
    assert res.exit_code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    target = tmp_path / "uci-credit-card-default" / "raw" / "UCI_Credit_Card.csv"
    assert lines[0].startswith("error: taiwan-credit cannot be fetched (UCI publishes it only")
    assert "'default of credit card clients.xls'" in lines[0]
    assert UCI in lines[0]
    assert lines[0].endswith(f"save it as {target}.")
    if as_json:
        record = json.loads(res.stdout)
        assert record["ok"] is False
        assert record["manual"]["from"] == UCI
        assert record["manual"]["save_as"] == str(target)
        assert record["error"] == lines[0].removeprefix("error: ")
    else:
        assert res.stdout == ""


def test_fetch_the_authors_folds_says_where_to_get_them(tmp_path: Path) -> None:
    res = _run("datasets", "fetch", "psl-compas", "--data-dir", tmp_path)
    assert res.exit_code == 2
    line = res.stderr.strip()
    assert "the authors' folds, compas_5cv.tar.gz, from https://github.com/yzhan202/" in line
    assert line.endswith(f"save it as {tmp_path / 'fair-a3sl' / 'compas_5cv.tar.gz'}.")


def test_fetch_json_lists_what_was_downloaded_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = tmp_path / "server"
    server.mkdir()
    specs = []
    with zipfile.ZipFile(server / "ml.zip", "w") as archive:
        for name in ("u.user", "u.item"):
            archive.write(FIXTURES / "movielens-100k" / name, f"ml/{name}")
            digest = hashlib.sha256((FIXTURES / "movielens-100k" / name).read_bytes())
            specs.append(
                RemoteFile((server / "ml.zip").as_uri(), f"movielens-100k/{name}",
                           digest.hexdigest(), member=f"ml/{name}")
            )  # fmt: skip
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", tuple(specs))
    data = tmp_path / "data"
    args = ("datasets", "fetch", "movielens-100k", "--data-dir", data, "--json")
    first = json.loads(_run(*args).stdout)
    assert first["ok"] is True
    assert first["downloaded"] == ["movielens-100k/u.user", "movielens-100k/u.item"]
    assert first["folder"] == str(data / "movielens-100k")
    assert (data / "movielens-100k" / "u.item").is_file()
    again = json.loads(_run(*args).stdout)
    assert again["downloaded"] == []
    assert again["already_present"] == first["downloaded"]
    text = _run(*args[:-1])
    assert text.stdout.strip() == f"movielens-100k: already present in {data / 'movielens-100k'}"
