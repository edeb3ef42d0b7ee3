"""Bad input to acquisition (paper 000): ``fairacq acquire`` and the Acquirer API."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq._trace import Trace
from fairacq.acquisition import (
    DataSiftAcquirer,
    DataSiftInfAcquirer,
    ParquetPool,
    RandomAcquirer,
    acquire,
    make_acquirer,
    make_chunk_executor,
    read_pool,
)
from fairacq.data import FairDataset, load_toy
from fairacq.exceptions import (
    BudgetError,
    CorruptFileError,
    FairacqError,
    InvalidDataError,
    InvalidParameterError,
    UnknownNameError,
)
from tests.bad_input._corpus import Fragments, assert_api_error, assert_cli_error, run_cli

# -- the command line ------------------------------------------------------------------------

BASE = {
    "--data": "people.csv",
    "--pool": "pool.csv",
    "--label": "approved",
    "--positive": "yes",
    "--sensitive": "gender",
    "--drop": "person",
    "--method": "random",
    "--budget": "20",
    "--batch": "10",
}


def _args(files: Path, out: Path, change: dict[str, str | None]) -> list[str]:
    """The base command with ``change`` applied (a value ``None`` removes the option)."""
    options = {**BASE, **change}
    args = ["acquire", "--no-baseline", "--out", str(out)]
    for option, value in options.items():
        if value is None:
            continue
        path = files / value
        shown = str(path) if option in ("--data", "--pool", "--train", "--val") else value
        args += [option, shown]
    return args


CLI_CASES: list[tuple[dict[str, Any], Fragments]] = [
    ({"--data": "empty.csv"}, ("empty.csv", "empty", "Write the table again")),
    ({"--data": "header_only.csv"}, ("no rows", "at least one row")),
    ({"--pool": "truncated.csv.gz"}, ("truncated.csv.gz", "truncated")),
    ({"--data": "binary.csv"}, ("binary.csv", "Cannot read", "not CSV")),
    ({"--pool": "binary.parquet"}, ("binary.parquet", "Parquet", "rewrite it")),
    ({"--pool": "table.json"}, ("table.json", "unsupported file type", ".parquet")),
    ({"--data": "table.txt"}, ("table.txt", "unsupported file type")),
    ({"--data": "folder.csv"}, ("folder.csv", "is a directory", "Pass a .parquet or .csv")),
    ({"--data": "nan.csv"}, ("'income'", "missing value", "--impute")),
    ({"--pool": "nan.csv"}, ("pool", "'income'", "missing value")),
    ({"--data": "inf.csv"}, ("'income'", "infinite", "Replace or drop")),
    ({"--pool": "inf.csv"}, ("pool", "infinite")),
    ({"--data": "one_group.csv"}, ("single group", "at least two groups")),
    ({"--data": "one_class.csv"}, ("single class", "add rows of the other class")),
    ({"--data": "three_labels.csv", "--positive": None}, ("maybe", "not 0/1", "--positive")),
    ({"--positive": "Yes"}, ("--positive 'Yes'", "values: no, yes")),
    ({"--budget": "0"}, ("--budget", "at least 1")),
    ({"--budget": "-5"}, ("--budget '-5' is not a size", "such as 20%")),
    ({"--budget": "abc"}, ("--budget 'abc' is not a size",)),
    ({"--budget": "-5%"}, ("--budget '-5%' is not a size",)),
    ({"--budget": "0.2"}, ("--budget", "20%")),
    ({"--budget": "150%"}, ("--budget '150%'", "(0%, 100%]")),
    ({"--budget": "nan"}, ("--budget 'nan' is not a size",)),
    ({"--budget": "10000000"}, ("'budget'", "(0, 240]", "Lower budget")),
    ({"--batch": "50"}, ("'batch_size'", "exceeds its budget", "no larger than the budget")),
    ({"--batch": "0%"}, ("--batch '0%'", "(0%, 100%]")),
    ({"--method": "datasfit"}, ("'datasfit'", "Did you mean 'datasift'?")),
    ({"--metric": "dpp"}, ("Unknown metric 'dpp'", "Did you mean", "fairacq metrics")),
    ({"--metric": "accuracy"}, ("'accuracy' cannot steer acquisition", "dp")),
    ({"--model": "lrr"}, ("'learner'", "'lrr'", "Did you mean 'lr'?")),
    ({"--model": "nosuch_pkg_qq:Model"}, ("Cannot import module 'nosuch_pkg_qq'", "Install")),
    ({"--model": "sklearn.linear_model:NoSuchModel"}, ("has no 'NoSuchModel'", "Check the name")),
    ({"--model": "os:getcwd"}, ("os:getcwd", "not a class", "classifier class")),
    ({"--model": "sklearn.preprocessing:StandardScaler"}, ("no fit/predict_proba",)),
    ({"--model-param": "C=abc"}, ("'C' parameter", "'abc'", "Fix the value of C")),
    ({"--model-param": "C=-1"}, ("'C' parameter", "Got -1", "Fix the value")),
    ({"--model-param": "=1"}, ("--model-param '=1' is not key=value", "C=0.1")),
    ({"--model-param": "C"}, ("is not key=value",)),
    ({"--model-param": "Cc=1"}, ("no parameter 'Cc'", "Did you mean 'C'?")),
    ({"--cost": "price"}, ("no column 'price' for --cost", "Name an existing column")),
    ({"--cost": "town"}, ("cost column 'town' needs positive numbers", "Fix those costs")),
    ({"--cost": "years"}, ("cheapest costs 18", "Raise the batch to at least 18")),
    ({"--sensitive": "approved"}, ("'approved'", "both --label and --sensitive", "own column")),
    ({"--label": "person"}, ("'person'", "both --label and --drop")),
    ({"--label": "outcome"}, ("no column 'outcome' for --label",)),
    ({"--drop": "nosuch"}, ("no column 'nosuch' for --drop",)),
    ({"--categorical": "nosuch"}, ("--categorical names 'nosuch'", "Name existing columns")),
    ({"--pool": "pool_no_town.csv"}, ("no column 'town'", "training data's columns")),
    ({"--pool": "pool_other_group.csv"}, ("'gender' has a single group ('x')",)),
    ({"--train": "people.csv"}, ("either --data", "not both")),
    ({"--data": None, "--train": "people.csv"}, ("--pool needs the rows you have", "--val")),
    ({"--executor": "spark"}, ("--executor must be serial or dask", "'spark'")),
    ({"--chunk-rows": "0"}, ("--chunk-rows must be a positive number",)),
    ({"--checkpoint-every": "-1"}, ("--checkpoint-every must be >= 0",)),
    ({"--tau": "-1"}, ("--tau, the fairness tolerance, must be a number >= 0", "got -1.0")),
    ({"--tau": "nan"}, ("--tau, the fairness tolerance", "got nan")),
    ({"--tau": "inf"}, ("--tau, the fairness tolerance", "got inf")),
    ({"--method": "datasift", "--alpha": "-1"}, ("'alpha' parameter of DataSiftAcquirer",)),
    ({"--accuracy-weight": "0.5"}, ("only datasift-inf computes", "--method datasift-inf")),
    ({"--refit": "warm"}, ("'refit'", "'warm'", "'scratch'")),
    (
        {"--tol": "0.1"},
        ("only post-thresholds and threshold-aware fit", "--method threshold-aware"),
    ),
    ({"--method": "threshold-aware", "--metric": "eopp"}, ("demographic parity only",)),
    ({"--method": "post-thresholds", "--tol": "-0.1"}, ("--tol must be a number >= 0",)),
    ({"--method": "post-thresholds", "--tol": "inf"}, ("--tol must be a number >= 0",)),
    ({"--method": "post-thresholds", "--metric": "eo", "--tol": "0.1"}, ("take no tolerance",)),
    ({"--placement": "pool"}, ("only post-thresholds fits", "--method post-thresholds")),
    ({"--method": "post-thresholds", "--placement": "test"}, ("auto, pool or validation",)),
    (
        {"--method": "post-thresholds", "--metric": "eopp", "--placement": "pool"},
        ("demographic parity only", "placement='validation'"),
    ),
    ({"--seed": "-1"}, ("random_state", "seed >= 0")),
    ({"--method": "datasift-inf", "--model": "decision_tree"}, ("gradients",)),
    ({"--model": "tests.degenerate_models:NanProba"}, ("not numbers (NaN or infinite)",)),
    ({"--model": "tests.degenerate_models:WideProba"}, ("outside 0 to 1", "predict_proba")),
    ({"--pool": "pool_huge.csv"}, ("'income'", "magnitude 1e+150 or more", "Rescale")),
    (
        {"--pool": "pool_huge.parquet", "--method": "datasift"},
        ("value -1e+308 in feature 'income'", "too large to compute with", "Rescale"),
    ),
]


@pytest.fixture(scope="module")
def pools(files: Path) -> Path:
    """Pool files broken in their columns or groups."""
    pool = pd.read_csv(files / "pool.csv")
    pool.drop(columns=["town"]).to_csv(files / "pool_no_town.csv", index=False)
    pool.assign(gender="x").to_csv(files / "pool_other_group.csv", index=False)
    huge = pool.copy()
    huge.loc[3, "income"] = -1e308  # a value whose square overflows
    huge.to_csv(files / "pool_huge.csv", index=False)
    huge.to_parquet(files / "pool_huge.parquet", index=False)
    return files


@pytest.mark.parametrize(("change", "fragments"), CLI_CASES, ids=lambda v: str(v)[:60])
def test_acquire_cli(pools: Path, tmp_path: Path, change, fragments) -> None:
    res = run_cli(*_args(pools, tmp_path / "out", change))
    assert_cli_error(res, fragments)
    assert not (tmp_path / "out" / "summary.json").exists()


def test_acquire_other_bad_invocations(files: Path, tmp_path: Path) -> None:
    taken = files / "afile.txt"
    assert_cli_error(run_cli(*_args(files, taken, {})), ("--out", "existing file"))
    res = run_cli("acquire", "--dataset", "germn", "--out", tmp_path / "o")
    assert_cli_error(res, ("Unknown dataset 'germn'", "Did you mean 'german'?"))
    res = run_cli("acquire", "--dataset", "german", "--bias", "weird", "--out", tmp_path / "o")
    assert_cli_error(res, ("'bias'", "'weird'"))


def test_acquire_unreachable_dask_scheduler_fails_fast(files, tmp_path) -> None:
    pytest.importorskip("distributed")
    start = time.monotonic()
    res = run_cli(*_args(files, tmp_path / "o", {}), "--address", "tcp://127.0.0.1:9")
    assert time.monotonic() - start < 12
    assert_cli_error(res, ("cannot reach the dask scheduler at tcp://127.0.0.1:9", "Start one"))


@pytest.fixture(scope="module")
def checkpointed(files: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An output folder with the checkpoint of a four-batch run stopped before its outputs.

    (A finished run removes its checkpoint: the run folder is swapped in without it.)
    """
    out = tmp_path_factory.mktemp("ck") / "run"
    change = {"--method": "datasift", "--budget": "40", "--tau": "0", "--checkpoint-every": "1"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("fairacq.cli.acquire._acquire.write_outputs", _stopped_before_outputs)
        res = run_cli(*_args(files, out, change))
    assert res.exit_code == 130, res.output  # stopped as by Ctrl-C
    assert (out / "checkpoint.json").exists()
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint.json", "checkpoint.parquet"]
    return out


def _stopped_before_outputs(*args: Any, **kwargs: Any) -> None:
    raise KeyboardInterrupt


def _tamper_json(path: Path, edit) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


TAMPER = [
    ("garbage json", lambda d: (d / "checkpoint.json").write_text("{not json"), "checkpoint.json"),
    ("binary json", lambda d: (d / "checkpoint.json").write_bytes(bytes(range(256))), "json"),
    ("empty parquet", lambda d: (d / "checkpoint.parquet").write_bytes(b""), "checkpoint"),
    (
        "parquet of another run",
        lambda d: (d / "checkpoint.parquet").write_bytes(
            (d.parent / "other.parquet").read_bytes()  # written beside the run folder
        ),
        "checkpoint",
    ),
    (
        "edited step count",
        lambda d: _tamper_json(d / "checkpoint.json", lambda j: j["trace_file"].update(n_steps=9)),
        "checkpoint",
    ),
    (
        "edited metric",
        lambda d: _tamper_json(
            d / "checkpoint.json", lambda j: j["config"].update(metric="equalized_odds_diff")
        ),
        ("metric='equalized_odds_diff'", "Resume with the parameters"),
    ),
    (
        "edited bandit state",
        lambda d: _tamper_json(
            d / "checkpoint.json",
            lambda j: j["resume_state"]["method"]["policy"].update(reward_sums="lots"),
        ),
        "malformed state",
    ),
    (
        "resume state removed",
        lambda d: _tamper_json(d / "checkpoint.json", lambda j: j.pop("resume_state")),
        "checkpoint",
    ),
]


@pytest.mark.parametrize(("name", "tamper", "fragment"), TAMPER, ids=[t[0] for t in TAMPER])
def test_acquire_resume_from_a_tampered_checkpoint(
    files, checkpointed, tmp_path, name, tamper, fragment
):
    out = tmp_path / "run"
    shutil.copytree(checkpointed, out)
    frame = pd.read_parquet(out / "checkpoint.parquet")
    frame.iloc[:2].to_parquet(tmp_path / "other.parquet")
    tamper(out)
    change = {"--method": "datasift", "--budget": "40", "--tau": "0", "--checkpoint-every": "1"}
    res = run_cli(*_args(files, out, change), "--resume")
    assert_cli_error(res, fragment)


# -- the library -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def parts() -> dict[str, FairDataset]:
    ds = load_toy(300, random_state=0)
    return {
        "train": ds.subset(range(80)),
        "validation": ds.subset(range(80, 150)),
        "pool": ds.subset(range(150, 300)),
    }


def _run(parts, acquirer=None, **change: Any) -> Trace:
    inputs = {**parts, **change}
    acquirer = acquirer or RandomAcquirer(budget=20, batch_size=10, random_state=0)
    return acquirer.fit(
        inputs["train"],
        inputs["pool"],
        validation=inputs["validation"],
        **{k: v for k, v in inputs.items() if k not in ("train", "pool", "validation")},
    ).trace_


def _with_x(ds: FairDataset, column: str, index: list[int], value: float) -> pd.DataFrame:
    X = ds.X.copy()
    X.loc[X.index[index], column] = value
    return X


API_CASES: list[tuple[str, Any, type[FairacqError], Fragments]] = [
    ("unknown method", lambda p: make_acquirer("datasfit"), UnknownNameError, "Did you mean"),
    ("budget 0", lambda p: _run(p, RandomAcquirer(budget=0)), InvalidParameterError, "'budget'"),
    ("budget -5", lambda p: _run(p, RandomAcquirer(budget=-5)), InvalidParameterError, "(0, inf)"),
    ("budget str", lambda p: _run(p, RandomAcquirer(budget="20")), InvalidParameterError, "'20'"),
    ("budget nan", lambda p: _run(p, RandomAcquirer(budget=np.nan)), InvalidParameterError, "nan"),
    ("budget huge", lambda p: _run(p, RandomAcquirer(budget=10**9)), BudgetError, "(0, 150]"),
    (
        "batch > budget",
        lambda p: _run(p, RandomAcquirer(budget=10, batch_size=20)),
        BudgetError,
        "exceeds its budget",
    ),
    (
        "batch below every cost",
        lambda p: _run(p, RandomAcquirer(budget=20, batch_size=0.5)),
        BudgetError,
        "Raise the batch to at least 1",
    ),
    (
        "learner typo",
        lambda p: _run(p, RandomAcquirer(learner="lrr")),
        InvalidParameterError,
        "Did you mean 'lr'?",
    ),
    (
        "metric typo",
        lambda p: _run(p, RandomAcquirer(metric="equalized_odds_dif")),
        InvalidParameterError,
        "Did you mean 'equalized_odds_diff'?",
    ),
    (
        "accuracy steers",
        lambda p: _run(p, RandomAcquirer(budget=20, metric="accuracy")),
        InvalidParameterError,
        "cannot steer",
    ),
    (
        "ratio steers",
        lambda p: _run(p, RandomAcquirer(budget=20, metric="risk_ratio")),
        InvalidParameterError,
        "cannot steer",
    ),
    ("tau < 0", lambda p: _run(p, RandomAcquirer(tau=-0.1)), InvalidParameterError, "'tau'"),
    ("refit", lambda p: _run(p, RandomAcquirer(refit="warm")), InvalidParameterError, "'refit'"),
    (
        "max_evaluations 0",
        lambda p: _run(p, RandomAcquirer(max_evaluations=0)),
        InvalidParameterError,
        "'max_evaluations'",
    ),
    (
        "learner without predict_proba",
        lambda p: _run(p, RandomAcquirer(learner=object())),
        InvalidParameterError,
        "predict_proba",
    ),
    (
        "datasift alpha",
        lambda p: _run(p, DataSiftAcquirer(budget=20, batch_size=10, alpha=-1)),
        InvalidParameterError,
        "'alpha'",
    ),
    (
        "datasift policy",
        lambda p: _run(p, DataSiftAcquirer(budget=20, batch_size=10, policy="ucbb")),
        FairacqError,
        "ucbb",
    ),
    (
        "inf on a tree",
        lambda p: _run(p, DataSiftInfAcquirer(budget=20, batch_size=10, learner="decision_tree")),
        InvalidParameterError,
        "differentiable",
    ),
    (
        "train is a DataFrame",
        lambda p: _run(p, train=p["train"].X),
        InvalidDataError,
        "must be a FairDataset",
    ),
    ("validation None", lambda p: _run(p, validation=None), InvalidDataError, "validation"),
    (
        "pool of other groups",
        lambda p: _run(p, pool=load_toy(100, n_groups=3)),
        InvalidDataError,
        "differ",
    ),
    (
        "single class",
        lambda p: _run(p, train=p["train"].subset(np.flatnonzero(p["train"].y))),
        InvalidDataError,
        "single class",
    ),
    (
        "costs nan",
        lambda p: _run(p, costs=np.r_[np.nan, np.ones(149)]),
        InvalidDataError,
        "finite positive",
    ),
    (
        "costs negative",
        lambda p: _run(p, costs=-np.ones(150)),
        InvalidDataError,
        "finite positive",
    ),
    ("costs short", lambda p: _run(p, costs=np.ones(3)), InvalidDataError, "one finite"),
    (
        "continue_from missing",
        lambda p: _run(p, continue_from="/nonexistent/ck"),
        FairacqError,
        "ck",
    ),
    ("chunk executor name", lambda p: make_chunk_executor("spark"), FairacqError, "spark"),
]


@pytest.mark.parametrize(
    ("name", "call", "kind", "fragments"), API_CASES, ids=[c[0] for c in API_CASES]
)
def test_acquisition_api(parts, name, call, kind, fragments) -> None:
    assert_api_error(lambda: call(parts), fragments, kind)


DATA_CASES: list[tuple[str, Any, Fragments]] = [
    (
        "NaN feature",
        lambda ds: FairDataset(_with_x(ds, "x1", [2], np.nan), ds.y, ds.sensitive),
        "NaN",
    ),
    (
        "inf feature",
        lambda ds: FairDataset(_with_x(ds, "x1", [2], np.inf), ds.y, ds.sensitive),
        "inf",
    ),
    (
        "one group",
        lambda ds: FairDataset(ds.X, ds.y, pd.Series(["a"] * len(ds), name="g")),
        "single group",
    ),
    ("three labels", lambda ds: FairDataset(ds.X, np.arange(len(ds)) % 3, ds.sensitive), "label"),
    ("short labels", lambda ds: FairDataset(ds.X, ds.y[:5], ds.sensitive), "different lengths"),
    ("X array", lambda ds: FairDataset(ds.X.to_numpy(), ds.y, ds.sensitive), "DataFrame"),
]


@pytest.mark.parametrize(
    ("name", "build", "fragments"), DATA_CASES, ids=[c[0] for c in DATA_CASES]
)
def test_acquisition_inputs_refused_when_built(name, build, fragments) -> None:
    assert_api_error(lambda: build(load_toy(60, random_state=1)), fragments, InvalidDataError)


def test_read_pool_bad_files(files: Path, parts) -> None:
    like = parts["train"]
    for name, fragment in [
        ("missing.parquet", "no such file"),
        ("empty.csv", "empty"),
        ("binary.parquet", "Parquet"),
        ("folder.csv", "directory"),
        ("table.json", "unsupported file type"),
    ]:
        assert_api_error(lambda n=name: read_pool(files / n, like=like), fragment)
    assert_api_error(
        lambda: read_pool(files / "pool.parquet", like=like, chunk_rows=0),
        "chunk",
        InvalidParameterError,
    )
    assert_api_error(lambda: ParquetPool(files / "pool.parquet", like=like, label="nope"), "nope")


def test_acquire_function_forwards_bad_names(parts) -> None:
    assert_api_error(
        lambda: acquire(
            parts["train"], parts["pool"], validation=parts["validation"], method="randon"
        ),
        "Did you mean 'random'?",
        UnknownNameError,
    )
    assert_api_error(
        lambda: acquire(
            parts["train"],
            parts["pool"],
            validation=parts["validation"],
            method="random",
            budget=20,
            batch_size=10,
            random_state="seed",
        ),
        "random_state",
    )


def test_tampered_trace_pair_is_refused(parts, tmp_path: Path) -> None:
    first = _run(parts)
    other = _run(parts, RandomAcquirer(budget=30, batch_size=10, random_state=1))
    first.save(tmp_path / "a")
    other.save(tmp_path / "b")
    (tmp_path / "a.parquet").write_bytes((tmp_path / "b.parquet").read_bytes())
    assert_api_error(lambda: Trace.load(tmp_path / "a"), "a", CorruptFileError)
    assert_api_error(lambda: _run(parts, continue_from=tmp_path / "a"), "a", CorruptFileError)
