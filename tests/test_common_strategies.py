"""The common checks (tests/checks.py) on every public strategy class.

``SPECS`` is the table: for each public :class:`~fairacq._base.Strategy` subclass, how to
build a small instance and run it on tiny data, what it decides, and which checks apply.
The meta-tests fail when a public strategy has no row (so none ships unchecked) or when a row
names a class that is not public. Test ids read ``ClassName-check_name``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq._base import Strategy
from fairacq.acquisition import (
    Acquirer,
    AutoDataAcquirer,
    DataSiftAcquirer,
    DataSiftInfAcquirer,
    EntropyAcquirer,
    FALAcquirer,
    FalconAcquirer,
    InfAcquirer,
    PostThresholdAcquirer,
    RandomAcquirer,
    ThresholdAwareAcquirer,
)
from fairacq.data import FairDataset, load_toy
from fairacq.data.synthetic import SyntheticModel1
from fairacq.features import DADI
from fairacq.filtering import (
    AlphaBetaProxy,
    BalancedFilter,
    FittedProxy,
    LabelProxy,
    load_proxy,
    save_proxy,
)
from fairacq.models import predict_scores
from fairacq.relational import FairA3SL, RelationalData
from fairacq.sampling import (
    AbernethyGreedySampler,
    AoptPlusSampler,
    AoptSampler,
    EpsilonGreedySampler,
    GeneratorOracle,
    GreedySampler,
    GroupSampler,
    MinimaxFairSampler,
    SliceTunerSampler,
    UncuratedSampler,
    UniformSampler,
)
from fairacq.valuation import InfluenceRegressor
from tests.checks import Check, Spec, public_strategies, yield_checks

#: Public base classes that are not strategies of their own (no method to run): each
#: concrete subclass has a row instead.
BASES: dict[type[Strategy], str] = {
    # The pool-based acquisition loop; `_propose` is left to the subclasses.
    Acquirer: "base of the acquirers",
    # The group-sampling loop; `_choose` is left to the subclasses.
    GroupSampler: "base of the samplers",
}


# -- acquisition: pool-based acquirers ----------------------------------------------------
@cache
def _acquisition_data() -> tuple[FairDataset, FairDataset, FairDataset]:
    ds = load_toy(600, random_state=3)
    return ds.subset(range(60)), ds.subset(range(60, 160)), ds.subset(range(160, 600))


def _run_acquirer(strategy: Any, **resume: Any) -> Any:
    train, val, pool = _acquisition_data()
    return strategy.fit(train, pool, validation=val, **resume)


def _acquirer_decisions(strategy: Any, output: Any) -> dict[str, Any]:
    val = _acquisition_data()[1]
    return {
        "acquired": strategy.acquired_,
        "stop_reason": strategy.stop_reason_,
        "n_evaluations": strategy.n_evaluations_,
        "scores": predict_scores(strategy.model_, val.to_numpy()),
    }


def _acquirer(cls: type[Acquirer], *, random: bool = True, **kw: Any) -> Spec:
    def make() -> Strategy:
        # DataSift's rejected batches cost no budget: max_evaluations bounds its runs.
        return cls(budget=70, batch_size=10, tau=0.0, max_evaluations=8, random_state=0, **kw)

    return Spec(
        cls=cls,
        make=make,
        run=_run_acquirer,
        decisions=_acquirer_decisions,
        random=random,
        # Step 0 (the initial model) is a row too: callbacks first see 2 rows.
        resume_steps=(2, 3, 5),
    )


# -- sampling: group samplers -------------------------------------------------------------
def _run_sampler(strategy: Any, **resume: Any) -> Any:
    return strategy.fit(GeneratorOracle(SyntheticModel1()), **resume)


def _sampler_decisions(strategy: Any, output: Any) -> dict[str, Any]:
    return {
        "groups": strategy.trace_.to_frame()["group"].tolist(),
        "allocation": strategy.allocation_,
        "n_rounds": strategy.n_rounds_,
    }


def _sampler(cls: type[GroupSampler], *, seed_changes_decisions: bool = True) -> Spec:
    def make() -> Strategy:
        return cls(budget=20, random_state=0)

    return Spec(
        cls=cls,
        make=make,
        run=_run_sampler,
        decisions=_sampler_decisions,
        seed_changes_decisions=seed_changes_decisions,
    )


# -- features: DADI -----------------------------------------------------------------------
@cache
def _dadi_data() -> FairDataset:
    return load_toy(n=120)


def _run_dadi(strategy: Any, **resume: Any) -> Any:
    return strategy.fit(_dadi_data(), **resume)


def _dadi_predictions(model: Any) -> dict[str, Any]:
    X = _dadi_data().X
    return {
        "agent": model.agent_.state_dict(),
        "adversary": model.adversary_.state_dict(),
        "mask": model.acquisition_mask(X),
        "proba": model.predict_proba(X),
    }


def _dadi_decisions(strategy: Any, output: Any) -> dict[str, Any]:
    return {**_dadi_predictions(strategy), "trace": strategy.trace_.to_frame()}


def _dadi_save_load(model: Any, folder: Path) -> Any:
    model.save(folder)
    return DADI.load(folder)


DADI_SPEC = Spec(
    cls=DADI,
    make=lambda: DADI(
        n_pretrain_iter=4,
        n_train_iter=7,
        n_parallel=4,
        batch_size=8,
        epsilon_decay_iter=4,
        target_update=2,
        random_state=0,
    ),
    run=_run_dadi,
    decisions=_dadi_decisions,
    save_load=_dadi_save_load,
    predict=_dadi_predictions,
)


# -- filtering: proxies and the balanced filter -------------------------------------------
@cache
def _proxy_data() -> tuple[pd.DataFrame, np.ndarray]:
    """Three groups; column ``b`` copies ``a``, so a tree's seed picks which one it splits."""
    rng = np.random.default_rng(0)
    s = rng.integers(0, 3, 300)
    a = s + rng.normal(size=300)
    return pd.DataFrame({"a": a, "b": a.copy(), "c": rng.normal(size=300)}), s


