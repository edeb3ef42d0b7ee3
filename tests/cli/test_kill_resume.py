"""A ``fairacq acquire`` process killed with SIGKILL, then resumed, ends as if never stopped.

The uninterrupted run goes in this process; the killed run and the resumed one are fresh
processes, as a user's would be. The pool is small (1,200 rows, 20 steps): what is checked,
byte for byte, does not depend on its size.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.data import load_toy


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kill")
    ds = load_toy(1800, random_state=5)
    frame = ds.X.assign(group=ds.sensitive["group"].to_numpy(), label=ds.y)
    frame.iloc[:300].to_parquet(root / "train.parquet")
    frame.iloc[300:600].to_parquet(root / "val.parquet")
    frame.iloc[600:].to_parquet(root / "pool.parquet")
    return root


def _args(root: Path, out: Path, *extra: str) -> list[str]:
    return [
        "acquire", "--pool", str(root / "pool.parquet"), "--train", str(root / "train.parquet"),
        "--val", str(root / "val.parquet"), "--method", "datasift-inf", "--tau", "0",
        "--budget", "400", "--batch", "20", "--seed", "3", "--out", str(out), *extra,
    ]  # fmt: skip


def _command(root: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "fairacq.cli", *_args(root, out, *extra)]


def _steps(checkpoint: Path) -> int:
    """Steps in the checkpoint written so far (0 while there is none)."""
    try:
        return int(json.loads(checkpoint.read_text())["trace_file"]["n_steps"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.mark.slow
def test_kill_9_then_resume_gives_the_uninterrupted_order_and_trace(files: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    whole = files / "whole"
    done = CliRunner().invoke(app, _args(files, whole))
    assert done.exit_code == 0, done.output

    killed = files / "killed"
    proc = subprocess.Popen(
        _command(files, killed, "--checkpoint-every", "1"),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while _steps(killed / "checkpoint.json") < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (killed / "acquisition_order.csv").exists()

    resumed = subprocess.run(
        _command(files, killed, "--checkpoint-every", "1", "--resume"),
        env=env,
        capture_output=True,
        text=True,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "going on from" in resumed.stderr
    for name in ("acquisition_order.csv", "trace.parquet"):
        assert (killed / name).read_bytes() == (whole / name).read_bytes(), name
    assert sorted(p.name for p in killed.iterdir()) == sorted(p.name for p in whole.iterdir())
