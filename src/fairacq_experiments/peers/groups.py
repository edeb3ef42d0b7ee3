"""``peers-groups``: Aopt beside Slice Tuner, MinimaxFair, Abernethy et al.'s ε-greedy, Uniform.

Adult's four race_binary x sex groups; every sampler runs with its own defaults at each
budget (training plus paired validation draws) on the same pool/test splits
(``run_sampler_trials`` with one root seed), and is scored by its final worst-group test
accuracy. Beside them, the mitigation comparators ("collect uniformly, then mitigate"): each
of ``config.mitigations`` fitted on the training rows Uniform drew in the same trial
(``groups_mitigation_task``). Choices and earlier numbers: ``docs/paper-notes/peers-groups.md``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd

from fairacq._trace import Trace
from fairacq.parallel import Executor
from fairacq.reporting import new_figure
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult, mean_std_row
from fairacq_experiments._framework.verdict import Verdict
from fairacq_experiments.peers._config import GroupsConfig, parse_sampler
from fairacq_experiments.peers._tasks import groups_mitigation_task, groups_task

__all__ = ["GroupsConfig", "run_groups"]

Runs = dict[tuple[str, int], list[Trace]]
#: (mitigation, budget) -> one dict per trial (``groups_mitigation_task``).
MitRuns = dict[tuple[str, int], list[dict[str, float]]]
Floats = np.ndarray[Any, np.dtype[np.float64]]


def _worst(traces: list[Trace]) -> Floats:
    return np.array([float(t.final("test_worst_acc")) for t in traces], dtype=np.float64)


def _values(trials: list[dict[str, float]], key: str) -> Floats:
    return np.array([r[key] for r in trials], dtype=np.float64)


def _fitted(values: Floats) -> Floats:
    """Drop the trials a mitigation could not be fitted on (their scores are NaN)."""
    return values[np.isfinite(values)]


def _mean(values: Floats) -> float:
    kept = _fitted(values)
    return float(kept.mean()) if kept.size else float("nan")


def _label(mitigation: str) -> str:
    """Return the method name of a mitigation fitted on Uniform's rows ("none": none)."""
    return f"uniform + {mitigation}"


def run_groups(config: GroupsConfig, executor: Executor) -> ExperimentResult:
    """Run every sampler and mitigation at every budget; report worst-group test accuracy."""
    tasks = [(m, b) for b in config.budgets for m in config.methods]
    outs = executor.map(functools.partial(groups_task, config), tasks)
    runs = {task: list(out) for task, out in zip(tasks, outs, strict=True)}
    mit_tasks = [(m, b) for b in config.budgets for m in config.mitigations]
    mit_outs = executor.map(functools.partial(groups_mitigation_task, config), mit_tasks)
    mits = {task: list(out) for task, out in zip(mit_tasks, mit_outs, strict=True)}
    result = ExperimentResult(
        experiment="peers-groups",
        preset=config.preset,
        title=f"{config.dataset}, {' x '.join(config.groups)}: Aopt, Uniform, Slice Tuner, "
        "MinimaxFair, Abernethy ε-greedy, and fairlearn mitigation on Uniform's rows; "
        "worst-group test accuracy",
        config=config.to_dict(),
    )
    for (method, budget), traces in runs.items():
        result.traces[f"{method} b{budget}"] = traces
        result.rows += _rows(config.dataset, method, budget, traces)
    result.rows += _mitigation_rows(config, mits)
    result.figures["peers-groups"] = _figure(config, runs, mits)
    result.tables["Final worst-group test accuracy (mean ± std over seeds)"] = _table(
        config, runs, mits
    )
    if mits:
        result.tables[
            "Uniform's rows with and without a mitigation: overall test accuracy "
            "(mean ± std over seeds)"
        ] = pd.DataFrame(_mitigation_lines(config, mits, "test_accuracy"))
    result.verdicts += _peer_verdicts(config, runs) + _verdicts(config, runs, mits)
    result.meta["by_budget"] = _budget_facts(config, runs, mits)
    result.meta["exhausted"] = _exhausted_facts(runs)
    result.notes += _notes(config, result.meta)
    return result


