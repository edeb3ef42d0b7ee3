"""Progress of ``sample``, ``features train`` and ``relational learn`` on stderr; JSON stays clean.

A run is forced to report by setting the delay, the interval between plain lines and the
redraw tick to (almost) zero: stderr is not a terminal under the test runner, so each
command prints plain lines (``sample (aopt): 2/4 trials, ...``) and a last ``..., done``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.cli.shared import _progress
from fairacq_experiments.cli import _demo

runner = CliRunner()
SRC = str(Path(__file__).resolve().parents[2] / "src")
_LINE = r": \d+(/\d+)? {unit}, \d:\d\d:\d\d elapsed"


@pytest.fixture
def reporting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every run print plain progress lines at once and often."""
    monkeypatch.delenv("FAIRACQ_PROGRESS", raising=False)
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setattr(_progress, "PLAIN_INTERVAL", 0.0)
    monkeypatch.setattr(_progress, "_TICK", 0.01)


def _run(*args: object) -> Any:
    return runner.invoke(app, [str(a) for a in args])


def _progress_lines(res: Any, description: str, unit: str) -> list[str]:
    """Return the progress lines of stderr; check their form and the last one."""
    assert res.exit_code == 0, res.output
    lines = [line for line in res.stderr.splitlines() if line.startswith(f"{description}: ")]
    assert lines, res.stderr
    assert all(re.search(_LINE.format(unit=unit), line) for line in lines), lines
    assert lines[-1].endswith(", done"), lines
    others = [line for line in res.stderr.splitlines() if line not in lines]
    assert all(line.startswith(("warning: ", "note: ")) for line in others), others
    return lines


def test_sample_reports_trials_on_stderr_and_prints_only_json(reporting, tmp_path) -> None:
    res = _run(
        "sample", "--dataset", "german", "--sensitive", "sex", "--budget", "60",
        "--trials", "2", "--workers", "1", "--out", tmp_path / "s", "--json",
    )  # fmt: skip
    lines = _progress_lines(res, "sample (aopt)", "trials")
    assert lines[-1].startswith("sample (aopt): 4/4 trials, ")  # 2 of aopt, 2 of uniform
    assert json.loads(res.stdout)["settings"]["trials"] == 2


def test_features_train_reports_iterations_and_prints_only_json(reporting, tmp_path) -> None:
    res = _run(
        "features", "train", "--dataset", "german", "--max-rows", "300", "--pretrain-iter",
        "20", "--train-iter", "3", "--out", tmp_path / "m", "--json",
    )  # fmt: skip
    lines = _progress_lines(res, "DADI", "iterations")
    assert lines[-1].startswith("DADI: 43/43 iterations, ")  # 2 x 20 pre-training + 3
    assert json.loads(res.stdout)["preset"] == "quick"


def test_features_train_counts_pretraining_as_it_goes(monkeypatch, tmp_path) -> None:
    """The bar moves during pre-training (RunLoop.start_progress), before the first row."""
    seen: list[float] = []
    update = _progress.ProgressBar.update

    def spy(self: Any, completed: float | None = None, **kw: Any) -> None:
        seen.append(float(completed) if completed is not None else float("nan"))
        update(self, completed, **kw)

    monkeypatch.setattr(_progress.ProgressBar, "update", spy)
    res = _run(
        "features", "train", "--dataset", "german", "--max-rows", "300", "--pretrain-iter",
        "5", "--train-iter", "2", "--out", tmp_path / "m",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert seen[:10] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    assert seen[-1] == 12.0


def test_dadi_fit_with_progress_equals_a_fit_without() -> None:
    from fairacq._callbacks import ProgressCallback
    from fairacq.data import load_dataset
    from fairacq.features import DADI

    ds = load_dataset("german", sensitive="sex").subset(range(300))
    params = {"n_pretrain_iter": 6, "n_train_iter": 3, "n_parallel": 4, "random_state": 1}
    seen: list[float] = []
    watched = DADI(**params).fit(ds, callbacks=[ProgressCallback(seen.append, column="cost")])
    plain = DADI(**params).fit(ds)
    assert watched.trace_ == plain.trace_
    for a, b in zip(watched.agent_.parameters(), plain.agent_.parameters(), strict=True):
        assert a.detach().equal(b.detach())
    assert seen == [*map(float, range(1, 13)), 12.0, 13.0, 14.0, 15.0]


def test_relational_learn_reports_episodes_and_prints_only_json(reporting, tmp_path) -> None:
    res = _run(
        "relational", "learn", "--dataset", "compas", "--episodes", "2",
        "--out", tmp_path / "l", "--json",
    )  # fmt: skip
    _progress_lines(res, "Fair-A3SL", "episodes")
    assert json.loads(res.stdout)["dataset"] == "compas"


def test_demo_json_prints_the_audit_and_the_comparison_only(monkeypatch, tmp_path) -> None:
    class Result:
        experiment, preset = "demo-datasift", "quick"
        config: ClassVar[dict[str, Any]] = {"n_trials": 2}
        rows: ClassVar[list[dict[str, Any]]] = [
            {"method": "datasift-inf", "stage": "final", "metric": "dp", "value": 0.1, "std": 0.0}
        ]

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(_demo, "run_named", lambda name, **kw: calls.append(kw) or Result())
    res = _run("demo", "--out", tmp_path / "demo", "--seed", "3", "--json")
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["audit"]["dataset"] == "adult"
    assert payload["rows"] == Result.rows
    assert payload["summary"] == str(tmp_path / "demo" / "summary.md")
    assert calls[0]["overrides"] == {"seed": 3}
    text = _run("demo", "--out", tmp_path / "demo2")
    assert "datasift-inf" in text.stdout
    assert "Female" in text.stdout


def _sample_process(out: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]),
    }
    args = ["sample", "--trials", "20", "--workers", "2", "--budget", "2000", "--out", str(out)]
    return subprocess.Popen(
        [sys.executable, "-m", "fairacq.cli", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_sigterm_stops_sample_and_its_workers(tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")
    proc = _sample_process(tmp_path / "out")
    main = psutil.Process(proc.pid)
    deadline = time.monotonic() + 120
    workers: list[Any] = []
    while time.monotonic() < deadline and proc.poll() is None and len(workers) < 2:
        workers = main.children(recursive=True)
        time.sleep(0.05)
    if len(workers) < 2:
        proc.kill()
        pytest.fail(f"no two workers before the deadline: {proc.communicate()}")
    time.sleep(1.0)  # the workers are drawing samples
    proc.send_signal(signal.SIGTERM)
    try:
        stdout, stderr = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == "error: stopped by SIGTERM"
    assert stdout == ""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.05)
    assert not [p for p in workers if _alive(p)]
    assert not (tmp_path / "out" / "summary.json").exists()


def _alive(proc: Any) -> bool:
    import psutil

    try:
        return bool(proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False
