"""``peers-rows``: Falcon (λ sweep), FAL, DataSift-Inf, Entropy and Random on the same splits.

COMPAS by race and Adult by sex (bundled), ACS Income by sex when its files are present.
Each (group, label) cell is split train : validation : pool : test = 1 : 1 : 8 : 4, every
acquirer spends its budget on the pool, steers on validation (demographic parity) and is
scored on test; fairlearn's ThresholdOptimizer on the initial training data is the
"collect nothing" comparator. Every acquisition trace counts ``rows_paid`` (labels bought)
and ``labels_seen`` (labels revealed to the method): DataSift-Inf looks at more labels than
it pays for, so methods are compared at equal labels seen and at equal rows paid too.
Findings and choices: ``docs/paper-notes/peers-rows.md``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fairacq._random import spawn_seeds
from fairacq._trace import Trace
from fairacq.data import DatasetNotFoundError
from fairacq.parallel import Executor
from fairacq.reporting import new_figure
from fairacq_experiments._framework.registry import ExperimentSpec, register
from fairacq_experiments._framework.result import ExperimentResult, mean_std_row
from fairacq_experiments._framework.verdict import Verdict
from fairacq_experiments.peers._config import RowsConfig, parse_method
from fairacq_experiments.peers._fronts import FrontPoint, front_verdict
from fairacq_experiments.peers._tasks import MITIGATION, RowTask, load_rows_dataset, rows_task

__all__ = ["RowsConfig", "at_most", "run_rows", "split_present"]

ACC, DP = "test_accuracy", "test_demographic_parity_diff_abs"


def at_most(trace: Trace, column: str, limit: float) -> dict[str, float]:
    """Test accuracy and |DP| at the last step whose ``column`` is at most ``limit``."""
    frame = trace.to_frame()
    rows = frame[frame[column] <= limit + 1e-9]
    last = rows.iloc[-1] if len(rows) else frame.iloc[0]
    return {
        "acc": float(last[ACC]),
        "dp": abs(float(last[DP])),
        column: float(last[column]),
    }


def _final(trace: Trace) -> dict[str, float]:
    frame = trace.to_frame()
    first, last = frame.iloc[0], frame.iloc[-1]
    return {
        "acc": float(last[ACC]),
        "dp": abs(float(last[DP])),
        "start_acc": float(first[ACC]),
        "start_dp": abs(float(first[DP])),
        "rows_paid": float(last["rows_paid"]),
        "labels_seen": float(last["labels_seen"]),
    }


@dataclass
class _Dataset:
    """One dataset's runs: per method the final numbers and those at the matched points."""

    name: str
    final: dict[str, list[dict[str, float]]]
    at_labels: dict[str, list[dict[str, float]]]
    at_paid: dict[str, list[dict[str, float]]]
    labels: float  # the matched labels seen: the smallest final labels_seen of any method
    paid: float  # the matched rows paid: the smallest final rows_paid of any method
    mitigation: list[dict[str, float]]

    def mean(self, method: str, key: str, where: str = "final") -> float:
        runs = {"final": self.final, "labels": self.at_labels, "paid": self.at_paid}[where]
        return float(np.mean([r[key] for r in runs[method]]))

    @classmethod
    def of(cls, name: str, traces: dict[str, list[Trace]], mitig: list[Any]) -> _Dataset:
        final = {m: [_final(t) for t in ts] for m, ts in traces.items()}
        labels = min(r["labels_seen"] for runs in final.values() for r in runs)
        paid = min(r["rows_paid"] for runs in final.values() for r in runs)
        return cls(
            name=name,
            final=final,
            at_labels={
                m: [at_most(t, "labels_seen", labels) for t in ts] for m, ts in traces.items()
            },
            at_paid={m: [at_most(t, "rows_paid", paid) for t in ts] for m, ts in traces.items()},
            labels=labels,
            paid=paid,
            mitigation=[dict(r) for r in mitig],
        )


def split_present(datasets: Iterable[str], include_sensitive: bool) -> tuple[list[str], list[str]]:
    """Return the ``datasets`` whose files are present, and those missing (in order)."""
    present, missing = [], []
    for name in datasets:
        try:
            load_rows_dataset(name, include_sensitive)
            present.append(name)
        except DatasetNotFoundError:
            missing.append(name)
    return present, missing