def _rows(dataset: str, method: str, budget: int, traces: list[Trace]) -> list[dict[str, Any]]:
    keys: dict[str, Any] = {"dataset": dataset, "method": method, "budget": budget}
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


def _mitigation_rows(config: GroupsConfig, mits: MitRuns) -> list[dict[str, Any]]:
    """Tidy rows of the mitigations, and of Uniform's rows refitted without one ("none")."""
    rows: list[dict[str, Any]] = []
    for budget in config.budgets:
        for name in config.mitigations:
            trials = mits[name, budget]
            keys: dict[str, Any] = {
                "dataset": config.dataset,
                "method": _label(name),
                "budget": budget,
            }
            rows.append(mean_std_row(_values(trials, "fit_failed"), metric="fit_failed", **keys))
            scores = [("final_test_worst_acc", "test_worst_acc")] + [
                (k, k) for k in sorted(trials[0]) if k.startswith("test_acc")
            ]
            for metric, key in scores:
                kept = _fitted(_values(trials, key))  # the trials it was fitted on
                if kept.size:
                    rows.append(mean_std_row(kept, metric=metric, **keys))
        if config.mitigations:
            trials = mits[config.mitigations[0], budget]
            keys = {"dataset": config.dataset, "method": _label("none"), "budget": budget}
            for metric, key in (
                ("final_test_worst_acc", "plain_test_worst_acc"),
                ("test_accuracy", "plain_test_accuracy"),
            ):
                rows.append(mean_std_row(_values(trials, key), metric=metric, **keys))
    return rows


def _cell(values: Floats) -> str:
    kept = _fitted(values)
    if not kept.size:
        return "not fitted"
    cell = f"{kept.mean():.3f} ± {kept.std():.3f}"
    return cell if kept.size == values.size else f"{cell} ({kept.size} of {values.size} seeds)"


def _table(config: GroupsConfig, runs: Runs, mits: MitRuns) -> pd.DataFrame:
    lines = []
    for method in config.methods:
        line = {"method": method}
        for budget in config.budgets:
            line[f"budget {budget}"] = _cell(_worst(runs[method, budget]))
        lines.append(line)
    return pd.DataFrame(lines + _mitigation_lines(config, mits, "test_worst_acc"))


def _mitigation_lines(config: GroupsConfig, mits: MitRuns, metric: str) -> list[dict[str, str]]:
    """Table lines of ``metric``: Uniform's rows without mitigation ("none"), then each one."""
    if not config.mitigations:
        return []
    lines = []
    for name in ("none", *config.mitigations):
        # "none" (the plain refit) is recorded in every mitigation's trials: read the first's
        source, key = (
            (config.mitigations[0], f"plain_{metric}") if name == "none" else (name, metric)
        )
        line = {"method": _label(name)}
        for budget in config.budgets:
            line[f"budget {budget}"] = _cell(_values(mits[source, budget], key))
        lines.append(line)
    return lines


#: One line of the figure: label, values per budget, marker, colour, line style.
Series = tuple[str, list[Floats], str, str, str]


