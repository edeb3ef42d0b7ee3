"""Paper 001 (Shekhar et al.), §5 tabular experiments: German credit and the Adult ceiling.

- ``aopt-german``: German credit (bundled, 1,000 rows) with four sex x age groups, exact
  logistic regression, Aopt (c0 = 0.1) vs epsilon-greedy (0.1) vs Uniform; worst-group test
  accuracy against the budget. The paper puts its German results in Appendix E, which our
  copy of the paper lacks, so there is no paper number to compare with.
- ``aopt-adult-ceiling``: the acceptance check on Adult with four race x sex groups (Aopt's
  final worst-group accuracy within 1 point of logistic regression's best). It estimates the
  best worst-group test accuracy logistic regression reaches (whole pool, group-reweighted
  pools over a grid of mixtures, each group alone) on the splits of ``fairacq sample`` and
  compares it with exact-mode Aopt at a budget of 2,000 (§5, Fig. 3a:
  "each sampling scheme approaches 80.5% accuracy [...] the maximum accuracy an LR classifier
  can achieve on the white male sub-population in isolation").
"""

from __future__ import annotations

import functools
import itertools
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._trace import Trace
from fairacq.data import FairDataset, load_dataset, standardize
from fairacq.experiments._framework.config import ExperimentConfig
from fairacq.experiments._framework.executor import Executor
from fairacq.experiments._framework.registry import ExperimentSpec, register
from fairacq.experiments._framework.result import ExperimentResult
from fairacq.experiments._framework.verdict import Verdict
from fairacq.experiments.aopt.images import (
    TrialSeeds,
    by_method_of,
    sampler_rows,
    split_by_group,
    trial_seeds,
)
from fairacq.reporting import new_figure, plot_traces
from fairacq.sampling import CallbackOracle, DatasetOracle, make_sampler

__all__ = [
    "ADULT_PAPER_WORST_ACC",
    "CeilingConfig",
    "GermanConfig",
    "PoolResampler",
    "mixture_grid",
    "run_adult_ceiling",
    "run_german",
]

#: Paper 001 §5 (Fig. 3a): every scheme's minimum test accuracy on Adult approaches 80.5%.
ADULT_PAPER_WORST_ACC = 0.805


