"""A run folder holds one run, and a checkpoint knows what it was written for.

An ``--out`` holding an earlier run is refused (exit 2, one line, the run byte-for-byte
intact) unless ``--overwrite``; a folder holding the user's own files is never replaced; a
run killed with SIGKILL over a finished run leaves the finished run as it was; ``--resume``
against a checkpoint of other inputs or options is one line; the API's ``continue_from``
refuses a trace of another seed or pool size.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fairacq import CheckpointCallback
from fairacq.acquisition import RandomAcquirer
from fairacq.data import load_toy
from fairacq.exceptions import InvalidParameterError
from tests.bad_input._corpus import assert_api_error, assert_cli_error, run_cli
from tests.cli.test_kill_resume import _steps

ROLES = ("--label", "approved", "--positive", "yes", "--sensitive", "gender", "--drop", "person")
QUICK = ("--method", "random", "--budget", "20", "--batch", "10", "--no-baseline")


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative name -> bytes)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def work(files: Path, tmp_path: Path) -> Path:
    """``people.csv``, ``pool.csv`` and a finished acquire run in ``run/``."""
    for name in ("people.csv", "pool.csv"):
        shutil.copy(files / name, tmp_path / name)
    res = run_cli(*_acquire(tmp_path, "run"))
    assert res.exit_code == 0, res.output
    return tmp_path


def _acquire(work: Path, out: str, *extra: str, pool: str = "pool.csv") -> list[str]:
    return [
        "acquire", "--data", str(work / "people.csv"), "--pool", str(work / pool), *ROLES,
        *QUICK, "--out", str(work / out), *extra,
    ]  # fmt: skip


def _sample(work: Path, out: str, *extra: str) -> list[str]:
    data = str(work / "people.csv")
    return [
        "sample",
        "--data",
        data,
        *ROLES,
        "--budget",
        "20",
        "--trials",
        "1",
        "--out",
        out,
        *extra,
    ]


def _compare(work: Path, out: str, *extra: str) -> list[str]:
    data, quick = str(work / "people.csv"), ("--question", "rows", "--budget", "10%")
    return ["compare", "--data", data, *ROLES, *quick, "--seeds", "1", "--out", out, *extra]


COMMANDS = {
    "acquire": lambda w, *extra: _acquire(w, "run", *extra),
    "sample": lambda w, *extra: _sample(w, str(w / "run"), *extra),
    "compare": lambda w, *extra: _compare(w, str(w / "run"), *extra),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_folder_holding_a_finished_run_is_refused(work: Path, command: str) -> None:
    before = _snapshot(work / "run")
    res = run_cli(*COMMANDS[command](work))
    assert_cli_error(res, ("already holds a finished run", "--overwrite", "another --out"))
    assert _snapshot(work / "run") == before


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_folder_holding_other_files_is_never_replaced(work: Path, command: str) -> None:
    (work / "run" / "my notes.txt").write_text("mine\n")
    before = _snapshot(work / "run")
    res = run_cli(*COMMANDS[command](work, "--overwrite"))
    assert_cli_error(res, ("files fairacq did not write", "my notes.txt", "empty or new --out"))
    assert _snapshot(work / "run") == before


def test_overwrite_replaces_the_whole_earlier_run(work: Path) -> None:
    (work / "run" / "thresholds.json").write_text("{}\n")  # as an earlier run might leave
    (work / "run" / "checkpoint.json").write_text("{}\n")
    res = run_cli(*_acquire(work, "run", "--overwrite", "--seed", "4"))
    assert res.exit_code == 0, res.output
    names = sorted(p.name for p in (work / "run").iterdir())
    assert "thresholds.json" not in names
    assert "checkpoint.json" not in names
    assert "acquired.parquet" in names
    assert "summary.json" in names
    assert json.loads((work / "run" / "summary.json").read_text())["meta"]
    assert not list(work.glob(".run.*")), "a building or aside folder was left behind"


def test_a_failed_run_leaves_the_earlier_one_intact(work: Path) -> None:
    before = _snapshot(work / "run")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("fairacq.cli.acquire._acquire.write_outputs", _half_written)
        res = run_cli(*_acquire(work, "run", "--overwrite"))
    assert res.exit_code == 130
    assert _snapshot(work / "run") == before
    assert not list(work.glob(".run.*"))


def _half_written(acquirer: Any, inputs: Any, out: Path, *args: Any) -> None:
    (out / "acquired.parquet").write_bytes(b"half")
    raise KeyboardInterrupt


# -- resume ----------------------------------------------------------------------------------


@pytest.fixture
def stopped(work: Path) -> Path:
    """``stopped/``: the checkpoint of a run stopped before writing its outputs."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("fairacq.cli.acquire._acquire.write_outputs", _half_written)
        res = run_cli(*_acquire(work, "stopped", "--checkpoint-every", "1"))
    assert res.exit_code == 130, res.output
    assert sorted(p.name for p in (work / "stopped").iterdir()) == [
        "checkpoint.json",
        "checkpoint.parquet",
    ]
    return work


