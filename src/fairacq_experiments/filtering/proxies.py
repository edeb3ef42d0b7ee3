"""Paper 003 (Deng et al., balanced filtering via non-disclosive proxies): Figs. 1-3.

Each dataset is split 2/3 - 1/3 (the labelled sample the proxy is learned on, and fresh
candidates). For every proxy — naive and QP regression, naive and QP decision tree, and the
(alpha, beta)-proxy tree over a grid of alpha — the run records the disclosivity alpha and
imbalance beta on the learning sample, the disclosivity of the proxy (each candidate's value
drawn as the filter would) and the imbalance of the expected admitted set on the held-out
candidates, the acceptance rate, and the share of the least represented group before
and after filtering (Fig. 3). ``filtering-fig1`` is Bank Marketing with job as the sensitive
attribute; ``filtering-fig2`` is Adult with race. The full presets add the paper's sixth proxy,
the relaxed (alpha, beta)-proxy, whose rows also record the cone distance it grows by.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from fairacq._random import child_seeds, derive_int_seed, spawn_seeds
from fairacq.data import load_dataset, split_filtering
from fairacq.filtering import (
    AlphaBetaProxy,
    LabelProxy,
    UnreachableTargetWarning,
)
from fairacq.metrics import disclosivity, imbalance
from fairacq.parallel import Executor
from fairacq.reporting import new_figure
from fairacq_experiments._framework.config import ExperimentConfig
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult

__all__ = ["FilteringConfig", "run_filtering"]

#: §5's four proxies without an alpha: (predictor, weights) of their LabelProxy.
_FIXED: dict[str, tuple[str, str]] = {
    "naive-regression": ("regression", "naive"),
    "qp-regression": ("regression", "qp"),
    "naive-tree": ("tree", "naive"),
    "qp-tree": ("tree", "qp"),
}


def _label_proxy(name: str, **params: Any) -> LabelProxy:
    """Return the LabelProxy of one of the four names of :data:`_FIXED`."""
    predictor, weights = _FIXED[name]
    return LabelProxy(predictor=predictor, weights=weights, **params)


@dataclass(frozen=True)
class FilteringConfig(ExperimentConfig):
    """Configuration of the filtering experiments.

    Parameters
    ----------
    dataset, sensitive : str
        Dataset and sensitive attribute (Fig. 1: Bank Marketing, job; Fig. 2: Adult, race).
    alphas : tuple of float
        Disclosivity levels of the (alpha, beta)-proxy (the paper: 0 to 1 in steps of 0.05).
    gamma : float
        Progress parameter of Algorithm 4 (0.1).
    max_rows : int or None
        Subsample the dataset first (quick preset only).
    relaxed : bool
        Also run the relaxed (alpha, beta)-proxy (``relaxed=True``, §5: the paper's sixth
        proxy) over the alpha grid; on in the full preset.
    raw_regression : bool
        Also run the regression proxies fitted as scikit-learn's defaults fit them (raw
        features, 100 lbfgs iterations: ``naive-regression-raw``, ``qp-regression-raw``),
        the likely set-up behind the paper's short regression curves; on in the full preset.
    fine_gamma : float or None
        Also run the (alpha, beta)-proxy with this smaller progress factor
        (``alpha-beta-fine``): a split then needs only ``1 - fine_gamma`` progress, so the
        tree keeps splitting where gamma = 0.1 stops (0.02 in the full preset).
    """

    QUICK: ClassVar[dict[str, Any]] = {"n_trials": 2, "alphas": (0.1, 0.5, 0.9), "max_rows": 9000}
    # §5's six proxies, plus the two documented variants that show where our curves differ.
    FULL: ClassVar[dict[str, Any]] = {
        "n_trials": 20,
        "relaxed": True,
        "raw_regression": True,
        "fine_gamma": 0.02,
    }

    dataset: str = "bank-marketing"
    sensitive: str = "job"
    alphas: tuple[float, ...] = tuple(round(0.05 * i, 2) for i in range(21))
    gamma: float = 0.1
    max_rows: int | None = None
    relaxed: bool = False
    raw_regression: bool = False
    fine_gamma: float | None = None
    experiment: str = "filtering-fig1"
    title: str = "Balanced filtering on Bank Marketing by job (Fig. 1)"


@dataclass(frozen=True)
class Fig2Config(FilteringConfig):
    """Fig. 2: Adult with race as the sensitive attribute."""

    dataset: str = "adult"
    sensitive: str = "race"
    experiment: str = "filtering-fig2"
    title: str = "Balanced filtering on Adult by race (Fig. 2)"


def _admission(proxy: Any, test: Any, seed: np.random.SeedSequence) -> tuple[Any, Any]:
    """Return the held-out candidates' admission probabilities and drawn proxy values."""
    weights = proxy.admission_probability(test.to_numpy())
    if isinstance(proxy, AlphaBetaProxy):  # randomized splits: draw each candidate's leaf
        values = proxy.proxy_values(test.to_numpy(), random_state=seed)
    else:
        values = proxy.proxy_values(test.to_numpy())
    return weights, values


