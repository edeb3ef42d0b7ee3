"""The pslpython bridge: PSL's answers on models with a closed-form MAP state, and its errors."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError, InvalidParameterError, MissingDependencyError
from fairacq.relational.bridge import _pslpython as bridge
from fairacq.relational.bridge._pslpython import PSL_TIGHT_OPTIONS, run_psl
from fairacq.relational.hlmrf._ground_model import GroundModel, HingePotentials, LinearConstraints
from tests.relational.psl_available import needs_psl

# Smokers: y_b, y_c free; 3 (1 - y_b)^2 + 3 max(y_b - y_c, 0)^2 + y_b^2 + y_c^2.
SMOKERS = [
    "3.0: Friends(A, B) & Smokes(A) -> Smokes(B) ^2",
    "1.0: !Smokes(A) ^2",
]
CAP = "Smokes(+A) <= 0.9 . {A: Group(A)}"


def _smokers_data() -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:
    obs = {
        "Friends": pd.DataFrame({"a": ["a", "b"], "b": ["b", "c"], "value": [1.0, 1.0]}),
        "Group": pd.DataFrame({"a": ["b", "c"]}),
        "Smokes": pd.DataFrame({"a": ["a"], "value": [1.0]}),
    }
    return obs, {"Smokes": pd.DataFrame({"a": ["b", "c"]})}


def _smokers_objective(yb: float, yc: float) -> float:
    return 3 * (1 - yb) ** 2 + 3 * max(yb - yc, 0) ** 2 + yb**2 + yc**2


def _values(result: bridge.PslResult) -> dict[str, float]:
    return dict(zip(result.values["arg0"], result.values["value"], strict=True))


@needs_psl
def test_unconstrained_map_state_matches_closed_form() -> None:
    obs, targets = _smokers_data()
    result = run_psl(SMOKERS, obs, targets)
    yb, yc = 6 / 9.5, 0.75 * 6 / 9.5  # stationarity of the objective
    got = _values(result)
    assert got["b"] == pytest.approx(yb, abs=1e-5)
    assert got["c"] == pytest.approx(yc, abs=1e-5)
    assert result.objective == pytest.approx(_smokers_objective(yb, yc), rel=1e-5)
    assert list(result.values.columns) == ["predicate", "arg0", "value"]
    assert set(result.values["predicate"]) == {"Smokes"}  # names come back as given
    assert result.violated_constraints == 0
    assert result.n_iterations is not None
    assert result.n_iterations > 0
    assert set(result.phase_seconds) >= {"ground", "infer"}
    assert result.seconds > 0


@needs_psl
def test_filtered_arithmetic_rule_binds_and_matches_kkt() -> None:
    obs, targets = _smokers_data()
    result = run_psl([*SMOKERS, CAP], obs, targets)
    got = _values(result)
    # On y_b + y_c = 0.9 the KKT conditions give 20 y_b - 14 y_c = 6.
    yb = 18.6 / 34
    assert got["b"] == pytest.approx(yb, abs=1e-5)
    assert got["c"] == pytest.approx(0.9 - yb, abs=1e-5)
    assert got["b"] + got["c"] <= 0.9 + 1e-5
    assert result.objective == pytest.approx(_smokers_objective(yb, 0.9 - yb), rel=1e-5)


@needs_psl
def test_objective_is_on_the_raw_weight_scale_even_when_psl_normalises() -> None:
    obs, targets = _smokers_data()
    raw = run_psl(SMOKERS, obs, targets)
    normalised = run_psl(SMOKERS, obs, targets, options={"inference.normalize": True})
    assert normalised.objective == pytest.approx(raw.objective, rel=1e-4)


@needs_psl
def test_rules_as_one_text_with_comments_and_objects_with_to_psl() -> None:
    obs, targets = _smokers_data()
    rule_obj = types.SimpleNamespace(to_psl=lambda: SMOKERS[1])
    text = f"# smokers\n{SMOKERS[0]}\n\n// prior\n{SMOKERS[1]}\n"
    from_text = run_psl(text, obs, targets)
    from_objects = run_psl([SMOKERS[0], rule_obj], obs, targets)
    assert _values(from_text) == pytest.approx(_values(from_objects), abs=1e-6)


@needs_psl
@settings(max_examples=12, deadline=None)
@given(
    obs=st.floats(0.0, 1.0),
    w_pull=st.floats(0.1, 10.0),
    w_prior=st.floats(0.1, 10.0),
)
@example(obs=5.3e-05, w_pull=1.0, w_prior=1.0)  # PSL stops at 0.0, 2.7e-05 from the optimum
def test_one_variable_map_is_weighted_mean(obs: float, w_pull: float, w_prior: float) -> None:
    # w_pull max(o - y, 0)^2 + w_prior y^2 is minimised at y = w_pull o / (w_pull + w_prior).
    # PSL's ADMM stops once its residuals are below sqrt(p) 1e-5 (+ 1e-3 relative terms) in
    # float32, so its answer may sit a few 1e-5 from the optimum: tolerance 5e-5.
    rules = [f"{w_pull!r}: Obs(A) -> Target(A) ^2", f"{w_prior!r}: !Target(A) ^2"]
    result = run_psl(
        rules,
        {"Obs": pd.DataFrame({"a": ["x"], "value": [obs]})},
        {"Target": pd.DataFrame({"a": ["x"]})},
    )
    expected = w_pull * obs / (w_pull + w_prior)
    assert float(result.values["value"].iloc[0]) == pytest.approx(expected, abs=5e-5)
    optimum = w_pull * (obs - expected) ** 2 + w_prior * expected**2
    assert result.objective == pytest.approx(optimum, rel=1e-4, abs=1e-6)


@needs_psl
def test_to_vector_follows_the_model_variable_order() -> None:
    obs, targets = _smokers_data()
    result = run_psl(SMOKERS, obs, targets)
    variables = pd.DataFrame({"predicate": ["Smokes", "Smokes"], "args": [("c",), ("b",)]})
    model = GroundModel(
        variables, HingePotentials.empty(2), LinearConstraints.empty(2), np.zeros(0), ()
    )
    got = _values(result)
    np.testing.assert_allclose(result.to_vector(model), [got["c"], got["b"]])
    other = GroundModel(
        pd.DataFrame({"predicate": ["Smokes"], "args": [("z",)]}),
        HingePotentials.empty(1),
        LinearConstraints.empty(1),
        np.zeros(0),
        (),
    )
    with pytest.raises(InvalidDataError, match="no PSL value"):
        result.to_vector(other)


@needs_psl
@pytest.mark.parametrize(
    ("rules", "fragment"),
    [
        (["3.0: Unknown(A) -> Smokes(A) ^2"], "Undefined predicate"),
        (["3.0: Friends(A, B) -> Smokes(B) ^2 garbage"], "Failed to parse"),
    ],
)
def test_psl_errors_become_invalid_parameter(rules: list[str], fragment: str) -> None:
    obs, targets = _smokers_data()
    with pytest.raises(InvalidParameterError, match=fragment):
        run_psl(rules, obs, targets)


@needs_psl
def test_other_jvm_options_after_start_are_refused() -> None:
    obs, targets = _smokers_data()
    run_psl(SMOKERS, obs, targets)  # make sure the JVM runs
    with pytest.raises(InvalidParameterError, match="already running"):
        run_psl(SMOKERS, obs, targets, jvm_options=["-Xmx123m"])


@pytest.mark.parametrize(
    ("observations", "fragment"),
    [
        ({"P": pd.DataFrame({"a": ["x"], "value": [1.5]})}, "outside"),
        ({"P": pd.DataFrame({"value": [1.0]})}, "no argument columns"),
        (
            {"P": pd.DataFrame({"a": ["x"]}), "p": pd.DataFrame({"a": ["y"]})},
            "differ only in case",
        ),
        ({"T": pd.DataFrame({"a": ["x"], "b": ["y"]})}, "one arity per predicate"),
    ],
)
def test_malformed_frames_are_rejected_before_psl_runs(
    observations: dict[str, pd.DataFrame], fragment: str
) -> None:
    with pytest.raises(InvalidDataError, match=fragment):
        run_psl(["1.0: P(A) -> T(A) ^2"], observations, {"T": pd.DataFrame({"a": ["x"]})})


def test_no_rules_is_an_error() -> None:
    with pytest.raises(InvalidParameterError, match="no rules"):
        run_psl("# only a comment\n", {}, {"T": pd.DataFrame({"a": ["x"]})})


def test_missing_java_raises_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    class NotFound(Exception):
        pass

    def no_jvm() -> Any:
        raise NotFound("no JVM")

    fake = types.SimpleNamespace(
        isJVMStarted=lambda: False, getDefaultJVMPath=no_jvm, JVMNotFoundException=NotFound
    )
    monkeypatch.setattr(bridge, "require", lambda *a, **k: types.SimpleNamespace(JAR_PATH=""))
    with pytest.raises(MissingDependencyError, match="Java runtime"):
        bridge._ensure_jvm(fake, ())


def test_tight_options_disable_normalisation_and_tighten_admm() -> None:
    assert PSL_TIGHT_OPTIONS["inference.normalize"] == "false"
    assert float(PSL_TIGHT_OPTIONS["admmreasoner.epsilonabs"]) < 1e-5  # PSL default
    assert float(PSL_TIGHT_OPTIONS["admmreasoner.epsilonrel"]) < 1e-3  # PSL default


@needs_psl
def test_psl_fairness_rows_bind_at_the_kkt_point() -> None:
    # sum_i (y_i - prior_i)^2 with mean_P(y) - mean_U(y) <= 0.1: the multiplier shifts the
    # protected atoms down by 0.33 and the unprotected ones up by 0.22.
    prior = {"a": 0.9, "b": 0.8, "c": 0.1, "d": 0.2, "e": 0.3}
    observations = {"Prior": pd.DataFrame({"x": list(prior), "value": list(prior.values())})}
    targets = {"T": pd.DataFrame({"x": list(prior)})}
    rules, groups = bridge.psl_fairness(
        "T",
        "rd<=0.1",
        protected=pd.DataFrame({"x": ["a", "b"]}),
        unprotected=pd.DataFrame({"x": ["c", "d", "e"]}),
    )
    assert len(rules) == 2
    assert set(groups) == {"fairacqProtected", "fairacqUnprotected"}
    base = ["1.0: Prior(A) -> T(A) ^2", "1.0: T(A) -> Prior(A) ^2"]
    result = run_psl(base + rules, {**observations, **groups}, targets)
    expected = {"a": 0.57, "b": 0.47, "c": 0.32, "d": 0.42, "e": 0.52}
    assert _values(result) == pytest.approx(expected, abs=1e-5)


def test_psl_fairness_needs_arity_one_groups() -> None:
    pairs = pd.DataFrame({"user": ["u1"], "item": ["i1"]})
    with pytest.raises(InvalidParameterError, match="arity 1"):
        bridge.psl_fairness("rating", "nonparity<=0.1", protected=pairs, unprotected=pairs)
