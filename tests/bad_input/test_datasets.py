"""Bad input to the data layer: ``fairacq datasets list/info/fetch`` and reading tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq.data import (
    FairDataset,
    check_table_file,
    dataset_info,
    fetch_dataset,
    load_dataset,
    read_dataset,
    read_table,
    write_table,
)
from fairacq.exceptions import (
    CorruptFileError,
    FairacqError,
    InvalidDataError,
    InvalidParameterError,
    UnknownNameError,
)
from tests.bad_input._corpus import (
    Fragments,
    assert_api_error,
    assert_cli_error,
    people_frame,
    run_cli,
)

CLI_CASES: list[tuple[list[str], Fragments]] = [
    (["info", "germn"], ("Unknown dataset 'germn'", "Did you mean 'german'?")),
    (["info", ""], ("Unknown dataset ''", "Known: acs-employment")),
    (["info", "GERMAN"], ("Unknown dataset 'GERMAN'",)),
    (["info", "german", "--json", "extra"], ("extra",)),
    (["fetch", "germn"], ("Unknown dataset 'germn'", "Did you mean 'german'?")),
    (["fetch", "acs-income", "--state", "ZZ"], ("ACS state", "'ZZ'", "Known: DE")),
    (["fetch", "acs-income", "--state", "wy2"], ("'WY2'", "Did you mean 'WY'?")),
    (["fetch", "adult", "--state", "WY"], ("--state applies to the ACS datasets only",)),
    (
        ["fetch", "movielens-100k", "--data-dir", "{files}/afile.txt"],
        ("afile.txt is a file", "pass a folder"),
    ),
    (["fetch", "give-me-some-credit", "--data-dir", "{files}/afile.txt"], ("is a file",)),
    (
        ["fetch", "give-me-some-credit", "--data-dir", "{tmp}"],
        ("cannot be fetched", "cs-training.csv"),
    ),
    (["list", "--json", "extra"], ("extra",)),
    (["info", "acs_income"], ("'acs_income'", "Did you mean 'acs-income'?")),
    (["info", "german "], ("Unknown dataset 'german '",)),
    (["info", "../german"], ("Unknown dataset '../german'",)),
    (["fetch", ""], ("Unknown dataset ''",)),
    (["fetch", "Adult"], ("Unknown dataset 'Adult'",)),
    (["fetch", "acs-income", "--state", ""], ("ACS state", "''")),
    (["fetch", "acs-income", "--state", "WY", "--state", "XX"], ("'XX'",)),
    (["fetch", "acs-employment", "--state", "CA"], ("'CA'", "pinned checksum")),
    (["fetch", "german", "--state", "WY"], ("--state applies to the ACS datasets only",)),
    (["fetch", "taiwan-credit", "--data-dir", "{files}/people.csv"], ("people.csv is a file",)),
]


@pytest.mark.parametrize(("args", "fragments"), CLI_CASES, ids=lambda v: str(v)[:60])
def test_datasets_cli(files: Path, tmp_path: Path, args, fragments) -> None:
    filled = [a.format(files=files, tmp=tmp_path) for a in args]
    res = run_cli("datasets", *filled)
    if "extra" in filled:  # an unexpected argument: click's usage error, still exit 2
        assert res.exit_code == 2, res.output
        assert "Traceback" not in res.output
        assert "extra" in res.output
        return
    assert_cli_error(res, fragments)


def _frame(**change: Any) -> pd.DataFrame:
    return people_frame(40).assign(**change)


API_CASES: list[tuple[str, Any, type[FairacqError], Fragments]] = [
    ("load unknown", lambda f: load_dataset("germn"), UnknownNameError, "Did you mean 'german'?"),
    ("info unknown", lambda f: dataset_info("adlt"), UnknownNameError, "adult"),
    ("load sensitive", lambda f: load_dataset("german", sensitive="gendr"), FairacqError, "gendr"),
    ("fetch unknown", lambda f: fetch_dataset("germn"), UnknownNameError, "german"),
    (
        "fetch states str",
        lambda f: fetch_dataset("acs-income", states="WY"),
        InvalidParameterError,
        "non-empty sequence",
    ),
    (
        "fetch into a file",
        lambda f: fetch_dataset("movielens-100k", data_dir=f / "afile.txt"),
        InvalidParameterError,
        "is a file",
    ),
    ("read missing", lambda f: read_table(f / "nope.csv"), FairacqError, "no such file"),
    ("read empty", lambda f: read_table(f / "empty.csv"), FairacqError, "empty"),
    ("read header only", lambda f: read_table(f / "header_only.csv"), InvalidDataError, "no rows"),
    (
        "read truncated gz",
        lambda f: read_table(f / "truncated.csv.gz"),
        CorruptFileError,
        "truncated",
    ),
    ("read binary csv", lambda f: read_table(f / "binary.csv"), CorruptFileError, "binary.csv"),
    (
        "read binary parquet",
        lambda f: read_table(f / "binary.parquet"),
        CorruptFileError,
        "Parquet",
    ),
    ("read json", lambda f: read_table(f / "table.json"), FairacqError, "unsupported file type"),
    ("read folder", lambda f: read_table(f / "folder.csv"), FairacqError, "directory"),
    (
        "read columns",
        lambda f: read_table(f / "people.csv", columns=["nope"]),
        InvalidDataError,
        "nope",
    ),
    ("check folder", lambda f: check_table_file(f / "folder.csv"), FairacqError, "directory"),
    (
        "read_dataset label",
        lambda f: read_dataset(f / "people.csv", label="nope", sensitive="gender"),
        InvalidDataError,
        "nope",
    ),
    (
        "read_dataset strings",
        lambda f: read_dataset(f / "people.csv", label="approved", sensitive="gender"),
        InvalidDataError,
        ("'person' is not numeric", "One-hot encode it"),
    ),
    (
        "write suffix",
        lambda f: write_table(people_frame(3), f / "out.xlsx"),
        FairacqError,
        "unsupported",
    ),
    (
        "write into a file",
        lambda f: write_table(people_frame(3), f / "afile.txt" / "x.csv"),
        FairacqError,
        "afile.txt",
    ),
    (
        "dataset NaN label",
        lambda f: FairDataset(
            pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), [0, 1, np.nan, 1], ["a", "b", "a", "b"]
        ),
        InvalidDataError,
        ("column 'y' has 1 NaN", "drop those rows"),
    ),
    (
        "dataset group NaN",
        lambda f: FairDataset(
            pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), [0, 1, 0, 1], ["a", None, "a", "b"]
        ),
        InvalidDataError,
        ("column 's' has 1 NaN",),
    ),
    (
        "dataset string features",
        lambda f: FairDataset(
            pd.DataFrame({"x": ["a", "b", "a", "b"]}), [0, 1, 0, 1], ["a", "b", "a", "b"]
        ),
        InvalidDataError,
        "x",
    ),
]


@pytest.mark.parametrize(
    ("name", "call", "kind", "fragments"), API_CASES, ids=[c[0] for c in API_CASES]
)
def test_data_api(files, name, call, kind, fragments) -> None:
    assert_api_error(lambda: call(files), fragments, kind)