def _relaxed_extra(proxy: Any) -> dict[str, float]:
    """Return the cone distance the relaxed tree grows by, to record beside the true beta."""
    if isinstance(proxy, AlphaBetaProxy) and proxy.relaxed:
        return {"hull_distance_in": float(proxy.hull_distance_)}
    return {}


def _evaluate(proxy: Any, train: Any, test: Any, seed: np.random.SeedSequence) -> dict[str, float]:
    weights, values = _admission(proxy, test, seed)
    admitted = np.bincount(test.s, weights=weights, minlength=test.n_groups)
    shares = admitted / max(float(admitted.sum()), 1e-300)
    base = np.bincount(test.s, minlength=test.n_groups) / len(test)
    return {
        "alpha_in": float(proxy.alpha_),
        "alpha_out": float(disclosivity(values, test.s)),
        "beta_in": float(proxy.beta_),
        "beta_out": float(imbalance(test.s, weights=weights)),
        "acceptance": float(np.mean(weights)),
        "min_share_before": float(base.min()),
        "min_share_after": float(shares.min()),
        **_relaxed_extra(proxy),
    }


def _split(
    data: Any, max_rows: int | None, seed: np.random.SeedSequence
) -> tuple[Any, Any, np.random.SeedSequence]:
    """Subsample (quick preset), split 2/3 - 1/3 and return the seed of the proxy's draws."""
    sub_seed, split_seed, leaf_seed = child_seeds(seed, 3)
    if max_rows is not None and len(data) > max_rows:
        keep = np.random.default_rng(sub_seed).choice(len(data), max_rows, replace=False)
        data = data.subset(np.sort(keep))
    split = split_filtering(data, random_state=split_seed)
    return split.train, split.test, leaf_seed


def _make_proxy(
    name: str, alpha: float | None, config: FilteringConfig, leaf_seed: np.random.SeedSequence
) -> Any:
    """Build the proxy a task fits (an ``alpha-beta*`` tree at ``alpha``, or a fixed one)."""
    if name in _TREES:
        gamma = config.fine_gamma if name == "alpha-beta-fine" else config.gamma
        relaxed = name == "alpha-beta-relaxed"
        return AlphaBetaProxy(
            alpha=float(alpha or 0.0), gamma=float(gamma or 0.0), relaxed=relaxed
        )
    if name.endswith("-raw"):  # scikit-learn's default fit: raw features, 100 iterations
        return _label_proxy(name.removesuffix("-raw"), standardize=False, max_iter=100)
    if _FIXED[name][0] == "tree":  # trees break ties at random
        return _label_proxy(name, random_state=derive_int_seed(leaf_seed))
    return _label_proxy(name)


_TREES = ("alpha-beta", "alpha-beta-relaxed", "alpha-beta-fine")


def _fixed_methods(config: FilteringConfig) -> list[str]:
    """Return the proxies without an alpha: §5's four, plus the raw-fit regressions."""
    raw = ["naive-regression-raw", "qp-regression-raw"] if config.raw_regression else []
    return [*_FIXED, *raw]


