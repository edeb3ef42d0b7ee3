"""The peers experiments: configs, the split, matched points, and the quick presets end to end."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fairacq._random import spawn_seeds
from fairacq._trace import Trace
from fairacq.data import load_dataset
from fairacq.exceptions import InvalidParameterError
from fairacq.experiments import get_experiment, run_experiment
from fairacq.experiments.peers import GroupsConfig, RowsConfig
from fairacq.experiments.peers._tasks import method_spec, split_cells
from fairacq.experiments.peers.rows import at_most


def test_presets_are_registered_and_differ() -> None:
    assert get_experiment("peers-rows").config_cls is RowsConfig
    assert get_experiment("peers-groups").config_cls is GroupsConfig
    full, quick = RowsConfig.full(), RowsConfig.quick()
    assert full.n_trials == 5
    assert full.budget_of("compas") == (200, 1)
    assert full.budget_of("adult") == (2000, 100)
    assert full.max_rows is None
    assert quick.max_rows is not None
    assert max(quick.budgets) < max(full.budgets)
    assert GroupsConfig.full().budgets == (500, 1000, 2000)
    assert GroupsConfig.full().n_trials == 5
    assert max(GroupsConfig.quick().budgets) < 500


@pytest.mark.parametrize(
    "overrides",
    [
        {"budgets": (200,)},
        {"batch_sizes": (0, 1, 1)},
        {"methods": ("falcon lam=2",)},
        {"methods": ("nope",)},
        {"methods": ("post-thresholds tol=-1",)},
        {"methods": ("post-thresholds tol=x",)},
    ],
)
def test_rows_config_rejects_bad_values(overrides: dict) -> None:
    with pytest.raises(InvalidParameterError):
        RowsConfig.full(**overrides)


def test_groups_config_rejects_bad_values() -> None:
    with pytest.raises(InvalidParameterError):
        GroupsConfig.quick(budgets=())
    with pytest.raises(InvalidParameterError):
        GroupsConfig.quick(methods=())


def test_method_labels_map_to_acquirers() -> None:
    config = RowsConfig.quick()
    assert method_spec(config, "falcon lam=0.5") == ("falcon", {"lam": 0.5})
    assert method_spec(config, "fal") == ("fal", {"n_candidates": 4, "alpha": 0.6})
    assert method_spec(config, "datasift-inf") == ("datasift-inf", {"tau": 0.0})
    assert method_spec(config, "random") == ("random", {})
    assert method_spec(config, "post-thresholds tol=0.05") == ("post-thresholds", {"tol": 0.05})


def test_split_cells_keeps_ratios_per_cell_and_repeats() -> None:
    data = load_dataset("compas")
    seed = spawn_seeds(0, 1)[0]
    parts = split_cells(data, seed)
    again = split_cells(data, seed)
    assert sum(len(p) for p in parts) == len(data)
    np.testing.assert_allclose(
        [len(p) / len(data) for p in parts], [1 / 14, 1 / 14, 8 / 14, 4 / 14], atol=0.01
    )
    np.testing.assert_array_equal(parts[2].to_numpy(), again[2].to_numpy())
    assert len(split_cells(data, seed, max_rows=700)[3]) == pytest.approx(200, abs=3)


def test_at_most_reads_the_last_step_within_the_limit() -> None:
    steps = pd.DataFrame(
        {
            "step": [0, 1, 2],
            "cost": [0, 1, 2],
            "labels_seen": [0, 5, 9],
            "rows_paid": [0, 1, 2],
            "test_accuracy": [0.5, 0.6, 0.7],
            "test_demographic_parity_diff_abs": [0.3, -0.2, 0.1],
        }
    )
    trace = Trace(steps, {})
    assert at_most(trace, "labels_seen", 6) == {"acc": 0.6, "dp": 0.2, "labels_seen": 5.0}
    assert at_most(trace, "rows_paid", 10)["acc"] == 0.7


def test_peers_rows_quick_runs_end_to_end(tmp_path) -> None:
    res = run_experiment(
        "peers-rows",
        preset="quick",
        out_dir=tmp_path,
        datasets=("compas",),
        budgets=(20,),
        batch_sizes=(2,),
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["verdicts"]
    assert {"falcon lam=1", "threshold-optimizer", "datasift-inf"} <= {
        r["method"] for r in res.rows
    }
    paid = res.value(dataset="compas", method="falcon lam=1", metric="rows_paid")
    assert paid == 20
    assert res.value(dataset="compas", method="datasift-inf", metric="labels_seen") >= res.value(
        dataset="compas", method="datasift-inf", metric="rows_paid"
    )
    assert (tmp_path / "peers-rows.png").exists()
    assert any("post-thresholds front" in v["name"] for v in summary["verdicts"])
    assert res.value(dataset="compas", method="post-thresholds tol=0", metric="labels_seen") == 20


def test_peers_rows_skips_absent_acs_with_a_note(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("FAIRACQ_DATA", str(tmp_path / "empty"))
    res = run_experiment(
        "peers-rows",
        preset="quick",
        datasets=("acs-income",),
        budgets=(10,),
        batch_sizes=(5,),
    )
    assert not res.rows
    assert any("acs-income: skipped" in n for n in res.notes)


def test_peers_groups_quick_runs_end_to_end(tmp_path) -> None:
    res = run_experiment(
        "peers-groups", preset="quick", out_dir=tmp_path, budgets=(120,), n_trials=1
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["verdicts"]
    methods = {r["method"] for r in res.rows}
    assert methods == set(GroupsConfig().methods)
    worst = res.value(method="aopt", budget=120, metric="final_test_worst_acc")
    assert 0.0 < worst <= 1.0
    assert (tmp_path / "peers-groups.png").exists()
