"""Intersecting group classes (paper 003, App. A.2): QP, proxies, tree, filter, metrics, JSON."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.typing import NDArray

from fairacq.data import FairDataset
from fairacq.exceptions import CorruptFileError, InvalidDataError
from fairacq.filtering import (
    AlphaBetaProxy,
    BalancedFilter,
    GroupClasses,
    LabelProxy,
    UnreachableTargetWarning,
    interpolation_curve,
    intersecting_conditional_matrix,
    intersecting_disclosivity,
    intersecting_disclosivity_from_matrix,
    intersecting_imbalance,
    intersecting_imbalance_from_matrix,
    load_proxy,
    proxy_from_dict,
    proxy_to_dict,
    sampling_weights,
    save_proxy,
)
from fairacq.metrics import disclosivity, imbalance
from tests.filtering.test_proxies import make_sample
from tests.filtering.test_weights import brute_force


def make_two_classes(n: int = 600, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Race (60/30/10 %) and sex (correlated with race); features reveal both a little."""
    rng = np.random.default_rng(seed)
    race = rng.choice(np.array(["a", "b", "c"]), size=n, p=[0.6, 0.3, 0.1])
    sex = np.where(rng.random(n) < np.where(race == "a", 0.75, 0.4), "m", "f")
    centre = {"a": (0.0, 0.0), "b": (1.0, 0.5), "c": (0.0, 1.5)}
    mu = np.array([centre[g] for g in race])
    X = pd.DataFrame(
        {
            "x0": mu[:, 0] + rng.normal(size=n),
            "x1": mu[:, 1] + rng.normal(size=n),
            "x2": (sex == "m") * 1.2 + rng.normal(size=n),
        }
    )
    return X, pd.DataFrame({"race": race, "sex": sex})


def _quiet(proxy: Any, X: Any, s: Any = None, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreachableTargetWarning)
        return proxy.fit(X, s, **kwargs)


def _blocks(rng: np.random.Generator, n_values: int, sizes: tuple[int, ...]) -> NDArray[Any]:
    return np.hstack([rng.dirichlet(np.full(k, 0.7), size=n_values) for k in sizes])


# --- Algorithm 1 with concatenated targets -------------------------------------------------


@given(
    seed=st.integers(0, 10_000),
    n_values=st.integers(1, 6),
    sizes=st.lists(st.integers(2, 3), min_size=2, max_size=3).map(tuple),
    relaxed=st.booleans(),
)
def test_weights_match_brute_force(
    seed: int, n_values: int, sizes: tuple[int, ...], relaxed: bool
) -> None:
    rng = np.random.default_rng(seed)
    A = _blocks(rng, n_values, sizes)
    r_hat = rng.dirichlet(np.ones(n_values))
    target = np.concatenate([rng.dirichlet(np.ones(k)) for k in sizes])
    best, best_qa = brute_force(A, target, relaxed)
    for solver in ("auto", "nnls", "active-set"):
        w = sampling_weights(
            A,
            r_hat,
            target=target,
            relaxed=relaxed,
            solver=solver,
            on_unreachable="ignore",
            group_sizes=sizes,
        )
        assert (w.q >= 0).all()
        assert w.rho.max() == pytest.approx(1.0)
        assert w.hull_distance**2 == pytest.approx(best, abs=1e-12)
        np.testing.assert_allclose(w.q @ A, best_qa, atol=1e-6)
        admitted = (r_hat * w.rho) @ A / (r_hat @ w.rho)
        assert w.beta == pytest.approx(float(np.linalg.norm(admitted - target)), abs=1e-12)
        if not relaxed:
            assert w.q.sum() == pytest.approx(1.0, abs=1e-12)
            assert w.beta == pytest.approx(w.hull_distance, abs=1e-9)
        if best < 1e-20:
            assert w.reachable


