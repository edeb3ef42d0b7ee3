"""SIGTERM or SIGINT stops ``fairacq reproduce --workers 2`` cleanly: no worker survives."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fairacq_experiments._framework.task_cache import _load

psutil = pytest.importorskip("psutil")

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _start(out: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]),
    }
    args = ["reproduce", "filtering-fig1", "--seeds", "20", "--workers", "2", "--out", str(out)]
    return subprocess.Popen(
        [sys.executable, "-m", "fairacq.cli", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_work(proc: subprocess.Popen[str], cache: Path) -> list[psutil.Process]:
    """Wait until the run has two workers and a finished task; return the workers."""
    main = psutil.Process(proc.pid)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        workers = main.children(recursive=True)
        if len(workers) >= 2 and any(cache.glob("*.jsonl")):
            return workers
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"no workers or no finished task before the deadline: {proc.communicate()}")


def _alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    out = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_run_and_its_workers(tmp_path: Path, sig: int, code: int) -> None:
    out = tmp_path / "out"
    proc = _start(out)
    workers = _wait_for_work(proc, out / "task-cache")
    proc.send_signal(sig)
    start = time.monotonic()
    try:
        stdout, stderr = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert time.monotonic() - start < 10
    assert proc.returncode == code
    assert "Traceback" not in stderr
    *progress, last = stderr.strip().splitlines()
    name = signal.Signals(sig).name
    assert last.startswith(f"error: stopped by {name}; finished tasks are kept in ")
    assert all(line.startswith("filtering-fig1 (quick): ") for line in progress), stderr
    assert stdout == ""
    deadline = time.monotonic() + 5
    while _alive(workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(workers) == []
    # every task result written before the stop is whole and is reused by the next run
    entries = sorted((out / "task-cache").glob("*.jsonl"))
    assert entries
    for entry in entries:
        found, _ = _load(entry, entry.stem)
        assert found, entry.name
    assert not (out / "summary.json").exists()
