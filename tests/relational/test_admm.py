"""Consensus ADMM MAP inference: closed forms, the cvxpy reference, convergence reporting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError, InvalidParameterError, UnknownNameError
from fairacq.relational import (
    GroundModel,
    HingePotentials,
    LinearConstraints,
    MapResult,
    admm_map,
    exact_map,
)

TIGHT = {"eps_abs": 1e-8, "eps_rel": 1e-7, "max_iter": 200_000}


def _variables(n: int) -> pd.DataFrame:
    return pd.DataFrame({"predicate": ["p"] * n, "args": [(str(i),) for i in range(n)]})


def random_model(
    seed: int, n: int, m: int, k_eq: int, k_ineq: int, density: float = 0.3
) -> GroundModel:
    """A random HL-MRF whose constraints hold at a random interior point (feasible)."""
    rng = np.random.default_rng(seed)
    a = rng.choice([-1.0, 0.0, 0.0, 1.0, 0.5, -2.0], size=(m, n)) * (rng.random((m, n)) < density)
    pots = HingePotentials.build(
        a,
        rng.uniform(-1.0, 1.0, m),
        rng.uniform(0.0, 5.0, m),
        rng.random(m) < 0.5,
        n_variables=n,
    )
    y0 = rng.uniform(0.1, 0.9, n)
    k = k_eq + k_ineq
    c = rng.uniform(-1.0, 1.0, (k, n)) * (rng.random((k, n)) < 0.6)
    d = -(c @ y0) - np.r_[np.zeros(k_eq), rng.uniform(0.0, 0.2, k_ineq)]
    cons = LinearConstraints.build(c, d, np.arange(k) < k_eq, n_variables=n)
    return GroundModel(_variables(n), pots, cons)


def _one_variable(a: list[float], b: list[float], w: list[float], squared: bool) -> GroundModel:
    pots = HingePotentials.build([[x] for x in a], b, w, [squared] * len(a), n_variables=1)
    return GroundModel(_variables(1), pots, LinearConstraints.empty(1))


@settings(max_examples=25, deadline=None, database=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 8),
    m=st.integers(1, 20),
    k_eq=st.integers(0, 2),
    k_ineq=st.integers(0, 3),
)
def test_admm_matches_exact(seed: int, n: int, m: int, k_eq: int, k_ineq: int) -> None:
    model = random_model(seed, n, m, k_eq, min(k_ineq, n))
    exact = exact_map(model)
    result = admm_map(model, **TIGHT)
    assert result.converged
    assert np.all((result.values >= 0.0) & (result.values <= 1.0))
    assert result.max_violation < 1e-4
    assert result.objective == pytest.approx(exact.objective, rel=1e-4, abs=1e-5)


def test_squared_hinges_have_the_weighted_mean_as_optimum() -> None:
    # (y - 0.2)^2 + 3 (0.9 - y)^2 is minimal at (0.2 + 3 * 0.9) / 4 = 0.725.
    model = _one_variable([1.0, -1.0], [-0.2, 0.9], [1.0, 3.0], squared=True)
    result = admm_map(model, eps_abs=1e-9, eps_rel=1e-9)
    assert result.values[0] == pytest.approx(0.725, abs=1e-6)


def test_linear_hinges_pick_the_heavier_side() -> None:
    # max(y - 0.2, 0) + 3 max(0.9 - y, 0): any y below 0.9 pays 3 per unit, above 0.2 pays 1.
    model = _one_variable([1.0, -1.0], [-0.2, 0.9], [1.0, 3.0], squared=False)
    result = admm_map(model, eps_abs=1e-9, eps_rel=1e-9)
    assert result.values[0] == pytest.approx(0.9, abs=1e-5)
    assert result.objective == pytest.approx(0.7, abs=1e-5)


def test_box_is_enforced_in_the_consensus_step() -> None:
    # The potential wants y = 1.5; the box clips it to 1.
    model = _one_variable([-1.0], [1.5], [2.0], squared=True)
    result = admm_map(model, eps_abs=1e-9, eps_rel=1e-9)
    assert result.values[0] == pytest.approx(1.0, abs=1e-6)


def test_equality_constraint_is_met() -> None:
    # Both variables pushed up, but y0 + y1 == 1 and y0 - y1 <= -0.4.
    pots = HingePotentials.build(
        [[-1.0, 0.0], [0.0, -1.0]], [1.0, 1.0], [1.0, 1.0], [True, True], n_variables=2
    )
    cons = LinearConstraints.build(
        [[1.0, 1.0], [1.0, -1.0]], [-1.0, 0.4], [True, False], n_variables=2
    )
    model = GroundModel(_variables(2), pots, cons)
    result = admm_map(model, eps_abs=1e-9, eps_rel=1e-9)
    np.testing.assert_allclose(result.values, [0.3, 0.7], atol=1e-5)
    assert result.max_violation < 1e-6


def test_iteration_limit_is_reported_as_not_converged() -> None:
    model = random_model(3, 6, 15, 1, 1)
    result = admm_map(model, max_iter=2, eps_abs=1e-12, eps_rel=1e-12)
    assert result.n_iter == 2
    assert not result.converged
    assert result.primal_residual > 0.0
    assert result.dual_residual >= 0.0


def test_defaults_converge_on_a_random_model() -> None:
    result = admm_map(random_model(5, 8, 20, 0, 2))
    assert result.converged
    assert 0 < result.n_iter < 25_000
    assert result.seconds >= 0.0


def test_model_without_terms_keeps_init() -> None:
    model = GroundModel(_variables(3), HingePotentials.empty(3), LinearConstraints.empty(3))
    result = admm_map(model, init=[0.2, 0.5, 0.7])
    np.testing.assert_allclose(result.values, [0.2, 0.5, 0.7])
    assert result.converged
    assert result.n_iter == 0


def test_zero_weight_and_constant_potentials_do_not_change_the_optimum() -> None:
    base = random_model(11, 5, 10, 0, 0)
    pots = base.potentials
    extra = sp.csr_array(np.vstack([np.ones((1, 5)), np.zeros((1, 5))]))
    padded = HingePotentials.build(
        sp.vstack([pots.coefficients, extra]),
        np.r_[pots.constants, 0.3, 0.4],
        np.r_[pots.weights, 0.0, 2.0],
        np.r_[pots.squared, False, True],
        n_variables=5,
    )
    model = GroundModel(base.variables, padded, base.constraints)
    a = admm_map(base, **TIGHT)
    b = admm_map(model, **TIGHT)
    np.testing.assert_allclose(a.values, b.values, atol=1e-6)
    assert b.objective == pytest.approx(a.objective + 2.0 * 0.4**2, abs=1e-6)


def test_duplicate_coefficients_in_a_row_are_summed() -> None:
    # A row with the entry (0, 0) given twice means 2 y.
    a = sp.csr_array((np.array([1.0, 1.0]), (np.array([0, 0]), np.array([0, 0]))), shape=(1, 1))
    pots = HingePotentials.build(a, [-1.0], [1.0], [True], n_variables=1)
    model = GroundModel(_variables(1), pots, LinearConstraints.empty(1))
    result = admm_map(model, init=[1.0], eps_abs=1e-9, eps_rel=1e-9)
    assert result.values[0] <= 0.5 + 1e-6
    assert result.objective == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rho": 0.0}, "'rho'"),
        ({"eps_abs": -1.0}, "'eps_abs'"),
        ({"eps_rel": float("nan")}, "'eps_rel'"),
        ({"max_iter": 0}, "'max_iter'"),
        ({"max_iter": 2.5}, "'max_iter'"),
    ],
)
def test_bad_parameters_are_rejected(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(InvalidParameterError, match=match):
        admm_map(random_model(0, 2, 2, 0, 0), **kwargs)  # type: ignore[arg-type]


def test_bad_init_is_rejected() -> None:
    model = random_model(0, 3, 2, 0, 0)
    with pytest.raises(InvalidDataError, match="one starting value"):
        admm_map(model, init=[0.5, 0.5])
    with pytest.raises(InvalidDataError, match="NaN"):
        admm_map(model, init=[0.5, np.nan, 0.5])


def test_to_frame_lists_atoms_with_their_arguments() -> None:
    variables = pd.DataFrame(
        {"predicate": ["likes", "likes", "good"], "args": [("a", "x"), ("b", "y"), ("x",)]}
    )
    model = GroundModel(variables, HingePotentials.empty(3), LinearConstraints.empty(3))
    result = MapResult(np.array([0.1, 0.2, 0.3]), 0.0, 0.0, 0.0, 0.0, 0, True, 0.0)
    frame = result.to_frame(model)
    assert list(frame.columns) == ["predicate", "arg0", "arg1", "value"]
    assert frame["arg1"].tolist()[2] is None
    likes = result.to_frame(model, predicate="likes")
    assert likes[["arg0", "arg1"]].to_numpy().tolist() == [["a", "x"], ["b", "y"]]
    np.testing.assert_allclose(result.to_frame(model, "good")["value"], [0.3])
    with pytest.raises(UnknownNameError, match="Known target predicates: good, likes"):
        result.to_frame(model, predicate="friend")
    with pytest.raises(InvalidDataError, match="has 3 variables"):
        MapResult(np.zeros(2), 0.0, 0.0, 0.0, 0.0, 0, True, 0.0).to_frame(model)


def _reference_admm(model: GroundModel, rho: float, eps_abs: float, eps_rel: float, max_iter: int):
    """Consensus ADMM written term by term from Bach et al. (2017, §5) and PSL's stopping rule.

    Each term j keeps a local copy x_j of its variables S_j and a scaled dual u_j. With
    v = z[S_j] - u_j and f = a.v + b the local minimisers of f_j(x) + rho/2 ||x - v||^2 are
    - linear hinge w max(a.x + b, 0): x = v - min(max(f, 0) / ||a||^2, w / rho) a;
    - squared hinge w max(a.x + b, 0)^2: a.x + b = f / (1 + g ||a||^2) on the active side
      with g = 2 w / rho, so x = v - g max(f, 0) / (1 + g ||a||^2) a;
    - c.x + d <= 0 (resp. == 0): the projection x = v - max(f, 0) / ||c||^2 c (resp. f).
    Then z = clip(mean of x + u over the copies, 0, 1), u += x - z[S]; stop when
    ||x - z|| <= sqrt(p) eps_abs + eps_rel max(||x||, ||z||_copies) and
    rho ||z - z_prev||_copies <= sqrt(p) eps_abs + eps_rel rho ||u|| (p copies in all).
    """
    terms = []  # (kind, variables, coefficients, constant, weight)
    pots, cons = model.potentials, model.constraints
    a_mat = sp.csr_array(pots.coefficients)
    for j in range(pots.n_potentials):
        row = a_mat[[j], :].tocoo()
        if row.nnz and pots.weights[j] > 0:
            kind = "sq" if pots.squared[j] else "lin"
            terms.append((kind, row.col, row.data, pots.constants[j], pots.weights[j]))
    c_mat = sp.csr_array(cons.coefficients)
    for k in range(len(cons.constants)):
        row = c_mat[[k], :].tocoo()
        if row.nnz:
            terms.append(
                ("eq" if cons.equality[k] else "le", row.col, row.data, cons.constants[k], 0.0)
            )
    n = model.n_variables
    count = np.zeros(n)
    for _, cols, *_ in terms:
        np.add.at(count, cols, 1.0)
    p = count.sum()
    z = np.zeros(n)
    u = [np.zeros(len(cols)) for _, cols, *_ in terms]
    for it in range(1, max_iter + 1):
        xs = []
        for (kind, cols, a, b, w), uj in zip(terms, u, strict=True):
            v = z[cols] - uj
            f, na = a @ v + b, a @ a
            if kind == "lin":
                t = min(max(f, 0.0) / na, w / rho)
            elif kind == "sq":
                g = 2.0 * w / rho
                t = g * max(f, 0.0) / (1.0 + g * na)
            else:
                t = (max(f, 0.0) if kind == "le" else f) / na
            xs.append(v - t * a)
        total, z_new = np.zeros(n), z.copy()
        for (_, cols, *_), xj, uj in zip(terms, xs, u, strict=True):
            np.add.at(total, cols, xj + uj)
        has = count > 0
        z_new[has] = np.clip(total[has] / count[has], 0.0, 1.0)
        primal2 = 0.0
        for k, ((_, cols, *_), xj) in enumerate(zip(terms, xs, strict=True)):
            r = xj - z_new[cols]
            u[k] = u[k] + r
            primal2 += r @ r
        dz, z = z_new - z, z_new
        x_norm = np.sqrt(sum(xj @ xj for xj in xs))
        u_norm = np.sqrt(sum(uj @ uj for uj in u))
        eps_primal = np.sqrt(p) * eps_abs + eps_rel * max(x_norm, np.sqrt(count @ (z * z)))
        eps_dual = np.sqrt(p) * eps_abs + eps_rel * rho * u_norm
        if np.sqrt(primal2) <= eps_primal and rho * np.sqrt(count @ (dz * dz)) <= eps_dual:
            return z, it, True
    return z, max_iter, False


@pytest.mark.parametrize("rho", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_admm_follows_the_written_out_algorithm_at_every_step_size(rho: float, seed: int) -> None:
    """Same iterate and the same stopping iteration as the term-by-term reference, at PSL's
    default tolerances and at tight ones (pins the squared-hinge step 2 w / rho and the
    stopping rule's absolute, relative and rho terms)."""
    model = random_model(seed, 6, 14, 1, 2)
    for tol in ({"eps_abs": 1e-5, "eps_rel": 1e-3}, {"eps_abs": 1e-8, "eps_rel": 1e-7}):
        ours = admm_map(model, rho=rho, max_iter=20_000, **tol)
        ref, n_iter, converged = _reference_admm(model, rho, max_iter=20_000, **tol)
        assert ours.converged == converged
        assert abs(ours.n_iter - n_iter) <= 1
        np.testing.assert_allclose(ours.values, ref, atol=1e-8)


@settings(max_examples=15, deadline=None, database=None)
@given(seed=st.integers(0, 2**32 - 1), rho=st.sampled_from([0.5, 2.0]))
def test_admm_matches_exact_at_other_step_sizes(seed: int, rho: float) -> None:
    model = random_model(seed, 6, 14, 1, 2)
    exact = exact_map(model)
    tight = admm_map(model, rho=rho, **TIGHT)
    assert tight.converged
    assert tight.objective == pytest.approx(exact.objective, rel=1e-4, abs=1e-5)
    loose = admm_map(model, rho=rho)  # PSL's defaults: close, not exact
    assert loose.objective <= exact.objective * 1.05 + 1e-2
