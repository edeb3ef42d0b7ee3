"""Datasets fairacq cannot download: one line says what, from where, to where. No network."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairacq.data.loaders import (
    AUTHOR_FILES,
    MANUAL_DOWNLOADS,
    DatasetNotFoundError,
    dataset_needs,
    describe_datasets,
    fetch_dataset,
    plan_fetch,
)
from fairacq.exceptions import UnknownNameError


@pytest.mark.parametrize("name", [*MANUAL_DOWNLOADS, *AUTHOR_FILES])
def test_every_manual_download_refuses_in_one_line_naming_the_destination(
    name: str, tmp_path: Path
) -> None:
    download = AUTHOR_FILES[name].download if name in AUTHOR_FILES else MANUAL_DOWNLOADS[name]
    with pytest.raises(DatasetNotFoundError) as info:
        fetch_dataset(name, data_dir=tmp_path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{name} cannot be fetched (")
    assert download.url in message
    assert str(tmp_path / download.target) in message
    assert dataset_needs(name, tmp_path) == message.removesuffix(".")


def test_a_manual_file_once_placed_is_found(tmp_path: Path) -> None:
    folder = tmp_path / "fair-a3sl" / "biasedPaperReview"
    (folder / "bias1").mkdir(parents=True)
    assert fetch_dataset("psl-paper-review", data_dir=tmp_path) == folder
    (tmp_path / "fair-a3sl" / "compas_5cv.tar.gz").write_bytes(b"")
    assert fetch_dataset("psl-compas", data_dir=tmp_path) == tmp_path / "fair-a3sl"
    plan = plan_fetch("psl-compas", data_dir=tmp_path)
    assert not plan.missing
    assert plan.present == ("fair-a3sl/compas_5cv.tar.gz",)


def test_plan_fetch_downloads_nothing_and_knows_the_author_files(tmp_path: Path) -> None:
    plan = plan_fetch("acs-income", data_dir=tmp_path, states=("WY", "VT"))
    assert [s.target for s in plan.downloads] == [
        "acs/2018/1-Year/psam_p56.csv.gz",
        "acs/2018/1-Year/psam_p50.csv.gz",
    ]
    assert not any(tmp_path.iterdir())
    assert plan_fetch("adult").bundled
    with pytest.raises(UnknownNameError, match="Did you mean 'psl-compas'"):
        plan_fetch("psl-compass")


def test_describe_datasets_lists_the_catalogue_then_the_author_files(tmp_path: Path) -> None:
    records = describe_datasets(tmp_path)
    kinds = [r["kind"] for r in records]
    assert kinds == sorted(kinds, key=lambda k: k != "dataset")
    assert {r["name"] for r in records if r["kind"] != "dataset"} == set(AUTHOR_FILES)
    assert all(set(r) >= {"available_offline", "needs", "fetchable"} for r in records)
