"""Bad input to ``fairacq reproduce`` and the experiments' API."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from fairacq.exceptions import (
    FairacqError,
    InvalidParameterError,
    SchedulerUnreachableError,
    UnknownNameError,
)
from fairacq_experiments import get_experiment, make_executor, merge_experiment, run_experiment
from tests.bad_input._corpus import Fragments, assert_api_error, assert_cli_error, run_cli

CLI_CASES: list[tuple[list[str], Fragments]] = [
    (["nope"], ("Unknown experiment 'nope'", "See fairacq reproduce --list")),
    (["aopt-fig"], ("Did you mean 'aopt-fig6'?",)),
    (["aopt-fig1", "--set", "n_trials=abc"], ("field 'n_trials' takes int", "got str 'abc'")),
    (["aopt-fig1", "--set", "n_trials=1e9"], ("takes int", "got float")),
    (["aopt-fig1", "--set", "n_trials=[1,2]"], ("takes int", "got tuple")),
    (["aopt-fig1", "--set", "n_trials=-1"], ("n_trials must be >= 1",)),
    (["aopt-fig1", "--set", "nosuch=1"], ("has no field 'nosuch'", "Fields:")),
    (["aopt-fig1", "--set", "n_trials"], ("--set takes FIELD=VALUE",)),
    (["aopt-fig1", "--set", "=3"], ("--set takes FIELD=VALUE",)),
    (["aopt-fig1", "--set", "seed=1", "--set", "seed=2"], ("twice",)),
    (["aopt-fig1", "--set", "n_trials=" + "[" * 5000 + "]" * 5000], ("nests too deeply",)),
    (["aopt-fig1", "--workers", "0"], ("workers must be an int >= 1", "--workers 1 or more")),
    (["aopt-fig1", "--workers", "-3"], ("got -3",)),
    (["aopt-fig1", "--executor", "spark"], ("Unknown executor 'spark'",)),
    (["aopt-fig1", "--seeds", "0"], ("n_trials must be >= 1",)),
    (["aopt-fig1", "--seed", "-1"], ("seed must be >= 0",)),
    (["aopt-fig1", "--merge", "{files}"], ("cannot be merged from parts",)),
    (
        ["dadi-fig2", "--merge", "{files}/afile.txt", "--merge", "{files}/folder.csv"],
        ("afile.txt is a file",),
    ),
    (
        ["dadi-fig2", "--merge", "{files}/nope", "--merge", "{files}/folder.csv"],
        ("is not the output of a finished run",),
    ),
    (["--out", "{files}/afile.txt", "filtering-fig1"], ("existing file",)),
    ([], ("name",)),
]


@pytest.mark.parametrize(("args", "fragments"), CLI_CASES, ids=lambda v: str(v)[:60])
def test_reproduce_cli(files: Path, tmp_path: Path, args, fragments) -> None:
    filled = [a.format(files=files) for a in args]
    out = [] if "--out" in filled else ["--out", str(tmp_path / "o")]
    res = run_cli("reproduce", *filled, *out)
    assert_cli_error(res, fragments)
    assert not (tmp_path / "o" / "summary.json").exists()


def test_reproduce_unreachable_dask_fails_fast(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    start = time.monotonic()
    res = run_cli(
        "reproduce",
        "aopt-fig1",
        "--executor",
        "dask",
        "--address",
        "tcp://127.0.0.1:9",
        "--out",
        tmp_path / "o",
    )
    assert time.monotonic() - start < 12
    assert_cli_error(res, ("cannot reach the dask scheduler",))


API_CASES: list[tuple[str, Any, type[FairacqError], Fragments]] = [
    (
        "override nested",
        lambda t: run_experiment("aopt-fig1", n_trials=[[1]]),
        FairacqError,
        "n_trials",
    ),
    (
        "override negative",
        lambda t: run_experiment("aopt-fig1", n_trials=-1),
        FairacqError,
        ">= 1",
    ),
    ("override seed", lambda t: run_experiment("aopt-fig1", seed=-5), FairacqError, "seed"),
    (
        "out is a file",
        lambda t: run_experiment("aopt-fig1", out_dir=t / "f.txt", n_trials=1, grid_size=3),
        FairacqError,
        "f.txt",
    ),
    (
        "from_dict field",
        lambda t: get_experiment("aopt-fig1").config_cls.from_dict({"nosuch": 1}),
        FairacqError,
        "nosuch",
    ),
    (
        "preset_named",
        lambda t: get_experiment("aopt-fig1").config_cls.preset_named("medium"),
        InvalidParameterError,
        "'medium'",
    ),
    (
        "executor workers negative",
        lambda t: make_executor("local", n_workers=-2),
        InvalidParameterError,
        "-2",
    ),
    ("merge no parts", lambda t: merge_experiment("dadi-fig2", []), FairacqError, "part"),
    (
        "merge missing part",
        lambda t: merge_experiment("dadi-fig2", [t / "nope", t]),
        InvalidParameterError,
        "not the output of a finished run",
    ),
    ("unknown", lambda t: get_experiment("aopt-fig9"), UnknownNameError, "Did you mean"),
    ("run unknown", lambda t: run_experiment("nope"), UnknownNameError, "nope"),
    ("preset", lambda t: run_experiment("aopt-fig1", preset="fast"), FairacqError, "fast"),
    ("override field", lambda t: run_experiment("aopt-fig1", nosuch=1), FairacqError, "nosuch"),
    (
        "override type",
        lambda t: run_experiment("aopt-fig1", n_trials="many"),
        FairacqError,
        "n_trials",
    ),
    ("executor kind", lambda t: make_executor("spark"), FairacqError, "spark"),  # type: ignore
    (
        "executor workers",
        lambda t: make_executor("local", n_workers=0),
        InvalidParameterError,
        "workers",
    ),
    (
        "merge unmergeable",
        lambda t: merge_experiment("aopt-fig1", [t, t]),
        FairacqError,
        "cannot be merged",
    ),
    (
        "merge a file",
        lambda t: merge_experiment("dadi-fig2", [t / "f.txt", t]),
        InvalidParameterError,
        "is a file",
    ),
]


@pytest.mark.parametrize(
    ("name", "call", "kind", "fragments"), API_CASES, ids=[c[0] for c in API_CASES]
)
def test_reproduce_api(tmp_path, name, call, kind, fragments) -> None:
    (tmp_path / "f.txt").write_text("x")
    assert_api_error(lambda: call(tmp_path), fragments, kind)


def test_make_executor_unreachable_address_fails_fast() -> None:
    pytest.importorskip("distributed")
    start = time.monotonic()
    assert_api_error(
        lambda: make_executor("dask", address="tcp://127.0.0.1:9"),
        "tcp://127.0.0.1:9",
        SchedulerUnreachableError,
    )
    assert time.monotonic() - start < 12
