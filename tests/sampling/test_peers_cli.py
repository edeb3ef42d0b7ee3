"""``fairacq sample --method`` runs the peers: Slice Tuner, MinimaxFair, Abernethy's greedy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.sampling import available_samplers

PEERS = ("slice-tuner", "minimax-fair", "abernethy-greedy")


def test_peers_are_registered() -> None:
    assert set(PEERS) <= set(available_samplers())


@pytest.fixture(scope="module")
def table_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame(
        {"x1": rng.normal(size=n), "x2": rng.normal(size=n), "group": rng.choice(["a", "b"], n)}
    )
    frame["label"] = (frame["x1"] * np.where(frame["group"] == "a", 1, -1) > 0).astype(int)
    path = tmp_path_factory.mktemp("peers") / "table.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("method", PEERS)
def test_sample_command_runs_each_peer(method: str, table_csv: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app,
        [
            "sample", "--data", str(table_csv), "--label", "label", "--sensitive", "group",
            "--method", method, "--budget", "40", "--trials", "1", "--workers", "1",
            "--no-baseline", "--out", str(tmp_path / "out"), "--json",
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    counts = json.loads(res.stdout)["counts"]
    assert counts["method"] == method
    assert sum(g[method]["samples_mean"] for g in counts["groups"]) == pytest.approx(40)
