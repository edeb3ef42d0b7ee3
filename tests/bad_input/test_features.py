"""Bad input to feature acquisition (paper 002): ``fairacq features`` and the DADI API."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq.data import columns_from_options, load_toy
from fairacq.exceptions import (
    CorruptFileError,
    FairacqError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
    UnknownNameError,
)
from fairacq.features import DADI, DadiModel, reveal_table, train_dadi
from tests.bad_input._corpus import (
    Fragments,
    assert_api_error,
    assert_cli_error,
    people_frame,
    run_cli,
)

TINY = {"--pretrain-iter": "10", "--train-iter": "3", "--seed": "1"}
TRAIN = {
    "--data": "people.csv",
    "--label": "approved",
    "--positive": "yes",
    "--sensitive": "gender",
    "--drop": "person",
    **TINY,
}


def _train_args(files: Path, out: Path, change: dict[str, str | None]) -> list[str]:
    options = {**TRAIN, **change}
    args = ["features", "train", "--out", str(out)]
    for option, value in options.items():
        if value is not None:
            args += [option, str(files / value) if option == "--data" else value]
    return args


@pytest.fixture(scope="module")
def model(files: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model trained on people.csv, and people files (no label) beside it."""
    out = tmp_path_factory.mktemp("dadi") / "model"
    res = run_cli(*_train_args(files, out, {}))
    assert res.exit_code == 0, res.output
    people = people_frame(5, seed=3).drop(columns=["approved"])
    people.to_csv(files / "people5.csv", index=False)
    people.assign(income="rich").to_csv(files / "people_text.csv", index=False)
    people.assign(years=np.inf).to_csv(files / "people_inf.csv", index=False)
    people.assign(revealed="x").to_csv(files / "people_clash.csv", index=False)
    people.assign(person="same").to_csv(files / "people_dupid.csv", index=False)
    people.drop(columns=["town"]).to_csv(files / "people_no_town.csv", index=False)
    return out


TRAIN_CASES: list[tuple[dict[str, Any], Fragments]] = [
    ({"--data": "empty.csv"}, ("empty.csv", "empty")),
    ({"--data": "header_only.csv"}, ("no rows",)),
    ({"--data": "truncated.csv.gz"}, ("truncated",)),
    ({"--data": "binary.csv"}, ("not CSV",)),
    ({"--data": "binary.parquet"}, ("not Parquet",)),
    ({"--data": "table.json"}, ("unsupported file type",)),
    ({"--data": "folder.csv"}, ("is a directory",)),
    ({"--data": "nan.csv"}, ("'income'", "--impute")),
    ({"--data": "inf.csv"}, ("'income'", "infinite")),
    ({"--data": "one_group.csv"}, ("single group",)),
    ({"--data": "one_class.csv"}, ("single label value", "stratified")),
    ({"--data": "three_labels.csv", "--positive": None}, ("not 0/1", "--positive")),
    ({"--gamma": "2"}, ("--gamma must be in [0, 1]", "2.0")),
    ({"--gamma": "-1"}, ("--gamma must be in [0, 1]",)),
    ({"--gamma": "nan"}, ("--gamma", "nan")),
    ({"--reward": "ce2"}, ("'reward'", "Did you mean 'ce'?")),
    ({"--preset": "fast"}, ("--preset must be 'quick' or 'full'",)),
    ({"--max-rows": "0"}, ("--max-rows must be an int >= 1",)),
    ({"--max-rows": "5"}, ("has 5 rows", "needs at least")),
    ({"--pretrain-iter": "-1"}, ("--pretrain-iter must be an int >= 0",)),
    ({"--set-elements": "hott"}, ("--set-elements must be 'columns' or 'hot'",)),
    ({"--metric": "dpp"}, ("Unknown metric 'dpp'", "Did you mean 'dp'?")),
    ({"--seed": "-1"}, ("random_state", "Got -1")),
    ({"--sensitive": "approved"}, ("both --label and --sensitive",)),
    ({"--sensitive": "sex"}, ("no column 'sex' for --sensitive",)),
    ({"--label": "outcome"}, ("no column 'outcome' for --label",)),
    ({"--positive": "Yes"}, ("--positive 'Yes'",)),
    ({"--drop": "nosuch"}, ("no column 'nosuch' for --drop",)),
    ({"--categorical": "years,nosuch"}, ("--categorical names 'nosuch'",)),
    ({"--dataset": "adult"}, ("not both",)),
]


