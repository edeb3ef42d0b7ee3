"""The README's "your own data" block runs as written in a fresh folder and writes its outputs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _block() -> str:
    text = README.read_text()
    match = re.search(
        r"<!-- own-data:start -->\n```bash\n(.*?)```\n<!-- own-data:end -->", text, re.S
    )
    assert match, "README lost its own-data block"
    return match.group(1)


@pytest.mark.slow
def test_readme_own_data_block_runs(tmp_path):
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"], "OMP_NUM_THREADS": "1"}
    res = subprocess.run(
        ["bash", "-e", "-c", _block()], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    assert "Traceback" not in res.stderr
    assert "warning: groups with fewer than 30 test rows: north" in res.stderr
    bought = pd.read_parquet(tmp_path / "runs/rows/acquired.parquet")
    assert len(bought) > 0
    assert bought["fee"].sum() <= 1000
    assert set(pd.read_csv(tmp_path / "runs/groups/counts.csv")["group"]) == {
        "east",
        "north",
        "west",
    }
    assert "admission_probability" in pd.read_csv(tmp_path / "admitted.csv").columns
    report = (tmp_path / "runs/compare/report.html").read_text()
    assert "Recommended" in report or "No strategy reached" in report
    asked = pd.read_csv(tmp_path / "asked.csv")
    assert {"applicant", "revealed", "prediction"} <= set(asked.columns)
    assert len(asked) == 500
