"""Bad ``--model module:Class`` on every command that takes one: one ``error:`` line each.

A model whose module fails to import, whose constructor or ``fit`` raises, or whose
``predict_proba`` gives one column is named in one line with the fix, never shown as a
traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairacq.cli.shared._user_model import (
    forget_user_models,
    remember_user_model,
    user_model_failure,
)
from fairacq.exceptions import DegenerateModelError, InvalidParameterError
from fairacq.models import make_learner
from tests.bad_input._corpus import assert_api_error, assert_cli_error, run_cli
from tests.degenerate_models import FitRaises, InitRaises

TABLE = ["--label", "approved", "--positive", "yes", "--sensitive", "gender", "--drop", "person"]
BROKEN = "tests.broken_model_module:Model"
FIT_RAISES = "tests.degenerate_models:FitRaises"
ONE_COLUMN = "tests.degenerate_models:OneColumnProba"
INIT_RAISES = "tests.degenerate_models:InitRaises"


def _command(name: str, files: Path, out: Path) -> list[object]:
    """The arguments of command ``name`` on the corpus table, writing under ``out``."""
    data = ["--data", files / "people.csv", *TABLE]
    return {
        "audit": ["audit", *data],
        "sample": ["sample", *data, "--budget", "40", "--trials", "1", "--no-baseline",
                   "--workers", "1", "--out", out],
        "acquire": ["acquire", *data, "--pool", files / "pool.csv", "--method", "entropy",
                    "--budget", "20", "--batch", "10", "--no-baseline", "--out", out],
        "compare": ["compare", *data, "--seeds", "1", "--out", out],
        "filter fit": ["filter", "fit", *data, "--proxy", "qp-tree", "--out", out / "p.json"],
    }[name]  # fmt: skip


COMMANDS = ["audit", "sample", "acquire", "compare", "filter fit"]


@pytest.mark.parametrize("command", COMMANDS)
def test_model_whose_import_raises(files: Path, tmp_path: Path, command: str) -> None:
    res = run_cli(*_command(command, files, tmp_path / "out"), "--model", BROKEN)
    assert_cli_error(
        res, ("Importing module 'tests.broken_model_module'", "RuntimeError", "Fix the module")
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_model_whose_constructor_raises(files: Path, tmp_path: Path, command: str) -> None:
    res = run_cli(*_command(command, files, tmp_path / "out"), "--model", INIT_RAISES)
    assert_cli_error(
        res, (f"--model {INIT_RAISES} failed when built", "no licence for this solver", "lr")
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_model_whose_fit_raises(files: Path, tmp_path: Path, command: str) -> None:
    res = run_cli(*_command(command, files, tmp_path / "out"), "--model", FIT_RAISES)
    assert_cli_error(
        res, (f"--model {FIT_RAISES} failed in its fit", "the solver could not start", "lr")
    )
    assert not (tmp_path / "out" / "summary.json").exists()


def test_model_whose_fit_raises_in_a_worker(files: Path, tmp_path: Path) -> None:
    args = _command("sample", files, tmp_path / "out")
    args[args.index("--workers") + 1], args[args.index("--trials") + 1] = "2", "2"
    res = run_cli(*args, "--model", FIT_RAISES)
    # Worker start-up may be slow enough for the progress line; the error is still one line.
    errors = [line for line in res.output.splitlines() if line.startswith("error: ")]
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output, res.output
    assert len(errors) == 1, res.output
    assert f"--model {FIT_RAISES} failed in its fit" in errors[0]


@pytest.mark.parametrize("command", ["audit", "sample", "acquire", "compare"])
def test_model_with_one_probability_column(files: Path, tmp_path: Path, command: str) -> None:
    res = run_cli(*_command(command, files, tmp_path / "out"), "--model", ONE_COLUMN)
    assert_cli_error(res, (f"--model {ONE_COLUMN}", "one probability column", "another model"))


def test_filter_fit_with_one_probability_column(files: Path, tmp_path: Path) -> None:
    """The proxy itself uses predict; the held-out check of the groups reads predict_proba."""
    res = run_cli(*_command("filter fit", files, tmp_path / "out"), "--model", ONE_COLUMN)
    assert_cli_error(
        res, (f"--model {ONE_COLUMN}", "1 column(s) for 2 groups", "Use another model")
    )
    assert not (tmp_path / "out").exists()


def test_model_build_failure_tells_a_parameter_from_a_constructor() -> None:
    from fairacq.cli.shared._user_model import model_build_failure

    param = model_build_failure("lr", ["bogus"], TypeError("unexpected keyword 'bogus'"))
    assert param.startswith("--model lr does not take --model-param bogus")
    exc = _raised(lambda: InitRaises(C=2.0))
    built = model_build_failure(INIT_RAISES, ["C"], exc)  # raised in the model's own code
    assert built.startswith(f"--model {INIT_RAISES} failed when built (RuntimeError: no licence")


def test_make_learner_with_a_module_that_fails_to_import() -> None:
    assert_api_error(
        lambda: make_learner(BROKEN), ("failed", "this module is broken"), InvalidParameterError
    )


# -- the wording, unit by unit ---------------------------------------------------------------


def _raised(call) -> BaseException:
    try:
        call()
    except Exception as exc:  # the exception with its traceback, as a command meets it
        return exc
    raise AssertionError("no exception")


def test_user_model_failure_names_the_model_and_method() -> None:
    forget_user_models()
    exc = _raised(lambda: FitRaises().fit([[0.0]], [0]))
    assert user_model_failure(exc) is None  # nothing remembered: passes on unchanged
    remember_user_model(FIT_RAISES, FitRaises())
    try:
        line = user_model_failure(exc)
        assert line is not None
        assert line.startswith(f"--model {FIT_RAISES} failed in its fit")
        assert user_model_failure(_raised(lambda: {}["key"])) is None  # not the model's code
        degenerate = user_model_failure(DegenerateModelError("the model gave NaN"))
        assert degenerate == f"--model {FIT_RAISES}: the model gave NaN"
    finally:
        forget_user_models()
    assert user_model_failure(exc) is None