@pytest.mark.parametrize(("change", "fragments"), TRAIN_CASES, ids=lambda v: str(v)[:60])
def test_features_train_cli(files: Path, tmp_path: Path, change, fragments) -> None:
    res = run_cli(*_train_args(files, tmp_path / "m", change))
    assert_cli_error(res, fragments)
    assert not (tmp_path / "m" / "config.json").exists()


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--dataset", "germn"], ("Unknown dataset 'germn'", "Did you mean 'german'?")),
        (["--dataset", "german", "--label", "y"], ("describe a --data table",)),
        (["--dataset", "german", "--sensitive", "gendr"], ("sensitive attribute", "'gendr'")),
    ],
)
def test_features_train_cli_bundled(tmp_path: Path, args, fragments) -> None:
    tiny = [part for item in TINY.items() for part in item]
    res = run_cli("features", "train", *args, *tiny, "--out", tmp_path / "m")
    assert_cli_error(res, fragments)


def _edit_json(path: Path, edit: Callable[[Any], Any]) -> None:
    data = json.loads(path.read_text())
    data = edit(data) or data
    path.write_text(json.dumps(data))


TAMPER: list[tuple[str, Callable[[Path], Any], Fragments]] = [
    (
        "agent truncated",
        lambda d: (d / "agent.pt").write_bytes((d / "agent.pt").read_bytes()[:999]),
        ("agent.pt", "checksum differs", "Re-save"),
    ),
    (
        "agent missing",
        lambda d: (d / "agent.pt").unlink(),
        ("agent.pt is missing", "re-save the model"),
    ),
    (
        "networks swapped",
        lambda d: shutil.copy(d / "adversary.pt", d / "agent.pt"),
        ("agent.pt", "mixes two saves"),
    ),
    (
        "config garbage",
        lambda d: (d / "config.json").write_text("{"),
        ("config.json", "not valid JSON"),
    ),
    (
        "config binary",
        lambda d: (d / "config.json").write_bytes(bytes(range(256))),
        ("config.json", "not a text file"),
    ),
    ("config missing", lambda d: (d / "config.json").unlink(), ("config.json is missing",)),
    (
        "config deeply nested",
        lambda d: (d / "config.json").write_text("[" * 5000 + "]" * 5000),
        ("nests deeper than 64 levels",),
    ),
    (
        "config gamma",
        lambda d: _edit_json(d / "config.json", lambda j: j["params"].update(gamma="high")),
        ("not a valid DADI configuration", "'gamma'"),
    ),
    (
        "config columns",
        lambda d: _edit_json(d / "config.json", lambda j: j.update(columns=j["columns"][:-1])),
        ("not a valid DADI configuration",),
    ),
    (
        "config format",
        lambda d: _edit_json(d / "config.json", lambda j: j.update(format="x")),
        ("not a valid DADI configuration", "format"),
    ),
    (
        "config zero scale",
        lambda d: _edit_json(d / "config.json", lambda j: j.update(scale_std=[0] * 7)),
        ("scale_std",),
    ),
    (
        "config file list",
        lambda d: _edit_json(d / "config.json", lambda j: j.update(files=[])),
        ("lists its files in a form DADI does not write",),
    ),
    (
        "config checksum",
        lambda d: _edit_json(
            d / "config.json", lambda j: j["files"].update({"agent.pt": "0" * 64})
        ),
        ("agent.pt", "checksum differs"),
    ),
    (
        "columns edited",
        lambda d: (d / "columns.json").write_text("{}"),
        ("columns.json", "checksum differs"),
    ),
    ("encoder missing", lambda d: (d / "encoder.json").unlink(), ("encoder.json", "missing")),
    ("trace garbage", lambda d: (d / "trace.json").write_text("[1, 2, 3]"), ("trace.json",)),
    (
        "trace not parquet",
        lambda d: (d / "trace.parquet").write_bytes(b"nope"),
        ("trace.parquet", "cannot be read as Parquet"),
    ),
]