def _other_table(work: Path, name: str, like: str) -> str:
    """A copy of ``like`` with one row fewer (other content, other size)."""
    lines = (work / like).read_text().splitlines(keepends=True)
    (work / name).write_text("".join(lines[:-1]))
    return name


def test_resume_with_the_same_inputs_goes_on_and_removes_the_checkpoint(stopped: Path) -> None:
    res = run_cli(*_acquire(stopped, "stopped", "--checkpoint-every", "1", "--resume"))
    assert res.exit_code == 0, res.output
    assert "going on from" in res.output
    names = {p.name for p in (stopped / "stopped").iterdir()}
    assert "summary.json" in names
    assert not names & {"checkpoint.json", "checkpoint.parquet"}


def test_resume_against_a_checkpoint_of_another_pool_is_one_line(stopped: Path) -> None:
    before = _snapshot(stopped / "stopped")
    pool = _other_table(stopped, "pool2.csv", "pool.csv")
    res = run_cli(*_acquire(stopped, "stopped", "--resume", pool=pool))
    assert_cli_error(res, ("written for another --pool (its content differs)", "drop --resume"))
    assert _snapshot(stopped / "stopped") == before


def test_resume_against_a_checkpoint_of_another_training_table_is_one_line(
    stopped: Path,
) -> None:
    args = _acquire(stopped, "stopped", "--resume")
    people = str(stopped / _other_table(stopped, "people2.csv", "people.csv"))
    args[args.index("--data") + 1] = people
    assert_cli_error(run_cli(*args), ("another --data (its content differs)", "same inputs"))


def test_resume_with_other_options_names_the_option(stopped: Path) -> None:
    res = run_cli(*_acquire(stopped, "stopped", "--resume", "--seed", "9"))
    assert_cli_error(res, ("written with --seed 0 (now 9)", "same options"))


def test_resume_from_a_checkpoint_that_records_no_inputs_is_one_line(stopped: Path) -> None:
    path = stopped / "stopped" / "checkpoint.json"
    meta = json.loads(path.read_text())
    del meta["run_inputs"]
    path.write_text(json.dumps(meta))
    res = run_cli(*_acquire(stopped, "stopped", "--resume"))
    assert_cli_error(res, ("does not record what it was written for", "drop --resume"))


@pytest.mark.parametrize(
    ("change", "fragment"),
    [({"random_state": 1}, "seed 0, but this run has 1"), ({"pool": 120}, "pool size 150")],
)
def test_continue_from_a_trace_of_another_seed_or_pool_is_refused(
    tmp_path: Path, change: dict[str, int], fragment: str
) -> None:
    ds = load_toy(300, random_state=0)
    train, val, pool = ds.subset(range(80)), ds.subset(range(80, 150)), ds.subset(range(150, 300))
    path = tmp_path / "ck"
    RandomAcquirer(budget=20, batch_size=10, random_state=0).fit(
        train, pool, validation=val, callbacks=[CheckpointCallback(path, every=1)]
    )
    other = ds.subset(range(150, 150 + change.get("pool", 150)))
    again = RandomAcquirer(budget=20, batch_size=10, random_state=change.get("random_state", 0))
    assert_api_error(
        lambda: again.fit(train, other, validation=val, continue_from=path).trace_,
        (fragment, "start afresh"),
        InvalidParameterError,
    )


