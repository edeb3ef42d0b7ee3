"""Run folders are swapped in whole; a checkpoint's stamp names what differs on resume."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from fairacq import CheckpointCallback, Trace, TraceRecorder
from fairacq._run_folder import check_run_folder, run_folder
from fairacq.cli.acquire._acquire_resume import STAMP_KEY, check_stamp, run_stamp
from fairacq.exceptions import InvalidParameterError


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _run(folder: Path, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("_", ".")).write_text(text)
    return folder


def _write_then_fail(out: Path) -> None:
    with run_folder(out) as building:
        (building / "summary.json").write_text("new")
        raise RuntimeError("stopped")


def test_run_folder_replaces_the_earlier_run_only_when_the_block_succeeds(tmp_path: Path) -> None:
    out = _run(tmp_path / "run", summary_json="old", thresholds_json="old")
    with pytest.raises(RuntimeError):
        _write_then_fail(out)
    assert sorted(p.name for p in out.iterdir()) == ["summary.json", "thresholds.json"]
    assert (out / "summary.json").read_text() == "old"
    with run_folder(out) as building:
        (building / "summary.json").write_text("new")
    assert [p.name for p in out.iterdir()] == ["summary.json"]
    assert (out / "summary.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_run_folder_puts_back_a_run_a_killed_swap_left_aside(tmp_path: Path) -> None:
    pid = _dead_pid()
    _run(tmp_path / f".run.previous-{pid}", summary_json="old")
    _run(tmp_path / f".run.partial-{pid}", summary_json="half")
    with pytest.raises(RuntimeError), run_folder(tmp_path / "run"):
        raise RuntimeError("stopped")
    assert (tmp_path / "run" / "summary.json").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_a_run_left_aside_by_a_killed_swap_is_checked_as_the_folder(tmp_path: Path) -> None:
    _run(tmp_path / f".run.previous-{_dead_pid()}", summary_json="old")
    with pytest.raises(InvalidParameterError, match="already holds a finished run"):
        check_run_folder(tmp_path / "run")
    assert (tmp_path / "run" / "summary.json").read_text() == "old"


def test_run_folder_keeps_a_live_run_building_beside_it(tmp_path: Path) -> None:
    live = _run(tmp_path / ".run.partial-1", summary_json="building")  # pid 1 always runs
    with run_folder(tmp_path / "run") as building:
        (building / "counts.csv").write_text("x")
    assert (live / "summary.json").exists()


def test_run_folder_refuses_the_root_folder() -> None:
    with pytest.raises(InvalidParameterError, match="root folder"), run_folder("/"):
        pass


@pytest.mark.parametrize(
    ("files", "kwargs", "fragment"),
    [
        ({}, {}, None),
        ({".summary.json.123.tmp": "x"}, {}, None),
        ({"checkpoint.json": "{}"}, {"checkpoint_ok": True}, None),
        ({"checkpoint.json": "{}"}, {}, "the checkpoint of an unfinished run"),
        ({"counts.csv": "x"}, {}, "already holds a finished run"),
        ({"counts.csv": "x"}, {"overwrite": True}, None),
        ({"counts.csv": "x", "mine.txt": "x"}, {"overwrite": True}, "(mine.txt)"),
        ({"counts.csv": "x", ".gitignore": "x"}, {"overwrite": True}, "(.gitignore)"),
    ],
)
def test_check_run_folder(
    tmp_path: Path, files: dict[str, str], kwargs: dict[str, bool], fragment: str | None
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    if fragment is None:
        check_run_folder(tmp_path, **kwargs)
        return
    with pytest.raises(InvalidParameterError, match=re.escape(fragment)):
        check_run_folder(tmp_path, **kwargs)


def test_a_stamp_names_the_first_difference(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("1\n")
    (tmp_path / "b.csv").write_text("2\n")
    then = run_stamp({"--pool": tmp_path / "a.csv"}, {"method": "random", "seed": 0})
    check_stamp({STAMP_KEY: then}, then, tmp_path)
    cases = [
        (run_stamp({"--pool": tmp_path / "b.csv"}, {"seed": 0}), "another --pool (its content"),
        (run_stamp({}, {"method": "random", "seed": 0}), "--pool (given then, not now)"),
        (
            run_stamp({"--pool": tmp_path / "a.csv"}, {"method": "fal", "seed": 0}),
            "--method random (now fal)",
        ),
    ]
    for now, fragment in cases:
        with pytest.raises(InvalidParameterError, match=re.escape(fragment)):
            check_stamp({STAMP_KEY: then}, now, tmp_path)
    with pytest.raises(InvalidParameterError, match="does not record"):
        check_stamp({}, then, tmp_path)


def test_a_checkpoint_callback_records_its_meta(tmp_path: Path) -> None:
    recorder = TraceRecorder(method="demo", config={}, random_state=0)
    recorder.record(cost=0)
    CheckpointCallback(tmp_path / "ck", every=1, meta={"run_inputs": {"files": {}}})(recorder)
    assert Trace.load(tmp_path / "ck").meta["run_inputs"] == {"files": {}}