def _figure(config: GroupsConfig, runs: Runs, mits: MitRuns) -> Any:
    """Worst-group accuracy against budget, mean ± std over seeds.

    Left: the samplers with paired validation draws (the papers' loop) and, dashed grey, the
    mitigations fitted on Uniform's training rows; right (when some ran so), the samplers
    with ``validation=cross``. A sampler keeps its colour in both panels.
    """
    colours = [f"C{k}" for k in (0, 1, 2, 3, 4, 5, 6, 8, 9)]  # the cycle without its grey
    samplers = list(dict.fromkeys(parse_sampler(m)[0] for m in config.methods))
    panels: dict[bool, list[Series]] = {False: [], True: []}
    for method in config.methods:
        name = parse_sampler(method)[0]
        worst = [_worst(runs[method, b]) for b in config.budgets]
        colour = colours[samplers.index(name) % len(colours)]
        panels[_is_cross(method)].append((name, worst, "o", colour, "-"))
    greys = np.linspace(0.15, 0.65, max(len(config.mitigations), 1))
    for k, name in enumerate(config.mitigations):
        worst = [_fitted(_values(mits[name, b], "test_worst_acc")) for b in config.budgets]
        panels[False].append((_label(name), worst, "sv^DPX<>"[k % 8], f"{greys[k]:.2f}", "--"))
    titles = {
        False: "paired validation draws (the papers' loop)",
        True: "validation=cross: no validation draws, every sample trains",
    }
    shown = [cross for cross in (False, True) if panels[cross]]
    fig = new_figure(6.2 * len(shown), 6.0)
    axes = fig.subplots(1, len(shown), sharey=True, squeeze=False)[0]
    for ax, cross in zip(axes, shown, strict=True):
        _panel(ax, config.budgets, panels[cross])
        ax.set_title(titles[cross], fontsize="medium")
    axes[0].set_ylabel("worst-group test accuracy (higher is fairer)")
    return fig


def _panel(ax: Any, budgets: tuple[int, ...], series: list[Series]) -> None:
    """Draw ``series`` against the budgets, error bars side by side, legend underneath."""
    x = np.asarray(budgets, dtype=float)
    width = 0.012 * (x.max() - x.min() + 1.0)
    for k, (label, worst, marker, colour, style) in enumerate(series):
        shift = (k - (len(series) - 1) / 2) * width  # keep the error bars apart
        ax.errorbar(
            x + shift,
            [_mean(w) for w in worst],
            yerr=[float(w.std()) if w.size else 0.0 for w in worst],
            marker=marker,
            linestyle=style,
            linewidth=1.0 if style == "--" else 1.6,
            capsize=3,
            color=colour,
            label=label,
        )
    ax.set_xticks(x, [str(b) for b in budgets])
    ax.set_xlabel("samples drawn (budget)")
    ax.grid(True, alpha=0.3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(
        frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, fontsize="small"
    )


#: The published peers; every other sampler of the experiment is fairacq's own.
PEER_SAMPLERS = ("slice-tuner", "minimax-fair", "abernethy-greedy")


def _is_peer(label: str) -> bool:
    return parse_sampler(label)[0] in PEER_SAMPLERS


def _is_cross(label: str) -> bool:
    return parse_sampler(label)[1].get("validation") == "cross"


def _peer_verdicts(config: GroupsConfig, runs: Runs) -> list[Verdict]:
    """Compare fairacq's best sampler with the peers at each budget (worst-group accuracy).

    Against the peers as published (paired validation draws), and, when some ran with
    fairacq's held-out estimates (``validation=cross``), against those too.
    """
    ours = [m for m in config.methods if not _is_peer(m)]
    published = [m for m in config.methods if _is_peer(m) and not _is_cross(m)]
    crossed = [m for m in config.methods if _is_peer(m) and _is_cross(m)]
    out: list[Verdict] = []
    for peers, which in ((published, "every peer's"), (crossed, "every peer's with cross")):
        if not ours or not peers:
            continue
        for budget in config.budgets:
            out.append(_best_against(config, runs, ours, peers, budget, which))
    return out


def _best_against(
    config: GroupsConfig, runs: Runs, ours: list[str], peers: list[str], budget: int, which: str
) -> Verdict:
    worst = {m: _worst(runs[m, budget]) for m in ours + peers}
    best = max(ours, key=lambda m: float(worst[m].mean()))
    top = max(peers, key=lambda m: float(worst[m].mean()))
    return Verdict.check(
        f"fairacq's best sampler's worst-group accuracy at budget {budget} at least {which}",
        float(worst[best].mean()),
        ">=",
        float(worst[top].mean()),
        detail=f"fairacq's best {best} {worst[best].mean():.3f} ± {worst[best].std():.3f}, "
        f"best peer {top} {worst[top].mean():.3f} ± {worst[top].std():.3f} "
        f"({config.n_trials} seed(s)).",
        facts={"best": best, "best_peer": top, "peers_cross": _is_cross(peers[0])},
    )


def _verdicts(config: GroupsConfig, runs: Runs, mits: MitRuns) -> list[Verdict]:
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
                facts={"best": best},
            )
        )
    for method in config.methods:
        uniform = "uniform validation=cross" if _is_cross(method) else "uniform"
        if method == uniform or uniform not in means:
            continue
        out.append(
            Verdict.check(
                f"{method} beats {uniform}'s worst-group accuracy at budget {budget}",
                means[method],
                ">=",
                means[uniform],
                detail=f"{method} {means[method]:.3f}, {uniform} {means[uniform]:.3f} "
                f"({config.n_trials} seed(s)).",
                facts={"method": method, "against": uniform},
            )
        )
    mit = _best_mitigation(config, mits, budget) if config.mitigations else None
    if mit is not None:
        out.append(
            Verdict.check(
                f"best sampler's worst-group accuracy at budget {budget} at least every "
                "mitigation's on Uniform's rows",
                means[best],
                ">=",
                mit[1],
                detail=f"best sampler {best} {means[best]:.3f}, best mitigation {_label(mit[0])} "
                f"{mit[1]:.3f} ({config.n_trials} seed(s)).",
                facts={"best": best, "best_mitigation": mit[0]},
            )
        )
    return out


