"""Bad input to ``fairacq audit`` and :func:`fairacq.models.audit`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairacq.data import load_toy
from fairacq.exceptions import FairacqError, InvalidDataError, InvalidParameterError
from fairacq.models import audit, make_learner
from tests.bad_input._corpus import (
    Fragments,
    assert_api_error,
    assert_cli_error,
    people_frame,
    run_cli,
)

BASE = {
    "--data": "people.csv",
    "--label": "approved",
    "--positive": "yes",
    "--sensitive": "gender",
    "--drop": "person",
}


def _args(files: Path, change: dict[str, str | None]) -> list[str]:
    args = ["audit"]
    for option, value in {**BASE, **change}.items():
        if value is not None:
            args += [option, str(files / value) if option == "--data" else value]
    return args


CLI_CASES: list[tuple[dict[str, Any], Fragments]] = [
    ({"--data": "empty.csv"}, ("empty",)),
    ({"--data": "header_only.csv"}, ("no rows",)),
    ({"--data": "truncated.csv.gz"}, ("truncated",)),
    ({"--data": "binary.parquet"}, ("not Parquet",)),
    ({"--data": "table.json"}, ("unsupported file type",)),
    ({"--data": "folder.csv"}, ("is a directory",)),
    ({"--data": "nan.csv"}, ("'income'", "--impute")),
    ({"--data": "inf.csv"}, ("infinite",)),
    ({"--data": "one_group.csv"}, ("single group",)),
    ({"--data": "one_class.csv"}, ("every label of 'one_class.csv' is 1", "both classes")),
    ({"--data": "tiny.csv"}, ("cannot split", "Give more rows")),
    ({"--data": "three_labels.csv", "--positive": None}, ("not 0/1", "--positive")),
    ({"--metric": "dpp"}, ("Unknown metric 'dpp'",)),
    ({"--metric": "demographic_parity_dif"}, ("Did you mean 'demographic_parity_diff_abs'",)),
    ({"--model": "lrr"}, ("Did you mean 'lr'?",)),
    ({"--model": "os:getcwd"}, ("not a class",)),
    ({"--model": "sklearn.svm:NoSVM"}, ("has no 'NoSVM'",)),
    ({"--model-param": "C=-1"}, ("'C' parameter", "Fix the value of C")),
    ({"--model-param": "=1"}, ("is not key=value",)),
    ({"--test-size": "0"}, ("--test-size must lie strictly between 0 and 1",)),
    ({"--test-size": "nan"}, ("--test-size", "nan")),
    ({"--seed": "-1"}, ("seed >= 0",)),
    ({"--sensitive": "approved"}, ("both --label and --sensitive",)),
    ({"--sensitive": "gender,gender"}, ("named more than once",)),
    ({"--sensitive": "sex"}, ("no column 'sex' for --sensitive",)),
    ({"--label": "outcome"}, ("no column 'outcome' for --label",)),
    ({"--categorical": "nosuch"}, ("--categorical names 'nosuch'",)),
]


@pytest.fixture(scope="module")
def tiny(files: Path) -> Path:
    people_frame(8, seed=5).to_csv(files / "tiny.csv", index=False)
    return files


@pytest.fixture(scope="module")
def predicted(files: Path) -> Path:
    """``predicted.csv``: people.csv with the columns a user's model may have written."""
    frame = people_frame(160, seed=0)
    n = len(frame)
    frame["pred"] = np.where(np.arange(n) % 3 == 0, "yes", "no")
    frame["with_gaps"] = np.where(np.arange(n) % 7 == 0, np.nan, 1.0)
    frame["three"] = np.arange(n) % 3
    frame["wide"] = np.linspace(-0.5, 1.5, n)
    frame["maybe"] = np.where(np.arange(n) % 2 == 0, "yes", "maybe")
    frame.to_csv(files / "predicted.csv", index=False)
    return files


PREDICTION_CASES: list[tuple[dict[str, Any], Fragments]] = [
    ({"--predictions": "nosuch"}, ("no column 'nosuch' for --predictions",)),
    ({"--predictions": "with_gaps"}, ("'with_gaps'", "missing value", "rows [0, 7")),
    ({"--predictions": "three"}, ("'three' holds 0, 1, 2", "scores from 0 to 1")),
    ({"--predictions": "wide"}, ("from -0.5 to 1.5, outside 0 to 1",)),
    ({"--predictions": "maybe"}, ("holds maybe, yes", "the label holds no, yes")),
    ({"--predictions": "town"}, ("holds Ayr, Bute, Crail",)),
    ({"--predictions": "approved"}, ("named by both --label and --predictions",)),
    ({"--predictions": "gender"}, ("named by both --sensitive and --predictions",)),
    ({"--predictions": "pred", "--model": "lr"}, ("drop --model",)),
    ({"--predictions": "pred", "--model-param": "C=1"}, ("drop --model",)),
    ({"--predictions": "pred", "--test-size": "0.5"}, ("drop --test-size",)),
    (
        {"--predictions": "pred", "--threshold": "0.3"},
        ("--threshold applies to a column of scores",),
    ),
    ({"--predictions": "wide", "--threshold": "0"}, ("--threshold must lie in (0, 1]",)),
    ({"--threshold": "0.3"}, ("--threshold applies to --predictions",)),
    ({"--predictions": "pred", "--positive": None}, ("not 0/1", "--positive")),
    ({"--predictions": "pred", "--label": "outcome"}, ("no column 'outcome' for --label",)),
]


