"""The dataset registry: names, descriptions, dispatch and offline availability."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from fairacq.data.loaders import (
    CATALOGUE,
    DatasetInfo,
    dataset_info,
    is_available_offline,
    list_datasets,
    load_dataset,
    load_german,
)
from fairacq.exceptions import InvalidParameterError, UnknownNameError

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = [
    "adult",
    "compas",
    "german",
    "bank-marketing",
    "give-me-some-credit",
    "taiwan-credit",
    "movielens-100k",
    "acs-income",
    "acs-public-coverage",
    "acs-mobility",
    "acs-employment",
]


def test_list_datasets_names_and_order() -> None:
    infos = list_datasets()
    assert [i.name for i in infos] == NAMES
    assert all(isinstance(i, DatasetInfo) for i in infos)
    assert [i.name for i in infos if i.bundled] == NAMES[:4]


def test_dataset_info_is_frozen_and_complete() -> None:
    info = dataset_info("adult")
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.name = "other"  # type: ignore[misc]
    for info in list_datasets():
        assert info.title
        assert info.description
        assert info.licence
        assert info.label
        assert info.source_url.startswith("https://")
        assert info.sensitive_attributes
        assert info.files
        assert info.bundled <= info.redistributable  # never bundle what may not be shared
    assert dataset_info("give-me-some-credit").redistributable is False
    assert dataset_info("movielens-100k").redistributable is False
    assert dataset_info("compas").n_rows == 7_214
    assert dataset_info("acs-income").n_rows is None


def test_every_paper_dataset_cites_a_paper() -> None:
    for info in list_datasets():
        if info.name != "taiwan-credit":
            assert info.papers, info.name
            assert all(p[:3] in {"000", "001", "002", "003", "004"} for p in info.papers)


@pytest.mark.parametrize(
    ("typo", "suggestion"), [("adlt", "adult"), ("acs_income", "acs-income"), ("bank", None)]
)
def test_unknown_name_suggests(typo: str, suggestion: str | None) -> None:
    for call in (dataset_info, load_dataset, is_available_offline):
        with pytest.raises(UnknownNameError, match=r"fairacq\.data\.list_datasets\(\)") as info:
            call(typo)
        if suggestion:
            assert f"Did you mean '{suggestion}'?" in str(info.value)


def test_bank_typo_names_closest_dataset() -> None:
    with pytest.raises(UnknownNameError, match="Did you mean 'bank-marketing'"):
        load_dataset("bank-marketng")


def test_load_dataset_dispatches_with_kwargs() -> None:
    ds = load_dataset("german", sensitive="age")
    direct = load_german(sensitive="age")
    assert ds.group_names == direct.group_names
    assert np.array_equal(ds.y, direct.y)
    assert ds.feature_names == direct.feature_names
    with pytest.raises(InvalidParameterError, match=r"no parameter 'sensitve'\. Did you mean"):
        load_dataset("german", sensitve="age")


@pytest.mark.parametrize("name", NAMES[:4])
def test_bundled_sensitive_attributes_match_catalogue(name: str) -> None:
    ds = load_dataset(name)
    assert tuple(ds.sensitive.columns) == CATALOGUE[name].sensitive_attributes
    assert ds.metadata["dataset"] == name
    assert ds.metadata["favourable_label"] == CATALOGUE[name].favourable_label
    assert is_available_offline(name)


def test_local_availability(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRACQ_DATA", str(tmp_path))
    assert not is_available_offline("give-me-some-credit")
    assert not is_available_offline("movielens-100k")
    assert is_available_offline("adult")
    # gunzipped copies count too
    assert is_available_offline("give-me-some-credit", data_dir=FIXTURES)
    assert is_available_offline("movielens-100k", data_dir=FIXTURES)
    assert not is_available_offline("acs-income", data_dir=FIXTURES)


@pytest.mark.needs_data(
    "give-me-some-credit/cs-training.csv.gz",
    "uci-credit-card-default/raw/UCI_Credit_Card.csv.gz",
    "movielens-100k",
    "acs/2018/1-Year/psam_p56.csv.gz",
)
def test_shared_folder_has_everything(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FAIRACQ_DATA", str(shared_data))
    monkeypatch.setenv("FAIRACQ_CACHE", str(tmp_path))
    assert all(is_available_offline(name) for name in NAMES)
    ds = load_dataset("acs-mobility")
    assert ds.name == "acs-mobility"
    assert ds.metadata["task"] == "ACSMobility"
    assert ds.sensitive_attrs == ("race_binary",)  # paper 000, Table 1: African-American