def _tree_methods(config: FilteringConfig) -> list[str]:
    """Return the (alpha, beta)-proxies run over the alpha grid, in the order of the rows."""
    relaxed = ["alpha-beta-relaxed"] if config.relaxed else []
    fine = ["alpha-beta-fine"] if config.fine_gamma is not None else []
    return ["alpha-beta", *relaxed, *fine]


def _task(
    config: FilteringConfig,
    seeds: list[np.random.SeedSequence],
    task: tuple[str, float | None, int],
) -> dict[str, float]:
    name, alpha, trial = task
    data = load_dataset(config.dataset, sensitive=config.sensitive)
    train, test, leaf_seed = _split(data, config.max_rows, seeds[trial])
    proxy = _make_proxy(name, alpha, config, leaf_seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreachableTargetWarning)  # reported as beta
        warnings.simplefilter("ignore", ConvergenceWarning)  # the -raw fits stop unconverged
        proxy.fit(train.to_numpy(), train.s)
    return _evaluate(proxy, train, test, leaf_seed)


def _tasks(config: FilteringConfig) -> list[tuple[str, float | None, int]]:
    """Every (proxy, alpha, trial); optional variants come after §5's (rows are appended)."""
    trials = range(config.n_trials)
    return [(name, None, t) for name in _fixed_methods(config) for t in trials] + [
        (m, a, t) for m in _tree_methods(config) for a in config.alphas for t in trials
    ]


_Groups = dict[tuple[str, float | None], list[dict[str, float]]]


def _aggregate(
    config: FilteringConfig,
    tasks: list[tuple[str, float | None, int]],
    outs: list[dict[str, float]],
    result: ExperimentResult,
) -> _Groups:
    """Append one row (mean over trials and 95% half-width) per proxy, alpha and metric."""
    groups: _Groups = {}
    for (name, alpha, _), out in zip(tasks, outs, strict=True):
        groups.setdefault((name, alpha), []).append(out)
    for (name, alpha), runs in groups.items():
        for metric in runs[0]:
            vals = np.array([r[metric] for r in runs], dtype=float)
            half = 1.96 * vals.std(ddof=1) / np.sqrt(len(vals)) if len(vals) > 1 else float("nan")
            result.rows.append(
                {
                    "dataset": config.dataset,
                    "method": name,
                    "alpha": alpha,
                    "metric": metric,
                    "value": float(vals.mean()),
                    "ci95": float(half),
                    "paper_value": None,
                }
            )
    return groups


def _figure(config: FilteringConfig, groups: _Groups, xlabel: str = "") -> Any:
    """Beta against alpha in and out of sample: tree curves over the grid, fixed proxies."""
    fig = new_figure(13.5, 4.2)
    left, right = fig.subplots(1, 2)
    labels = {
        "alpha-beta": "(alpha, beta)-proxy",
        "alpha-beta-relaxed": "relaxed (alpha, beta)-proxy",
        "alpha-beta-fine": f"(alpha, beta)-proxy, gamma {config.fine_gamma}",
    }
    curves = [(m, labels[m]) for m in _tree_methods(config)]
    for ax, metric, title in (
        (left, "beta_in", "in sample"),
        (right, "beta_out", "out of sample"),
    ):
        for method, label in curves:
            ab = [(a, np.mean([r[metric] for r in groups[(method, a)]])) for a in config.alphas]
            ax.plot([a for a, _ in ab], [b for _, b in ab], marker="o", label=label)
        if config.relaxed and metric == "beta_in":  # what the relaxed tree grows by
            cone = [
                np.mean([r["hull_distance_in"] for r in groups[("alpha-beta-relaxed", a)]])
                for a in config.alphas
            ]
            ax.plot(
                config.alphas, cone, linestyle="--", color="grey", label="relaxed: cone distance"
            )
        for i, name in enumerate(_fixed_methods(config)):
            runs = groups[(name, None)]
            ax.scatter(
                np.mean([r["alpha_in"] for r in runs]),
                np.mean([r[metric] for r in runs]),
                marker="s^Dv<>"[i],
                s=50,
                label=name,
            )
        ax.set_xlabel(xlabel or "disclosivity: budget alpha (trees), in-sample alpha (points)")
        ax.set_ylabel("imbalance of the admitted set (lower is more balanced)")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    _legend_outside(fig)
    return fig


