"""Every result of the relational family is a Result: a table, a saved folder, a notebook view."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq import Trace
from fairacq._result import Result
from fairacq.exceptions import InvalidParameterError
from fairacq.relational import (
    LearnResult,
    PipelineResult,
    PslResult,
    admm_map,
    learn_rules,
    learn_weights,
    refine_clause_list,
    run_pipeline,
)
from fairacq.relational.a3sl._clause_env import Clause, ClauseLiteral, ClauseSpace
from tests.relational.psl_available import needs_psl
from tests.relational.test_a3sl import tiny_recidivism
from tests.relational.test_clause_search import COMPAS, planted_reward
from tests.relational.test_pipeline import RULES, _toy
from tests.relational.test_weight_learning import _up_down_model

TRAIN = _toy([1, 1, 0, 1, 0, 0], [1, 1, 0, 1, 0, 0], 3)
TEST = _toy([1, 0, 0, 1, 1, 0], [1, 0, 0, 1, 1, 0], 3)


def _same(a: Any, b: Any, where: str) -> None:
    """Assert ``b`` (loaded) equals ``a`` (saved), walking results and containers."""
    if isinstance(a, np.ndarray):
        assert b.dtype == a.dtype, where
        np.testing.assert_array_equal(b, a, err_msg=where)
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(b, a, obj=where)
    elif isinstance(a, Trace):
        assert b == a, where
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        _same_fields(a, b, where)
    elif isinstance(a, Mapping):
        assert set(b) == set(a), where
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (tuple, list)):
        assert type(b) is type(a), where
        assert len(b) == len(a), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert b == a, where
        assert type(b) is type(a), where


def _same_fields(a: Any, b: Any, where: str) -> None:
    assert type(b) is type(a), where
    skipped = getattr(type(a), "_not_saved", ())
    for field in dataclasses.fields(a):
        got = getattr(b, field.name)
        if field.name in skipped:
            assert got is None, f"{where}.{field.name} is not saved, so loads as None"
        else:
            _same(getattr(a, field.name), got, f"{where}.{field.name}")


def _round_trip(result: Result, tmp_path: Path) -> Any:
    back = type(result).load(result.save(tmp_path / "saved"))
    _same_fields(result, back, type(result).__name__)
    pd.testing.assert_frame_equal(back.to_frame(), result.to_frame())
    view = back._repr_html_()
    assert f"<b>{type(result).__name__}</b>" in view
    assert "<table" in view
    return back


@pytest.fixture(scope="module")
def pipeline() -> PipelineResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # metric notes on six atoms; not what is tested here
        return run_pipeline(
            RULES,
            TRAIN,
            TEST,
            fairness="rd<=0.2",
            weight_learning={"n_iter": 3},
            random_state=0,
        )


@pytest.fixture(scope="module")
def learned() -> LearnResult:
    quick = {
        "max_literals": 2,
        "max_clauses": 2,
        "exclude": ("race",),
        "domains": {"user": "user"},
        "weight_learning": {"n_iter": 2},
        "agent_options": {"n_envs": 2, "t_max": 2},
    }
    data = tiny_recidivism(n=16, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a 2-episode agent still explores: warned, kept
        return learn_rules(data, data, n_episodes=2, options=quick, refine_evaluations=3)


def test_map_result_round_trips_and_lists_variables_without_a_model(tmp_path: Path) -> None:
    model = _up_down_model()
    result = admm_map(model.with_rule_weights([2.0, 1.0]))
    back = _round_trip(result, tmp_path)
    assert back.to_frame().columns.tolist() == ["variable", "value"]
    pd.testing.assert_frame_equal(back.to_frame(model), result.to_frame(model))
    assert back.to_frame(model)["arg0"].tolist() == ["0", "1", "2", "3"]
    assert "converged after" in back._caption()
    with pytest.raises(InvalidParameterError, match="predicate needs the model"):
        back.to_frame(predicate="p")


def test_weight_learning_result_has_one_row_per_named_rule(tmp_path: Path) -> None:
    model = _up_down_model()
    result = learn_weights(model, [1.0, 0.9, 0.8, 0.6], n_iter=3, random_state=0)
    back = _round_trip(result, tmp_path)
    assert back.model is None
    frame = back.to_frame()
    assert frame["rule"].tolist() == ["up", "down"]
    np.testing.assert_array_equal(frame["weight"], result.weights)
    np.testing.assert_array_equal(frame["last_gradient"], result.gradient_history[-1])
    assert "2 rule weights learned in 3 steps" in back._caption()


def test_pipeline_result_keeps_everything_but_the_grounded_model(
    pipeline: PipelineResult, tmp_path: Path
) -> None:
    assert pipeline.learning is not None
    back = _round_trip(pipeline, tmp_path)
    assert back.model is None
    assert back.learning.model is None
    assert back.fairness == pipeline.fairness  # FairnessSpec comes back as itself
    rules = back.learning.to_frame()["rule"].tolist()
    assert rules == ["risky(U) -> recid(U) ^2", "!recid(U) ^2"]  # weights in their column
    pd.testing.assert_frame_equal(back.to_frame(), pipeline.predictions)
    fresh, loaded = pipeline.summary(), back.summary()
    assert loaded["n_potentials"] is None
    assert fresh["n_potentials"] == pipeline.model.potentials.n_potentials
    assert {k: v for k, v in loaded.items() if k != "n_potentials"} == {
        k: v for k, v in fresh.items() if k != "n_potentials"
    }


def test_learn_result_table_is_the_rules_and_its_summary_survives(
    learned: LearnResult, tmp_path: Path
) -> None:
    assert learned.learner is not None
    assert learned.rules == tuple(learned.learner.best_rules_)
    back = _round_trip(learned, tmp_path)
    assert back.learner is None
    frame = back.to_frame()
    split = [r.split(":", 1) for r in learned.learner.best_rules_]  # all weighted here
    assert frame["rule"].tolist() == [body.strip() for _, body in split]
    assert frame["weight"].tolist() == [float(weight) for weight, _ in split]
    assert back.summary() == learned.summary()
    assert f"{len(learned.rules)} rules, reward" in back._caption()


def test_refine_result_round_trips_its_clauses(tmp_path: Path) -> None:
    space = ClauseSpace(COMPAS, domains={"user": "user"}, max_literals=2, max_clauses=3)
    start = [Clause(ClauseLiteral("recidivism"), (ClauseLiteral("felony"),))]
    result = refine_clause_list(start, space, planted_reward, random_state=0)
    assert len(result.history) > 0
    back = _round_trip(result, tmp_path)
    assert back.clauses == result.clauses
    assert all(isinstance(c, Clause) for c in back.clauses)
    assert back.to_frame()["move"].tolist() == result.history["move"].tolist()
    assert "stopped at a local optimum" in back._caption()


def _psl_result(values: pd.DataFrame) -> PslResult:
    return PslResult(
        values=values,
        objective=None,
        seconds=0.25,
        jvm_seconds=0.0,
        phase_seconds=MappingProxyType({"load": 0.01, "infer": 0.02}),
        n_iterations=None,
        violated_constraints=0,
        log="Inference complete.",
    )


def test_psl_result_round_trips_without_psl(tmp_path: Path) -> None:
    values = pd.DataFrame({"predicate": ["p", "q"], "value": [0.5, 1.0]})
    for name, args in (("arg0", ["a", "b"]), ("arg1", ["c", None])):  # objects, as PSL's are
        values[name] = pd.Series(args, dtype=object)
    result = _psl_result(values)
    back = _round_trip(result, tmp_path)
    assert back.to_frame()["arg1"].tolist() == ["c", None]
    assert back._caption() == "2 atoms, objective not logged, 0 hard constraints violated"


@needs_psl
def test_a_real_psl_result_round_trips(tmp_path: Path) -> None:
    from fairacq.relational import run_psl

    obs = {"Friends": pd.DataFrame({"a": ["a"], "b": ["b"], "value": [1.0]})}
    obs["Smokes"] = pd.DataFrame({"a": ["a"], "value": [1.0]})
    rules = ["3.0: Friends(A, B) & Smokes(A) -> Smokes(B) ^2", "1.0: !Smokes(A) ^2"]
    result = run_psl(rules, obs, {"Smokes": pd.DataFrame({"a": ["b"]})})
    back = _round_trip(result, tmp_path)
    assert back.to_frame()["value"].iloc[0] == pytest.approx(0.75, abs=1e-4)
