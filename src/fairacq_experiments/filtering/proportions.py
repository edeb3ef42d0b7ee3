"""Paper 003 (Deng et al.), Figs. 3 and 4: what the (alpha, beta)-proxy does to the groups.

``filtering-fig3`` (Bank Marketing, job): the share of every group before filtering and in
the expected admitted set, in sample and on held-out candidates, for alpha in {0, 0.1, 0.2}.
``filtering-fig4`` (Adult, race): heat maps of the conditional distribution matrix
``A[proxy value, group]`` the proxy ends with, for three alphas (one row per leaf).
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._random import child_seeds, spawn_seeds
from fairacq.data import FairDataset, load_dataset, split_filtering
from fairacq.filtering import AlphaBetaProxy, UnreachableTargetWarning
from fairacq.parallel import Executor
from fairacq.reporting import new_figure
from fairacq_experiments._framework.config import ExperimentConfig
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult

__all__ = ["GroupSharesConfig", "HeatmapConfig", "run_group_heatmaps", "run_group_shares"]


@dataclass(frozen=True)
class GroupSharesConfig(ExperimentConfig):
    """Configuration of Fig. 3 (group proportions before and after filtering).

    Parameters
    ----------
    dataset, sensitive : str
        Bank Marketing with job as the sensitive attribute, as in the paper.
    alphas : tuple of float
        Disclosivity budgets of the (alpha, beta)-proxy (the paper: 0, 0.1 and 0.2).
    gamma : float
        Progress parameter of Algorithm 4 (0.1).
    max_rows : int or None
        Subsample the dataset first (quick preset only).
    """

    QUICK: ClassVar[dict[str, Any]] = {"n_trials": 2, "max_rows": 9000}
    FULL: ClassVar[dict[str, Any]] = {"n_trials": 20}

    dataset: str = "bank-marketing"
    sensitive: str = "job"
    alphas: tuple[float, ...] = (0.0, 0.1, 0.2)
    gamma: float = 0.1
    max_rows: int | None = None
    experiment: str = "filtering-fig3"
    title: str = "Group proportions before and after filtering, Bank Marketing by job (Fig. 3)"


@dataclass(frozen=True)
class HeatmapConfig(GroupSharesConfig):
    """Configuration of Fig. 4 (heat maps of A on Adult by race); the first seed is drawn."""

    QUICK: ClassVar[dict[str, Any]] = {"n_trials": 1, "max_rows": 9000}
    FULL: ClassVar[dict[str, Any]] = {"n_trials": 1}

    dataset: str = "adult"
    sensitive: str = "race"
    alphas: tuple[float, ...] = (0.0, 0.1, 0.3)
    experiment: str = "filtering-fig4"
    title: str = (
        "Conditional distribution matrices of the (alpha, beta)-proxy, Adult by race (Fig. 4)"
    )


def _fit(
    config: GroupSharesConfig, seeds: list[np.random.SeedSequence], task: tuple[float, int]
) -> tuple[AlphaBetaProxy, FairDataset, FairDataset]:
    alpha, trial = task
    data = load_dataset(config.dataset, sensitive=config.sensitive)
    sub_seed, split_seed = child_seeds(seeds[trial], 2)
    if config.max_rows is not None and len(data) > config.max_rows:
        keep = np.random.default_rng(sub_seed).choice(len(data), config.max_rows, replace=False)
        data = data.subset(np.sort(keep))
    split = split_filtering(data, random_state=split_seed)
    proxy = AlphaBetaProxy(alpha=alpha, gamma=config.gamma)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreachableTargetWarning)  # reported as beta
        proxy.fit(split.train.to_numpy(), split.train.s)
    return proxy, split.train, split.test


def _shares(part: FairDataset, weights: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
    mass = np.bincount(part.s, weights=weights, minlength=part.n_groups).astype(float)
    return mass / max(float(mass.sum()), 1e-300)


def _shares_task(
    config: GroupSharesConfig, seeds: list[np.random.SeedSequence], task: tuple[float, int]
) -> dict[str, list[float]]:
    proxy, train, test = _fit(config, seeds, task)
    return {
        "before": _shares(train).tolist(),
        "in_sample": _shares(train, proxy.admission_probability(train.to_numpy())).tolist(),
        "out_of_sample": _shares(test, proxy.admission_probability(test.to_numpy())).tolist(),
    }


def _group_names(config: GroupSharesConfig) -> tuple[str, ...]:
    return load_dataset(config.dataset, sensitive=config.sensitive).group_names


def run_group_shares(config: GroupSharesConfig, executor: Executor) -> ExperimentResult:
    """Fit the proxy for every alpha and seed; report each group's share before and after."""
    seeds = spawn_seeds(config.seed, config.n_trials)
    tasks = [(a, t) for a in config.alphas for t in range(config.n_trials)]
    outs = executor.map(functools.partial(_shares_task, config, seeds), tasks)
    names = _group_names(config)
    result = ExperimentResult(
        experiment=config.experiment,
        preset=config.preset,
        title=config.title,
        config=config.to_dict(),
    )
    means: dict[tuple[float, str], NDArray[np.float64]] = {}
    for alpha in config.alphas:
        runs = [o for (a, _), o in zip(tasks, outs, strict=True) if a == alpha]
        for where in ("before", "in_sample", "out_of_sample"):
            mean = np.mean([r[where] for r in runs], axis=0)
            means[(alpha, where)] = mean
            for group, share in zip(names, mean, strict=True):
                result.rows.append(
                    {
                        "dataset": config.dataset,
                        "method": "alpha-beta",
                        "alpha": alpha,
                        "group": group,
                        "metric": f"share_{where}",
                        "value": float(share),
                        "paper_value": None,
                    }
                )
    fig = new_figure(4.2 * len(config.alphas), 4.2)
    axes = np.atleast_1d(fig.subplots(1, len(config.alphas), sharey=True))
    order = np.argsort(means[(config.alphas[0], "before")])
    pos = np.arange(len(names))
    for ax, alpha in zip(axes, config.alphas, strict=True):
        for k, (where, label) in enumerate(
            (
                ("before", "before"),
                ("in_sample", "admitted, in sample"),
                ("out_of_sample", "admitted, held out"),
            )
        ):
            ax.barh(pos + (k - 1) * 0.27, means[(alpha, where)][order], height=0.27, label=label)
        ax.axvline(1.0 / len(names), color="black", lw=0.8, ls="--", label="uniform")
        ax.set_yticks(pos, [names[i] for i in order], fontsize=7)
        ax.set_xlabel("share of the set")
        ax.set_title(f"alpha = {alpha:g}")
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].legend(frameon=False, fontsize=7, loc="lower right")
    result.figures[config.experiment] = fig
    result.notes.extend(_share_notes(config, names, means))
    return result