def _run_proxy(strategy: Any, **resume: Any) -> Any:
    return strategy.fit(*_proxy_data(), **resume)


def _proxy_predictions(model: Any) -> dict[str, Any]:
    X = _proxy_data()[0]
    fitted = getattr(model, "fitted_", model)
    assert isinstance(fitted, FittedProxy)
    return {
        "fitted": fitted,
        "admission": model.admission_probability(X),
        "values": fitted.proxy_values(X, random_state=0),
    }


def _proxy_decisions(strategy: Any, output: Any) -> dict[str, Any]:
    fitted = strategy.fitted_  # its `info` records the parameters, the seed too: left out
    arrays = {name: getattr(fitted, name) for name in ("A", "proxy_marginal", "rho", "target")}
    return {**_proxy_predictions(strategy), "fitted": fitted.rule.to_dict(), **arrays}


def _proxy_save_load(model: Any, folder: Path) -> Any:
    return load_proxy(save_proxy(model, folder / "proxy.json"))


def _proxy(
    cls: type[Strategy],
    *,
    random: bool,
    seed: int | None = None,
    resume_steps: tuple[int, ...] = (),
    xfail: dict[str, str] | None = None,
    **kw: Any,
) -> Spec:
    seeded = {} if seed is None else {"random_state": seed}
    return Spec(
        xfail=xfail or {},
        cls=cls,
        make=lambda: cls(**kw, **seeded),
        run=_run_proxy,
        decisions=_proxy_decisions,
        random=random,
        # Without resume steps the proxy is fitted in one go: one trace row, nothing to
        # interrupt and resume.
        stepwise=bool(resume_steps),
        resume_steps=resume_steps,
        save_load=_proxy_save_load,
        predict=_proxy_predictions,
    )