@pytest.mark.parametrize(("name", "tamper", "fragments"), TAMPER, ids=[t[0] for t in TAMPER])
def test_features_acquire_tampered_model(files, model, tmp_path, name, tamper, fragments):
    # The folder's manifest.json would refuse every one of these edits first (the test below);
    # rewritten to match, as by someone who edits on purpose, the checks behind it still hold.
    from fairacq._artefact import write_manifest

    copy = tmp_path / "model"
    shutil.copytree(model, copy)
    tamper(copy)
    write_manifest(copy, format="dadi-model/1")
    res = run_cli("features", "acquire", copy, files / "people5.csv", "--json")
    assert_cli_error(res, fragments)
    assert_api_error(lambda: DadiModel.load(copy), fragments, CorruptFileError)


def test_features_acquire_refuses_a_file_edited_after_the_save(files, model, tmp_path):
    copy = tmp_path / "model"
    shutil.copytree(model, copy)
    _edit_json(copy / "config.json", lambda j: j["params"].update(gamma=0.9))  # still valid
    fragments = ("config.json is not the file saved", "checksum differs")
    assert_cli_error(
        run_cli("features", "acquire", copy, files / "people5.csv", "--json"), fragments
    )
    assert_api_error(lambda: DadiModel.load(copy), fragments, CorruptFileError)


J = "--json"
ACQUIRE_CASES: list[tuple[list[str], Fragments]] = [
    (
        ["{files}/afile.txt", "{files}/people5.csv", J],
        ("afile.txt does not exist", "`fairacq features train`"),
    ),
    (["{files}/folder.csv", "{files}/people5.csv", J], ("config.json is missing",)),
    (["{model}", "{files}/empty.csv", J], ("empty",)),
    (["{model}", "{files}/binary.parquet", J], ("not Parquet",)),
    (["{model}", "{files}/table.json", J], ("unsupported file type",)),
    (["{model}", "{files}/folder.csv", J], ("is a directory",)),
    (["{model}", "{files}/people_text.csv", J], ("'income' holds text", "--categorical")),
    (["{model}", "{files}/people_inf.csv", J], ("'years'", "infinite")),
    (["{model}", "{files}/people_clash.csv", J], ("'revealed'", "Rename it")),
    (["{model}", "{files}/people_no_town.csv", J], ("'town'",)),
    (["{model}", "{files}/people_dupid.csv", "--id", "person", J], ("repeated values",)),
    (["{model}", "{files}/people5.csv", "--id", "nope", J], ("'nope'",)),
    (["{model}", "{files}/people5.csv", "--out", "{files}/out.xlsx"], ("unsupported file type",)),
    (["{model}", "{files}/people5.csv", "--out", "{files}/folder.csv"], ("existing folder",)),
    (["{model}", "{files}/people5.csv"], ("--out", "--json")),
    (["{model}"], ("MODEL PEOPLE",)),
]


@pytest.mark.parametrize(("args", "fragments"), ACQUIRE_CASES, ids=lambda v: str(v)[:70])
def test_features_acquire_cli(files, model, args, fragments) -> None:
    res = run_cli("features", "acquire", *[a.format(files=files, model=model) for a in args])
    assert_cli_error(res, fragments)


# -- the library -----------------------------------------------------------------------------

TINY_PARAMS = {"n_pretrain_iter": 5, "n_train_iter": 2, "random_state": 0}


@pytest.fixture(scope="module")
def fitted(model: Path) -> DadiModel:
    return DadiModel.load(model)


def _columns(**change: Any):
    base = {"label": "approved", "sensitive": "gender", "positive": "yes", "drop": ["person"]}
    return columns_from_options(**{**base, **change})


