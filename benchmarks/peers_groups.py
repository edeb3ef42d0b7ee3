"""Worst-group test accuracy of the group samplers and their peers on Adult (race x sex).

Aopt (paper 001), Slice Tuner (Tae & Whang 2021), MinimaxFair (Diana et al. 2021),
Abernethy et al.'s epsilon-greedy (2022) and Uniform, each with its own defaults (and
Abernethy's rule with the exact logistic regression of the others, to tell the rule from
its averaged-SGD learner), at budgets
500, 1000 and 2000 (training plus paired validation draws), 3 trials with the same seeds, so
every method sees the same pool/test splits (``run_sampler_trials``). Prints mean and std
of the final worst-group test accuracy and the mean share of draws per group, and writes
``benchmarks/out/peers_groups.json`` (one row per method, budget and trial). About 10 minutes
on one thread. Findings: ``docs/paper-notes/peers-groups.md``.

Usage: ``python benchmarks/peers_groups.py [--budgets 500 1000] [--trials 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from _common import parse_args, report

from fairacq.data import load_dataset
from fairacq.sampling import run_sampler_trials

#: (label, registered name, parameters beyond the budget)
METHODS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("aopt", "aopt", {}),
    ("slice-tuner", "slice-tuner", {}),
    ("minimax-fair", "minimax-fair", {}),
    ("abernethy-greedy", "abernethy-greedy", {}),
    ("abernethy-greedy exact-LR", "abernethy-greedy", {"mode": "exact"}),
    ("uniform", "uniform", {}),
)


def _trial_rows(
    label: str, method: str, params: dict[str, Any], budget: int, trials: int
) -> list[dict[str, Any]]:
    data = load_dataset("adult").with_sensitive("race_binary", "sex")
    start = time.perf_counter()
    traces = run_sampler_trials(
        data, method, n_trials=trials, random_state=0, budget=budget, **params
    )
    wall = (time.perf_counter() - start) / trials
    rows = []
    for trial, trace in enumerate(traces):
        row: dict[str, Any] = {"method": label, "budget": budget, "trial": trial}
        row["test_worst_acc"] = float(trace.final("test_worst_acc"))
        for name in trace.meta["groups"]:
            row[f"pi_{name}"] = float(trace.final(f"pi_{name}"))
            row[f"test_acc_{name}"] = float(trace.final(f"test_acc_{name}"))
        rule = trace.meta.get("resume_state", {}).get("rule", {})
        if "a" in rule:  # Slice Tuner: its iterations and the last curves' largest exponent
            row["iterations"], row["max_exponent"] = rule["iteration"], max(rule["a"])
        row["wall_s"] = wall
        rows.append(row)
    return rows


def _summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for budget in sorted({r["budget"] for r in rows}):
        for method, _, _ in METHODS:
            mine = [r for r in rows if r["method"] == method and r["budget"] == budget]
            if not mine:
                continue
            worst = [r["test_worst_acc"] for r in mine]
            shares = {
                k: round(statistics.fmean(r[k] for r in mine), 3)
                for k in mine[0]
                if k.startswith("pi_")
            }
            out.append(
                {
                    "budget": budget,
                    "method": method,
                    "worst_acc_mean": statistics.fmean(worst),
                    "worst_acc_std": statistics.pstdev(worst),
                    "shares": " ".join(f"{v:.2f}" for v in shares.values()),
                    "wall_s": mine[0]["wall_s"],
                }
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 1000, 2000])
    parser.add_argument("--trials", type=int, default=3)
    args = parse_args(parser)
    budgets, trials, methods = args.budgets, args.trials, METHODS
    if args.quick:  # one small budget, one trial, two methods
        budgets, trials, methods = [100], 1, (METHODS[0], METHODS[-1])
    rows = [r for b in budgets for m in methods for r in _trial_rows(*m, b, trials)]
    report("peers_groups_trials", rows)
    report("peers_groups", _summary(rows))


if __name__ == "__main__":
    main()