@cache
def _filter_proxy() -> FittedProxy:
    proxy = LabelProxy(predictor="tree", weights="qp", max_depth=3, random_state=0)
    fitted = proxy.fit(*_proxy_data()).fitted_
    assert isinstance(fitted, FittedProxy)
    return fitted


def _run_filter(strategy: Any, **resume: Any) -> Any:
    X, s = _proxy_data()
    return strategy.fit(X, s=s, **resume)


def _filter_decisions(strategy: Any, output: Any) -> dict[str, Any]:
    return {"mask": strategy.mask_, "admitted": list(strategy.admitted_.index)}


FILTER_SPEC = Spec(
    cls=BalancedFilter,
    # A FittedProxy (what load_proxy gives), so that clone keeps it fitted. Six chunks of
    # 50 rows: six steps to interrupt and resume (tests/filtering/test_filter.py runs the
    # same checks on filter_stream).
    make=lambda: BalancedFilter(proxy=_filter_proxy(), chunk_size=50, random_state=0),
    run=_run_filter,
    decisions=_filter_decisions,
)


# -- relational: Fair-A3SL ----------------------------------------------------------------
@cache
def _relational_data() -> RelationalData:
    """Recidivism driven by priors; the protected group (race) has more priors."""
    rng = np.random.default_rng(0)
    n = 30
    users = [f"u{i}" for i in range(n)]
    race = (np.arange(n) < n // 2).astype(float)
    priors = (rng.random(n) < 0.3 + 0.4 * race).astype(float)
    old = (rng.random(n) < 0.5).astype(float)
    recid = ((priors + 0.3 * (1 - old) + 0.2 * rng.random(n)) > 0.6).astype(float)
    frame = pd.DataFrame({"user": users})
    return RelationalData(
        observations={
            "priors": frame.assign(value=priors),
            "oldAge": frame.assign(value=old),
            "race": frame.assign(value=race),
        },
        targets={"recidivism": frame},
        truth={"recidivism": frame.assign(value=recid)},
        protected=frame[race == 1].reset_index(drop=True),
        unprotected=frame[race == 0].reset_index(drop=True),
        metadata={"fairness_predicate": "recidivism", "favourable": 0},
    )


def _run_a3sl(strategy: Any, **resume: Any) -> Any:
    return strategy.fit(_relational_data(), **resume)


def _a3sl_decisions(strategy: Any, output: Any) -> dict[str, Any]:
    cols = ["episode", "env", "update", "reward", "n_clauses", "clauses"]  # not "seconds"
    return {
        "rules": strategy.best_rules_,
        "reward": strategy.best_reward_,
        "trace": strategy.trace_.to_frame(),
        "episodes": strategy.agent_.history()[cols],
        "agent": strategy.agent_.net.state_dict(),
    }


A3SL_SPEC = Spec(
    cls=FairA3SL,
    make=lambda: FairA3SL(
        n_episodes=12,
        max_literals=2,
        max_clauses=1,
        weight_learning={"n_iter": 5},
        agent_options={"n_envs": 2, "t_max": 2},
        random_state=5,
    ),
    run=_run_a3sl,
    decisions=_a3sl_decisions,
    # FairA3SL has no save/load of its own: its checkpoint folder is the resume mechanism.
)


# -- valuation: the influence regressor ---------------------------------------------------
@cache
def _regression_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(np.int64)
    return X, X @ np.array([0.5, -1.0, 0.2]) + 0.1 * rng.normal(size=40), y


def _run_regressor(strategy: Any, **resume: Any) -> Any:
    return strategy.fit(*_regression_data(), **resume)


def _regressor_decisions(strategy: Any, output: Any) -> dict[str, Any]:
    X, _, y = _regression_data()
    return {
        "coef": strategy.coef_,
        "intercept": strategy.intercept_,
        "pred": strategy.predict(X, y),
    }


REGRESSOR_SPEC = Spec(
    cls=InfluenceRegressor,
    make=lambda: InfluenceRegressor(alpha=0.5),
    run=_run_regressor,
    decisions=_regressor_decisions,
    # Ridge regression in closed form: no random_state, nothing random; one trace row and
    # nothing to interrupt and resume.
    random=False,
    stepwise=False,
)


SPECS: dict[type[Strategy], Spec] = {
    spec.cls: spec
    for spec in [
        _acquirer(RandomAcquirer),
        # The decision tree learner is seeded: with "lr" (lbfgs) entropy ranks deterministically.
        _acquirer(EntropyAcquirer, learner="decision_tree"),
        # Influence needs a differentiable learner; with "lr" the fits and the influence
        # order are deterministic (ties broken by position), so the seed changes nothing.
        _acquirer(InfAcquirer, random=False),
        _acquirer(DataSiftAcquirer, n_partitions=3),
        # Thompson sampling draws; the default UCB with influence-sorted batches does not.
        _acquirer(DataSiftInfAcquirer, n_partitions=3, policy="thompson"),
        _acquirer(AutoDataAcquirer, n_partitions=3),
        # Both round kinds (lam < 1) and a short warm-up, so the bandit's weights move and
        # its state must survive a resume; coins and arm draws are seeded.
        _acquirer(FalconAcquirer, lam=0.7, warmup=20),
        # Random candidates: with "lr" the entropy candidates would not depend on the seed.
        _acquirer(FALAcquirer, n_candidates=4, candidates="random"),
        # Random rows and randomised threshold predictions, both seeded; a tolerance > 0.
        _acquirer(PostThresholdAcquirer, tol=0.05),
        # Rows closest to their group's threshold: with "lr" only exact ties are random, so
        # the seeded decision tree makes the seed matter.
        _acquirer(ThresholdAwareAcquirer, learner="decision_tree", tol=0.05),
        _sampler(AoptSampler),
        _sampler(AoptPlusSampler),
        _sampler(EpsilonGreedySampler),
        # Greedy follows the largest validation loss: here group u whatever rows are drawn
        # (the seed changes the rows and the losses, which check_other_seed_other_trace sees).
        _sampler(GreedySampler, seed_changes_decisions=False),
        # Uniform visits the groups in turn: only the rows drawn depend on the seed.
        _sampler(UniformSampler, seed_changes_decisions=False),
        _sampler(UncuratedSampler),
        # Slice Tuner: an initial uniform phase, then plans from learning curves (kept in the
        # checkpoint); MinimaxFair: the regulator's weights; Abernethy: population draws.
        _sampler(SliceTunerSampler),
        _sampler(MinimaxFairSampler),
        _sampler(AbernethyGreedySampler),
        DADI_SPEC,
        FILTER_SPEC,
        # The tree with Algorithm 1's weights: the seed breaks ties between equally good
        # splits (columns a and b are equal). The other three combinations are checked in
        # tests/filtering/test_proxies.py.
        _proxy(
            LabelProxy,
            random=True,
            predictor="tree",
            weights="qp",
            max_depth=3,
            seed=0,
            # The seed only swaps the equal columns a and b in the splits: the fit's trace
            # row (rows, alpha, beta, acceptance, features read) stays the same.
            xfail={"check_other_seed_other_trace": "equal columns give the same fit row"},
        ),
        # No random_state: the Lagrangian game and its oracles are deterministic (the leaf
        # draws of the randomized tree take their seed in proxy_values). A small alpha and
        # gamma: four splits before the target is reached, each a step to resume after.
        _proxy(
            AlphaBetaProxy,
            random=False,
            resume_steps=(1, 2, 3),
            alpha=0.1,
            gamma=0.01,
            max_depth=6,
            max_iter=5,
            tol=0.005,
        ),
        A3SL_SPEC,
        REGRESSOR_SPEC,
    ]
}


def _cases() -> list[Any]:
    cases = []
    for cls, spec in SPECS.items():
        for check_id, check, kwargs in yield_checks(spec):
            reason = spec.xfail_reason(check_id)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(
                pytest.param(spec, check, kwargs, id=f"{cls.__name__}-{check_id}", marks=marks)
            )
    return cases


@pytest.mark.parametrize(("spec", "check", "kwargs"), _cases())
def test_common(spec: Spec, check: Check, kwargs: dict[str, Any], tmp_path: Path) -> None:
    check(spec, tmp_path, **kwargs)


# -- meta-tests: the table covers exactly the public strategies ---------------------------
def test_every_public_strategy_has_a_row() -> None:
    public = public_strategies()
    missing = sorted(path for cls, path in public.items() if cls not in SPECS and cls not in BASES)
    assert not missing, f"public strategies without a row in SPECS (add one): {missing}"


def test_every_row_names_a_public_strategy() -> None:
    public = public_strategies()
    stale = sorted(c.__name__ for c in [*SPECS, *BASES] if c not in public)
    assert not stale, f"SPECS/BASES name classes that no public module exports: {stale}"
    assert not set(SPECS) & set(BASES), "a class is both a row and a skipped base"


def test_rows_build_their_own_class() -> None:
    for cls, spec in SPECS.items():
        assert type(spec.make()) is cls, f"the row of {cls.__name__} builds another class"


def test_xfail_marks_name_checks_that_run() -> None:
    for cls, spec in SPECS.items():
        ids = {check_id for check_id, _, _ in yield_checks(spec)}
        bases = {check_id.split("-")[0] for check_id in ids}
        stale = sorted(set(spec.xfail) - ids - bases)
        assert not stale, f"{cls.__name__}: xfail names checks that do not run: {stale}"


def test_one_verb_for_every_strategy() -> None:
    public = public_strategies()
    kept = sorted(cls.__name__ for cls in public if hasattr(cls, "run"))
    assert not kept, f"strategies with a run method (the verb is fit): {kept}"
    missing = sorted(cls.__name__ for cls in public if not callable(getattr(cls, "fit", None)))
    assert not missing, f"public strategies without fit: {missing}"
    others = sorted(cls.__name__ for cls, spec in SPECS.items() if spec.verb != "fit")
    assert not others, f"rows checked through another verb: {others}"
    extra = sorted(cls.__name__ for cls in public if hasattr(cls, "filter"))
    assert not extra, f"strategies with a filter method (the verb is fit): {extra}"


#: Strategies fitted in one go: their ``fit`` has no steps, so nothing to interrupt and
#: resume. It still sets ``trace_`` (one row) and takes ``callbacks`` (called once, after the
#: fit) and ``continue_from`` (refused with one line): check_one_shot_fit checks that.
ONE_SHOT = {"InfluenceRegressor", "LabelProxy"}


def test_only_the_one_shot_fits_skip_the_resume_checks() -> None:
    untraced = sorted(cls.__name__ for cls, spec in SPECS.items() if not spec.trace)
    assert not untraced, f"rows without the trace checks: {untraced}"
    skipped = {cls.__name__ for cls, spec in SPECS.items() if not spec.stepwise}
    assert skipped == ONE_SHOT, f"rows without the resume checks: {sorted(skipped)}"
    for cls, spec in SPECS.items():
        ids = {check_id for check_id, _, _ in yield_checks(spec)}
        assert {"check_trace_after_verb", "check_verb_resumes"} <= ids, cls.__name__
        resumes = any(i.startswith("check_resume_equals_uninterrupted") for i in ids)
        one_shot = "check_one_shot_fit" in ids
        assert (resumes, one_shot) == (cls.__name__ not in ONE_SHOT, cls.__name__ in ONE_SHOT)