def run_rows(config: RowsConfig, executor: Executor) -> ExperimentResult:
    """Run every acquirer (and the mitigation comparator) on every dataset and trial."""
    present, missing = split_present(config.datasets, config.include_sensitive)
    methods = [*config.methods, *([MITIGATION] if config.mitigation else [])]
    tasks = [RowTask(d, m, t) for d in present for m in methods for t in range(config.n_trials)]
    seeds = spawn_seeds(config.seed, config.n_trials)
    outs = executor.map(functools.partial(rows_task, config, seeds), tasks)
    result = ExperimentResult(
        experiment="peers-rows",
        preset=config.preset,
        title="Pool-based fair acquisition: Falcon (λ sweep), FAL, DataSift-Inf, Entropy, "
        "Random, fairacq post-thresholds (random or entropy rows, tol sweep), fairacq's row "
        "strategy (threshold-aware, fixed tol grid); ThresholdOptimizer as the "
        "collect-nothing point",
        config=config.to_dict(),
    )
    runs: list[_Dataset] = []
    for name in present:
        traces: dict[str, list[Trace]] = {
            m: [
                o
                for t, o in zip(tasks, outs, strict=True)
                if t.dataset == name and t.method == m and isinstance(o, Trace)
            ]
            for m in config.methods
        }
        mitig = [
            o
            for t, o in zip(tasks, outs, strict=True)
            if t.dataset == name and t.method == MITIGATION
        ]
        for m, ts in traces.items():
            result.traces[f"{name} {m}"] = ts
        runs.append(_Dataset.of(name, traces, mitig))
    for run in runs:
        result.rows += _rows(run)
        result.verdicts += _front_verdicts(run) + _verdicts(run)
    if runs:
        result.figures["peers-rows"] = _figure(runs)
        result.tables["Final test accuracy and |DP| (mean ± std over seeds)"] = _table(runs)
    result.meta["skipped_datasets"] = list(missing)
    result.notes += _notes(config, runs, missing)
    return result


def _rows(run: _Dataset) -> list[dict[str, Any]]:
    rows = []
    for method, finals in run.final.items():
        keys: dict[str, Any] = {"dataset": run.name, "method": method}
        for key in ("acc", "dp", "start_acc", "start_dp", "rows_paid", "labels_seen"):
            metric = {"acc": "final_test_accuracy", "dp": "final_test_dp"}.get(key, key)
            rows.append(mean_std_row([r[key] for r in finals], metric=metric, **keys))
        for where, runs, at in (
            ("labels_seen", run.at_labels, run.labels),
            ("rows_paid", run.at_paid, run.paid),
        ):
            for key, word in (("acc", "test_accuracy"), ("dp", "test_dp")):
                rows.append(
                    mean_std_row(
                        [r[key] for r in runs[method]], metric=f"{word}@{where}<={at:g}", **keys
                    )
                )
    for key, word in (("test_accuracy", "final_test_accuracy"), ("test_dp", "final_test_dp")):
        if run.mitigation:
            rows.append(
                mean_std_row(
                    [r[key] for r in run.mitigation],
                    dataset=run.name,
                    method=MITIGATION,
                    metric=word,
                )
            )
    return rows


def _table(runs: list[_Dataset]) -> pd.DataFrame:
    lines = []
    for run in runs:
        for method, finals in run.final.items():
            acc, dp = [r["acc"] for r in finals], [r["dp"] for r in finals]
            lines.append(
                {
                    "dataset": run.name,
                    "method": method,
                    "accuracy": f"{np.mean(acc):.3f} ± {np.std(acc):.3f}",
                    "|DP|": f"{np.mean(dp):.3f} ± {np.std(dp):.3f}",
                    "rows paid": f"{run.mean(method, 'rows_paid'):.0f}",
                    "labels seen": f"{run.mean(method, 'labels_seen'):.0f}",
                    "|DP| at equal rows paid": f"{run.mean(method, 'dp', 'paid'):.3f}",
                    "|DP| at equal labels seen": f"{run.mean(method, 'dp', 'labels'):.3f}",
                }
            )
        if run.mitigation:
            acc = [r["test_accuracy"] for r in run.mitigation]
            dp = [r["test_dp"] for r in run.mitigation]
            lines.append(
                {
                    "dataset": run.name,
                    "method": MITIGATION,
                    "accuracy": f"{np.mean(acc):.3f} ± {np.std(acc):.3f}",
                    "|DP|": f"{np.mean(dp):.3f} ± {np.std(dp):.3f}",
                    "rows paid": "0",
                    "labels seen": "0",
                    "|DP| at equal rows paid": "",
                    "|DP| at equal labels seen": "",
                }
            )
    return pd.DataFrame(lines)