class PoolResampler:
    """Draw rows of one group of a finite pool *with* replacement (a ``CallbackOracle`` fn).

    German credit has 65 young men in all; a pool drawn without replacement runs dry long
    before any budget worth plotting, so ``aopt-german`` samples the pool's empirical
    distribution of each group instead (the i.i.d. sampling model of paper 001, §2, with the
    pool as the population). Validation and test rows are held out, so no drawn row is
    ever scored.

    Parameters
    ----------
    pool : FairDataset
        The rows to resample.
    """

    def __init__(self, pool: FairDataset) -> None:
        self.X = pool.to_numpy().astype(np.float64)
        self.y = np.asarray(pool.y, dtype=np.int64)
        s = np.asarray(pool.s)
        self.rows = {str(name): np.flatnonzero(s == g) for g, name in enumerate(pool.group_names)}

    def __call__(
        self, group: str, n: int, rng: np.random.Generator
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Return ``n`` rows of ``group`` drawn uniformly with replacement."""
        pick = rng.choice(self.rows[group], size=n, replace=True)
        return self.X[pick].copy(), self.y[pick].copy()


@dataclass(frozen=True)
class GermanConfig(ExperimentConfig):
    """German credit (paper 001, Appendix E, not in our copy): exact LR, four groups.

    Parameters
    ----------
    groups : tuple of str
        Sensitive attributes whose intersections are the groups (the loader offers ``sex``
        and ``age``, split at 25).
    budget : int
        Training samples drawn per trial (with replacement from the pool).
    b0 : int
        Samples per draw.
    c0, epsilon : float
        Aopt's exploration weight (§5: 0.1) and epsilon-greedy's epsilon (0.1).
    test_size, val_size : float
        Shares of each group x label stratum held out for testing and for the fixed
        validation sets D_z; the rest is the pool.
    methods : tuple of str
        Samplers compared.
    """

    QUICK: ClassVar[dict[str, Any]] = {"n_trials": 2, "budget": 150}
    FULL: ClassVar[dict[str, Any]] = {"n_trials": 10, "budget": 500}

    groups: tuple[str, ...] = ("sex", "age")
    budget: int = 500
    b0: int = 1
    c0: float = 0.1
    epsilon: float = 0.1
    test_size: float = 0.3
    val_size: float = 0.2
    methods: tuple[str, ...] = ("aopt", "epsilon-greedy", "uniform")


def _german_split(
    config: GermanConfig, seed: np.random.SeedSequence
) -> tuple[FairDataset, FairDataset, FairDataset]:
    """Pool, validation and test sets, standardised by the pool."""
    data = load_dataset("german").with_sensitive(*config.groups)
    rest, test = split_by_group(data, config.test_size, seed)
    child = np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, 1))
    pool, val = split_by_group(rest, config.val_size / (1 - config.test_size), child)
    return (
        standardize(pool),
        standardize(val, reference=pool),
        standardize(test, reference=pool),
    )


def _german_task(config: GermanConfig, seeds: TrialSeeds, task: tuple[str, int]) -> Trace:
    method, trial = task
    split_seed, run_seed = seeds[trial]
    pool, val, test = _german_split(config, split_seed)
    sizes = pool.group_sizes()
    oracle = CallbackOracle(
        PoolResampler(pool), [str(g) for g in pool.group_names], proportions=sizes / sizes.sum()
    )
    sampler = make_sampler(
        method,
        budget=config.budget,
        b0=config.b0,
        c0=config.c0,
        epsilon=config.epsilon,
        random_state=run_seed,
    )
    trace: Trace = sampler.run(oracle, validation=val, test=test)
    return trace


def run_german(config: GermanConfig, executor: Executor) -> ExperimentResult:
    """Run every sampler on every trial; report worst-group accuracy against the budget."""
    seeds = trial_seeds(config.seed, config.n_trials)
    tasks = [(m, t) for m in config.methods for t in range(config.n_trials)]
    traces = executor.map(functools.partial(_german_task, config, seeds), tasks)
    by_method = by_method_of(config.methods, config.n_trials, traces)
    groups = [str(g) for g in load_dataset("german").with_sensitive(*config.groups).group_names]
    result = ExperimentResult(
        experiment="aopt-german",
        preset=config.preset,
        title="German credit, sex x age groups, exact LR: Aopt vs epsilon-greedy vs Uniform",
        config=config.to_dict(),
        traces=by_method,
    )
    checkpoints = [config.budget / 5, config.budget / 2, float(config.budget)]
    result.rows += sampler_rows("german", by_method, groups, checkpoints)
    fig = new_figure(11.0, 4.0)
    left, right = fig.subplots(1, 2)
    plot_traces(
        by_method,
        "test_worst_acc",
        ax=left,
        xlabel="training samples drawn",
        ylabel="worst-group accuracy (test)",
        title="German credit, sex x age",
    )
    if "aopt" in by_method:
        for i, g in enumerate(groups):
            plot_traces(
                {g: by_method["aopt"]},
                f"pi_{g}",
                ax=right,
                xlabel="training samples drawn",
                ylabel="pi_t(z)",
                title="Aopt's mixture",
                first_colour=i,
            )
    result.figures["aopt-german"] = fig
    marks = [int(c) for c in checkpoints]
    curve = {
        m: " / ".join(f"{result.value(method=m, metric=f'test_worst_acc@{c}'):.3f}" for c in marks)
        for m in by_method
    }
    result.notes.append(
        "Paper 001 §5 says the German results are in Appendix E, which our copy of the paper "
        "lacks: no paper number to compare with. Ours, worst-group test accuracy after "
        + " / ".join(str(c) for c in marks)
        + " training samples: "
        + "; ".join(f"{m} {v}" for m, v in curve.items())
        + "."
    )
    pool, _, _ = _german_split(config, seeds[0][0])
    pool_rows = dict(zip(groups, pool.group_sizes().tolist(), strict=True))
    result.notes.append(
        f"Set-up: groups {' x '.join(config.groups)}; per trial a stratified split into "
        f"{config.test_size:.0%} test, {config.val_size:.0%} fixed validation sets D_z and the "
        "rest as the pool, which is resampled with replacement "
        "(fairacq.experiments.aopt.tabular.PoolResampler) because without replacement the "
        "smallest groups run dry within a few dozen draws. Pool rows per group (first trial): "
        + ", ".join(f"{g} {n}" for g, n in pool_rows.items())
        + ". Each round draws b0 training samples only; groups with 20-70 test rows move in "
        "steps of 1.5-5 points of test accuracy."
    )
    if "aopt" in by_method and "uniform" in by_method:
        pis = {g: result.value(method="aopt", metric=f"pi_{g}") for g in groups}
        aopt_end = result.value(method="aopt", metric=f"test_worst_acc@{marks[-1]}")
        uni_end = result.value(method="uniform", metric=f"test_worst_acc@{marks[-1]}")
        result.notes.append(
            "Aopt's final mixture: "
            + ", ".join(f"{g} {p:.2f}" for g, p in pis.items())
            + f". Its final worst-group accuracy is {aopt_end:.3f} against Uniform's "
            f"{uni_end:.3f}. Once a group has had more draws than it has pool rows, further "
            "draws repeat rows: they re-weight the group rather than add information, so "
            "concentrating the budget on small hard groups cannot lift them the way fresh "
            "samples lift White men on Adult."
        )
    return result


@dataclass(frozen=True)
class CeilingConfig(ExperimentConfig):
    """The LR ceiling of the worst group on Adult (race x sex) beside Aopt at budget 2,000.

    Parameters
    ----------
    groups : tuple of str
        Sensitive attributes of the four groups (§5: white/non-white x male/female).
    test_size : float
        Held-out share, stratified by group and label (as ``fairacq sample``).
    grid_step : float
        Step of the grid of group mixtures on the simplex (0.25: 35 mixtures).
    aopt_budget : int
        Aopt's budget (2,000, as in ``docs/results/sample-adult-aopt``).
    c0 : float
        Aopt's exploration weight (0.1).
    n_draws : int
        Training sets of ``aopt_budget / 2`` rows (Aopt's training-set size) drawn at the
        best mixture, to give the ceiling at Aopt's sample size.
    max_pool : int or None
        Subsample the pool to this many rows (quick preset only); None keeps it whole.
    """

    QUICK: ClassVar[dict[str, Any]] = {
        "n_trials": 1,
        "grid_step": 0.5,
        "aopt_budget": 300,
        "max_pool": 3000,
    }
    FULL: ClassVar[dict[str, Any]] = {"n_trials": 10, "grid_step": 0.25, "aopt_budget": 2000}

    groups: tuple[str, ...] = ("race_binary", "sex")
    test_size: float = 0.3
    grid_step: float = 0.25
    aopt_budget: int = 2000
    c0: float = 0.1
    n_draws: int = 5
    max_pool: int | None = None


def mixture_grid(n_groups: int, step: float) -> NDArray[np.float64]:
    """Every mixture on the simplex whose shares are multiples of ``step``.

    Examples
    --------
    >>> mixture_grid(3, 0.5)
    array([[0. , 0. , 1. ],
           [0. , 0.5, 0.5],
           [0. , 1. , 0. ],
           [0.5, 0. , 0.5],
           [0.5, 0.5, 0. ],
           [1. , 0. , 0. ]])
    """
    k = round(1.0 / step)
    points = [
        c
        for c in itertools.product(range(k + 1), repeat=n_groups - 1)
        if sum(c) <= k  # the last share takes the rest
    ]
    grid = np.array([[*c, k - sum(c)] for c in points], dtype=np.float64) / k
    return grid


def _group_accuracy(clf: Any, X: NDArray[np.float64], y: NDArray[Any], s: NDArray[Any]) -> Any:
    pred = clf.predict(X)
    return np.array([np.mean(pred[s == g] == y[s == g]) for g in range(int(s.max()) + 1)])


def _worst_at_size(
    train: tuple[NDArray[np.float64], NDArray[Any], NDArray[Any]],
    test: tuple[NDArray[np.float64], NDArray[Any], NDArray[Any]],
    mixture: NDArray[np.float64],
    n: int,
    n_draws: int,
    seed: np.random.SeedSequence,
) -> float:
    """Mean worst-group test accuracy of LR fitted on ``n`` pool rows drawn at ``mixture``."""
    from sklearn.linear_model import LogisticRegression

    X, y, s = train
    rng = np.random.default_rng(seed)
    want = np.floor(mixture * n).astype(int)
    want[np.argmax(mixture)] += n - int(want.sum())
    values = []
    for _ in range(n_draws):
        rows = np.concatenate(
            [
                rng.choice(np.flatnonzero(s == g), min(k, int(np.sum(s == g))), replace=False)
                for g, k in enumerate(want)
                if k > 0
            ]
        )
        if len(np.unique(y[rows])) < 2:
            continue
        clf = LogisticRegression(max_iter=1000).fit(X[rows], y[rows])
        values.append(float(np.min(_group_accuracy(clf, *test))))
    return float(np.mean(values)) if values else float("nan")


def _ceiling_task(config: CeilingConfig, seeds: TrialSeeds, trial: int) -> dict[str, Any]:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    split_seed, run_seed = seeds[trial]
    data = load_dataset("adult").with_sensitive(*config.groups)
    pool, test = split_by_group(data, config.test_size, split_seed)
    if config.max_pool is not None and len(pool) > config.max_pool:
        keep = np.random.default_rng(run_seed).choice(len(pool), config.max_pool, replace=False)
        pool = pool.subset(np.sort(keep))
    test = standardize(test, reference=pool)
    pool = standardize(pool)
    X, y, s = pool.to_numpy().astype(np.float64), np.asarray(pool.y), np.asarray(pool.s)
    Xt, yt, st = test.to_numpy().astype(np.float64), np.asarray(test.y), np.asarray(test.s)
    m = pool.n_groups
    counts = np.bincount(s, minlength=m).astype(np.float64)
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        out["pool"] = _group_accuracy(LogisticRegression(max_iter=1000).fit(X, y), Xt, yt, st)
        grid = mixture_grid(m, config.grid_step)
        clf = LogisticRegression(max_iter=1000, warm_start=True)
        accs = []
        for w in grid:
            weight = np.where(counts[s] > 0, w[s] / np.maximum(counts[s], 1), 0.0) * len(s)
            used = weight > 0
            if len(np.unique(y[used])) < 2:
                accs.append(np.full(m, np.nan))
                continue
            clf.fit(X[used], y[used], sample_weight=weight[used])
            accs.append(_group_accuracy(clf, Xt, yt, st))
        out["grid"] = grid
        out["grid_acc"] = np.array(accs)
        best = grid[int(np.nanargmax(np.nanmin(out["grid_acc"], axis=1)))]
        child = np.random.SeedSequence(run_seed.entropy, spawn_key=(*run_seed.spawn_key, 7))
        out["best_at_n"] = _worst_at_size(
            (X, y, s), (Xt, yt, st), best, config.aopt_budget // 2, config.n_draws, child
        )
        alone = np.full(m, np.nan)
        for g in range(m):
            rows = s == g
            if len(np.unique(y[rows])) == 2:
                model = LogisticRegression(max_iter=1000).fit(X[rows], y[rows])
                alone[g] = float(np.mean(model.predict(Xt[st == g]) == yt[st == g]))
        out["alone"] = alone
    sampler = make_sampler(
        "aopt", budget=config.aopt_budget, c0=config.c0, epsilon=0.1, random_state=run_seed
    )
    out["aopt"] = sampler.run(DatasetOracle(pool), test=test)
    return out


def run_adult_ceiling(config: CeilingConfig, executor: Executor) -> ExperimentResult:
    """Estimate LR's best worst-group accuracy on Adult and compare Aopt's final value."""
    seeds = trial_seeds(config.seed, config.n_trials)
    outs = executor.map(
        functools.partial(_ceiling_task, config, seeds), list(range(config.n_trials))
    )
    names = [str(g) for g in load_dataset("adult").with_sensitive(*config.groups).group_names]
    pool_acc = np.array([o["pool"] for o in outs])
    hardest = int(np.argmin(pool_acc.mean(axis=0)))
    grid = outs[0]["grid"]
    grid_worst = np.array([np.nanmin(o["grid_acc"], axis=1) for o in outs])  # trial x mixture
    best_per_trial = np.nanmax(grid_worst, axis=1)
    best_fixed = int(np.nanargmax(np.nanmean(grid_worst, axis=0)))
    alone = np.array([o["alone"] for o in outs])
    aopt_traces: list[Trace] = [o["aopt"] for o in outs]
    aopt_final = np.array([t.final("test_worst_acc") for t in aopt_traces], dtype=float)
    ceiling = float(best_per_trial.mean())
    gap = ceiling - float(aopt_final.mean())
    result = ExperimentResult(
        experiment="aopt-adult-ceiling",
        preset=config.preset,
        title="Adult: the LR ceiling of the worst group beside Aopt at budget 2,000",
        config=config.to_dict(),
        traces={"aopt": aopt_traces},
    )

    def row(metric: str, values: NDArray[np.float64], paper: float | None = None) -> None:
        result.rows.append(
            {
                "dataset": "adult",
                "method": metric.split(":")[0],
                "metric": metric.split(":")[1],
                "value": float(np.mean(values)),
                "std": float(np.std(values)),
                "paper_value": paper,
            }
        )

    row("lr-pool:worst_group_acc", pool_acc.min(axis=1))
    row(f"lr-pool:acc_{names[hardest]}", pool_acc[:, hardest])
    row("lr-mixture-grid:best_worst_group_acc", best_per_trial)
    row(
        "lr-mixture-grid:worst_group_acc_at_best_mean_mixture",
        grid_worst[:, best_fixed],
    )
    at_n = np.array([o["best_at_n"] for o in outs], dtype=float)
    row(f"lr-best-mixture-n{config.aopt_budget // 2}:worst_group_acc", at_n)
    row(f"lr-alone:acc_{names[hardest]}", alone[:, hardest], ADULT_PAPER_WORST_ACC)
    row("aopt:final_test_worst_acc", aopt_final, ADULT_PAPER_WORST_ACC)
    result.rows.append(
        {
            "dataset": "adult",
            "method": "aopt",
            "metric": "gap_to_ceiling",
            "value": gap,
            "std": None,
            "paper_value": None,
        }
    )
    result.rows.append(
        {
            "dataset": "adult",
            "method": "aopt",
            "metric": "within_1_point_of_ceiling",
            "value": float(gap <= 0.01),
            "std": None,
            "paper_value": None,
        }
    )
    for g, name in enumerate(names):
        if g != hardest:
            row(f"lr-alone:acc_{name}", alone[:, g])

    fig = new_figure(11.0, 4.0)
    left, right = fig.subplots(1, 2)
    plot_traces(
        {"aopt": aopt_traces},
        "test_worst_acc",
        ax=left,
        reference=ceiling,
        reference_label=f"LR ceiling (mixture grid) {ceiling:.3f}",
        xlabel="samples drawn",
        ylabel="worst-group accuracy (test)",
        title="Aopt on Adult against the LR ceiling",
    )
    left.axhline(ADULT_PAPER_WORST_ACC, color="0.55", linestyle=":", label="paper 0.805")
    left.legend(frameon=False)
    order = np.argsort(grid[:, hardest])
    right.plot(grid[order, hardest], np.nanmean(grid_worst, axis=0)[order], "o", ms=4)
    right.set_xlabel(f"share of {names[hardest]} in the weighted pool")
    right.set_ylabel("worst-group accuracy (test), mean over trials")
    right.set_title(f"{len(grid)} group mixtures")
    right.grid(True, alpha=0.3)
    result.figures["aopt-adult-ceiling"] = fig

    result.verdicts.append(
        Verdict.check(
            "gap between Aopt's final worst-group test accuracy and the LR ceiling",
            gap,
            "<=",
            0.01,
            detail=f"Aopt {aopt_final.mean():.3f} against the ceiling {ceiling:.3f}.",
        )
    )
    result.notes.append(
        f"Aopt's final worst-group test accuracy ({aopt_final.mean():.3f}, budget "
        f"{config.aopt_budget}, {config.n_trials} trial(s)) is {gap * 100:.1f} points below "
        f"the best worst-group accuracy LR reaches ({ceiling:.3f}: per split the best of "
        f"{len(grid)} group-reweighted pools, chosen on the test set, so slightly "
        f"optimistic). The hardest group is "
        f"{names[hardest]}: LR on the whole pool scores {pool_acc[:, hardest].mean():.3f} "
        f"on it, LR trained on it alone {alone[:, hardest].mean():.3f}. At Aopt's own "
        f"training-set size ({config.aopt_budget // 2} rows; the other half of the budget "
        f"goes to validation), LR fitted on rows drawn at the best mixture reaches "
        f"{np.nanmean(at_n):.3f} (mean of {config.n_draws} draws per split)"
        + (
            ": most of the gap is the sample size, not the allocation."
            if abs(np.nanmean(at_n) - aopt_final.mean()) < gap / 2
            else "."
        )
    )
    result.notes.append(
        "Paper 001 §5 (Fig. 3a): every scheme approaches 80.5%, 'the maximum accuracy an LR "
        "classifier can achieve on the white male sub-population in isolation'. Splits and "
        "seeds are those of `fairacq sample --dataset adult --groups race_binary,sex "
        "--budget 2000 --trials 10 --seed 0` (70/30 stratified, standardised on the pool)."
    )
    if config.max_pool is not None:
        result.notes.append(
            f"Quick preset: the pool is subsampled to {config.max_pool} rows; not a ceiling."
        )
    return result


register(
    ExperimentSpec(
        name="aopt-german",
        family="sampling",
        paper="001 App. E (German; not in our copy)",
        title="German credit, sex x age, exact LR: Aopt vs epsilon-greedy vs Uniform",
        config_cls=GermanConfig,
        run=run_german,  # type: ignore[arg-type]
    )
)
register(
    ExperimentSpec(
        name="aopt-adult-ceiling",
        family="sampling",
        paper="001 Fig. 3a (acceptance check)",
        title="Adult: best worst-group accuracy of LR beside Aopt's at budget 2,000",
        config_cls=CeilingConfig,
        run=run_adult_ceiling,  # type: ignore[arg-type]
    )
)
