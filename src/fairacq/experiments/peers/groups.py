"""``peers-groups``: Aopt beside Slice Tuner, MinimaxFair, Abernethy et al.'s ε-greedy, Uniform.

Adult's four race_binary x sex groups; every sampler runs with its own defaults at each
budget (training plus paired validation draws) on the same pool/test splits
(``run_sampler_trials`` with one root seed), and is scored by its final worst-group test
accuracy. Choices and earlier numbers: ``docs/paper-notes/peers-groups.md``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd

from fairacq._trace import Trace
from fairacq.experiments._framework.executor import Executor
from fairacq.experiments._framework.registry import ExperimentSpec, register
from fairacq.experiments._framework.result import ExperimentResult, mean_std_row
from fairacq.experiments._framework.verdict import Verdict
from fairacq.experiments.peers._config import GroupsConfig
from fairacq.experiments.peers._tasks import groups_task
from fairacq.reporting import new_figure

__all__ = ["GroupsConfig", "run_groups"]


def _worst(traces: list[Trace]) -> np.ndarray[Any, np.dtype[np.float64]]:
    return np.array([float(t.final("test_worst_acc")) for t in traces], dtype=np.float64)


def run_groups(config: GroupsConfig, executor: Executor) -> ExperimentResult:
    """Run every sampler at every budget; report final worst-group test accuracy."""
    tasks = [(m, b) for b in config.budgets for m in config.methods]
    outs = executor.map(functools.partial(groups_task, config), tasks)
    runs = {task: list(out) for task, out in zip(tasks, outs, strict=True)}
    result = ExperimentResult(
        experiment="peers-groups",
        preset=config.preset,
        title="Adult, race_binary x sex: Aopt, Uniform, Slice Tuner, MinimaxFair, "
        "Abernethy ε-greedy; worst-group test accuracy",
        config=config.to_dict(),
    )
    for (method, budget), traces in runs.items():
        result.traces[f"{method} b{budget}"] = traces
        result.rows += _rows(method, budget, traces)
    result.figures["peers-groups"] = _figure(config, runs)
    result.tables["Final worst-group test accuracy (mean ± std over seeds)"] = _table(config, runs)
    result.verdicts += _verdicts(config, runs)
    result.notes += _notes(config, runs)
    return result


def _rows(method: str, budget: int, traces: list[Trace]) -> list[dict[str, Any]]:
    keys: dict[str, Any] = {"dataset": "adult", "method": method, "budget": budget}
    rows = [mean_std_row(_worst(traces), metric="final_test_worst_acc", **keys)]
    for group in traces[0].meta.get("groups", []):
        rows.append(
            mean_std_row(
                [float(t.final(f"test_acc_{group}")) for t in traces],
                metric=f"test_acc_{group}",
                **keys,
            )
        )
        rows.append(
            mean_std_row(
                [float(t.final(f"pi_{group}")) for t in traces], metric=f"pi_{group}", **keys
            )
        )
    return rows


def _table(config: GroupsConfig, runs: dict[tuple[str, int], list[Trace]]) -> pd.DataFrame:
    lines = []
    for method in config.methods:
        line = {"method": method}
        for budget in config.budgets:
            w = _worst(runs[method, budget])
            line[f"budget {budget}"] = f"{w.mean():.3f} ± {w.std():.3f}"
        lines.append(line)
    return pd.DataFrame(lines)


def _figure(config: GroupsConfig, runs: dict[tuple[str, int], list[Trace]]) -> Any:
    """Worst-group accuracy against budget: one line per sampler, mean ± std over seeds."""
    fig = new_figure(7.0, 4.2)
    ax = fig.subplots()
    budgets = np.asarray(config.budgets, dtype=float)
    width = 0.015 * (budgets.max() - budgets.min() + 1.0)
    for k, method in enumerate(config.methods):
        worst = [_worst(runs[method, b]) for b in config.budgets]
        shift = (k - (len(config.methods) - 1) / 2) * width  # keep the error bars apart
        ax.errorbar(
            budgets + shift,
            [w.mean() for w in worst],
            yerr=[w.std() for w in worst],
            marker="o",
            capsize=3,
            linewidth=1.6,
            label=method,
        )
    ax.set_xticks(budgets, [str(b) for b in config.budgets])
    ax.set_xlabel("samples drawn (budget)")
    ax.set_ylabel("worst-group test accuracy")
    ax.grid(True, alpha=0.3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(frameon=False)
    return fig


def _verdicts(config: GroupsConfig, runs: dict[tuple[str, int], list[Trace]]) -> list[Verdict]:
    budget = max(config.budgets)
    means = {m: float(_worst(runs[m, budget]).mean()) for m in config.methods}
    best = max(means, key=means.__getitem__)
    out = []
    if "aopt" in means:
        out.append(
            Verdict.check(
                f"Aopt's worst-group accuracy at budget {budget} within 1 point of the best "
                "sampler's",
                means[best] - means["aopt"],
                "<=",
                0.01,
                detail=f"best {best} {means[best]:.3f}, Aopt {means['aopt']:.3f}.",
            )
        )
    if "uniform" in means:
        for method in config.methods:
            if method == "uniform":
                continue
            out.append(
                Verdict.check(
                    f"{method} beats Uniform's worst-group accuracy at budget {budget}",
                    means[method],
                    ">=",
                    means["uniform"],
                    detail=f"{method} {means[method]:.3f}, Uniform {means['uniform']:.3f} "
                    f"({config.n_trials} seed(s)).",
                )
            )
    return out


def _notes(config: GroupsConfig, runs: dict[tuple[str, int], list[Trace]]) -> list[str]:
    notes = [
        "Every sampler runs with its defaults (Abernethy's ε-greedy with its averaged-SGD "
        "learner, the others with exact logistic regression) on the pool/test splits of "
        "`run_sampler_trials` (70/30 stratified by group and label, standardised by the "
        f"pool), root seed {config.seed}, so every method sees the same splits.",
    ]
    for budget in config.budgets:
        means = {m: float(_worst(runs[m, budget]).mean()) for m in config.methods}
        ranking = sorted(means.items(), key=lambda kv: -kv[1])
        notes.append(f"Budget {budget}: " + ", ".join(f"{m} {v:.3f}" for m, v in ranking) + ".")
    if config.preset == "quick":
        notes.append(
            f"Quick preset: budgets {', '.join(map(str, config.budgets))}, "
            f"{config.n_trials} seed(s); indicative only."
        )
    return notes


register(
    ExperimentSpec(
        name="peers-groups",
        family="sampling",
        paper="peers: Slice Tuner (SIGMOD 2021), MinimaxFair (AIES 2021), Abernethy et al. "
        "(ICML 2022) beside paper 001",
        title="Adult race x sex: worst-group accuracy of Aopt and its peers at three budgets",
        config_cls=GroupsConfig,
        run=run_groups,  # type: ignore[arg-type]
    )
)