#: fairacq's post-thresholds fronts: the row policy, the method that is its no-threshold
#: end (the same rows, no thresholds) and how the figure draws it.
POLICY_FRONTS = {
    "random": ("random", "teal", "random rows"),
    "entropy": ("entropy", "darkorchid", "entropy rows"),
}
#: Where the thresholds are placed: the words and line style of each front.
PLACEMENTS = {"pool": ("placed on the pool", "-"), "validation": ("placed on validation", ":")}


def fronts(run: _Dataset, where: str = "labels") -> dict[str, list[FrontPoint]]:
    """Return Falcon's λ front (``"falcon"``) and fairacq's, one per policy and placement.

    fairacq's front (key ``"fairacq <policy> <placement>"``) is post-thresholds' tol sweep
    with that row policy and threshold placement, and the method buying the same rows
    without thresholds (Random or Entropy) as its no-threshold end; ``where="labels"``
    reads every method at equal labels seen.
    """
    runs = {"final": run.final, "labels": run.at_labels, "paid": run.at_paid}[where]
    out: dict[str, list[FrontPoint]] = {}
    for policy, (end, _, _) in POLICY_FRONTS.items():
        for placement in PLACEMENTS:
            post = [m for m in runs if post_setting(m) == (policy, placement)]
            ours = [*post, end] if post and end in runs else post
            if ours:
                key = f"fairacq {policy} {placement}"
                out[key] = [FrontPoint.of(m, runs[m]) for m in ours]
    own = own_methods(runs)
    if own:  # fairacq's row strategy: its tol grid, Entropy its no-threshold end (tol -> inf)
        out[OWN] = [
            FrontPoint.of(m, runs[m]) for m in [*own, *(["entropy"] if "entropy" in runs else [])]
        ]
    inf = _datasift_inf(runs)
    if len(inf) > 1:  # DataSift-Inf's accuracy_weight sweep
        out["datasift-inf"] = [FrontPoint.of(m, runs[m]) for m in inf]
    out["falcon"] = [FrontPoint.of(m, runs[m]) for m in runs if m.startswith("falcon ")]
    return out


#: The key (in :func:`fronts`) and the name of fairacq's row strategy's front.
OWN, OWN_NAME = "own", "fairacq's row strategy"


def own_methods(labels: Iterable[str]) -> list[str]:
    """Return the labels of fairacq's row strategy (``threshold-aware tol=<t>``), in order."""
    return [m for m in labels if parse_method(m)[0] == "threshold-aware"]


def _datasift_inf(labels: Iterable[str]) -> list[str]:
    """Return the DataSift-Inf labels (its accuracy_weight settings), in order."""
    return [m for m in labels if parse_method(m)[0] == "datasift-inf"]


def post_setting(method: str) -> tuple[str, str] | None:
    """Return a post-thresholds label's (row policy, placement); None for other methods.

    The experiments steer demographic parity with an in-memory pool, where the default
    placement (``"auto"``) is the pool.
    """
    name, params = parse_method(method)
    if name != "post-thresholds":
        return None
    placement = str(params.get("placement", "auto")).replace("auto", "pool")
    return str(params.get("policy", "random")), placement


def _front_name(key: str) -> str:
    if key == "datasift-inf":
        return "DataSift-Inf, accuracy_weight sweep"
    if key == OWN:
        return (
            "rows closest to their group's threshold, tol grid fixed before the runs, Entropy "
            "at its end"
        )
    _, policy, placement = key.split(" ")
    end, _, rows = POLICY_FRONTS[policy]
    return (
        f"{rows}, thresholds {PLACEMENTS[placement][0]}, tol sweep, {end.capitalize()} at its end"
    )