def test_default_target_is_u_intersect() -> None:
    # Pure rows of every cell: U_intersect is reachable, e.g. with the uniform cell mix.
    A = np.array([[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 1, 0], [0, 1, 0, 1]], dtype=float)
    w = sampling_weights(A, [0.4, 0.3, 0.2, 0.1], group_sizes=(2, 2))
    assert w.reachable
    np.testing.assert_allclose(w.q @ A, [0.5, 0.5, 0.5, 0.5], atol=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"group_sizes": (2, 3)}, "add up to the 4 columns"),
        ({"group_sizes": (1, 3)}, "at least two groups per class"),
        ({"target": [0.5, 0.5, 0.7, 0.4]}, "sum to 1 within each group class"),
        ({"A": [[0.5, 0.5, 0.5, 0.6], [0.0, 1.0, 0.0, 1.0]]}, "sum to 1 within each group"),
    ],
)
def test_weights_bad_input(kwargs: dict[str, Any], match: str) -> None:
    args: dict[str, Any] = {
        "A": [[0.5, 0.5, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]],
        "proxy_marginal": [0.5, 0.5],
        "group_sizes": (2, 2),
    }
    args.update(kwargs)
    with pytest.raises(InvalidDataError, match=match):
        sampling_weights(args.pop("A"), args.pop("proxy_marginal"), **args)


# --- Metrics (Definition 16 and per-column Definition 5) -----------------------------------


