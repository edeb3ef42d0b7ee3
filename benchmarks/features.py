"""DADI training speed: time per iteration, projected to the full preset.

Prints a table and writes ``benchmarks/out/features.json``. Issue 6 asks for the full preset
of one gamma (10,000 pre-training + 10,000 joint iterations, batch 64, 64 parallel episodes)
in under 15 minutes on 2 CPU cores. This script fits short runs (pre-training only, then
pre-training + joint training) in one process with one thread and projects the full run from
the per-iteration times, on Adult (sex) and, when its PUMS files are under
``$FAIRACQ_DATA``, ACS Income of the 14 bundled states (sex; 776 columns in 10 groups), each
with both ``set_elements``: every observed column an element (Appendix A) or one element per
observed one-hot group (``"hot"``). The wall time of a full Adult run on an idle machine was
875.7 s (docs/paper-notes/features.md).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import torch
from _common import parse_args, report

from fairacq.data import load_dataset
from fairacq.data.splits import split_dadi
from fairacq.features import DADI
from fairacq_experiments.dadi import DadiFig2SecondConfig, resolve_second_dataset

FULL_PRE, FULL_JOINT = 10_000, 10_000


def _fit(split: Any, set_elements: str, n_pre: int, n_joint: int) -> float:
    agent = DADI(
        gamma=0.5,
        n_pretrain_iter=n_pre,
        n_train_iter=n_joint,
        set_elements=set_elements,
        random_state=0,
    )
    start = time.process_time()
    agent.fit(split.train, validation=split.validation)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=300, help="short-run iterations")
    args = parse_args(parser)
    n = 2 if args.quick else args.iterations
    torch.set_num_threads(1)
    datasets: dict[str, dict[str, Any]] = {"adult": {}}
    second, _, kwargs = resolve_second_dataset(DadiFig2SecondConfig())  # every bundled state
    if second == "acs-income" and not args.quick:
        datasets[second] = kwargs
    rows = []
    for name, kwargs in datasets.items():
        data = load_dataset(name, sensitive="sex", include_sensitive_features=True, **kwargs)
        split = split_dadi(data, fold=0, random_state=0)
        for set_elements in ("hot",) if args.quick else ("columns", "hot"):
            pre = _fit(split, set_elements, n, 0)
            per_pre, per_joint = pre / n, (_fit(split, set_elements, n, n) - pre) / n
            rows.append(
                {
                    "dataset": name,
                    "columns": data.X.shape[1],
                    "set_elements": set_elements,
                    "pretrain_ms_per_iter": 1000 * per_pre,
                    "joint_ms_per_iter": 1000 * per_joint,
                    "projected_full_cpu_s": per_pre * FULL_PRE + per_joint * FULL_JOINT,
                }
            )
    report("features", rows)


if __name__ == "__main__":
    main()