# -- a real kill -9 over a finished run ------------------------------------------------------


@pytest.mark.slow
def test_a_run_killed_over_a_finished_run_leaves_it_intact(tmp_path: Path) -> None:
    ds = load_toy(1800, random_state=5)  # a 1,200-row pool, 20 steps: enough to kill at 3
    frame = ds.X.assign(group=ds.sensitive["group"].to_numpy(), label=ds.y)
    frame.iloc[:300].to_parquet(tmp_path / "train.parquet")
    frame.iloc[300:600].to_parquet(tmp_path / "val.parquet")
    frame.iloc[600:].to_parquet(tmp_path / "pool.parquet")
    out = tmp_path / "run"
    base = [
        "acquire", "--pool", str(tmp_path / "pool.parquet"),
        "--train", str(tmp_path / "train.parquet"), "--val", str(tmp_path / "val.parquet"),
        "--budget", "400", "--batch", "20", "--tau", "0", "--seed", "3", "--out", str(out),
    ]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    # the finished run goes in this process; the killed run and the resume are processes
    finished = run_cli(*base, "--method", "random", "--no-baseline")
    assert finished.exit_code == 0, finished.output
    before = _snapshot(out)
    cli = [sys.executable, "-m", "fairacq.cli"]
    slow = [*cli, *base, "--method", "datasift-inf", "--overwrite", "--checkpoint-every", "1"]
    proc = subprocess.Popen(slow, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _steps(out / "checkpoint.json") < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    after = _snapshot(out)
    assert {k: v for k, v in after.items() if not k.startswith("checkpoint")} == before
    assert set(after) - set(before) == {"checkpoint.json", "checkpoint.parquet"}

    resumed = subprocess.run([*slow, "--resume"], env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["experiment"] == "acquire-datasift-inf"
    assert not (out / "checkpoint.json").exists()
    assert (out / "baselines").is_dir()  # the new run's, beside no file of the old one
    assert not list(tmp_path.glob(".run.*"))


# A `fairacq sample` whose report writer, having written its files into the building folder,
# says so and waits: the test kills it there with SIGKILL (no patch can run after a kill).
_HELD_SAMPLE = """
import pathlib, sys, time
import fairacq.cli.sample._sample_report as report
from fairacq.cli import main

written, marker = report.write_report, pathlib.Path(sys.argv.pop(1))
def write_then_wait(result, folder, **kw):
    summary = written(result, folder, **kw)
    marker.write_text(str(folder))
    time.sleep(120)
    return summary
report.write_report = write_then_wait
sys.argv[0] = "fairacq"
main()
"""


@pytest.mark.slow
def test_sample_killed_while_writing_over_a_finished_run_leaves_it_intact(
    files: Path, tmp_path: Path
) -> None:
    """A real kill -9 of ``sample`` in the middle of writing its new run over a finished one."""
    work, out, marker = files, tmp_path / "sampled", tmp_path / "written.txt"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    args = _sample(work, str(out), "--workers", "1", "--no-baseline")
    assert run_cli(*args).exit_code == 0
    before = _snapshot(out)
    again = [*args, "--overwrite", "--seed", "7"]
    proc = subprocess.Popen(
        [sys.executable, "-c", _HELD_SAMPLE, str(marker), *again],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert marker.exists(), "the run ended before it could be killed"
    building = Path(marker.read_text())
    assert (building / "summary.json").is_file()  # the new run's files were being written
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _snapshot(out) == before  # the finished run, byte for byte
    assert building.is_dir()  # the dead run's building folder, beside it

    res = run_cli(*again)  # the next run clears it away and swaps in whole
    assert res.exit_code == 0, res.output
    assert not building.exists()
    assert json.loads((out / "summary.json").read_text())["settings"]["seed"] == 7
    assert not list(tmp_path.glob(".sampled.*"))