def _front_verdicts(run: _Dataset) -> list[Verdict]:
    """Each of fairacq's fronts against Falcon's λ front, at equal labels seen.

    fairacq's row strategy is also set against collecting nothing.
    """
    front = fronts(run)
    out = _own_against_nothing(run, front.get(OWN, []))
    if not front["falcon"]:
        return out
    words = {"datasift-inf": "fairacq's", OWN: OWN_NAME}
    return [
        front_verdict(
            f"{run.name}: {words.get(key, _POST)} front ({_front_name(key)}) dominates "
            f"Falcon's λ front at equal labels seen (<= {run.labels:g})",
            points,
            front["falcon"],
            facts={"front": key, "against": "falcon"},
        )
        for key, points in front.items()
        if key != "falcon"
    ] + out


_POST = "fairacq's post-thresholds"


def _own_against_nothing(run: _Dataset, own: list[FrontPoint]) -> list[Verdict]:
    """Check the row strategy's front against ThresholdOptimizer on the initial data.

    Met when the front's |DP| at the mitigation's accuracy is no higher and lower by more
    than the seeds' spread (:func:`front_verdict` with the mitigation as the one point).
    """
    if not own or not run.mitigation:
        return []
    nothing = FrontPoint.of(
        MITIGATION, [{"acc": r["test_accuracy"], "dp": r["test_dp"]} for r in run.mitigation]
    )
    return [
        front_verdict(
            f"{run.name}: {OWN_NAME} front is below ThresholdOptimizer on the initial data "
            "(collect nothing) by more than the seeds' spread",
            own,
            [nothing],
            facts={"front": OWN, "against": MITIGATION},
        )
    ]


def _verdicts(run: _Dataset) -> list[Verdict]:
    """Honest comparisons between Falcon λ=1 and the others (only those that ran)."""
    out: list[Verdict] = []
    f1, f0 = "falcon lam=1", "falcon lam=0"
    if f1 not in run.final:
        return out
    dp1, acc1, n = run.mean(f1, "dp"), run.mean(f1, "acc"), run.name
    out += _datasift_verdicts(run)
    if f0 in run.final:
        out.append(
            Verdict.check(
                f"{n}: Falcon's λ sweep is a front (|DP| at λ=1 below λ=0)",
                dp1,
                "<=",
                run.mean(f0, "dp"),
                detail=f"accuracy {acc1:.3f} at λ=1 vs {run.mean(f0, 'acc'):.3f} at λ=0.",
            )
        )
    if "random" in run.final:
        out.append(
            Verdict.check(
                f"{n}: Falcon λ=1 ends with lower |DP| than Random at equal labels seen",
                dp1,
                "<=",
                run.mean("random", "dp"),
                detail=f"accuracy {acc1:.3f} vs {run.mean('random', 'acc'):.3f}; start |DP| "
                f"{run.mean(f1, 'start_dp'):.3f}.",
            )
        )
    if run.mitigation:
        dp_m = float(np.mean([r["test_dp"] for r in run.mitigation]))
        acc_m = float(np.mean([r["test_accuracy"] for r in run.mitigation]))
        out.append(
            Verdict.check(
                f"{n}: acquiring with Falcon λ=1 reaches lower |DP| than ThresholdOptimizer "
                "on the initial data (collect nothing)",
                dp1,
                "<=",
                dp_m,
                detail=f"accuracy {acc1:.3f} vs {acc_m:.3f}.",
            )
        )
    return out