def _best_mitigation(config: GroupsConfig, mits: MitRuns, budget: int) -> tuple[str, float] | None:
    """Return the mitigation of best mean worst-group accuracy (None when none was fitted)."""
    means = {m: _mean(_values(mits[m, budget], "test_worst_acc")) for m in config.mitigations}
    means = {m: v for m, v in means.items() if np.isfinite(v)}
    if not means:
        return None
    name = max(means, key=means.__getitem__)
    return name, means[name]


def _exhausted_facts(runs: Runs) -> list[dict[str, Any]]:
    """Where the pool ran out of a group a rule chose (its rounds drew a fallback)."""
    cells = []
    for (method, budget), traces in runs.items():
        hit = [t for t in traces if "exhausted" in t.meta]
        if hit:
            rounds = sum(int(t.meta["redirected_rounds"]) for t in hit)
            cells.append(
                {"method": method, "budget": budget, "trials": len(hit), "of": len(traces)}
                | {"rounds": rounds}
            )
    return cells


def _exhausted_notes(cells: list[dict[str, Any]]) -> list[str]:
    """Say where the pool ran out of a group a rule chose (its rounds drew a fallback)."""
    if not cells:
        return []
    words = [
        f"{c['method']} at {c['budget']} ({c['trials']} of {c['of']}, {c['rounds']} rounds)"
        for c in cells
    ]
    return [
        "The pool ran out of a group the rule chose, so those rounds drew the rule's fallback "
        "group (the allocation there is not the rule's own), in: " + "; ".join(words) + "."
    ]


def _budget_facts(config: GroupsConfig, runs: Runs, mits: MitRuns) -> dict[str, Any]:
    """Per budget (a string key): the samplers ranked, and the mitigation finding if any."""
    out: dict[str, Any] = {}
    for budget in config.budgets:
        means = {m: float(_worst(runs[m, budget]).mean()) for m in config.methods}
        ranking = sorted(means.items(), key=lambda kv: -kv[1])
        facts: dict[str, Any] = {"ranking": [[m, v] for m, v in ranking]}
        if config.mitigations:
            facts |= _mitigation_facts(config, mits, budget, ranking[0])
        out[str(budget)] = facts
    return out


