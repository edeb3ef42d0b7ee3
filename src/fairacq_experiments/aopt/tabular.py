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

from fairacq._random import child
from fairacq._trace import Trace
from fairacq.data import FairDataset, load_dataset, standardize
from fairacq.parallel import Executor
from fairacq.reporting import new_figure, plot_traces
from fairacq.sampling import CallbackOracle, DatasetOracle, make_sampler
from fairacq_experiments._framework.config import ExperimentConfig
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult, mean_std_row
from fairacq_experiments._framework.verdict import Verdict
from fairacq_experiments.aopt.images import (
    TrialSeeds,
    plot_per_group,
    run_sampler_trials,
    sampler_rows,
    shared_sampler,
    split_by_group,
    trial_seeds,
)

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
    pool, val = split_by_group(rest, config.val_size / (1 - config.test_size), child(seed, 1))
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
    sampler = shared_sampler(
        method,
        budget=config.budget,
        b0=config.b0,
        c0=config.c0,
        epsilon=config.epsilon,
        random_state=run_seed,
    )
    trace: Trace = sampler.fit(oracle, validation=val, test=test).trace_
    return trace


def run_german(config: GermanConfig, executor: Executor) -> ExperimentResult:
    """Run every sampler on every trial; report worst-group accuracy against the budget."""
    by_method = run_sampler_trials(config, executor, _german_task)
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
    result.figures["aopt-german"] = _german_figure(by_method, groups)
    marks = [int(c) for c in checkpoints]
    result.notes += _german_notes(config, result, groups, marks)
    return result


def _german_figure(by_method: dict[str, list[Trace]], groups: list[str]) -> Any:
    """Worst-group accuracy of every sampler beside Aopt's mixture."""
    fig = new_figure(11.0, 4.0)
    left, right = fig.subplots(1, 2)
    plot_traces(
        by_method,
        "test_worst_acc",
        ax=left,
        xlabel="training samples drawn",
        ylabel="worst-group accuracy (test; higher is fairer)",
        title="German credit, sex x age",
    )
    if "aopt" in by_method:
        plot_per_group(
            by_method["aopt"],
            "pi_",
            groups,
            right,
            xlabel="training samples drawn",
            ylabel="share of samples drawn from the group",
            title="Aopt: share of samples per group",
        )
    return fig


def _german_notes(
    config: GermanConfig, result: ExperimentResult, groups: list[str], marks: list[int]
) -> list[str]:
    """Our curve (no paper number), the set-up with the pool sizes, Aopt's final mixture."""
    methods = list(result.traces)
    curve = {
        m: " / ".join(f"{result.value(method=m, metric=f'test_worst_acc@{c}'):.3f}" for c in marks)
        for m in methods
    }
    pool, _, _ = _german_split(config, trial_seeds(config.seed, config.n_trials)[0][0])
    pool_rows = dict(zip(groups, pool.group_sizes().tolist(), strict=True))
    notes = [
        "Paper 001 §5 says the German results are in Appendix E, which our copy of the paper "
        "lacks: no paper number to compare with. Ours, worst-group test accuracy after "
        + " / ".join(str(c) for c in marks)
        + " training samples: "
        + "; ".join(f"{m} {v}" for m, v in curve.items())
        + ".",
        f"Set-up: groups {' x '.join(config.groups)}; per trial a stratified split into "
        f"{config.test_size:.0%} test, {config.val_size:.0%} fixed validation sets D_z and the "
        "rest as the pool, which is resampled with replacement "
        "(fairacq_experiments.aopt.tabular.PoolResampler) because without replacement the "
        "smallest groups run dry within a few dozen draws. Pool rows per group (first trial): "
        + ", ".join(f"{g} {n}" for g, n in pool_rows.items())
        + ". Each round draws b0 training samples only; groups with 20-70 test rows move in "
        "steps of 1.5-5 points of test accuracy.",
    ]
    if "aopt" in methods and "uniform" in methods:
        pis = {g: result.value(method="aopt", metric=f"pi_{g}") for g in groups}
        aopt_end = result.value(method="aopt", metric=f"test_worst_acc@{marks[-1]}")
        uni_end = result.value(method="uniform", metric=f"test_worst_acc@{marks[-1]}")
        notes.append(
            "Aopt's final mixture: "
            + ", ".join(f"{g} {p:.2f}" for g, p in pis.items())
            + f". Its final worst-group accuracy is {aopt_end:.3f} against Uniform's "
            f"{uni_end:.3f}. Once a group has had more draws than it has pool rows, further "
            "draws repeat rows: they re-weight the group rather than add information, so "
            "concentrating the budget on small hard groups cannot lift them the way fresh "
            "samples lift White men on Adult."
        )
    return notes


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


