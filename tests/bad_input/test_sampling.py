"""Bad input to sampling (paper 001): ``fairacq sample`` and the samplers' API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairacq.data import FairDataset, load_toy
from fairacq.exceptions import (
    BudgetError,
    DegenerateModelError,
    FairacqError,
    InvalidDataError,
    InvalidParameterError,
    UnknownNameError,
)
from fairacq.sampling import (
    AoptSampler,
    CallbackOracle,
    DatasetOracle,
    EpsilonGreedySampler,
    GeneratorOracle,
    UniformSampler,
    allocate_budget,
    make_sampler,
    resolve_budget,
    run_sampler_trials,
)
from tests.bad_input._corpus import Fragments, assert_api_error, assert_cli_error, run_cli
from tests.degenerate_models import OneColumnProba

# -- the command line ------------------------------------------------------------------------

BASE = {
    "--data": "people.csv",
    "--label": "approved",
    "--positive": "yes",
    "--sensitive": "gender",
    "--drop": "person",
    "--budget": "40",
    "--trials": "1",
}


def _args(files: Path, out: Path, change: dict[str, str | None]) -> list[str]:
    options = {**BASE, **change}
    args = ["sample", "--no-baseline", "--out", str(out)]
    for option, value in options.items():
        if value is not None:
            args += [option, str(files / value) if option == "--data" else value]
    return args


CLI_CASES: list[tuple[dict[str, Any], Fragments]] = [
    ({"--data": "empty.csv"}, ("empty.csv", "empty")),
    ({"--data": "header_only.csv"}, ("no rows",)),
    ({"--data": "truncated.csv.gz"}, ("truncated",)),
    ({"--data": "binary.csv"}, ("binary.csv", "not CSV")),
    ({"--data": "binary.parquet"}, ("binary.parquet", "not Parquet")),
    ({"--data": "table.json"}, ("unsupported file type",)),
    ({"--data": "folder.csv"}, ("is a directory",)),
    ({"--data": "missing.csv"}, ("missing.csv", "no such file", "Check the path")),
    ({"--data": "nan.csv"}, ("'income'", "missing value", "--impute")),
    ({"--data": "inf.csv"}, ("'income'", "infinite")),
    ({"--data": "one_group.csv"}, ("single group", "at least two groups")),
    ({"--data": "one_class.csv"}, ("every label is 1", "Give rows of both classes")),
    ({"--data": "three_labels.csv", "--positive": None}, ("not 0/1", "--positive VALUE")),
    ({"--budget": "0"}, ("'budget'", "[2, inf)")),
    ({"--budget": "1"}, ("'budget'", "Got 1")),
    ({"--budget": "2"}, ("budget 2 is smaller than Phase 1", "Raise the budget")),
    ({"--budget": "-5"}, ("budget '-5' is not a size", "such as 20%")),
    ({"--budget": "abc"}, ("budget 'abc' is not a size",)),
    ({"--budget": "-5%"}, ("budget '-5%' is not a size",)),
    ({"--budget": "0%"}, ("'0%' is not a percentage", "(0%, 100%]")),
    ({"--budget": "10000000"}, ("larger than the 112 rows", "--budget 112 or less")),
    ({"--method": "aoptt"}, ("'aoptt'", "Did you mean 'aopt'?")),
    ({"--method": "AOPT"}, ("'AOPT'", "Known: abernethy-greedy, aopt, aopt-plus")),
    ({"--model": "lrr"}, ("Unknown learner 'lrr'", "Did you mean 'lr'?")),
    ({"--model": "os:getcwd"}, ("not a class",)),
    ({"--model": "sklearn.linear_model"}, ("Unknown learner 'sklearn.linear_model'",)),
    ({"--model-param": "C=abc"}, ("'C' parameter", "'abc'", "Fix the value of C")),
    ({"--model-param": "max_iter=-3"}, ("'max_iter'", "Got -3")),
    ({"--model-param": "nope=1"}, ("takes no parameter 'nope'",)),
    ({"--model-param": "C"}, ("is not key=value",)),
    ({"--c0": "-1"}, ("'c0'", "[0, inf)")),
    ({"--c0": "nan"}, ("'c0'", "nan")),
    ({"--method": "epsilon-greedy", "--epsilon": "1.5"}, ("'epsilon'", "[0, 1]")),
    ({"--trials": "0"}, ("'n_trials'", "[1, inf)")),
    ({"--test-size": "0"}, ("'test_size'", "(0, 1)")),
    ({"--test-size": "1"}, ("'test_size'",)),
    ({"--workers": "0"}, ("workers", "got 0", "--workers 1 or more")),
    ({"--workers": "-2"}, ("got -2",)),
    ({"--seed": "-1"}, ("seed >= 0",)),
    ({"--sensitive": "approved"}, ("both --label and --sensitive",)),
    ({"--sensitive": "gender,gender"}, ("named more than once",)),
    ({"--sensitive": ","}, ("--data needs --sensitive COL",)),
    ({"--sensitive": "sex"}, ("no column 'sex' for --sensitive",)),
    ({"--categorical": "nosuch"}, ("--categorical names 'nosuch'",)),
    ({"--drop": "nosuch"}, ("no column 'nosuch' for --drop",)),
    ({"--label": None}, ("--label",)),
    ({"--validation": "loo"}, ("--validation must be paired or cross", "'loo'")),
    ({"--method": "slice-tuner", "--validation": "cross"}, ("--validation paired",)),
    (
        {"--model": "tests.degenerate_models:NanProba", "--workers": "1"},
        ("the sampler's model", "not numbers", "another model"),
    ),
    ({"--epsilon": "0.3"}, ("--epsilon applies to epsilon-greedy only", "--method aopt")),
    ({"--method": "uniform", "--c0": "0.3"}, ("--c0 applies to aopt and aopt-plus only",)),
    ({"--method": "epsilon-greedy", "--c0": "0.3"}, ("--c0", "Use --method aopt")),
    (
        {"--model": "linear_svm", "--validation": "cross", "--workers": "1"},
        ("linear_svm cannot be fitted on", "of label 0", "such as lr"),
    ),
]


@pytest.mark.parametrize(("change", "fragments"), CLI_CASES, ids=lambda v: str(v)[:60])
def test_sample_cli(files: Path, tmp_path: Path, change, fragments) -> None:
    res = run_cli(*_args(files, tmp_path / "out", change))
    assert_cli_error(res, fragments)
    assert not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--dataset", "germn"], ("Unknown dataset 'germn'", "Did you mean 'german'?")),
        (
            ["--dataset", "german", "--sensitive", "nope"],
            ("unknown sensitive attribute 'nope'", "Available: sex, age"),
        ),
        (["--dataset", "german", "--label", "y"], ("--data",)),
    ],
)
def test_sample_cli_bundled_data(tmp_path: Path, args, fragments) -> None:
    res = run_cli("sample", *args, "--budget", "50", "--trials", "1", "--out", tmp_path / "o")
    assert_cli_error(res, fragments)


def test_sample_out_where_nothing_can_be_written(files: Path) -> None:
    res = run_cli(*_args(files, Path("/proc/fairacq-run"), {}))
    assert_cli_error(res, ("--out /proc/fairacq-run", "cannot write in /proc", "a folder you"))


def test_sample_out_is_a_file(files: Path) -> None:
    res = run_cli(*_args(files, files / "afile.txt", {}))
    assert_cli_error(res, ("--out", "existing file", "Pass a new or existing folder"))


# -- the library -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def toy() -> FairDataset:
    return load_toy(300, random_state=0)


def _oracle(toy: FairDataset) -> DatasetOracle:
    return DatasetOracle(toy)


def _callback(X_cols: int = 3, *, bad: str = "") -> CallbackOracle:
    def draw(group: int, n: int, rng: np.random.Generator):
        X = rng.normal(size=(n, X_cols))
        y = (X[:, 0] > 0).astype(int)
        if bad == "nan":
            X[0, 0] = np.nan
        if bad == "short":
            y = y[:-1]
        if bad == "labels":
            y = y + 2
        return X, y

    return CallbackOracle(draw, ["a", "b"])


API_CASES: list[tuple[str, Any, type[FairacqError], Fragments]] = [
    ("unknown method", lambda d: make_sampler("aoptt"), UnknownNameError, "Did you mean 'aopt'?"),
    (
        "budget 1",
        lambda d: AoptSampler(budget=1).fit(_oracle(d)).trace_,
        InvalidParameterError,
        "'budget'",
    ),
    (
        "budget float",
        lambda d: AoptSampler(budget=20.5).fit(_oracle(d)).trace_,
        InvalidParameterError,
        "'budget'",
    ),
    (
        "budget str",
        lambda d: UniformSampler(budget="40").fit(_oracle(d)).trace_,
        InvalidParameterError,
        "'budget'",
    ),
    (
        "budget > pool",
        lambda d: UniformSampler(budget=10_000, random_state=0).fit(_oracle(d)).trace_,
        BudgetError,
        "ran out",
    ),
    (
        "b0 0",
        lambda d: AoptSampler(budget=40, b0=0).fit(_oracle(d)).trace_,
        InvalidParameterError,
        "'b0'",
    ),
    (
        "mode typo",
        lambda d: AoptSampler(budget=40, mode="exct").fit(_oracle(d)).trace_,
        InvalidParameterError,
        "Did you mean 'exact'?",
    ),
    (
        "loss typo",
        lambda d: AoptSampler(budget=40, loss="hinge").fit(_oracle(d)).trace_,
        InvalidParameterError,
        "'loss'",
    ),
    (
        "bound typo",
        lambda d: AoptSampler(budget=40, bound="rademacer").fit(_oracle(d)).trace_,
        InvalidParameterError,
        "Did you mean 'rademacher'?",
    ),
    (
        "delta 1",
        lambda d: AoptSampler(budget=40, delta=1.0).fit(_oracle(d)).trace_,
        InvalidParameterError,
        "'delta'",
    ),
    (
        "epsilon 2",
        lambda d: EpsilonGreedySampler(budget=40, epsilon=2).fit(_oracle(d)).trace_,
        InvalidParameterError,
        "'epsilon'",
    ),
    (
        "learner typo",
        lambda d: UniformSampler(budget=40, mode="refit", learner="lrr").fit(_oracle(d)).trace_,
        FairacqError,
        "lrr",
    ),
    (
        "learner object",
        lambda d: UniformSampler(budget=40, learner=object()).fit(_oracle(d)).trace_,
        InvalidParameterError,
        "'learner'",
    ),
    (
        "oracle is a dataset",
        lambda d: UniformSampler(budget=40).fit(d).trace_,
        FairacqError,
        "oracle",
    ),
    (
        "validation string",
        lambda d: UniformSampler(budget=40).fit(_oracle(d), validation="loo").trace_,
        InvalidParameterError,
        ("'loo' is not known", "'cross'"),
    ),
    (
        "cross with torch learner",
        lambda d: (
            UniformSampler(budget=40, mode="incremental")
            .fit(_oracle(d), validation="cross")
            .trace_
        ),
        InvalidParameterError,
        ("held-out predictions", "mode 'incremental'"),
    ),
    (
        "cross with slice tuner",
        lambda d: (
            make_sampler("slice-tuner", budget=40).fit(_oracle(d), validation="cross").trace_
        ),
        InvalidParameterError,
        ("learning curves on held-out rows", "--validation paired"),
    ),
    (
        "trials cross with abernethy",
        lambda d: run_sampler_trials(
            d, "abernethy-greedy", n_trials=1, budget=40, validation="cross"
        ),
        InvalidParameterError,
        ("held-out predictions", "averaged-sgd"),
    ),
    (
        "validation 0 rows",
        lambda d: UniformSampler(budget=40).fit(_oracle(d), validation=0).trace_,
        InvalidParameterError,
        "an int >= 1",
    ),
    (
        "allocate data frame",
        lambda d: allocate_budget(d.X, budget=40, n_trials=1),
        InvalidDataError,
        "must be a FairDataset",
    ),
    (
        "callback NaN",
        lambda d: UniformSampler(budget=20, random_state=0).fit(_callback(bad="nan")).trace_,
        InvalidDataError,
        "NaN",
    ),
    (
        "callback short y",
        lambda d: UniformSampler(budget=20, random_state=0).fit(_callback(bad="short")).trace_,
        InvalidDataError,
        "group",
    ),
    (
        "callback labels",
        lambda d: UniformSampler(budget=20, random_state=0).fit(_callback(bad="labels")).trace_,
        InvalidDataError,
        "0/1",
    ),
    (
        "callback one group",
        lambda d: CallbackOracle(lambda g, n, r: None, ["a"]),
        InvalidParameterError,
        "group",
    ),
    (
        "generator model",
        lambda d: GeneratorOracle("model-9"),
        InvalidParameterError,
        ("lacks 'groups'", "CallbackOracle"),
    ),
    (
        "trials 0",
        lambda d: run_sampler_trials(d, "uniform", n_trials=0, budget=40),
        InvalidParameterError,
        "'n_trials'",
    ),
    (
        "test_size 1.5",
        lambda d: run_sampler_trials(d, "uniform", test_size=1.5, budget=40),
        InvalidParameterError,
        "'test_size'",
    ),
    (
        "trials budget abc",
        lambda d: run_sampler_trials(d, "uniform", n_trials=1, budget="abc"),
        InvalidParameterError,
        "is not a size",
    ),
    (
        "trials budget 0.2",
        lambda d: run_sampler_trials(d, "uniform", n_trials=1, budget=0.2),
        InvalidParameterError,
        "20%",
    ),
    (
        "trials budget huge",
        lambda d: run_sampler_trials(d, "uniform", n_trials=1, budget=10**6),
        BudgetError,
        "larger than",
    ),
    (
        "trials one class",
        lambda d: run_sampler_trials(
            d.subset(np.flatnonzero(d.y == 0)), "uniform", n_trials=1, budget=40
        ),
        InvalidDataError,
        "every label is 0",
    ),
    (
        "trials unknown method",
        lambda d: run_sampler_trials(d, "unifrom", n_trials=1, budget=40),
        UnknownNameError,
        "Did you mean 'uniform'?",
    ),
    (
        "trials seed",
        lambda d: run_sampler_trials(d, "uniform", n_trials=1, budget=40, random_state=-3),
        FairacqError,
        "seed",
    ),
    (
        "trials data frame",
        lambda d: run_sampler_trials(d.X, "uniform", n_trials=1, budget=40),
        FairacqError,
        "FairDataset",
    ),
    (
        "allocate baseline",
        lambda d: allocate_budget(d, budget=40, n_trials=1, baseline="unifrm"),
        UnknownNameError,
        "Did you mean 'uniform'?",
    ),
    ("resolve nan", lambda d: resolve_budget(float("nan"), 100), InvalidParameterError, "nan"),
    ("resolve -5%", lambda d: resolve_budget("-5%", 100), InvalidParameterError, "-5%"),
    ("resolve bool", lambda d: resolve_budget(True, 100), InvalidParameterError, "True"),
    ("oracle of a frame", lambda d: DatasetOracle(d.X), InvalidDataError, "FairDataset"),
    (
        "allocate epsilon for aopt",
        lambda d: allocate_budget(d, "aopt", budget=40, n_trials=1, epsilon=0.3),
        InvalidParameterError,
        ("epsilon applies to epsilon-greedy only", "method 'aopt' would ignore it"),
    ),
    (
        "allocate unknown hyper-parameter",
        lambda d: allocate_budget(d, "uniform", budget=40, n_trials=1, nope=1),
        InvalidParameterError,
        ("nope is no sampler's parameter", "drop nope"),
    ),
    (
        "validation with a group the oracle lacks",
        lambda d: (
            UniformSampler(budget=20, random_state=0)
            .fit(DatasetOracle(_only_groups(d, 2)), validation=_only_groups(d, 3))
            .trace_
        ),
        InvalidDataError,
        ("has rows of group(s) 'c' that the oracle lacks", "oracle's groups only"),
    ),
    (
        "refit model with one probability column",
        lambda d: (
            UniformSampler(budget=20, random_state=0, learner=OneColumnProba())
            .fit(_oracle(d))
            .trace_
        ),
        DegenerateModelError,
        ("the sampler's model gave one probability column",),
    ),
]


def _only_groups(d: FairDataset, n: int) -> FairDataset:
    """``d`` with groups 'a', 'b' (and 'c', every third row, when ``n`` is 3)."""
    group = np.where(d.s == 0, "a", "b")
    if n == 3:
        group = np.where(np.arange(len(d)) % 3 == 0, "c", group)
    keep = np.flatnonzero(group != "c") if n == 2 else np.arange(len(d))
    return FairDataset(d.X.iloc[keep], d.y[keep], group[keep], name=f"{n} groups")


@pytest.mark.parametrize(
    ("name", "call", "kind", "fragments"), API_CASES, ids=[c[0] for c in API_CASES]
)
def test_sampling_api(toy, name, call, kind, fragments) -> None:
    assert_api_error(lambda: call(toy), fragments, kind)


def test_resume_from_a_trace_of_another_seed(toy) -> None:
    trace = UniformSampler(budget=20, random_state=0).fit(_oracle(toy)).trace_
    assert_api_error(
        lambda: (
            UniformSampler(budget=30, random_state=5).fit(_oracle(toy), continue_from=trace).trace_
        ),
        ("trace of seed 0", "random_state is seed 5", "Resume with random_state=0"),
        InvalidDataError,
    )
    again = UniformSampler(budget=30, random_state=0).fit(_oracle(toy), continue_from=trace).trace_
    assert again.to_frame()["cost"].iloc[-1] == 30  # the seed that wrote it resumes


def test_resume_from_a_trace_of_another_spawned_seed(toy) -> None:
    first, second = np.random.SeedSequence(3).spawn(2)
    trace = UniformSampler(budget=20, random_state=first).fit(_oracle(toy)).trace_
    assert_api_error(
        lambda: (
            UniformSampler(budget=30, random_state=second)
            .fit(_oracle(toy), continue_from=trace)
            .trace_
        ),
        ("spawn key [0]", "spawn key [1]", "SeedSequence(3, spawn_key=(0,))"),
        InvalidDataError,
    )


def test_resume_from_another_samplers_trace(toy) -> None:
    trace = UniformSampler(budget=20, random_state=0).fit(_oracle(toy)).trace_
    assert_api_error(
        lambda: (
            AoptSampler(budget=30, random_state=0).fit(_oracle(toy), continue_from=trace).trace_
        ),
        "'uniform' trace",
        InvalidDataError,
    )