def _datasift_verdicts(run: _Dataset) -> list[Verdict]:
    """Falcon λ=1 against DataSift-Inf: final, at equal labels seen, at equal rows paid."""
    out: list[Verdict] = []
    f1, n = "falcon lam=1", run.name
    if "datasift-inf" not in run.final:
        return out
    dp1, acc1 = run.mean(f1, "dp"), run.mean(f1, "acc")
    dp_d, acc_d = run.mean("datasift-inf", "dp"), run.mean("datasift-inf", "acc")
    matched = acc1 >= acc_d - 0.01
    out.append(
        Verdict(
            name=f"{n}: Falcon λ=1 reaches lower |DP| than DataSift-Inf at matched "
            "accuracy (Falcon's accuracy at most 1 point below)",
            met=bool(dp1 < dp_d and matched),
            ours=dp1,
            target=dp_d,
            op="<=",
            detail=f"|DP| {dp1:.3f} vs {dp_d:.3f}; accuracy {acc1:.3f} vs {acc_d:.3f}"
            f" ({'matched' if matched else 'not matched'}). Rows paid "
            f"{run.mean(f1, 'rows_paid'):.0f} vs {run.mean('datasift-inf', 'rows_paid'):.0f}"
            f", labels seen {run.mean(f1, 'labels_seen'):.0f} vs "
            f"{run.mean('datasift-inf', 'labels_seen'):.0f}; at equal labels seen "
            f"(<= {run.labels:g}) DataSift-Inf's |DP| is "
            f"{run.mean('datasift-inf', 'dp', 'labels'):.3f}, at equal rows paid "
            f"(<= {run.paid:g}) Falcon λ=1's is {run.mean(f1, 'dp', 'paid'):.3f}.",
        )
    )

    for where, word, at in (
        ("labels", "labels seen", run.labels),
        ("paid", "rows paid", run.paid),
    ):
        out.append(
            Verdict.check(
                f"{n}: Falcon λ=1 has lower |DP| than DataSift-Inf at equal {word} (<= {at:g})",
                run.mean(f1, "dp", where),
                "<=",
                run.mean("datasift-inf", "dp", where),
                detail=f"accuracy {run.mean(f1, 'acc', where):.3f} vs "
                f"{run.mean('datasift-inf', 'acc', where):.3f}.",
            )
        )
    return out