API_CASES: list[tuple[str, Any, type[FairacqError], Fragments]] = [
    (
        "gamma 2",
        lambda m: DADI(gamma=2.0, **TINY_PARAMS).fit(load_toy(100)),
        InvalidParameterError,
        "'gamma'",
    ),
    (
        "reward typo",
        lambda m: DADI(reward="gnll1", **TINY_PARAMS).fit(load_toy(100)),
        InvalidParameterError,
        "Did you mean 'gnl1'?",
    ),
    (
        "set_elements typo",
        lambda m: DADI(set_elements="hto", **TINY_PARAMS).fit(load_toy(100)),
        InvalidParameterError,
        "'set_elements'",
    ),
    (
        "negative iterations",
        lambda m: DADI(n_pretrain_iter=-1).fit(load_toy(100)),
        InvalidParameterError,
        "'n_pretrain_iter'",
    ),
    (
        "batch 0",
        lambda m: DADI(batch_size=0, **TINY_PARAMS).fit(load_toy(100)),
        InvalidParameterError,
        "'batch_size'",
    ),
    (
        "fit a frame",
        lambda m: DADI(**TINY_PARAMS).fit(load_toy(100).X),
        FairacqError,
        "FairDataset",
    ),
    ("acquire unfitted", lambda m: DADI().acquire_many(load_toy(40).X), NotFittedError, "fit"),
    ("transform unfitted", lambda m: DADI().transform(load_toy(40).X), NotFittedError, "fit"),
    (
        "acquire wrong columns",
        lambda m: m.agent.acquire_many(load_toy(40).X),
        InvalidDataError,
        "column",
    ),
    ("load a file", lambda m: DADI.load(Path(__file__)), CorruptFileError, "config.json"),
    (
        "load nowhere",
        lambda m: DadiModel.load("/nonexistent/model"),
        CorruptFileError,
        "config.json",
    ),
    (
        "train unknown metric",
        lambda m: train_dadi(load_toy(100), metrics=["dpp"], **TINY_PARAMS),
        UnknownNameError,
        "dpp",
    ),
    (
        "train frame without columns",
        lambda m: train_dadi(people_frame(), **TINY_PARAMS),
        FairacqError,
        "columns",
    ),
    (
        "train max_rows 0",
        lambda m: train_dadi(load_toy(100), max_rows=0, **TINY_PARAMS),
        InvalidParameterError,
        ("max_rows must be an int >= 1", "got 0"),
    ),
    (
        "train label 3 values",
        lambda m: train_dadi(
            people_frame().assign(approved=np.arange(160) % 3),
            columns=_columns(positive=None),
            **TINY_PARAMS,
        ),
        InvalidDataError,
        "not 0/1",
    ),
    (
        "train roles overlap",
        lambda m: train_dadi(
            people_frame(), columns=_columns(sensitive="approved"), **TINY_PARAMS
        ),
        InvalidDataError,
        "both --label and --sensitive",
    ),
    (
        "train unknown param",
        lambda m: train_dadi(load_toy(100), gama=0.3, **TINY_PARAMS),
        InvalidParameterError,
        ("'gama'", "Did you mean 'gamma'?"),
    ),
    (
        "reveal missing column",
        lambda m: reveal_table(m, people_frame(4).drop(columns="town")),
        InvalidDataError,
        "'town'",
    ),
    (
        "reveal text in numbers",
        lambda m: reveal_table(m, people_frame(4).assign(years="old")),
        InvalidDataError,
        "'years' holds text",
    ),
    (
        "reveal NaN",
        lambda m: reveal_table(m, people_frame(4).assign(income=np.nan)),
        InvalidDataError,
        "'income'",
    ),
    (
        "reveal id missing",
        lambda m: reveal_table(m, people_frame(4), id_column="nope"),
        InvalidDataError,
        "'nope'",
    ),
    (
        "reveal clash",
        lambda m: reveal_table(m, people_frame(4).assign(proba=1.0)),
        InvalidDataError,
        "'proba'",
    ),
    (
        "reveal no rows",
        lambda m: reveal_table(m, people_frame(4).iloc[:0]),
        InvalidDataError,
        "no rows",
    ),
]


@pytest.mark.parametrize(
    ("name", "call", "kind", "fragments"), API_CASES, ids=[c[0] for c in API_CASES]
)
def test_features_api(fitted, name, call, kind, fragments) -> None:
    assert_api_error(lambda: call(fitted), fragments, kind)


def test_dadi_fit_single_class() -> None:
    ds = load_toy(120, random_state=0)
    one = ds.subset(np.flatnonzero(ds.y == 0))
    assert_api_error(lambda: DADI(**TINY_PARAMS).fit(one), "single", InvalidDataError)


def test_reveal_frame_of_strings_for_a_bare_agent(fitted) -> None:
    frame = pd.DataFrame({"town": ["Ayr"], "years": ["x"]})
    assert_api_error(lambda: reveal_table(fitted.agent, frame), "column", InvalidDataError)