def _share_notes(
    config: GroupSharesConfig,
    names: tuple[str, ...],
    means: dict[tuple[float, str], NDArray[np.float64]],
) -> list[str]:
    notes = [
        "Shares are those of the expected admitted set (each candidate weighted by its "
        "admission probability), means over seeds; the dashed line is the uniform target."
    ]
    top = max(config.alphas)
    before = means[(top, "before")]
    rarest = int(np.argmin(before))
    gain = means[(top, "out_of_sample")][rarest] / max(float(before[rarest]), 1e-300)
    spread = float(np.ptp(means[(top, "in_sample")]))
    notes.append(
        f"Paper 003 (Fig. 3): at alpha = 0.2 near-perfect balance in sample and the least "
        f"represented group's share about 4.5 times larger on the test split. Ours at alpha = "
        f"{top:g}: in-sample shares span {spread:.3f} (max - min); the least represented group "
        f"({names[rarest]}) grows {gain:.1f} times on held-out candidates "
        f"({before[rarest]:.4f} -> {means[(top, 'out_of_sample')][rarest]:.4f})"
        + (
            "; in-sample balance is near-perfect as the paper reports."
            if spread < 0.02
            else "; in-sample balance is NOT near-perfect (the tree stops before U is in the "
            "hull: see docs/paper-notes/filtering.md), while the several-fold growth of the "
            "rarest group is reproduced."
        )
    )
    return notes