def _figure(runs: list[_Dataset]) -> Any:
    """Accuracy vs |DP| per method (mean ± std over seeds), Falcon's λ front joined."""
    fig = new_figure(5.5 * len(runs) + 2.5, 4.5)  # the legend beside the last panel
    axes = np.atleast_1d(fig.subplots(1, len(runs)))
    for ax, run in zip(axes, runs, strict=True):
        falcon = sorted(
            (m for m in run.final if m.startswith("falcon lam=")),
            key=lambda m: float(parse_method(m)[1]["lam"]),
        )
        for method, finals in run.final.items():
            if post_setting(method) or method in own_methods([method]):
                continue
            acc = np.array([r["acc"] for r in finals])
            dp = np.array([r["dp"] for r in finals])
            ax.errorbar(
                acc.mean(),
                dp.mean(),
                xerr=acc.std(),
                yerr=dp.std(),
                fmt="o",
                capsize=3,
                label=method,
            )
        _join(ax, run, falcon, "k--", "Falcon λ front")
        inf = sorted(_datasift_inf(run.final), key=lambda m: run.mean(m, "acc"))
        _join(ax, run, inf, ":", "DataSift-Inf accuracy_weight front", color="0.3")
        _draw_fairacq_front(ax, run)
        _draw_own_front(ax, run)
        if run.mitigation:
            acc = np.array([r["test_accuracy"] for r in run.mitigation])
            dp = np.array([r["test_dp"] for r in run.mitigation])
            ax.errorbar(
                acc.mean(),
                dp.mean(),
                xerr=acc.std(),
                yerr=dp.std(),
                fmt="*",
                ms=12,
                capsize=3,
                color="k",
                label="ThresholdOptimizer (no data)",
            )
        first = next(iter(run.final.values()))
        ax.plot(
            np.mean([r["start_acc"] for r in first]),
            np.mean([r["start_dp"] for r in first]),
            "x",
            color="0.4",
            ms=9,
            label="initial model",
        )
        ax.set_xlabel("test accuracy")
        ax.set_ylabel("test demographic parity gap (lower is fairer)")
        ax.set_title(run.name)
        ax.grid(True, alpha=0.3)
    axes[-1].legend(frameon=False, fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


def _join(ax: Any, run: _Dataset, methods: list[str], style: str, label: str, **kw: Any) -> None:
    """Join the methods' mean (accuracy, |DP|) points in order, when there are two or more."""
    if len(methods) > 1:
        acc = [run.mean(m, "acc") for m in methods]
        ax.plot(acc, [run.mean(m, "dp") for m in methods], style, lw=0.9, label=label, **kw)


def _draw_fairacq_front(ax: Any, run: _Dataset) -> None:
    """Each post-thresholds front joined by accuracy, with a band of one seed std."""
    for key, points in fronts(run, "final").items():
        if key == "falcon" or not any(post_setting(p.label) for p in points):
            continue
        _, policy, placement = key.split(" ")
        color, style = POLICY_FRONTS[policy][1], PLACEMENTS[placement][1]
        points = sorted(points, key=lambda p: p.acc)
        acc = np.array([p.acc for p in points])
        dp, std = np.array([p.dp for p in points]), np.array([p.dp_std for p in points])
        if placement == "pool":
            ax.fill_between(acc, np.clip(dp - std, 0, None), dp + std, color=color, alpha=0.12)
        label = f"fairacq post-thresholds: {POLICY_FRONTS[policy][2]}, {PLACEMENTS[placement][0]}"
        ax.plot(acc, dp, style, marker="s", color=color, ms=4, lw=1.6, label=label)


def _draw_own_front(ax: Any, run: _Dataset) -> None:
    """Draw the row strategy's tol grid joined by accuracy, with a band of one seed std."""
    points = sorted(fronts(run, "final").get(OWN, []), key=lambda p: p.acc)
    if not points:
        return
    acc = np.array([p.acc for p in points])
    dp, std = np.array([p.dp for p in points]), np.array([p.dp_std for p in points])
    ax.fill_between(acc, np.clip(dp - std, 0, None), dp + std, color="crimson", alpha=0.12)
    ax.plot(acc, dp, "-", marker="D", color="crimson", ms=4, lw=1.8, label=OWN_NAME)


def _notes(config: RowsConfig, runs: list[_Dataset], missing: list[str]) -> list[str]:
    notes = [
        "Split per (group, label) cell: train : validation : pool : test = 1 : 1 : 8 : 4; "
        "logistic regression (lbfgs, C=1, standardised); demographic parity on validation "
        "steers, test is reported. Budgets (rows paid) and batches: "
        + ", ".join(
            f"{d} {b} x {s}"
            for d, b, s in zip(config.datasets, config.budgets, config.batch_sizes, strict=True)
        )
        + f". Race and sex {'are' if config.include_sensitive else 'are not'} among the "
        "features. DataSift-Inf keeps paper 000's accounting (a rejected row is not paid), "
        f"with tau={config.datasift_tau:g}; FAL scores its {config.fal_candidates} most "
        f"uncertain rows (alpha {config.fal_alpha:g}).",
    ]
    if any(post_setting(m) for m in config.methods):
        notes.append(
            "fairacq's fronts: post-thresholds (rows bought at random, or the most uncertain "
            "first with policy=entropy; then each group's selection rate chosen on the "
            "validation rows so that the rates differ by at most tol, and its threshold "
            "placed at the matching quantile of the model's probabilities over the pool's "
            "rows, labels not read; placement=validation places fairlearn's randomised "
            "thresholds on the validation rows instead) over its tol sweep, with Random or "
            "Entropy (the same rows, no thresholds) as its no-threshold end; read at "
            "Falcon's accuracies, a coin between two of its points counts "
            "(docs/paper-notes/peers-rows.md)."
        )
    if own_methods(config.methods):
        notes.append(
            f"{OWN_NAME} (threshold-aware): each round the current model gets group thresholds "
            "as post-thresholds places them (validation picks the rates within tol, the pool "
            "places them) and the next batch is the pool rows whose probability is closest "
            "to their own group's threshold; only bought labels are read; the deployed model "
            "is the thresholded one. Its front is the tol grid fixed in the code before the "
            "held-out runs (fairacq.acquisition.OWN_FRONT_TOLS)."
        )
    for run in runs:
        notes.append(
            f"{run.name}: matched points are labels seen <= {run.labels:g} and rows paid <= "
            f"{run.paid:g} (the smallest final count of any method); a method that paid or "
            "saw fewer is read at its end."
        )
    for name in missing:
        notes.append(
            f"{name}: skipped, its data files are not present (needs_data; "
            f"`fairacq datasets fetch {name}` for the states used)."
        )
    if config.max_rows is not None:
        notes.append(
            f"Quick preset: each dataset subsampled to {config.max_rows} rows, "
            f"{config.n_trials} seed(s); numbers are indicative only."
        )
    return notes


register(
    ExperimentSpec(
        name="peers-rows",
        family="acquisition",
        paper="peers: Falcon (PVLDB 2024), FAL (ESWA 2022) beside paper 000",
        title="COMPAS / Adult (/ ACS Income): Falcon λ front, fairacq post-thresholds front, "
        "FAL, DataSift-Inf, Entropy, Random, ThresholdOptimizer",
        config_cls=RowsConfig,
        run=run_rows,  # type: ignore[arg-type]
    )
)
