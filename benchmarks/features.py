"""DADI training speed on Adult (sex): time per iteration, projected to the full preset.

Prints a table and writes ``benchmarks/out/features.json``. Issue 6 asks for the full preset
of one gamma (10,000 pre-training + 10,000 joint iterations, batch 64, 64 parallel episodes)
in under 15 minutes on 2 CPU cores. This script fits short runs (pre-training only, then
pre-training + joint training) in one process with one thread and projects the full run from
the per-iteration times; the wall time of a full run on an idle machine was 875.7 s
(docs/paper-notes/features.md).
"""

from __future__ import annotations

import time

import torch
from _common import report

from fairacq.data import load_dataset
from fairacq.data.splits import split_dadi
from fairacq.features import DADI

N_PRE, N_JOINT = 300, 300
FULL_PRE, FULL_JOINT = 10_000, 10_000


def _fit(n_pre: int, n_joint: int) -> float:
    data = load_dataset("adult", sensitive="sex", include_sensitive_features=True)
    split = split_dadi(data, fold=0, random_state=0)
    agent = DADI(gamma=0.5, n_pretrain_iter=n_pre, n_train_iter=n_joint, random_state=0)
    start = time.process_time()
    agent.fit(split.train, validation=split.validation)
    return time.process_time() - start


def main() -> None:
    torch.set_num_threads(1)
    pre = _fit(N_PRE, 0)
    both = _fit(N_PRE, N_JOINT)
    per_pre, per_joint = pre / N_PRE, (both - pre) / N_JOINT
    rows = [
        {"phase": "pre-training (both networks)", "iterations": N_PRE, "cpu_s": pre,
         "ms_per_iteration": 1000 * per_pre},
        {"phase": "joint Q-learning", "iterations": N_JOINT, "cpu_s": both - pre,
         "ms_per_iteration": 1000 * per_joint},
        {"phase": "projected full preset", "iterations": FULL_PRE + FULL_JOINT,
         "cpu_s": per_pre * FULL_PRE + per_joint * FULL_JOINT, "ms_per_iteration": ""},
    ]  # fmt: skip
    report("features", rows)


if __name__ == "__main__":
    main()
