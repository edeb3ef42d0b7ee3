"""The exact separable MAP solver and the solver dispatcher, against cvxpy and ADMM."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError
from fairacq.relational import (
    GroundModel,
    HingePotentials,
    LinearConstraints,
    admm_map,
    exact_map,
    map_inference,
    separable_map,
)

from .test_admm import random_model


def _variables(n: int) -> pd.DataFrame:
    return pd.DataFrame({"predicate": ["p"] * n, "args": [(str(i),) for i in range(n)]})


def separable_model(
    seed: int, n: int, m: int, bound: str, squared_share: float = 0.5
) -> GroundModel:
    """Random one-variable potentials plus a parity-like bound on ``c.y`` (feasible)."""
    rng = np.random.default_rng(seed)
    var = rng.integers(0, n, m)
    a = np.zeros((m, n))
    a[np.arange(m), var] = rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 3.0], m)
    pots = HingePotentials.build(
        a,
        rng.uniform(-1.5, 1.5, m),
        rng.uniform(0.0, 5.0, m),
        rng.random(m) < squared_share,
        n_variables=n,
    )
    c = rng.uniform(-1.0, 1.0, n)
    s = float(c @ rng.uniform(0.0, 1.0, n))
    if bound == "none":
        cons = LinearConstraints.empty(n)
    elif bound == "equality":  # exact parity: c.y == s, written as 2 c.y - 2 s == 0
        cons = LinearConstraints.build([2 * c], [-2 * s], [True], n_variables=n)
    else:  # |c.y - s| <= 0.05 as two opposite rows, as risk-difference bounds are written
        cons = LinearConstraints.build(
            [c, -c], [-s - 0.05, s - 0.05], [False, False], n_variables=n
        )
    return GroundModel(_variables(n), pots, cons)


@settings(max_examples=40, deadline=None, database=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 8),
    m=st.integers(1, 25),
    bound=st.sampled_from(["none", "equality", "interval"]),
    squared_share=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_separable_matches_exact(
    seed: int, n: int, m: int, bound: str, squared_share: float
) -> None:
    model = separable_model(seed, n, m, bound, squared_share)
    result = separable_map(model)
    assert result is not None
    exact = exact_map(model)
    assert np.all((result.values >= 0.0) & (result.values <= 1.0))
    assert result.max_violation < 1e-8
    assert result.objective == pytest.approx(exact.objective, rel=1e-6, abs=1e-6)


def test_squared_hinges_have_the_weighted_mean_as_optimum() -> None:
    pots = HingePotentials.build(
        [[1.0], [-1.0]], [-0.2, 0.9], [1.0, 3.0], [True] * 2, n_variables=1
    )
    result = separable_map(GroundModel(_variables(1), pots, LinearConstraints.empty(1)))
    assert result is not None
    assert result.values[0] == pytest.approx(0.725, abs=1e-12)


def test_linear_hinges_stop_at_the_kink() -> None:
    # 1 * max(y - 0.3, 0) + 2 * max(0.3 - y, 0): the optimum is the kink y = 0.3.
    pots = HingePotentials.build(
        [[1.0], [-1.0]], [-0.3, 0.3], [1.0, 2.0], [False] * 2, n_variables=1
    )
    result = separable_map(GroundModel(_variables(1), pots, LinearConstraints.empty(1)))
    assert result is not None
    assert result.values[0] == pytest.approx(0.3, abs=1e-12)


def test_parity_is_met_exactly_on_a_jump() -> None:
    # Linear hinges pull y0 to 1 and y1 to 0; parity y0 == y1 splits the difference.
    pots = HingePotentials.build(
        [[-1.0, 0.0], [0.0, 1.0]], [1.0, 0.0], [1.0, 1.0], [False] * 2, n_variables=2
    )
    cons = LinearConstraints.build([[1.0, -1.0]], [0.0], [True], n_variables=2)
    model = GroundModel(_variables(2), pots, cons)
    result = separable_map(model)
    assert result is not None
    assert result.values[0] == pytest.approx(result.values[1], abs=1e-10)
    assert result.objective == pytest.approx(exact_map(model).objective, abs=1e-8)


def test_variables_in_no_term_keep_init() -> None:
    pots = HingePotentials.build([[1.0, 0.0]], [-0.5], [1.0], [True], n_variables=2)
    model = GroundModel(_variables(2), pots, LinearConstraints.empty(2))
    result = separable_map(model, init=[0.9, 0.4])
    assert result is not None
    assert result.values[1] == 0.4


@pytest.mark.parametrize(("k_eq", "k_ineq"), [(0, 0), (1, 0), (2, 1)])
def test_non_separable_models_are_declined(k_eq: int, k_ineq: int) -> None:
    model = random_model(3, n=4, m=12, k_eq=k_eq, k_ineq=k_ineq, density=0.9)
    assert separable_map(model) is None


def test_constraints_in_two_directions_are_declined() -> None:
    pots = HingePotentials.build(np.eye(2), [-0.5, -0.5], [1.0, 1.0], [True] * 2, n_variables=2)
    cons = LinearConstraints.build(
        [[1.0, -1.0], [1.0, 1.0]], [0.0, -1.0], [False, False], n_variables=2
    )
    assert separable_map(GroundModel(_variables(2), pots, cons)) is None


def test_infeasible_bound_is_declined() -> None:
    pots = HingePotentials.build([[1.0]], [-0.5], [1.0], [True], n_variables=1)
    cons = LinearConstraints.build([[1.0]], [-2.0], [True], n_variables=1)  # y == 2
    assert separable_map(GroundModel(_variables(1), pots, cons)) is None


def test_bad_init_is_rejected() -> None:
    model = separable_model(0, 3, 5, "none")
    with pytest.raises(InvalidDataError, match="init"):
        separable_map(model, init=[0.1, 0.2])


def test_dispatcher_picks_the_solver() -> None:
    separable = separable_model(1, 5, 15, "equality")
    general = random_model(2, n=4, m=12, k_eq=1, k_ineq=1, density=0.9)
    auto = map_inference(separable, solver="auto")
    assert np.isnan(auto.primal_residual)  # the exact solver answered
    assert auto.objective == pytest.approx(exact_map(separable).objective, rel=1e-6, abs=1e-6)
    fallback = map_inference(general, solver="auto", eps_abs=1e-6, eps_rel=1e-6)
    direct = admm_map(general, eps_abs=1e-6, eps_rel=1e-6)
    np.testing.assert_array_equal(fallback.values, direct.values)
    with pytest.raises(InvalidParameterError, match="not"):
        map_inference(general, solver="separable")
    with pytest.raises(UnknownNameError, match="MAP solver"):
        map_inference(separable, solver="newton")


def test_a_jump_of_the_bound_at_the_multiplier_is_solved_exactly() -> None:
    # Found by the property test above: a hinge variable switches at the optimal multiplier,
    # so c.y jumps there; a regula falsi that halved the stale end only once crept towards
    # it and stopped 5e-5 above the optimum after its 200 steps.
    model = separable_model(1179001, 7, 10, "interval", 0.5)
    result, exact = separable_map(model), exact_map(model)
    assert result is not None
    assert result.objective == pytest.approx(exact.objective, rel=1e-8, abs=1e-8)
    assert result.n_iter < 2000
