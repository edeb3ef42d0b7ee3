"""Paper 002 (Bakker et al., DADI: dynamic adversarial discovery of information): Fig. 2.

- ``dadi-fig2``: Adult with gender as the sensitive attribute (§4). Disparity and AUC against
  ``1 - gamma`` for both adversarial rewards (group-normalised L1, eq. 6, and cross-entropy,
  eq. 5), median and quartiles over 8-fold cross-validation (87.5/12.5 train-val/test, then
  80/20 train/validation), and the AUC-disparity Pareto front with the full-feature
  classifier as a black square.
- ``dadi-fig2-second``: the paper's second dataset (Mexican household poverty) is not
  available offline. fairacq uses ACS Income (folktables, pooled PUMS person files of every
  state found under ``$FAIRACQ_DATA``, sensitive attribute sex) when a PUMS file is there,
  and otherwise Bank Marketing with age (``< 25`` / ``>= 25``) as the sensitive attribute.

Both go beyond the figure: the dynamic agent's front is compared with static fair feature
selection (one subset of feature groups for everybody, chosen greedily on the validation
part to maximise ``AUC - lam * disparity``; scored once with logistic regression retrained on
the subset and once with DADI's own pretrained classifier on masked inputs), and with the
classifier that drops the sensitive attribute. As in the paper, the features include the
sensitive attribute itself (Adult: 14 attributes, 14 actions, §4). Numerical features are
standardised with the training part's statistics and one-hot columns left as they are (§4):
DADI does this itself, and the logistic-regression baselines standardise every column.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from fairacq._random import spawn_seeds
from fairacq.exceptions import InvalidParameterError
from fairacq.features import compare_fronts
from fairacq.metrics import pareto_front
from fairacq.parallel import Executor
from fairacq.reporting import new_figure, plot_median_band, plot_pareto_fronts
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult
from fairacq_experiments._framework.verdict import Verdict
from fairacq_experiments.dadi._config import DadiFig2Config, DadiFig2SecondConfig
from fairacq_experiments.dadi._findings import (
    leakage_facts,
    leakage_note,
    one_third_check,
    reward_comparison_facts,
    reward_comparison_note,
)
from fairacq_experiments.dadi._paper_numbers import PAPER_002_FIG2
from fairacq_experiments.dadi._tasks import fold_task, fold_tasks, resolve_second_dataset

__all__ = [
    "merge_dadi_fig2",
    "per_fold_table",
    "run_dadi_fig2",
    "summarise_dadi_fig2",
]


def _quartiles(values: pd.Series) -> tuple[float, float, float]:
    q = np.quantile(values.to_numpy(dtype=float), [0.25, 0.5, 0.75])
    return float(q[0]), float(q[1]), float(q[2])


def run_dadi_fig2(config: DadiFig2Config, executor: Executor) -> ExperimentResult:
    """Train every (fold, reward, gamma), score the baselines, and compare the fronts."""
    seeds = spawn_seeds(config.seed, 2 + config.n_folds)
    tasks = fold_tasks(config)
    outputs = executor.map(functools.partial(fold_task, config.task_settings(), seeds), tasks)
    agents = [out for out in outputs if isinstance(out, dict)]
    baselines = [row for out in outputs if isinstance(out, list) for row in out]
    return summarise_dadi_fig2(config, agents, baselines)


def merge_dadi_fig2(
    parts: Sequence[tuple[DadiFig2Config, Mapping[str, Any]]],
) -> ExperimentResult:
    """Summarise the folds of several runs of one experiment as one run.

    Parameters
    ----------
    parts : sequence of (config, meta dict)
        Each part's configuration and ``summary.json`` meta (which holds the per-fold
        rows). The configurations must be equal except for the folds run, and no fold may
        be in two parts.

    Returns
    -------
    ExperimentResult
        As if one run had trained every fold of the parts; ``meta["parts"]`` lists the folds
        and run time of each part.
    """
    if len(parts) < 2:
        raise InvalidParameterError(f"Merging needs at least two parts, got {len(parts)}.")
    configs = [c for c, _ in parts]
    shared = [dataclasses.replace(c, folds=None, n_trials=1) for c in configs]
    for i, other in enumerate(shared[1:], start=1):
        if other != shared[0]:
            diff = sorted(
                f.name
                for f in dataclasses.fields(other)
                if getattr(other, f.name) != getattr(shared[0], f.name)
            )
            raise InvalidParameterError(
                f"Part {i + 1} was run with other settings than part 1 ({', '.join(diff)}); "
                "only the folds may differ between the parts of one experiment."
            )
    folds = [f for c in configs for f in c.fold_indices]
    twice = sorted({f for f in folds if folds.count(f) > 1})
    if twice:
        raise InvalidParameterError(
            f"Fold(s) {twice} are in more than one part; merge each fold once."
        )
    config = dataclasses.replace(shared[0], folds=tuple(sorted(folds)), n_trials=len(folds))
    agents = [r for _, meta in parts for r in meta["per_fold_dadi"]]
    baselines = [r for _, meta in parts for r in meta["per_fold_baselines"]]
    result = summarise_dadi_fig2(config, agents, baselines)
    result.meta["parts"] = [
        {"folds": list(c.fold_indices), "elapsed_s": meta.get("elapsed_s")}
        for c, (_, meta) in zip(configs, parts, strict=True)
    ]
    result.meta["elapsed_s"] = sum(float(meta.get("elapsed_s") or 0.0) for _, meta in parts)
    return result


def summarise_dadi_fig2(
    config: DadiFig2Config,
    agent_rows: Sequence[Mapping[str, Any]],
    baseline_rows: Sequence[Mapping[str, Any]],
) -> ExperimentResult:
    """Build Fig. 2's rows, notes and figure from the per-fold agent and baseline rows."""
    dataset, sensitive, _ = resolve_second_dataset(config)
    agents = pd.DataFrame(list(agent_rows))
    baselines = pd.DataFrame(list(baseline_rows))
    result = ExperimentResult(
        experiment=config.experiment,
        preset=config.preset,
        title=config.title,
        config=config.to_dict(),
    )
    result.meta["dataset"] = dataset
    result.meta["sensitive"] = sensitive
    result.meta["per_fold_dadi"] = agents.to_dict(orient="records")
    result.meta["per_fold_baselines"] = baselines.to_dict(orient="records")
    _tradeoff_rows(result, agents, dataset)
    points = _front_points(agents, baselines)
    reference = _reference(baselines, config)
    result.meta["front_points"] = _front_table(points).to_dict(orient="records")
    _baseline_rows(result, baselines, dataset)
    result.notes.extend(_notes(config, agents, points, reference, baselines))
    result.meta.update(_finding_facts(agents))
    result.verdicts.extend(_verdicts(config, agents, reference, baselines))
    result.figures[config.experiment] = _figure(config, agents, points, reference, baselines)
    result.tables["AUC / disparity of every agent on each fold (folds numbered from 0)"] = (
        per_fold_table(agents, baselines, reference[0])
    )
    return result