@pytest.mark.parametrize(("change", "fragments"), PREDICTION_CASES, ids=lambda v: str(v)[:60])
def test_audit_cli_predictions(predicted: Path, change, fragments) -> None:
    assert_cli_error(run_cli(*_args(predicted, {"--data": "predicted.csv", **change})), fragments)


def test_audit_cli_predictions_need_data() -> None:
    assert_cli_error(run_cli("audit", "--predictions", "pred"), "--predictions needs --data")


@pytest.mark.parametrize(("change", "fragments"), CLI_CASES, ids=lambda v: str(v)[:60])
def test_audit_cli(tiny: Path, change, fragments) -> None:
    assert_cli_error(run_cli(*_args(tiny, change)), fragments)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--dataset", "germn"], ("Did you mean 'german'?",)),
        (["--dataset", "german", "--sensitive", "gendr"], ("sensitive attribute", "'gendr'")),
    ],
)
def test_audit_cli_bundled(args, fragments) -> None:
    assert_cli_error(run_cli("audit", *args), fragments)


API_CASES: list[tuple[str, Any, type[FairacqError], Fragments]] = [
    (
        "one class",
        lambda d: audit(d.subset(np.flatnonzero(d.y == 1)), "lr"),
        InvalidDataError,
        "every label",
    ),
    ("test size", lambda d: audit(d, "lr", test_size=1.0), InvalidParameterError, "test_size"),
    (
        "metric",
        lambda d: audit(d, "lr", metrics=["acuracy"]),
        FairacqError,
        "Did you mean 'accuracy'?",
    ),
    ("model", lambda d: audit(d, "lrr"), FairacqError, "lr"),
    ("model object", lambda d: audit(d, object()), FairacqError, "predict_proba"),
    ("too few rows", lambda d: audit(d.subset(range(6)), "lr"), InvalidDataError, "cannot split"),
    ("frame without labels", lambda d: audit(d.X, "lr"), FairacqError, "y"),
    (
        "test size nan",
        lambda d: audit(d, "lr", test_size=float("nan")),
        InvalidParameterError,
        "test_size",
    ),
    ("seed", lambda d: audit(d, "lr", random_state=-1), FairacqError, "seed"),
    (
        "y too short",
        lambda d: audit(d.X, y=d.y[:5], sensitive_features=d.s),
        InvalidDataError,
        ("y 5", "one value per row"),
    ),
    (
        "groups too short",
        lambda d: audit(d.X, y=d.y, sensitive_features=d.s[:5]),
        InvalidDataError,
        ("sensitive_features 5", "one value per row"),
    ),
    (
        "y three values",
        lambda d: audit(d.X, y=np.arange(len(d)) % 3, sensitive_features=d.s),
        InvalidDataError,
        "not 0/1",
    ),
    (
        "positive absent",
        lambda d: audit(
            d.X, y=np.where(d.y == 1, "yes", "no"), sensitive_features=d.s, positive="Yes"
        ),
        InvalidDataError,
        "'Yes'",
    ),
    (
        "one group",
        lambda d: audit(d.X, y=d.y, sensitive_features=np.zeros(len(d))),
        InvalidDataError,
        "single group",
    ),
    (
        "NaN features",
        lambda d: audit(d.X.assign(x1=np.nan), y=d.y, sensitive_features=d.s),
        InvalidDataError,
        "missing",
    ),
    (
        "fitted model params",
        lambda d: audit(d, make_learner("lr", C=0.5).set_params(clf__C=-2)),
        FairacqError,
        "C",
    ),
    ("make_learner value", lambda d: make_learner("lr", C=-1.0), InvalidParameterError, "'C'"),
    (
        "make_learner path",
        lambda d: make_learner("os:getcwd"),
        InvalidParameterError,
        "not a class",
    ),
    (
        "make_learner module",
        lambda d: make_learner("no_mod_zz:Model"),
        InvalidParameterError,
        "Cannot import",
    ),
]


@pytest.mark.parametrize(
    ("name", "call", "kind", "fragments"), API_CASES, ids=[c[0] for c in API_CASES]
)
def test_audit_api(name, call, kind, fragments) -> None:
    assert_api_error(lambda: call(load_toy(200, random_state=0)), fragments, kind)