@given(seed=st.integers(0, 10_000), n=st.integers(8, 60))
def test_metrics_decompose_by_class(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    s = pd.DataFrame({"u": rng.integers(0, 3, n), "v": rng.integers(0, 2, n)})
    if s.nunique().min() < 2:
        return
    proxy = rng.integers(0, 4, n)
    weights = rng.random(n) + 0.01
    per_class_alpha = [disclosivity(proxy, s[c]) for c in s.columns]
    assert intersecting_disclosivity(proxy, s) == pytest.approx(max(per_class_alpha), abs=1e-12)
    per_class_beta = [imbalance(s[c], weights=weights) for c in s.columns]
    assert intersecting_imbalance(s, weights=weights) == pytest.approx(
        float(np.linalg.norm(per_class_beta)), abs=1e-12
    )
    A, r_hat, sizes = intersecting_conditional_matrix(proxy, s)
    rho = np.asarray(rng.random(A.shape[0]), dtype=np.float64)
    rho /= rho.max()
    expected = intersecting_imbalance(s, weights=rho[np.unique(proxy, return_inverse=True)[1]])
    got = intersecting_imbalance_from_matrix(A, r_hat, rho, sizes)
    assert got == pytest.approx(expected, abs=1e-12)


def test_metric_examples_and_errors() -> None:
    A = [[0.5, 0.5, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]
    assert intersecting_disclosivity_from_matrix(A, [0.5, 0.5], [2, 2]) == 0.5
    with pytest.raises(InvalidDataError, match="group_sizes"):
        intersecting_disclosivity_from_matrix(A, [0.5, 0.5], [3, 2])
    with pytest.raises(InvalidDataError, match="admits no row"):
        intersecting_imbalance_from_matrix(A, [0.5, 0.5], [0.0, 0.0], [2, 2])
    with pytest.raises(InvalidDataError, match="single group"):
        intersecting_imbalance(pd.DataFrame({"u": [1, 2], "v": [0, 0]}))
    with pytest.raises(InvalidDataError, match="2-D s"):
        intersecting_imbalance(np.array([1, 2, 1]))


# --- One class reduces to the disjoint case exactly -----------------------------------------

_ONE_CLASS = [
    LabelProxy(),
    LabelProxy(weights="qp"),
    LabelProxy(predictor="tree", max_depth=4, random_state=0),
    LabelProxy(predictor="tree", weights="qp", max_depth=4, random_state=0),
    LabelProxy(predictor="tree", weights="qp", max_depth=4, relaxed=True, random_state=0),
    AlphaBetaProxy(alpha=0.3, max_iter=10),
    AlphaBetaProxy(alpha=0.4, oracle="stump", margin=0.5, max_iter=10),
    AlphaBetaProxy(alpha=0.5, relaxed=True, max_iter=10),
]


@pytest.mark.parametrize("proxy", _ONE_CLASS, ids=lambda p: type(p).__name__)
def test_one_class_equals_disjoint(proxy: Any) -> None:
    from sklearn.base import clone

    X, s = make_sample(400, seed=1)
    disjoint = _quiet(clone(proxy), X, s)
    one = _quiet(clone(proxy), X, pd.DataFrame({"race": s}))
    assert one.fitted_.classes == GroupClasses(("race",), (("a", "b", "c"),))
    assert one.groups_ == ("race=a", "race=b", "race=c")
    for name in ("A_", "proxy_marginal_", "rho_"):
        assert np.array_equal(getattr(one, name), getattr(disjoint, name)), name
    assert one.alpha_ == disjoint.alpha_
    assert one.beta_ == disjoint.beta_
    assert np.array_equal(one.admission_probability(X), disjoint.admission_probability(X))


# --- Proxies on two classes ------------------------------------------------------------------


@pytest.mark.parametrize(
    "proxy",
    [
        LabelProxy(),
        LabelProxy(weights="qp"),
        LabelProxy(predictor="tree", max_depth=5, random_state=0),
        LabelProxy(predictor="tree", weights="qp", max_depth=5, random_state=0),
        LabelProxy(predictor="tree", weights="qp", max_depth=5, relaxed=True, random_state=0),
    ],
    ids=lambda p: f"{type(p).__name__}{'-relaxed' if getattr(p, 'relaxed', False) else ''}",
)
def test_label_proxies_two_classes(proxy: Any) -> None:
    X, S = make_two_classes(500, seed=2)
    _quiet(proxy, X, S)
    assert proxy.A_.shape == (6, 5)  # 3 x 2 cells predicted; race (3) + sex (2) columns
    np.testing.assert_allclose(proxy.A_[proxy.proxy_marginal_ > 0].sum(axis=1), 2.0)
    values = proxy.proxy_values(X)
    assert proxy.alpha_ == pytest.approx(intersecting_disclosivity(values, S), abs=1e-12)
    weights = proxy.admission_probability(X)
    assert proxy.beta_ == pytest.approx(intersecting_imbalance(S, weights=weights), abs=1e-12)
    assert proxy.beta_ < intersecting_imbalance(S)
    if isinstance(proxy, LabelProxy) and proxy.weights == "qp":
        w = sampling_weights(
            proxy.A_,
            proxy.proxy_marginal_,
            relaxed=proxy.relaxed,
            group_sizes=(3, 2),
            on_unreachable="ignore",
        )
        np.testing.assert_allclose(proxy.rho_, w.rho, atol=1e-9)


def test_naive_admits_equally_per_predicted_cell() -> None:
    X, S = make_two_classes(500, seed=3)
    proxy = LabelProxy(predictor="tree", max_depth=5, random_state=0).fit(X, S)
    seen = proxy.proxy_marginal_ > 0
    admitted = proxy.proxy_marginal_ * proxy.rho_
    np.testing.assert_allclose(admitted[seen], admitted[seen][0])


def test_fair_dataset_gives_the_classes() -> None:
    X, S = make_two_classes(300, seed=4)
    ds = FairDataset(X, np.zeros(300, dtype=int), S, sensitive_attrs=["race", "sex"])
    from_ds = _quiet(LabelProxy(predictor="tree", weights="qp", max_depth=3, random_state=0), ds)
    direct = _quiet(LabelProxy(predictor="tree", weights="qp", max_depth=3, random_state=0), X, S)
    assert from_ds.fitted_ == direct.fitted_
    single = _quiet(
        LabelProxy(predictor="tree", weights="qp", max_depth=3, random_state=0),
        ds.with_sensitive("race"),
    )
    assert single.fitted_.classes is None
    assert single.groups_ == ("a", "b", "c")
    with pytest.raises(InvalidDataError, match="not both"):
        LabelProxy(predictor="tree", weights="qp").fit(ds, S)
    with pytest.raises(InvalidDataError, match="s is missing"):
        LabelProxy(predictor="tree", weights="qp").fit(X)


def test_bad_input_two_classes() -> None:
    X, S = make_two_classes(200)
    with pytest.raises(InvalidDataError, match="absent from the labelled sample"):
        LabelProxy(predictor="tree", weights="qp").fit(
            X, S, groups={"race": ["a", "b", "c", "d"], "sex": ["f", "m"]}
        )
    with pytest.raises(InvalidDataError, match="not listed in groups"):
        LabelProxy(predictor="tree", weights="qp").fit(X, S, groups={"race": ["a", "b"]})
    with pytest.raises(InvalidDataError, match="lacks"):
        LabelProxy(predictor="tree", weights="qp").fit(X, S, groups={"age": ["old"]})
    with pytest.raises(InvalidDataError, match="must map each class"):
        LabelProxy(predictor="tree", weights="qp").fit(X, S, groups=["a", "b", "c"])
    with pytest.raises(InvalidDataError, match="mapping of classes but s is 1-D"):
        LabelProxy(predictor="tree", weights="qp").fit(
            X, S["race"], groups={"race": ["a", "b", "c"]}
        )
    with pytest.raises(InvalidDataError, match=r"class 0 sums to 0\.6"):
        AlphaBetaProxy(target=[0.2, 0.2, 0.2, 0.2, 0.2]).fit(X, S)
    with pytest.raises(InvalidDataError, match="each class summing to 1"):
        AlphaBetaProxy(target=[0.5, 0.5]).fit(X, S)
    with pytest.raises(InvalidDataError, match="sum to 1 within each group class"):
        LabelProxy(predictor="tree", weights="qp", target=[0.4, 0.3, 0.3, 0.6, 0.6]).fit(X, S)
    with pytest.raises(InvalidDataError):
        LabelProxy(predictor="tree", weights="qp").fit(X.iloc[:100], S)


# --- The (alpha, beta)-proxy tree on two classes ----------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("oracle", "relaxed"), [("paired-regression", False), ("stump", True)])
def test_tree_alpha_disclosive_in_sample(seed: int, oracle: str, relaxed: bool) -> None:
    X, S = make_two_classes(300, seed=seed)
    for alpha in (0.0, 0.05, 0.1, 0.2, 0.4, 0.8):
        proxy = _quiet(
            AlphaBetaProxy(alpha=alpha, oracle=oracle, relaxed=relaxed, max_iter=10), X, S
        )
        assert proxy.alpha_ <= alpha + 1e-12
        # Recompute alpha from the expected leaf weights (Definition 10), column by column.
        leaf = proxy.leaf_weights(X)
        member = np.hstack([pd.get_dummies(S[c]).to_numpy(dtype=float) for c in S.columns])
        mass = leaf.sum(axis=0)
        rows = (leaf.T @ member)[mass > 0] / mass[mass > 0, None]
        prior = member.mean(axis=0)
        assert np.abs(rows - prior).max() <= alpha + 1e-9
        assert proxy.beta_ == pytest.approx(
            intersecting_imbalance(S, weights=proxy.admission_probability(X)), abs=1e-9
        )


def test_tree_balances_both_classes() -> None:
    X, S = make_two_classes(600, seed=5)
    low = _quiet(AlphaBetaProxy(alpha=0.05, oracle="stump"), X, S)
    high = _quiet(AlphaBetaProxy(alpha=0.4, oracle="stump"), X, S)
    assert high.beta_ < low.beta_ <= intersecting_imbalance(S) + 1e-12
    assert high.hull_distance_ < 0.1
    assert high.stop_reason_ == "reached"


def test_filter_simulation_matches_in_sample_beta() -> None:
    X, S = make_two_classes(600, seed=6)
    proxy = _quiet(AlphaBetaProxy(alpha=0.3, oracle="stump"), X, S)
    reps = 40
    big_X = pd.concat([X] * reps, ignore_index=True)
    big_S = pd.concat([S] * reps, ignore_index=True)
    out = BalancedFilter(proxy=proxy, random_state=0).fit(big_X, s=big_S)
    row = out.trace_.to_frame().iloc[-1]
    labels = proxy.fitted_.groups
    shares = np.array([row[f"share_admitted_{g}"] for g in labels])
    n_adm = int(out.mask_.sum())
    direct = np.concatenate(
        [pd.get_dummies(big_S[c][out.mask_]).to_numpy(float).mean(axis=0) for c in S.columns]
    )
    np.testing.assert_allclose(shares, direct, atol=1e-12)
    se = np.sqrt(shares * (1 - shares) / n_adm)
    target = proxy.fitted_.target
    assert row["beta_admitted"] == pytest.approx(float(np.linalg.norm(shares - target)))
    assert row["beta_admitted"] == pytest.approx(proxy.beta_, abs=5 * float(np.linalg.norm(se)))
    # Expected shares, not just their distance, match (r_hat * rho) A / (r_hat . rho).
    mass = proxy.proxy_marginal_ * proxy.rho_
    np.testing.assert_array_less(np.abs(shares - mass @ proxy.A_ / mass.sum()), 5 * se + 1e-9)


def test_filter_s_checks() -> None:
    X, S = make_two_classes(200)
    proxy = LabelProxy(predictor="tree", weights="qp", max_depth=3, random_state=0).fit(X, S)
    filt = BalancedFilter(proxy=proxy, random_state=0)
    by_array = filt.fit(X, s=S.to_numpy()).trace_.to_frame()
    by_frame = filt.fit(X, s=S[["sex", "race"]]).trace_.to_frame()
    pd.testing.assert_frame_equal(by_array, by_frame)
    with pytest.raises(InvalidDataError, match="lacks the class column"):
        filt.fit(X, s=S.rename(columns={"sex": "gender"}))
    with pytest.raises(InvalidDataError, match="one column per group"):
        filt.fit(X, s=S["race"])
    with pytest.raises(InvalidDataError, match="was not fitted on"):
        filt.fit(X, s=S.assign(sex="x"))


def test_interpolation_curve_with_classes() -> None:
    X, S = make_two_classes(400, seed=7)
    proxy = LabelProxy(predictor="tree", weights="qp", max_depth=4, random_state=0).fit(X, S)
    curve = interpolation_curve(
        proxy.A_, proxy.proxy_marginal_, proxy.rho_, group_sizes=(3, 2), etas=(0.0, 0.5, 1.0)
    )
    assert curve["alpha"].iloc[0] == pytest.approx(proxy.alpha_)
    assert curve["beta"].iloc[0] == pytest.approx(proxy.beta_)
    assert curve["alpha"].iloc[-1] == pytest.approx(0.0, abs=1e-12)
    assert curve["beta"].iloc[-1] == pytest.approx(intersecting_imbalance(S), abs=1e-12)


@pytest.mark.parametrize(
    "proxy",
    [
        AlphaBetaProxy(alpha=0.3, oracle="stump", max_iter=10),
        LabelProxy(predictor="tree", weights="qp", max_depth=4, random_state=0),
        LabelProxy(target=[0.5, 0.25, 0.25, 0.5, 0.5]),
    ],
    ids=lambda p: type(p).__name__,
)
def test_json_round_trip(proxy: Any, tmp_path: Path) -> None:
    X, S = make_two_classes(437, seed=8)
    _quiet(proxy, X, S)
    loaded = load_proxy(save_proxy(proxy, tmp_path / "proxy.json"))
    assert loaded == proxy.fitted_
    assert loaded.classes == GroupClasses(("race", "sex"), (("a", "b", "c"), ("f", "m")))
    assert loaded.alpha == pytest.approx(proxy.alpha_)
    assert loaded.beta == pytest.approx(proxy.beta_)
    np.testing.assert_array_equal(loaded.admission_probability(X), proxy.admission_probability(X))

    def lengths(obj: Any) -> list[int]:
        if isinstance(obj, list):
            return [len(obj), *(n for item in obj for n in lengths(item))]
        if isinstance(obj, dict):
            return [n for value in obj.values() for n in lengths(value)]
        return []

    assert len(X) not in lengths(proxy_to_dict(proxy))
    broken = proxy_to_dict(proxy)
    broken["classes"]["groups"][1] = ["f", "m", "x"]
    with pytest.raises(CorruptFileError, match="do not match"):
        proxy_from_dict(broken)
    del broken["classes"]["names"]
    with pytest.raises(CorruptFileError, match="incomplete"):
        proxy_from_dict(broken)
    # A disjoint proxy's file has no "classes" entry (unchanged format).
    X1, s1 = make_sample(200)
    assert "classes" not in proxy_to_dict(
        LabelProxy(predictor="tree", weights="qp", max_depth=2, random_state=0).fit(X1, s1)
    )
