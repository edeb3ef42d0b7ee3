"""Start-up: the command line imports only what a command uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fairacq

HEAVY = ("torch", "sklearn", "cvxpy", "dask", "distributed", "matplotlib", "pandas", "scipy")
SRC = str(Path(fairacq.__file__).resolve().parents[1])


def _loaded_after(code: str) -> list[str]:
    """Heavy modules in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    listed = f"sorted(m for m in {HEAVY!r} if m in sys.modules)"
    probe = f"{code}\nimport json, sys\nprint(json.dumps({listed}))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cli(*args: str) -> str:
    return (
        "import sys\nfrom fairacq.cli import main\n"
        f"sys.argv = ['fairacq', {', '.join(repr(a) for a in args)}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )


def test_import_cli_is_light():
    assert _loaded_after("import fairacq, fairacq.cli") == []


@pytest.mark.parametrize(
    "args",
    [("--help",), ("relational", "--help"), ("relational", "infer", "--help"), ("--version",)],
)
def test_help_imports_no_heavy_library(args):
    assert _loaded_after(_cli(*args)) == []


def test_packages_load_their_names_on_first_access():
    assert _loaded_after("import fairacq.data, fairacq.relational, fairacq.reporting") == []
    loaded = _loaded_after("from fairacq.relational import Database, parse_rules")
    assert "sklearn" not in loaded
    assert "torch" not in loaded
    assert "matplotlib" not in _loaded_after("from fairacq.reporting import write_summary")


@pytest.mark.parametrize(
    "name", ["fairacq", "fairacq.data", "fairacq.relational", "fairacq.reporting"]
)
def test_lazy_names_are_listed_and_importable(name):
    import importlib

    module = importlib.import_module(name)
    assert set(module.__all__) <= set(dir(module))
    for item in module.__all__:
        assert getattr(module, item) is not None
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        module.nope  # noqa: B018
