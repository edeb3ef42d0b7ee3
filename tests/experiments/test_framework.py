from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from fairacq.exceptions import InvalidParameterError, UnknownNameError
from fairacq_experiments import (
    DaskExecutor,
    ExperimentConfig,
    LocalExecutor,
    SerialExecutor,
    get_experiment,
    list_experiments,
    run_trials,
)


@dataclass(frozen=True)
class _Cfg(ExperimentConfig):
    QUICK: ClassVar[dict[str, Any]] = {"budget": 10}
    FULL: ClassVar[dict[str, Any]] = {"budget": 1000, "n_trials": 5}
    budget: int = 1


def _draw(config: Any, seed: np.random.SeedSequence) -> float:
    return float(np.random.default_rng(seed).random())


def test_presets_and_overrides():
    assert _Cfg.quick().budget == 10
    assert _Cfg.quick().preset == "quick"
    full = _Cfg.full(seed=3)
    assert (full.budget, full.n_trials, full.seed, full.preset) == (1000, 5, 3, "full")
    assert _Cfg.preset_named("quick", budget=2).budget == 2
    with pytest.raises(InvalidParameterError, match="no field 'budgt'"):
        _Cfg.quick(budgt=3)
    with pytest.raises(InvalidParameterError, match="n_trials"):
        _Cfg(n_trials=0)
    with pytest.raises(InvalidParameterError, match="Unknown preset"):
        _Cfg.preset_named("medium")


@dataclass(frozen=True)
class _GridCfg(ExperimentConfig):
    grid: tuple[tuple[int, ...], ...] = ((1, 2),)


def test_config_round_trips_through_json():
    config = _GridCfg.full(grid=((3,), (4, 5)), seed=2)
    written = json.loads(json.dumps(config.to_dict()))
    assert _GridCfg.from_dict(written) == config
    with pytest.raises(InvalidParameterError, match=r"no field 'budget'.*another experiment"):
        _GridCfg.from_dict({**written, "budget": 3})


def test_trials_identical_across_executors():
    serial = run_trials(_draw, None, n_trials=3, seed=5, executor=SerialExecutor())
    local = run_trials(_draw, None, n_trials=3, seed=5, executor=LocalExecutor(2))
    assert serial == local
    assert len(set(serial)) == 3
    assert run_trials(_draw, None, n_trials=1, seed=5)[0] == serial[0]


@pytest.mark.slow
def test_dask_local_cluster_matches_serial(monkeypatch):
    pytest.importorskip("distributed")
    # dask workers are fresh processes: let them import this test module by its name
    root = str(Path(__file__).resolve().parents[2])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    serial = run_trials(_draw, None, n_trials=3, seed=9)
    dask = run_trials(_draw, None, n_trials=3, seed=9, executor=DaskExecutor(n_workers=1))
    assert dask == serial


def test_registry():
    names = [s.name for s in list_experiments()]
    assert "demo-datasift" in names
    with pytest.raises(UnknownNameError, match="Did you mean 'demo-datasift'"):
        get_experiment("demo-datasfit")


def test_a_rerun_with_fewer_trials_leaves_no_old_trace_behind(tmp_path: Path) -> None:
    from fairacq import TraceRecorder
    from fairacq_experiments import ExperimentResult

    def result(n_trials: int) -> ExperimentResult:
        traces = []
        for seed in range(n_trials):
            rec = TraceRecorder(method="m", config={}, random_state=seed)
            rec.record(cost=1.0, accuracy=0.5)
            traces.append(rec.finish())
        return ExperimentResult(experiment="x", preset="quick", traces={"m": traces})

    result(3).write(tmp_path)
    (tmp_path / "traces" / "notes.txt").write_text("mine")  # not a trace: kept
    result(1).write(tmp_path)
    assert sorted(p.name for p in (tmp_path / "traces").iterdir()) == [
        "m-trial0.json",
        "m-trial0.parquet",
        "notes.txt",
    ]


def test_methods_differing_after_a_dot_keep_their_own_traces(tmp_path: Path) -> None:
    """'falcon lam=0.8' and 'falcon lam=0.5' once both wrote falcon-lam-0-trial0."""
    from fairacq import TraceRecorder
    from fairacq_experiments import ExperimentResult

    traces = {}
    for method in ("falcon lam=0.8", "falcon lam=0.5"):
        rec = TraceRecorder(method=method, config={}, random_state=0)
        rec.record(cost=1.0, accuracy=0.5)
        traces[method] = [rec.finish()]
    ExperimentResult(experiment="x", preset="quick", traces=traces).write(tmp_path)
    assert sorted(p.name for p in (tmp_path / "traces").glob("*.parquet")) == [
        "falcon-lam-0-5-trial0.parquet",
        "falcon-lam-0-8-trial0.parquet",
    ]


def test_catalogue_serves_exactly_the_package_names() -> None:
    # The package's __init__ lists its names as literals: it serves them lazily and must not
    # import _catalogue (which imports every paper package) to read them. _catalogue imports
    # each name, and ruff counts an import as a re-export only when a literal __all__ names
    # it, so it keeps its own list; this test keeps the two equal.
    import fairacq_experiments
    from fairacq_experiments import _catalogue

    assert _catalogue.__all__ == fairacq_experiments.__all__
    for name in fairacq_experiments.__all__:
        assert getattr(fairacq_experiments, name) is getattr(_catalogue, name)


def test_verdict_facts_are_kept_in_summary_json_and_old_summaries_lack_them(
    tmp_path: Path,
) -> None:
    from fairacq_experiments import ExperimentResult, Verdict

    with_facts = Verdict.check("gap", 0.02, "<=", 0.01, facts={"best": "aopt", "n": 3})
    plain = Verdict.check("other gap", 0.0, "<=", 0.01)
    result = ExperimentResult("demo", "quick", verdicts=[with_facts, plain], meta={"k": 1})
    result.write(tmp_path)
    first, second = json.loads((tmp_path / "summary.json").read_text())["verdicts"]
    assert first["facts"] == {"best": "aopt", "n": 3}
    assert (first["met"], first["ours"]) == (False, 0.02)  # 0.02 > 0.01
    assert "facts" not in second  # a verdict without facts is written as before
    assert plain.facts == {}
    assert hash(with_facts) == hash(Verdict.check("gap", 0.02, "<=", 0.01))  # facts unhashed
