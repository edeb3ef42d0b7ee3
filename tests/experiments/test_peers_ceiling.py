"""``peers-rows-ceiling``: the bounding fronts of a threshold strategy beside Falcon's."""

from __future__ import annotations

import json

import pytest

from fairacq._random import spawn_seeds
from fairacq.exceptions import InvalidParameterError
from fairacq.models import evaluate, evaluate_thresholds, fit_thresholds, make_learner
from fairacq_experiments import get_experiment, run_experiment
from fairacq_experiments.peers import CeilingConfig
from fairacq_experiments.peers._tasks import RowTask, load_rows_dataset, split_cells
from fairacq_experiments.peers.ceiling import BOUNDS, bound_task


def test_registered_with_falcons_protocol() -> None:
    assert get_experiment("peers-rows-ceiling").config_cls is CeilingConfig
    full = CeilingConfig.full()
    assert full.rows_config().budget_of("compas") == (200, 1)
    assert full.rows_config().methods == (
        "falcon lam=1",
        "falcon lam=0.8",
        "falcon lam=0.5",
        "falcon lam=0",
    )
    assert full.rows_config().mitigation is True  # collect nothing, set beside the floor


@pytest.mark.parametrize(
    "overrides",
    [{"tols": ()}, {"tols": (-0.1,)}, {"lams": (1.5,)}, {"budgets": (10,)}],
)
def test_bad_settings_are_refused(overrides: dict) -> None:
    with pytest.raises(InvalidParameterError):
        CeilingConfig.quick(**overrides)


def test_every_pool_label_trains_on_the_initial_rows_and_the_whole_pool() -> None:
    """The bound equals thresholds fitted by hand on the model of train + pool (tol 0).

    Its last point is that model without thresholds.
    """
    config = CeilingConfig.quick(datasets=("compas",), budgets=(10,), batch_sizes=(5,))
    seeds = spawn_seeds(config.seed, 1)
    train, val, pool, test = split_cells(
        load_rows_dataset("compas", True), seeds[0], config.max_rows
    )
    both = train.concat(pool)
    model = make_learner("lr").fit(both.to_numpy(), both.y)
    post = fit_thresholds(model, val, tol=0.0, unlabelled=pool)
    want = evaluate_thresholds(post, test, ["accuracy", "demographic_parity_diff_abs"])
    got = {b: bound_task(config, seeds, RowTask("compas", b, 0)) for b in BOUNDS}
    assert got["every pool label"][0] == {
        "acc": want["accuracy"],
        "dp": abs(want["demographic_parity_diff_abs"]),
        "tol": 0.0,
    }
    assert [r["tol"] for r in got["nothing bought"]] == [*config.tols, -1.0]
    assert got["nothing bought"][0]["acc"] != got["every pool label"][0]["acc"]
    plain = evaluate(model, test, ["accuracy"])["accuracy"]  # the front's no-threshold end
    assert got["every pool label"][-1]["acc"] == plain


def test_quick_run_sets_both_bounds_against_falcon(tmp_path) -> None:
    res = run_experiment(
        "peers-rows-ceiling",
        preset="quick",
        out_dir=tmp_path,
        datasets=("compas",),
        budgets=(10,),
        batch_sizes=(5,),
        n_trials=1,
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    front_checks = [v for v in summary["verdicts"] if "front" in v["facts"]]
    assert {v["facts"]["front"] for v in front_checks} == set(BOUNDS)
    assert {v["facts"]["against"] for v in front_checks} == {"falcon"}
    (floor,) = [v for v in summary["verdicts"] if "floor" in v["facts"]]
    assert 0 < floor["facts"]["floor"] < floor["facts"]["bound"]
    assert {r["method"] for r in res.rows} >= {"falcon lam=1", "every pool label tol=0"}
    assert (tmp_path / "peers-rows-ceiling.png").exists()
    assert len(res.traces["compas falcon lam=1"]) == 1
