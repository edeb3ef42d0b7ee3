"""fetch_dataset: file:// downloads of fixtures, checksum checks, atomic writes. No network."""

from __future__ import annotations

import gzip
import hashlib
import shutil
import zipfile
from pathlib import Path

import pytest

import fairacq.data.loaders._fetch as fetch_module
from fairacq.data.loaders import (
    DatasetNotFoundError,
    RemoteFile,
    fetch_dataset,
    is_available_offline,
    load_movielens_ratings,
)
from fairacq.exceptions import CorruptFileError, InvalidParameterError, UnknownNameError

FIXTURES = Path(__file__).parent / "fixtures"
ML_FILES = ("u.data", "u.user", "u.item", "u.genre")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A 'server' folder holding a MovieLens-like zip and plain files."""
    server = tmp_path / "server"
    server.mkdir()
    with zipfile.ZipFile(server / "ml-100k.zip", "w") as archive:
        for name in ML_FILES:
            archive.write(FIXTURES / "movielens-100k" / name, f"ml-100k/{name}")
    shutil.copy(FIXTURES / "movielens-100k" / "u.user", server / "u.user")
    with zipfile.ZipFile(server / "csv_pwy.zip", "w") as archive:
        archive.write(FIXTURES / "acs" / "psam_p56.csv", "psam_p56.csv")
    (server / "broken.zip").write_bytes(b"this is not a zip archive")
    return server


def movielens_specs(server: Path, *, corrupt: str | None = None) -> tuple[RemoteFile, ...]:
    url = (server / "ml-100k.zip").as_uri()
    specs = []
    for name in ML_FILES:
        digest = sha256(FIXTURES / "movielens-100k" / name)
        if name == corrupt:
            digest = "0" * 64
        target = f"movielens-100k/{name}.gz" if name == "u.data" else f"movielens-100k/{name}"
        specs.append(RemoteFile(url=url, target=target, sha256=digest, member=f"ml-100k/{name}"))
    return tuple(specs)


def test_fetch_zip_members_then_load(
    remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", movielens_specs(remote))
    data = tmp_path / "data"
    folder = fetch_dataset("movielens-100k", data_dir=data)
    assert folder == data / "movielens-100k"
    stored = data / "movielens-100k" / "u.data.gz"
    original = (FIXTURES / "movielens-100k" / "u.data").read_bytes()
    assert gzip.decompress(stored.read_bytes()) == original  # gzipped on write
    assert (folder / "u.item").read_bytes() == (
        FIXTURES / "movielens-100k" / "u.item"
    ).read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == ["u.data.gz", "u.genre", "u.item", "u.user"]
    assert is_available_offline("movielens-100k", data_dir=data)
    assert len(load_movielens_ratings(data_dir=data)) == 8


def test_checksum_mismatch_deletes_partial_file(
    remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = movielens_specs(remote, corrupt="u.item")
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", specs)
    data = tmp_path / "data"
    with pytest.raises(CorruptFileError, match=r"Checksum mismatch for member 'ml-100k/u\.item'"):
        fetch_dataset("movielens-100k", data_dir=data)
    folder = data / "movielens-100k"
    assert not (folder / "u.item").exists()
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".")]  # no temp files
    assert isinstance(CorruptFileError("x"), OSError)


def test_plain_download_checksum(
    remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = (remote / "u.user").as_uri()
    good = RemoteFile(url=url, target="movielens-100k/u.user", sha256=sha256(remote / "u.user"))
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", (good,))
    data = tmp_path / "data"
    fetch_dataset("movielens-100k", data_dir=data)
    assert (data / "movielens-100k" / "u.user").read_bytes() == (remote / "u.user").read_bytes()

    bad = RemoteFile(url=url, target="movielens-100k/other", sha256="f" * 64)
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", (bad,))
    with pytest.raises(CorruptFileError, match=f"expected sha256 {'f' * 64}"):
        fetch_dataset("movielens-100k", data_dir=data)
    assert not (data / "movielens-100k" / "other").exists()


def test_existing_files_are_kept_unless_forced(
    remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    target = data / "movielens-100k" / "u.user"
    target.parent.mkdir(parents=True)
    target.write_text("local copy\n")
    spec = RemoteFile(
        url=(remote / "u.user").as_uri(), target="movielens-100k/u.user", sha256="0" * 64
    )
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", (spec,))
    fetch_dataset("movielens-100k", data_dir=data)  # present: nothing downloaded
    assert target.read_text() == "local copy\n"
    with pytest.raises(CorruptFileError):
        fetch_dataset("movielens-100k", data_dir=data, force=True)
    assert target.read_text() == "local copy\n"  # a failed forced fetch keeps the old file
    good = RemoteFile(url=spec.url, target=spec.target, sha256=sha256(remote / "u.user"))
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", (good,))
    fetch_dataset("movielens-100k", data_dir=data, force=True)
    assert target.read_bytes() == (remote / "u.user").read_bytes()


def test_fetch_acs_state(remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = FIXTURES / "acs" / "psam_p56.csv"
    spec = RemoteFile(
        url=(remote / "csv_pwy.zip").as_uri(),
        target="acs/2018/1-Year/psam_p56.csv.gz",
        sha256=sha256(payload),
        member="psam_p56.csv",
    )
    monkeypatch.setitem(fetch_module.ACS_REMOTE_FILES, "WY", spec)
    data = tmp_path / "data"
    folder = fetch_dataset("acs-employment", data_dir=data, states=["wy"])
    assert folder == data / "acs" / "2018" / "1-Year"
    assert gzip.decompress((folder / "psam_p56.csv.gz").read_bytes()) == payload.read_bytes()
    with pytest.raises(UnknownNameError, match="pinned checksum"):
        fetch_dataset("acs-income", data_dir=data, states=["CA"])
    with pytest.raises(InvalidParameterError, match="non-empty sequence"):
        fetch_dataset("acs-income", data_dir=data, states="WY")


def test_pinned_acs_and_movielens_tables() -> None:
    assert sorted(fetch_module.ACS_REMOTE_FILES) == sorted(
        ["DE", "HI", "ID", "ME", "MT", "ND", "NE", "NH", "NM", "RI", "SD", "VT", "WV", "WY"]
    )
    wy = fetch_module.ACS_REMOTE_FILES["WY"]
    assert wy.url.endswith("/2018/1-Year/csv_pwy.zip")
    assert wy.member == "psam_p56.csv"
    ml = {s.member: s for s in fetch_module.REMOTE_FILES["movielens-100k"]}
    assert ml["ml-100k/u.data"].target == "movielens-100k/u.data.gz"
    assert all(len(s.sha256) == 64 for s in ml.values())


def test_bad_zip_and_unreachable_url(
    remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    broken = RemoteFile(
        url=(remote / "broken.zip").as_uri(),
        target="movielens-100k/u.user",
        sha256="0" * 64,
        member="ml-100k/u.user",
    )
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", (broken,))
    with pytest.raises(CorruptFileError, match="not a valid zip archive"):
        fetch_dataset("movielens-100k", data_dir=data)
    missing = RemoteFile(
        url=(remote / "absent.zip").as_uri(), target="movielens-100k/u.user", sha256="0" * 64
    )
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", (missing,))
    with pytest.raises(DatasetNotFoundError, match="Could not download"):
        fetch_dataset("movielens-100k", data_dir=data)
    no_member = RemoteFile(
        url=(remote / "ml-100k.zip").as_uri(),
        target="movielens-100k/u.occupation",
        sha256="0" * 64,
        member="ml-100k/u.occupation",
    )
    monkeypatch.setitem(fetch_module.REMOTE_FILES, "movielens-100k", (no_member,))
    with pytest.raises(CorruptFileError, match=r"has no member 'ml-100k/u\.occupation'"):
        fetch_dataset("movielens-100k", data_dir=data)


def test_datasets_that_cannot_be_fetched(tmp_path: Path) -> None:
    with pytest.raises(DatasetNotFoundError, match="Kaggle") as info:
        fetch_dataset("give-me-some-credit", data_dir=tmp_path)
    assert "give-me-some-credit/cs-training.csv" in str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    with pytest.raises(DatasetNotFoundError, match="Excel workbook"):
        fetch_dataset("taiwan-credit", data_dir=tmp_path)
    # once the user has placed the file, fetch has nothing to do
    assert fetch_dataset("give-me-some-credit", data_dir=FIXTURES) == (
        FIXTURES / "give-me-some-credit"
    )


def test_bundled_and_unknown(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FAIRACQ_DATA", str(tmp_path))
    folder = fetch_dataset("adult")
    assert (folder / "adult.data.gz").is_file()
    assert (folder / "PROVENANCE.md").is_file()
    assert not list(tmp_path.iterdir())  # nothing written for a bundled dataset
    with pytest.raises(UnknownNameError, match="Did you mean 'movielens-100k'"):
        fetch_dataset("movielens")