def _notes(config: GroupsConfig, meta: dict[str, Any]) -> list[str]:
    """Word the run's setup and the facts in ``meta`` (``by_budget``, ``exhausted``)."""
    notes = [
        "Every sampler runs with its defaults (Abernethy's ε-greedy with its averaged-SGD "
        "learner, the others with exact logistic regression) on the pool/test splits of "
        "`run_sampler_trials` (70/30 stratified by group and label, standardised by the "
        f"pool), root seed {config.seed}, so every method sees the same splits.",
    ]
    if config.mitigations:
        notes.append(
            "Mitigation comparators (`uniform + <name>`, dashed): each "
            "`fairacq.models.fit_mitigation` comparator fitted with the samplers' logistic "
            "regression (C=1, on the pool-standardised features) on the training rows Uniform "
            "drew in the same trial (half the budget: the other half are its paired validation "
            "draws, which no model trains on), scored on the same test split; their randomised "
            "predictions are drawn with a seed. `uniform + none` is that logistic regression "
            "refitted on the same rows without mitigation (Uniform's own model, up to the "
            "solver's tolerance)."
        )
    for budget in config.budgets:
        facts = meta["by_budget"][str(budget)]
        ranked = ", ".join(f"{m} {v:.3f}" for m, v in facts["ranking"])
        notes.append(f"Budget {budget}: {ranked}.")
        if config.mitigations:
            notes.append(_mitigation_note(facts, budget))
    notes += _exhausted_notes(meta["exhausted"])
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
        title="Adult race x sex (or another data set's groups): worst-group accuracy of Aopt "
        "and its peers at three budgets",
        config_cls=GroupsConfig,
        run=run_groups,  # type: ignore[arg-type]
    )
)


def _mitigation_facts(
    config: GroupsConfig, mits: MitRuns, budget: int, best: tuple[str, float]
) -> dict[str, Any]:
    """Return the numbers of one budget's mitigation finding (kept in ``summary.json``'s meta).

    ``plain`` is no mitigation's worst-group accuracy on Uniform's rows; per mitigation its
    mean, its mean paired change against ``plain`` and on how many seeds it was fitted;
    then the best mitigation (None when none was fitted) and the best sampler.
    """
    trials = mits[config.mitigations[0], budget]
    by_name: dict[str, dict[str, Any]] = {}
    for name in config.mitigations:
        values = _values(mits[name, budget], "test_worst_acc")
        change = _mean(values - _values(mits[name, budget], "plain_test_worst_acc"))
        by_name[name] = {
            "mean": _mean(values),
            "change": change,
            "fitted_seeds": int(_fitted(values).size),
            "seeds": int(values.size),
        }
    mit = _best_mitigation(config, mits, budget)
    return {
        "plain": float(_values(trials, "plain_test_worst_acc").mean()),
        "mitigations": by_name,
        "best_mitigation": None if mit is None else {"name": mit[0], "value": mit[1]},
        "best_sampler": {"name": best[0], "value": best[1]},
        "mitigation_beats_samplers": mit is not None and mit[1] > best[1],
    }


def _mitigation_note(facts: dict[str, Any], budget: int) -> str:
    """One finding: the mitigations at ``budget`` against no mitigation and the best sampler."""
    parts = []
    for name, m in facts["mitigations"].items():
        if not m["fitted_seeds"]:
            parts.append(f"{name} not fitted (a group with one label in every seed)")
            continue
        kept, n = m["fitted_seeds"], m["seeds"]
        seeds = "" if kept == n else f"; fitted on {kept} of {n} seeds"
        parts.append(f"{name} {m['mean']:.3f} ({m['change']:+.3f}{seeds})")
    mit, best = facts["best_mitigation"], facts["best_sampler"]
    if mit is None:
        verdict = "no mitigation could be fitted"
    elif facts["mitigation_beats_samplers"]:
        verdict = (
            f"the best mitigation ({mit['name']}, {mit['value']:.3f}) beats the best sampler "
            f"({best['name']}, {best['value']:.3f}) by {mit['value'] - best['value']:.3f}"
        )
    else:
        verdict = (
            f"no mitigation on Uniform's rows beats the best sampler ({best['name']}, "
            f"{best['value']:.3f}); the best one ({mit['name']}, {mit['value']:.3f}) is "
            f"{best['value'] - mit['value']:.3f} below it"
        )
    return (
        f"Budget {budget}, Uniform's rows with a mitigation (worst-group accuracy, change against "
        f"no mitigation {facts['plain']:.3f} on the same rows, paired by seed): "
        + ", ".join(parts)
        + f"; {verdict}."
    )