def _matrix_task(
    config: GroupSharesConfig, seeds: list[np.random.SeedSequence], task: tuple[float, int]
) -> dict[str, Any]:
    proxy, _, _ = _fit(config, seeds, task)
    return {
        "A": np.asarray(proxy.A_).tolist(),
        "alpha_in": float(proxy.alpha_),
        "beta_in": float(proxy.beta_),
    }


def run_group_heatmaps(config: GroupSharesConfig, executor: Executor) -> ExperimentResult:
    """Fit the proxy for every alpha on the first seed and draw its matrix ``A`` as a heat map."""
    seeds = spawn_seeds(config.seed, 1)
    tasks = [(a, 0) for a in config.alphas]
    outs = executor.map(functools.partial(_matrix_task, config, seeds), tasks)
    names = _group_names(config)
    result = ExperimentResult(
        experiment=config.experiment,
        preset=config.preset,
        title=config.title,
        config=config.to_dict(),
    )
    matrices = [np.asarray(out["A"], dtype=float) for out in outs]
    for alpha, out, matrix in zip(config.alphas, outs, matrices, strict=True):
        values = {"alpha_in": out["alpha_in"], "beta_in": out["beta_in"]}
        values["n_leaves"] = float(matrix.shape[0])
        for metric, value in values.items():
            result.rows.append(
                {
                    "dataset": config.dataset,
                    "method": "alpha-beta",
                    "alpha": alpha,
                    "metric": metric,
                    "value": value,
                    "paper_value": None,
                }
            )
    result.figures[config.experiment] = _heatmaps(config.alphas, matrices, names)
    result.notes.append(
        "Paper 003 (Fig. 4): at alpha = 0 the matrix is one row, the base rates; larger alphas "
        "split the domain into more leaves whose rows move away from the base rates, so that "
        "some mixture of rows reaches the uniform target. Our rows are leaves of the first seed."
    )
    return result


def _heatmaps(alphas: tuple[float, ...], matrices: list[Any], names: tuple[str, ...]) -> Any:
    """One heat map of ``A`` per alpha, side by side, with a shared colour bar."""
    fig = new_figure(4.0 * len(alphas), 4.0)
    axes = np.atleast_1d(fig.subplots(1, len(alphas)))
    image = None
    for ax, alpha, matrix in zip(axes, alphas, matrices, strict=True):
        image = ax.imshow(matrix, aspect="auto", vmin=0.0, vmax=1.0, cmap="viridis")
        ax.set_xticks(np.arange(len(names)), names, rotation=45, ha="right", fontsize=7)
        ax.set_yticks(np.arange(matrix.shape[0]), [str(i) for i in range(matrix.shape[0])])
        ax.set_ylabel("proxy value (leaf)")
        if matrix.size <= 120:  # small matrices: print each probability in its cell
            for (i, j), v in np.ndenumerate(matrix):
                ax.text(
                    j,
                    i,
                    f"{v:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="black" if v > 0.6 else "white",
                )
        n_leaves = matrix.shape[0]
        ax.set_title(f"alpha = {alpha:g}: {n_leaves} " + ("leaf" if n_leaves == 1 else "leaves"))
    if image is not None:
        fig.colorbar(image, ax=list(axes), label="P(group | proxy value)", shrink=0.8)
    return fig


register(
    ExperimentSpec(
        name="filtering-fig3",
        family="filtering",
        paper="Deng et al. Fig. 3",
        title="Bank Marketing (job): group shares before / after filtering, alpha 0, 0.1, 0.2",
        config_cls=GroupSharesConfig,
        run=run_group_shares,  # type: ignore[arg-type]
    )
)
register(
    ExperimentSpec(
        name="filtering-fig4",
        family="filtering",
        paper="Deng et al. Fig. 4",
        title="Adult (race): heat maps of the proxy's conditional distribution matrix",
        config_cls=HeatmapConfig,
        run=run_group_heatmaps,  # type: ignore[arg-type]
    )
)