def per_fold_table(agents: pd.DataFrame, baselines: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Return one row per agent (and the black square), one ``AUC / disparity`` cell per fold.

    The last column is the median over the folds, as Fig. 2 plots it.
    """

    def cells(part: pd.DataFrame) -> dict[str, str]:
        out = {
            f"fold {int(r['fold'])}": f"{r['auc']:.3f} / {r['disparity']:.3f}"
            for _, r in part.sort_values("fold").iterrows()
        }
        out["median"] = f"{part['auc'].median():.3f} / {part['disparity'].median():.3f}"
        return out

    rows = [
        {
            "agent": f"black square ({reference})",
            **cells(baselines[baselines["method"] == reference]),
        }
    ]
    for key, part in agents.groupby(["reward", "one_minus_gamma"], sort=True):
        reward, omg = cast(tuple[str, float], key)
        rows.append({"agent": f"{reward.upper()}, 1 - gamma {omg:g}", **cells(part)})
    return pd.DataFrame(rows).fillna("—")


def _tradeoff_rows(result: ExperimentResult, agents: pd.DataFrame, dataset: str) -> None:
    for key, part in agents.groupby(["reward", "one_minus_gamma"], sort=True):
        reward, omg = cast(tuple[str, float], key)
        for metric in ("auc", "disparity", "groups_acquired", "sensitive_acquired"):
            q1, med, q3 = _quartiles(part[metric])
            result.rows.append(
                {
                    "dataset": dataset,
                    "method": f"dadi-{reward}",
                    "one_minus_gamma": float(omg),
                    "metric": metric,
                    "q1": q1,
                    "value": med,
                    "q3": q3,
                    "paper_value": None,
                }
            )


def _baseline_rows(result: ExperimentResult, baselines: pd.DataFrame, dataset: str) -> None:
    fixed = baselines[baselines["lam"].isna()]
    for method, part in fixed.groupby("method", sort=True):
        for metric in ("auc", "disparity"):
            q1, med, q3 = _quartiles(part[metric])
            result.rows.append(
                {
                    "dataset": dataset,
                    "method": str(method),
                    "one_minus_gamma": None,
                    "metric": metric,
                    "q1": q1,
                    "value": med,
                    "q3": q3,
                    "paper_value": None,
                }
            )


def _front_points(agents: pd.DataFrame, baselines: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Median (over folds) AUC and disparity of each method's points, by knob value."""
    out: dict[str, pd.DataFrame] = {}
    for reward, part in agents.groupby("reward", sort=True):
        med = part.groupby("one_minus_gamma")[["auc", "disparity"]].median().reset_index()
        out[f"DADI ({reward})"] = med
    static = baselines[baselines["lam"].notna()]
    for method, part in static.groupby("method", sort=True):
        med = part.groupby("lam")[["auc", "disparity"]].median().reset_index()
        out[f"static selection ({str(method).removeprefix('static-')})"] = med
    return out


def _reference(baselines: pd.DataFrame, config: DadiFig2Config) -> tuple[str, float, float]:
    """Return the black square: DADI's pretrained classifier on every feature (or the learner)."""
    name = "dadi-classifier-full" if config.static_with_agent else f"{config.learner}-full"
    part = baselines[baselines["method"] == name]
    return name, float(part["auc"].median()), float(part["disparity"].median())


def _fold_text(config: DadiFig2Config) -> str:
    folds = config.fold_indices
    text = f"{len(folds)} of {config.n_folds} folds"
    if folds != tuple(range(len(folds))):
        text += " (numbered from 0: " + ", ".join(str(f) for f in folds) + ")"
    return text


def _elements_text(config: DadiFig2Config) -> str:
    if config.set_elements == "hot":
        return "; set encoders read one element per observed one-hot group, not every column"
    return ""


def _notes(
    config: DadiFig2Config,
    agents: pd.DataFrame,
    points: dict[str, pd.DataFrame],
    reference: tuple[str, float, float],
    baselines: pd.DataFrame,
) -> list[str]:
    ref_name, ref_auc, ref_disp = reference
    dadi_all = pd.concat([p for k, p in points.items() if k.startswith("DADI")])
    notes = [
        f"Medians over {_fold_text(config)} "
        f"({config.n_pretrain_iter} pre-training + {config.n_train_iter} joint iterations per "
        f"agent; preset {config.preset}{_elements_text(config)}). Black square "
        f"({ref_name}): AUC {ref_auc:.3f}, "
        f"disparity {ref_disp:.3f}. " + PAPER_002_FIG2["black_square"],
        "Paper: " + PAPER_002_FIG2["monotone"] + " Here: " + _trend_text(agents) + ".",
        *_front_notes(dadi_all, points),
        "Paper: " + PAPER_002_FIG2["knee"] + " Here: " + _knee_text(agents) + ".",
    ]
    no_sens = baselines[baselines["method"] == f"{config.learner}-no-sensitive"]
    if len(no_sens):
        notes.append(
            f"Dropping the sensitive attribute ({config.learner}, proxies kept): median AUC "
            f"{no_sens['auc'].median():.3f}, disparity {no_sens['disparity'].median():.3f}; "
            "its proxies still carry the attribute (§1)."
        )
    if "reward_policy" in agents:
        notes.append(reward_comparison_note(agents))
    if "adversary_auc_fresh" in agents:
        notes.append(leakage_note(agents))
    return notes


def _finding_facts(agents: pd.DataFrame) -> dict[str, Any]:
    """Return the numbers behind the reward and leakage notes, for ``summary.json``'s ``meta``."""
    facts: dict[str, Any] = {}
    if "reward_policy" in agents:
        facts["reward_comparison"] = reward_comparison_facts(agents)
    if "adversary_auc_fresh" in agents:
        facts["leakage"] = leakage_facts(agents)
    return facts


def _trend_text(agents: pd.DataFrame) -> str:
    """Claim 1: AUC and disparity rise with 1 - gamma; ours from the least to the most."""
    trend = []
    for reward, part in agents.groupby("reward", sort=True):
        med = part.groupby("one_minus_gamma")[["auc", "disparity"]].median()
        lo, hi = med.iloc[0], med.iloc[-1]
        trend.append(
            f"{reward}: AUC {lo['auc']:.3f} -> {hi['auc']:.3f}, disparity "
            f"{lo['disparity']:.3f} -> {hi['disparity']:.3f} from 1 - gamma = "
            f"{med.index[0]:g} to {med.index[-1]:g}"
        )
    return "; ".join(trend)


def _front_notes(dadi_all: pd.DataFrame, points: dict[str, pd.DataFrame]) -> list[str]:
    """DADI's front against each static front (the paper's case), then GNL1 against CE."""
    notes = []
    for key, part in points.items():
        if not key.startswith("static"):
            continue
        cmp = compare_fronts(
            dadi_all["auc"], dadi_all["disparity"], part["auc"], part["disparity"]
        )
        notes.append(
            f"Front comparison, DADI (both rewards) against {key}: "
            + cmp.describe("DADI", key)
            + (
                f" Largest AUC gain of DADI: {cmp.max_gain:+.3f}."
                if np.isfinite(cmp.max_gain)
                else ""
            )
        )
    # Claim 3: GNL1 against CE at small disparity.
    if {"DADI (gnl1)", "DADI (ce)"} <= set(points):
        g, c = points["DADI (gnl1)"], points["DADI (ce)"]
        cmp = compare_fronts(g["auc"], g["disparity"], c["auc"], c["disparity"])
        notes.append("Paper: " + PAPER_002_FIG2["gnl1"] + " Here: " + cmp.describe("GNL1", "CE"))
    return notes


def _knee_text(agents: pd.DataFrame) -> str:
    """Where each reward reaches 90 % of its AUC gain, and the disparity it costs there."""
    knees = []
    for reward, part in agents.groupby("reward", sort=True):
        m = part.groupby("one_minus_gamma")[["auc", "disparity"]].median()
        a_lo, a_hi = float(m["auc"].min()), float(m["auc"].max())
        d_lo, d_hi = float(m["disparity"].min()), float(m["disparity"].max())
        if a_hi - a_lo <= 0:
            knees.append(f"{reward}: AUC does not change with gamma")
            continue
        reached = m[m["auc"] >= a_lo + 0.9 * (a_hi - a_lo)]
        at, knob = reached.iloc[0], float(reached.index.to_numpy(dtype=float)[0])
        share = (float(at["disparity"]) - d_lo) / (d_hi - d_lo) if d_hi > d_lo else 0.0
        knees.append(
            f"{reward}: 90% of the AUC gain is reached at 1 - gamma = {knob:g} with "
            f"{100 * share:.0f}% of the disparity range"
        )
    return "; ".join(knees)


def _verdicts(
    config: DadiFig2Config,
    agents: pd.DataFrame,
    reference: tuple[str, float, float],
    baselines: pd.DataFrame,
) -> list[Verdict]:
    """Return the acceptance checks against the black square and the full-feature learner."""
    ref_name, ref_auc, ref_disp = reference
    med = agents.groupby(["reward", "one_minus_gamma"])[["auc", "disparity"]].median()
    refs = {f"black square ({ref_name})": (ref_auc, ref_disp)}
    lr_full = baselines[baselines["method"] == f"{config.learner}-full"]
    if len(lr_full) and ref_name != f"{config.learner}-full":
        refs[f"{config.learner}-full"] = (
            float(lr_full["auc"].median()),
            float(lr_full["disparity"].median()),
        )
    return [one_third_check(med, label, r_auc, r_disp) for label, (r_auc, r_disp) in refs.items()]


def _figure(
    config: DadiFig2Config,
    agents: pd.DataFrame,
    points: dict[str, pd.DataFrame],
    reference: tuple[str, float, float],
    baselines: pd.DataFrame,
) -> Any:
    ref_name, ref_auc, ref_disp = reference
    fig = new_figure(18.0, 4.6)
    left, mid, right = fig.subplots(1, 3)
    labelled = agents.assign(reward=agents["reward"].map({"gnl1": "GNL1", "ce": "CE"}))
    plot_median_band(
        labelled,
        "one_minus_gamma",
        "disparity",
        by="reward",
        ax=left,
        reference=ref_disp,
        xlabel="1 - gamma (weight of accuracy)",
        ylabel="demographic disparity (lower is fairer)",
        title="disparity (median, quartiles)",
    )
    plot_median_band(
        labelled,
        "one_minus_gamma",
        "auc",
        by="reward",
        ax=mid,
        reference=ref_auc,
        xlabel="1 - gamma (weight of accuracy)",
        ylabel="AUC (higher is better)",
        title="AUC (median, quartiles)",
    )
    extra = {}
    for method, label in (
        (f"{config.learner}-full", f"{config.learner}, every feature"),
        (f"{config.learner}-no-sensitive", f"{config.learner} without the sensitive attribute"),
    ):
        part = baselines[baselines["method"] == method]
        if len(part) and method != ref_name:
            extra[label] = (float(part["auc"].median()), float(part["disparity"].median()))
    plot_pareto_fronts(
        {k: (p["auc"].to_numpy(), p["disparity"].to_numpy()) for k, p in points.items()},
        ax=right,
        reference=(ref_auc, ref_disp),
        reference_label="full features (black square)",
        extra=extra,
        target=(ref_auc - 0.05, ref_disp / 3),
        target_label="acceptance check: AUC within 0.05, a third of the disparity",
        title="AUC-disparity trade-off (medians over folds)",
    )
    return fig


def _front_table(points: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every method's median points with an ``on_front`` flag (for scripts and tests)."""
    parts = []
    for key, part in points.items():
        flag = np.zeros(len(part), dtype=bool)
        flag[pareto_front(part["auc"], part["disparity"])] = True
        parts.append(part.assign(method=key, on_front=flag))
    return pd.concat(parts, ignore_index=True)


register(
    ExperimentSpec(
        name="dadi-fig2",
        family="features",
        paper="Bakker et al. Fig. 2a-c",
        title="Adult (gender): DADI disparity/AUC vs 1 - gamma; Pareto front vs static selection",
        config_cls=DadiFig2Config,
        run=run_dadi_fig2,  # type: ignore[arg-type]
        merge=merge_dadi_fig2,  # type: ignore[arg-type]
    )
)
register(
    ExperimentSpec(
        name="dadi-fig2-second",
        family="features",
        paper="Bakker et al. Fig. 2d-f",
        title="Second dataset (ACS Income by sex, else Bank Marketing by age): DADI trade-off",
        config_cls=DadiFig2SecondConfig,
        run=run_dadi_fig2,  # type: ignore[arg-type]
        merge=merge_dadi_fig2,  # type: ignore[arg-type]
    )
)
