"""Algorithm 1 (paper 003): QP sampling weights against an exact brute force."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.filtering import UnreachableTargetWarning, sampling_weights
from fairacq.metrics import imbalance_from_matrix


def brute_force(
    A: NDArray[np.float64], target: NDArray[np.float64], relaxed: bool
) -> tuple[float, NDArray[np.float64]]:
    """Exact optimum of min ||qA - U||^2 by enumerating every support (small l only)."""
    best = np.inf
    best_qa = np.zeros(A.shape[1])
    for size in range(1, A.shape[0] + 1):
        for support in itertools.combinations(range(A.shape[0]), size):
            sub = A[list(support)].T
            if relaxed:
                sol = np.linalg.lstsq(sub, target, rcond=None)[0]
            else:
                kkt = np.zeros((size + 1, size + 1))
                kkt[:size, :size] = sub.T @ sub
                kkt[:size, size] = 1.0
                kkt[size, :size] = 1.0
                rhs = np.append(sub.T @ target, 1.0)
                sol = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:size]
            if (sol < -1e-12).any():
                continue
            val = float(np.sum((sol @ sub.T - target) ** 2))
            if val < best:
                best, best_qa = val, sol @ sub.T
    return best, best_qa


def random_problem(
    rng: np.random.Generator, n_values: int, n_groups: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    A = rng.dirichlet(np.full(n_groups, 0.7), size=n_values)
    r_hat = rng.dirichlet(np.ones(n_values))
    return A, r_hat


@given(
    seed=st.integers(0, 10_000),
    n_values=st.integers(1, 6),
    n_groups=st.integers(2, 4),
    relaxed=st.booleans(),
)
def test_weights_match_brute_force(seed: int, n_values: int, n_groups: int, relaxed: bool) -> None:
    rng = np.random.default_rng(seed)
    A, r_hat = random_problem(rng, n_values, n_groups)
    target = rng.dirichlet(np.ones(n_groups))
    best, best_qa = brute_force(A, target, relaxed)
    for solver in ("auto", "active-set"):
        w = sampling_weights(
            A, r_hat, target=target, relaxed=relaxed, solver=solver, on_unreachable="ignore"
        )
        assert (w.q >= 0).all()
        assert (w.rho >= 0).all()
        assert (w.rho <= 1).all()
        assert w.rho.max() == pytest.approx(1.0)
        if not relaxed:
            assert w.q.sum() == pytest.approx(1.0, abs=1e-12)
            # Lemma 2: the admitted distribution is qA, so beta is the hull distance.
            assert w.beta == pytest.approx(w.hull_distance, abs=1e-9)
        assert w.hull_distance**2 == pytest.approx(best, abs=1e-12)
        np.testing.assert_allclose(w.q @ A, best_qa, atol=1e-6)
        if best < 1e-20:
            assert w.beta < 1e-8
            assert w.reachable


@given(seed=st.integers(0, 10_000), n_groups=st.integers(2, 5), extra=st.integers(0, 3))
def test_reachable_target_met_to_1e8(seed: int, n_groups: int, extra: int) -> None:
    rng = np.random.default_rng(seed)
    # Pure rows (one group each) put every distribution in the hull.
    A = np.vstack([np.eye(n_groups), rng.dirichlet(np.ones(n_groups), size=extra)])
    r_hat = rng.dirichlet(np.ones(A.shape[0]))
    target = rng.dirichlet(np.ones(n_groups))
    for solver in ("clarabel", "nnls", "active-set"):
        w = sampling_weights(A, r_hat, target=target, solver=solver)
        assert w.reachable
        assert (w.q >= 0).all()
        assert abs(w.q.sum() - 1.0) < 1e-12
        assert imbalance_from_matrix(A, r_hat, w.rho, target=target) < 1e-8
        admitted = (r_hat * w.rho) @ A / (r_hat @ w.rho)
        np.testing.assert_allclose(admitted, target, atol=1e-8)


@pytest.mark.parametrize("relaxed", [False, True])
def test_solvers_agree(relaxed: bool) -> None:
    rng = np.random.default_rng(3)
    A, r_hat = random_problem(rng, 5, 3)
    fits = [
        sampling_weights(A, r_hat, relaxed=relaxed, solver=s, on_unreachable="ignore")
        for s in ("clarabel", "osqp", "nnls", "active-set")
    ]
    for w in fits[1:]:
        np.testing.assert_allclose(w.q @ A, fits[0].q @ A, atol=1e-6)
        assert w.hull_distance == pytest.approx(fits[0].hull_distance, abs=1e-6)


def test_relaxed_never_worse_in_hull_distance() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        A, r_hat = random_problem(rng, 3, 4)
        strict = sampling_weights(A, r_hat, on_unreachable="ignore")
        loose = sampling_weights(A, r_hat, relaxed=True, on_unreachable="ignore")
        assert loose.hull_distance <= strict.hull_distance + 1e-10


def test_known_example() -> None:
    # Rows (0.5, 0.5) and (0, 1): only the first row is balanced.
    w = sampling_weights([[0.5, 0.5], [0.0, 1.0]], [0.5, 0.5])
    np.testing.assert_allclose(w.q, [1.0, 0.0], atol=1e-10)
    np.testing.assert_allclose(w.rho, [1.0, 0.0], atol=1e-10)
    assert w.acceptance_rate == pytest.approx(0.5)


def test_unused_proxy_value_gets_zero_rho() -> None:
    A = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    w = sampling_weights(A, [0.5, 0.5, 0.0])
    assert w.rho[2] == 0.0
    assert w.reachable


def test_unreachable_warns_with_best_beta() -> None:
    A = np.array([[0.9, 0.1], [0.8, 0.2]])
    with pytest.warns(UnreachableTargetWarning, match="best imbalance reachable is beta"):
        w = sampling_weights(A, [0.5, 0.5])
    assert not w.reachable
    # Best is the row closest to U: (0.8, 0.2), distance 0.3 * sqrt(2).
    assert w.beta == pytest.approx(0.3 * np.sqrt(2), abs=1e-8)
    with pytest.raises(InvalidDataError, match="not in the convex hull"):
        sampling_weights(A, [0.5, 0.5], on_unreachable="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not sampling_weights(A, [0.5, 0.5], on_unreachable="ignore").reachable


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"target": [0.5, 0.6]}, "summing to 1"),
        ({"target": [1.0]}, "one probability per group"),
        ({"proxy_marginal": [0.7, 0.7]}, "proxy_marginal must sum to 1"),
        ({"A": [[0.5, 0.6], [0.0, 1.0]]}, "each row of A must sum to 1"),
        ({"A": [[np.nan, 1.0], [0.0, 1.0]]}, "NaN"),
    ],
)
def test_bad_input(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"A": [[0.5, 0.5], [0.0, 1.0]], "proxy_marginal": [0.5, 0.5]}
    args.update(kwargs)
    with pytest.raises(InvalidDataError, match=match):
        sampling_weights(args.pop("A"), args.pop("proxy_marginal"), **args)  # type: ignore[arg-type]


def test_bad_solver() -> None:
    with pytest.raises(InvalidParameterError, match="solver"):
        sampling_weights([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], solver="gurobi")
    with pytest.raises(InvalidParameterError, match="on_unreachable"):
        sampling_weights([[1.0, 0.0], [0.0, 1.0]], [0.5, 0.5], on_unreachable="loud")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_values=st.integers(3, 7), n_groups=st.integers(2, 3))
def test_one_answer_whatever_the_solver_and_the_highest_acceptance(seed, n_values, n_groups):
    """With more proxy values than groups many q are optimal; every solver returns the same
    beta and acceptance rate, and no optimum found by a solver alone admits more."""
    from fairacq.filtering._weights import _active_set, _solve_nnls

    rng = np.random.default_rng(seed)
    A = rng.dirichlet(np.full(n_groups, 0.7), size=n_values)
    r = rng.dirichlet(np.ones(n_values))
    results = [
        sampling_weights(A, r, solver=s, on_unreachable="ignore")
        for s in ("clarabel", "osqp", "nnls", "active-set")
    ]
    accept = [w.acceptance_rate for w in results]
    beta = [w.beta for w in results]
    assert max(accept) - min(accept) < 1e-7
    assert max(beta) - min(beta) < 1e-7
    tgt = np.full(n_groups, 1.0 / n_groups)
    for start in (None, np.clip(_solve_nnls(A, tgt, False), 0, None)):
        q = _active_set(A, tgt, start, False)  # an optimum before the acceptance step
        assert float(np.sum(q) / np.max(q / r)) <= accept[0] + 1e-9
