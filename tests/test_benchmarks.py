"""Every benchmark script runs in its quick mode (a smoke test: its numbers are not checked).

Scripts are found by glob, so a new one is covered as soon as it lands. Each runs in a
fresh interpreter of its own (forking a test process that already holds threads can
deadlock), with ``--quick`` and its JSON going to a temporary folder. These tests carry the
``bench`` marker: ``make test`` leaves them out (they cost minutes of CPU, not a unit test's
second) and ``make bench-quick`` runs them; CI runs both. A script whose quick run reads
data fairacq cannot bundle says so in a module-level ``NEEDS_DATA = ("folder", ...)``; it is
skipped when that data is absent (the ``needs_data`` marker of tests/conftest.py).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
#: Seconds a quick run may take on a loaded machine before it counts as hung.
TIMEOUT = 300


def needs_data(script: Path) -> tuple[str, ...]:
    """The ``NEEDS_DATA`` tuple a script declares at module level (empty if none)."""
    for node in ast.parse(script.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "NEEDS_DATA" for t in node.targets
        ):
            return tuple(ast.literal_eval(node.value))
    return ()


def _params(*, with_data: bool) -> list[object]:
    """The scripts that need shared data (each marked with it), or those that do not."""
    out = []
    for script in sorted(BENCHMARKS.glob("*.py")):
        if script.stem.startswith("_") or script.stem == "run_all":
            continue
        data = needs_data(script)
        if bool(data) == with_data:
            marks = [pytest.mark.needs_data(*data)] if data else []
            out.append(pytest.param(script, id=script.stem, marks=marks))
    return out


pytestmark = pytest.mark.bench


@pytest.mark.parametrize("script", _params(with_data=False))
def test_quick_mode_runs(script: Path, tmp_path: Path) -> None:
    _check_quick_run(script, tmp_path)


# apart from the others: pytest shares one fixture list among a function's parameters, and
# the data fixture that skips these joins it
@pytest.mark.parametrize("script", _params(with_data=True))
def test_quick_mode_runs_with_data(script: Path, tmp_path: Path) -> None:
    _check_quick_run(script, tmp_path)


def _check_quick_run(script: Path, tmp_path: Path) -> None:
    env = {
        **os.environ, "FAIRACQ_BENCH_OUT": str(tmp_path),
        "FAIRACQ_BENCH_CACHE": str(tmp_path / "pools"), "OMP_NUM_THREADS": "1",
    }  # fmt: skip
    try:
        res = subprocess.run(
            [sys.executable, script.name, "--quick"], cwd=BENCHMARKS, env=env,
            capture_output=True, text=True, timeout=TIMEOUT,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{script.name} --quick still running after {TIMEOUT} s")
    assert res.returncode == 0, f"{script.name} --quick failed:\n{res.stderr[-3000:]}"
    written = sorted(p.name for p in tmp_path.glob("*.json"))
    assert written, f"{script.name} --quick wrote no JSON into its output folder"


def test_needs_data_reads_the_declaration(tmp_path: Path) -> None:
    script = tmp_path / "bench.py"
    script.write_text('"""Doc."""\nNEEDS_DATA = ("compas", "acs")\nX = 1\n')
    assert needs_data(script) == ("compas", "acs")
    script.write_text("X = 1\n")
    assert needs_data(script) == ()