def _legend_outside(fig: Any) -> None:
    """One legend for both panels, to the right of them, so no curve is hidden."""
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center", frameon=False)


def _run_grid(
    config: FilteringConfig, task: Any, executor: Executor
) -> tuple[ExperimentResult, _Groups]:
    """Run ``task(config, seeds, (proxy, alpha, trial))`` over the grid; rows per proxy/alpha."""
    seeds = spawn_seeds(config.seed, config.n_trials)
    tasks = _tasks(config)
    outs = executor.map(functools.partial(task, config, seeds), tasks)
    result = ExperimentResult(
        experiment=config.experiment,
        preset=config.preset,
        title=config.title,
        config=config.to_dict(),
    )
    return result, _aggregate(config, tasks, outs, result)


def run_filtering(config: FilteringConfig, executor: Executor) -> ExperimentResult:
    """Fit every proxy on every seed and summarise alpha, beta and acceptance."""
    result, groups = _run_grid(config, _task, executor)
    result.figures[config.experiment] = _figure(config, groups)
    result.meta.update(_facts(config, groups))
    result.notes.extend(_notes(config, groups, result.meta))
    return result


def _facts(config: FilteringConfig, groups: _Groups) -> dict[str, Any]:
    """Return the findings' numbers: the regression floor on Adult, the finer gamma's reach."""
    facts: dict[str, Any] = {}
    if config.dataset == "adult":
        facts["regression_floor"] = _regression_facts(config, groups)
    if config.fine_gamma is not None:
        fine = [a for a in config.alphas if _mean(groups, "alpha-beta-fine", a, "beta_in") < 0.1]
        facts["fine_gamma"] = {
            "gamma": config.fine_gamma,
            "first_alpha_beta_in_below_0.1": min(fine) if fine else None,
        }
    return facts


def _mean(groups: _Groups, method: str, alpha: float | None, metric: str) -> float:
    return float(np.mean([r[metric] for r in groups[(method, alpha)]]))


def _notes(
    config: FilteringConfig,
    groups: dict[tuple[str, float | None], list[dict[str, float]]],
    facts: dict[str, Any],
) -> list[str]:
    def mean(key: tuple[str, float | None], metric: str) -> float:
        return float(np.mean([r[metric] for r in groups[key]]))

    notes = [
        "Every proxy is learned on 2/3 of the data and evaluated on the other 1/3; "
        "beta_out is the imbalance of the expected admitted set among held-out candidates; "
        "acceptance is the share of candidates admitted (balance is bought with rejections)."
    ]
    if config.dataset == "adult":
        notes.extend(_regression_notes(facts["regression_floor"]))
    top = max(config.alphas)
    notes.append(
        f"(alpha, beta)-proxy at alpha = {top}: beta in sample "
        f"{mean(('alpha-beta', top), 'beta_in'):.3f}, out of sample "
        f"{mean(('alpha-beta', top), 'beta_out'):.3f}; least represented group's share "
        f"{mean(('alpha-beta', top), 'min_share_before'):.4f} -> "
        f"{mean(('alpha-beta', top), 'min_share_after'):.4f} among admitted."
    )
    if ("alpha-beta-relaxed", top) in groups:
        notes.append(_relaxed_note(groups, top))
    if config.fine_gamma is not None:
        notes.append(_fine_note(config, groups, facts["fine_gamma"]))
    return notes


def _regression_facts(config: FilteringConfig, groups: _Groups) -> dict[str, dict[str, Any]]:
    """Paper 003 on Adult: the regression proxies never get below beta 0.7 (test 0.65).

    Per fit (``regression``, and ``regression-raw`` as scikit-learn's defaults fit it):
    ``beta_in`` and ``beta_out`` of the naive and QP proxies, and whether both stay above.
    """
    facts: dict[str, dict[str, Any]] = {}
    for suffix in ("", "-raw"):
        if suffix and not config.raw_regression:
            continue
        names = [f"naive-regression{suffix}", f"qp-regression{suffix}"]
        b_in = [_mean(groups, n, None, "beta_in") for n in names]
        b_out = [_mean(groups, n, None, "beta_out") for n in names]
        reproduced = min(b_in) > 0.7 and min(b_out) > 0.65
        facts[f"regression{suffix}"] = {"beta_in": b_in, "beta_out": b_out} | {
            "reproduced": reproduced
        }
    return facts