_Arrays = tuple[NDArray[np.float64], NDArray[Any], NDArray[Any]]


def _group_accuracy(clf: Any, X: NDArray[np.float64], y: NDArray[Any], s: NDArray[Any]) -> Any:
    pred = clf.predict(X)
    return np.array([np.mean(pred[s == g] == y[s == g]) for g in range(int(s.max()) + 1)])


def _worst_at_size(
    train: _Arrays,
    test: _Arrays,
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


def _ceiling_split(
    config: CeilingConfig, split_seed: np.random.SeedSequence, run_seed: np.random.SeedSequence
) -> tuple[FairDataset, FairDataset]:
    """Return one trial's pool (subsampled to ``max_pool``) and test set, standardised."""
    data = load_dataset("adult").with_sensitive(*config.groups)
    pool, test = split_by_group(data, config.test_size, split_seed)
    if config.max_pool is not None and len(pool) > config.max_pool:
        keep = np.random.default_rng(run_seed).choice(len(pool), config.max_pool, replace=False)
        pool = pool.subset(np.sort(keep))
    test = standardize(test, reference=pool)
    return standardize(pool), test


def _grid_accuracies(train: _Arrays, test: _Arrays, grid: NDArray[np.float64]) -> Any:
    """Per-group test accuracy of LR on the pool reweighted to each mixture of ``grid``."""
    from sklearn.linear_model import LogisticRegression

    X, y, s = train
    m = grid.shape[1]
    counts = np.bincount(s, minlength=m).astype(np.float64)
    clf = LogisticRegression(max_iter=1000, warm_start=True)
    accs = []
    for w in grid:
        weight = np.where(counts[s] > 0, w[s] / np.maximum(counts[s], 1), 0.0) * len(s)
        used = weight > 0
        if len(np.unique(y[used])) < 2:
            accs.append(np.full(m, np.nan))
            continue
        clf.fit(X[used], y[used], sample_weight=weight[used])
        accs.append(_group_accuracy(clf, *test))
    return np.array(accs)


def _alone_accuracies(train: _Arrays, test: _Arrays, m: int) -> NDArray[np.float64]:
    """Test accuracy on each group of LR trained on that group alone (NaN: one label)."""
    from sklearn.linear_model import LogisticRegression

    (X, y, s), (Xt, yt, st) = train, test
    alone = np.full(m, np.nan)
    for g in range(m):
        rows = s == g
        if len(np.unique(y[rows])) == 2:
            model = LogisticRegression(max_iter=1000).fit(X[rows], y[rows])
            alone[g] = float(np.mean(model.predict(Xt[st == g]) == yt[st == g]))
    return alone


def _ceiling_task(config: CeilingConfig, seeds: TrialSeeds, trial: int) -> dict[str, Any]:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    split_seed, run_seed = seeds[trial]
    pool, test = _ceiling_split(config, split_seed, run_seed)
    train: _Arrays = (
        pool.to_numpy().astype(np.float64),
        np.asarray(pool.y),
        np.asarray(pool.s),
    )
    held_out: _Arrays = (
        test.to_numpy().astype(np.float64),
        np.asarray(test.y),
        np.asarray(test.s),
    )
    m = pool.n_groups
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        whole = LogisticRegression(max_iter=1000).fit(train[0], train[1])
        out["pool"] = _group_accuracy(whole, *held_out)
        out["grid"] = grid = mixture_grid(m, config.grid_step)
        out["grid_acc"] = _grid_accuracies(train, held_out, grid)
        best = grid[int(np.nanargmax(np.nanmin(out["grid_acc"], axis=1)))]
        out["best_at_n"] = _worst_at_size(
            train, held_out, best, config.aopt_budget // 2, config.n_draws, child(run_seed, 7)
        )
        out["alone"] = _alone_accuracies(train, held_out, m)
    sampler = make_sampler("aopt", budget=config.aopt_budget, c0=config.c0, random_state=run_seed)
    out["aopt"] = sampler.fit(DatasetOracle(pool), test=test).trace_
    return out


@dataclass(frozen=True)
class _Ceiling:
    """The trials of ``aopt-adult-ceiling`` gathered (arrays are trial x ...)."""

    names: list[str]
    pool_acc: NDArray[np.float64]  # trial x group, LR on the whole pool
    grid: NDArray[np.float64]  # mixture x group
    grid_worst: NDArray[np.float64]  # trial x mixture
    alone: NDArray[np.float64]  # trial x group, LR on each group alone
    at_n: NDArray[np.float64]  # trial, LR at the best mixture and Aopt's training-set size
    aopt_traces: list[Trace]

    @classmethod
    def of(cls, outs: list[dict[str, Any]], names: list[str]) -> _Ceiling:
        return cls(
            names=names,
            pool_acc=np.array([o["pool"] for o in outs]),
            grid=outs[0]["grid"],
            grid_worst=np.array([np.nanmin(o["grid_acc"], axis=1) for o in outs]),
            alone=np.array([o["alone"] for o in outs]),
            at_n=np.array([o["best_at_n"] for o in outs], dtype=float),
            aopt_traces=[o["aopt"] for o in outs],
        )

    @property
    def hardest(self) -> int:
        """The group LR on the whole pool serves worst (mean over trials)."""
        return int(np.argmin(self.pool_acc.mean(axis=0)))

    @property
    def best_per_trial(self) -> NDArray[np.float64]:
        return np.asarray(np.nanmax(self.grid_worst, axis=1), dtype=np.float64)

    @property
    def ceiling(self) -> float:
        return float(self.best_per_trial.mean())

    @property
    def aopt_final(self) -> NDArray[np.float64]:
        return np.array([t.final("test_worst_acc") for t in self.aopt_traces], dtype=float)

    @property
    def gap(self) -> float:
        return self.ceiling - float(self.aopt_final.mean())


def run_adult_ceiling(config: CeilingConfig, executor: Executor) -> ExperimentResult:
    """Estimate LR's best worst-group accuracy on Adult and compare Aopt's final value."""
    seeds = trial_seeds(config.seed, config.n_trials)
    outs = executor.map(
        functools.partial(_ceiling_task, config, seeds), list(range(config.n_trials))
    )
    names = [str(g) for g in load_dataset("adult").with_sensitive(*config.groups).group_names]
    ceiling = _Ceiling.of(outs, names)
    result = ExperimentResult(
        experiment="aopt-adult-ceiling",
        preset=config.preset,
        title="Adult: the LR ceiling of the worst group beside Aopt at budget 2,000",
        config=config.to_dict(),
        traces={"aopt": ceiling.aopt_traces},
    )
    result.rows += _ceiling_rows(config, ceiling)
    result.figures["aopt-adult-ceiling"] = _ceiling_figure(ceiling)
    result.verdicts.append(
        Verdict.check(
            "gap between Aopt's final worst-group test accuracy and the LR ceiling",
            ceiling.gap,
            "<=",
            0.01,
            detail=f"Aopt {ceiling.aopt_final.mean():.3f} against the ceiling "
            f"{ceiling.ceiling:.3f}.",
            facts={"aopt": float(ceiling.aopt_final.mean()), "ceiling": float(ceiling.ceiling)},
        )
    )
    result.notes += _ceiling_notes(config, ceiling)
    return result


def _ceiling_rows(config: CeilingConfig, c: _Ceiling) -> list[dict[str, Any]]:
    """LR's accuracies (pool, mixture grid, best mixture at Aopt's size, alone) and Aopt's."""
    hardest, names, paper = c.hardest, c.names, ADULT_PAPER_WORST_ACC
    best_fixed = int(np.nanargmax(np.nanmean(c.grid_worst, axis=0)))
    alone = [(f"acc_{names[g]}", c.alone[:, g]) for g in range(len(names)) if g != hardest]
    stats: list[tuple[str, str, Any, float | None]] = [
        ("lr-pool", "worst_group_acc", c.pool_acc.min(axis=1), None),
        ("lr-pool", f"acc_{names[hardest]}", c.pool_acc[:, hardest], None),
        ("lr-mixture-grid", "best_worst_group_acc", c.best_per_trial, None),
        (
            "lr-mixture-grid",
            "worst_group_acc_at_best_mean_mixture",
            c.grid_worst[:, best_fixed],
            None,
        ),
        (f"lr-best-mixture-n{config.aopt_budget // 2}", "worst_group_acc", c.at_n, None),
        ("lr-alone", f"acc_{names[hardest]}", c.alone[:, hardest], paper),
        ("aopt", "final_test_worst_acc", c.aopt_final, paper),
    ]
    rows = [
        mean_std_row(values, paper_value, dataset="adult", method=method, metric=metric)
        for method, metric, values, paper_value in stats
    ]
    for metric, value in (
        ("gap_to_ceiling", c.gap),
        ("within_1_point_of_ceiling", float(c.gap <= 0.01)),
    ):
        rows.append(
            {
                "dataset": "adult",
                "method": "aopt",
                "metric": metric,
                "value": value,
                "std": None,
                "paper_value": None,
            }
        )
    rows += [
        mean_std_row(values, dataset="adult", method="lr-alone", metric=metric)
        for metric, values in alone
    ]
    return rows


def _ceiling_figure(c: _Ceiling) -> Any:
    """Aopt's curve against the ceiling; the worst-group accuracy of every grid mixture."""
    fig = new_figure(11.0, 4.0)
    left, right = fig.subplots(1, 2)
    plot_traces(
        {"aopt": c.aopt_traces},
        "test_worst_acc",
        ax=left,
        reference=c.ceiling,
        reference_label=f"LR ceiling (mixture grid) {c.ceiling:.3f}",
        xlabel="samples drawn",
        ylabel="worst-group accuracy (test; higher is fairer)",
        title="Aopt on Adult against the LR ceiling",
    )
    left.axhline(ADULT_PAPER_WORST_ACC, color="0.55", linestyle=":", label="paper 0.805")
    left.legend(frameon=False)
    grid, hardest = c.grid, c.hardest
    order = np.argsort(grid[:, hardest])
    right.plot(grid[order, hardest], np.nanmean(c.grid_worst, axis=0)[order], "o", ms=4)
    right.set_xlabel(f"share of {c.names[hardest]} in the weighted pool")
    right.set_ylabel("worst-group accuracy (test, mean over trials; higher is fairer)")
    right.set_title(f"{len(grid)} group mixtures")
    right.grid(True, alpha=0.3)
    return fig


def _ceiling_notes(config: CeilingConfig, c: _Ceiling) -> list[str]:
    """Aopt against the ceiling and where the gap comes from; the paper's claim; the preset."""
    aopt, gap, hardest, at_n = float(c.aopt_final.mean()), c.gap, c.hardest, np.nanmean(c.at_n)
    notes = [
        f"Aopt's final worst-group test accuracy ({aopt:.3f}, budget "
        f"{config.aopt_budget}, {config.n_trials} trial(s)) is {gap * 100:.1f} points below "
        f"the best worst-group accuracy LR reaches ({c.ceiling:.3f}: per split the best of "
        f"{len(c.grid)} group-reweighted pools, chosen on the test set, so slightly "
        f"optimistic). The hardest group is "
        f"{c.names[hardest]}: LR on the whole pool scores {c.pool_acc[:, hardest].mean():.3f} "
        f"on it, LR trained on it alone {c.alone[:, hardest].mean():.3f}. At Aopt's own "
        f"training-set size ({config.aopt_budget // 2} rows; the other half of the budget "
        f"goes to validation), LR fitted on rows drawn at the best mixture reaches "
        f"{at_n:.3f} (mean of {config.n_draws} draws per split)"
        + (
            ": most of the gap is the sample size, not the allocation."
            if abs(at_n - aopt) < gap / 2
            else "."
        ),
        "Paper 001 §5 (Fig. 3a): every scheme approaches 80.5%, 'the maximum accuracy an LR "
        "classifier can achieve on the white male sub-population in isolation'. Splits and "
        "seeds are those of `fairacq sample --dataset adult --groups race_binary,sex "
        "--budget 2000 --trials 10 --seed 0` (70/30 stratified, standardised on the pool).",
    ]
    if config.max_pool is not None:
        notes.append(
            f"Quick preset: the pool is subsampled to {config.max_pool} rows; not a ceiling."
        )
    return notes


register(
    ExperimentSpec(
        name="aopt-german",
        family="sampling",
        paper="Shekhar et al. App. E (German; not in our copy)",
        title="German credit, sex x age, exact LR: Aopt vs epsilon-greedy vs Uniform",
        config_cls=GermanConfig,
        run=run_german,  # type: ignore[arg-type]
    )
)
register(
    ExperimentSpec(
        name="aopt-adult-ceiling",
        family="sampling",
        paper="Shekhar et al. Fig. 3a (acceptance check)",
        title="Adult: best worst-group accuracy of LR beside Aopt's at budget 2,000",
        config_cls=CeilingConfig,
        run=run_adult_ceiling,  # type: ignore[arg-type]
    )
)