_HOW_FITTED = {
    "regression": "fitted to convergence on standardised features",
    "regression-raw": "fitted as scikit-learn's defaults do (raw features, 100 "
    "lbfgs iterations, unconverged)",
}


def _regression_notes(facts: dict[str, dict[str, Any]]) -> list[str]:
    """Word :func:`_regression_facts`: Paper 003's floor against ours, per fit."""
    notes = []
    for key, fit in facts.items():
        b_in, b_out = fit["beta_in"], fit["beta_out"]
        verdict = "reproduced" if fit["reproduced"] else "NOT reproduced"
        notes.append(
            f"Paper 003 (Adult, race): the regression proxies never reach beta below 0.7 in "
            f"sample and 0.65 out of sample. Ours {_HOW_FITTED[key]}: naive {b_in[0]:.3f} / "
            f"{b_out[0]:.3f}, QP {b_in[1]:.3f} / {b_out[1]:.3f} (in / out) — {verdict}."
        )
    return notes


def _fine_note(config: FilteringConfig, groups: _Groups, facts: dict[str, Any]) -> str:
    """Where the finer progress factor takes the (alpha, beta)-proxy, with its acceptance."""

    def mean(method: str, alpha: float, metric: str) -> float:
        return _mean(groups, method, alpha, metric)

    fine = float(config.fine_gamma or 0.0)
    first = facts["first_alpha_beta_in_below_0.1"]
    where = (
        f"first reaches in-sample beta < 0.1 at alpha = {first} (beta "
        f"{mean('alpha-beta-fine', first, 'beta_in'):.3f}, out of sample "
        f"{mean('alpha-beta-fine', first, 'beta_out'):.3f}, acceptance "
        f"{mean('alpha-beta-fine', first, 'acceptance'):.4f}; gamma {config.gamma} there: beta "
        f"{mean('alpha-beta', first, 'beta_in'):.3f}, acceptance "
        f"{mean('alpha-beta', first, 'acceptance'):.4f})"
        if first is not None
        else "never reaches in-sample beta < 0.1 on average"
    )
    return (
        f"(alpha, beta)-proxy with gamma = {config.fine_gamma} instead of the paper's "
        f"{config.gamma} (alpha-beta-fine: a split needs only {1 - fine:.2f}x "
        f"progress, so the tree keeps splitting where the paper's rule stops): {where}. "
        "The extra splits carve small leaves, so in-sample balance is bought with very low "
        "acceptance and generalises poorly."
    )


def _relaxed_note(groups: _Groups, top: float) -> str:
    def mean(metric: str) -> float:
        return float(np.mean([r[metric] for r in groups[("alpha-beta-relaxed", top)]]))

    no_split = " (acceptance 1: no split at all)" if mean("acceptance") >= 1.0 - 1e-12 else ""
    return (
        f"Relaxed (alpha, beta)-proxy at alpha = {top}: beta in sample {mean('beta_in'):.3f} "
        f"(the admitted set's true imbalance), out of sample {mean('beta_out'):.3f}; the cone "
        f"distance it stops on (hull_distance_in) is {mean('hull_distance_in'):.3f}{no_split}. "
        "The relaxed QP drops sum q = 1, so its distance to U is only a lower bound on beta; the "
        "paper's Relaxed curves (Pareto-dominating in sample) may plot that distance."
    )


register(
    ExperimentSpec(
        name="filtering-fig1",
        family="filtering",
        paper="Deng et al. Figs. 1, 3",
        title="Bank Marketing (job): alpha vs beta for every proxy; group shares",
        config_cls=FilteringConfig,
        run=run_filtering,  # type: ignore[arg-type]
    )
)
register(
    ExperimentSpec(
        name="filtering-fig2",
        family="filtering",
        paper="Deng et al. Fig. 2",
        title="Adult (race): alpha vs beta for every proxy",
        config_cls=Fig2Config,
        run=run_filtering,  # type: ignore[arg-type]
    )
)
