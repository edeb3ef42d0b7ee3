"""Per-step cost of a long DataSift-Inf run, and whole runs on streamed synthetic pools.

Two measurements, each run in its own process (so CPU time and peak memory are per run):

- ``steps``: one long DataSift-Inf run (LR, no early stop, small batches so that it takes
  many steps) on a synthetic pool held in memory; a callback notes the process CPU time
  after every step. Reported: the median CPU time of a step around step 10 and around step
  1,000 (21 steps each), and their ratio (the goal is at most 1.5: a step costs the same
  whatever the run's history).
- ``run``: DataSift-Inf with the defaults (``kept`` cost model), budget 2,000 and batch 200,
  on a streamed synthetic Parquet pool (20 numeric features, a 3-valued group, row groups
  of 65,536 rows): CPU seconds, evaluations, peak memory.

Usage::

    python benchmarks/step_cost.py            # steps (pool 10^5, 1,030 steps) + runs at 10^5, 10^6
    python benchmarks/step_cost.py --quick    # steps only, pool 2x10^4, 230 steps, in this process
    python benchmarks/step_cost.py 100000 4000000   # steps + runs at these pool sizes

Writes ``step_cost.json`` (``benchmarks/out/`` or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from _common import parse_args, report

N_FEATURES, N_GROUPS, ROW_GROUP, PIECE, SEED = 20, 3, 65_536, 100_000, 0
WINDOW = 10  # steps either side of the measured step


def _frame(n: int, rng: Any, *, skew: bool) -> Any:
    """``n`` synthetic rows: group-shifted features, a label whose base rate differs by group."""
    import numpy as np
    import pandas as pd

    p = [0.8, 0.15, 0.05] if skew else [0.5, 0.3, 0.2]
    group = rng.choice(N_GROUPS, size=n, p=p)
    X = rng.standard_normal((n, N_FEATURES)) + 0.5 * group[:, None] * (np.arange(N_FEATURES) < 5)
    w = np.linspace(1.0, -1.0, N_FEATURES)
    logit = X @ w / 3 + np.array([0.8, -0.4, -1.0])[group]
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(N_FEATURES)])
    return frame.assign(label=y, group=np.array(["a", "b", "c"])[group])


def _dataset(frame: Any, name: str) -> Any:
    from fairacq.data import FairDataset

    cols = [f"x{i}" for i in range(N_FEATURES)]
    return FairDataset(frame[cols], frame["label"], frame[["group"]], privileged="a", name=name)


def _splits() -> dict[str, Any]:
    import numpy as np

    rng = np.random.default_rng(SEED)
    return {
        "train": _dataset(_frame(2_000, rng, skew=True), "train"),
        "validation": _dataset(_frame(2_000, rng, skew=False), "validation"),
        "test": _dataset(_frame(2_000, rng, skew=False), "test"),
    }


def _write_pool(rows: int, path: Path) -> None:
    """Write a pool of ``rows`` rows to Parquet piece by piece (never all of it in memory)."""
    import numpy as np
    from _pools import write_pieces

    rng = np.random.default_rng(SEED + 1)
    pieces = (_frame(min(PIECE, rows - s), rng, skew=False) for s in range(0, rows, PIECE))
    write_pieces(path, pieces, ROW_GROUP)


def _steps(pool_rows: int, n_steps: int, late: int) -> dict[str, Any]:
    """CPU time per step of a long DataSift-Inf run; median near step 10 and near ``late``."""
    import numpy as np

    from fairacq.acquisition import DataSiftInfAcquirer, PartitionDroppedWarning

    parts = _splits()
    pool = _dataset(_frame(pool_rows, np.random.default_rng(SEED + 1), skew=False), "pool")
    marks: list[float] = []

    def note(recorder: Any) -> bool:
        marks.append(time.process_time())
        return True

    acquirer = DataSiftInfAcquirer(
        budget=2_000, batch_size=20, tau=0.0, max_evaluations=n_steps, n_partitions=4,
        random_state=SEED,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        acquirer.fit(parts["train"], pool, validation=parts["validation"], callbacks=[note])
    per_step = np.diff(marks)  # per_step[i]: the CPU time of step i + 2

    def around(step: int) -> float:
        lo = max(step - 2 - WINDOW, 0)
        return 1e3 * statistics.median(per_step[lo : step - 2 + WINDOW + 1])

    early, later = around(10), around(late)
    return {
        "pool": pool_rows,
        "steps": len(marks),
        "late_step": late,
        "step10_ms": early,
        "late_ms": later,
        "ratio": later / early,
    }


def _run(path: Path) -> dict[str, Any]:
    """A default DataSift-Inf run (budget 2,000, batch 200) on the streamed pool at ``path``."""
    from fairacq.acquisition import DataSiftInfAcquirer, ParquetPool, PartitionDroppedWarning

    parts = _splits()
    pool = ParquetPool(path, like=parts["train"], sensitive="group", chunk_rows=ROW_GROUP)
    acquirer = DataSiftInfAcquirer(budget=2_000, batch_size=200, random_state=SEED)
    cpu = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        trace = acquirer.fit(
            parts["train"], pool, validation=parts["validation"], test=parts["test"]
        ).trace_
    return {
        "pool": len(pool),
        "cpu_s": time.process_time() - cpu,
        "evaluations": acquirer.n_evaluations_,
        "prepare_s": acquirer.timings_["prepare_s"],
        "stop_reason": acquirer.stop_reason_,
        "final_test_dp": float(trace.final("test_demographic_parity_diff_abs")),
        "acquired_head": acquirer.acquired_[:5].tolist(),
    }


def _child(args: list[str]) -> None:
    if args[0] == "steps":
        out = _steps(int(args[1]), int(args[2]), int(args[3]))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "pool.parquet"
            _write_pool(int(args[1]), path)
            out = _run(path)
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def _in_child(*args: str) -> dict[str, Any]:
    res = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True
    )
    if res.returncode:
        raise SystemExit(f"step_cost {' '.join(args)} failed:\n{res.stderr[-3000:]}")
    return dict(json.loads(res.stdout.strip().splitlines()[-1]))


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("rows", nargs="*", type=int, help="pool sizes of the whole runs")
    args = parse_args(parser, argv)
    if args.quick:  # a smoke run: no whole runs, the steps here (no fresh interpreter)
        rows = [{"measure": "steps", **_steps(20_000, 230, 200)}]
    else:
        rows = [{"measure": "steps", **_in_child("steps", "100000", "1030", "1000")}]
        runs = args.rows or [100_000, 1_000_000]
        rows += [{"measure": "run", **_in_child("run", str(n))} for n in runs]
    keys = dict.fromkeys(k for r in rows for k in r)
    report("step_cost", [{k: r.get(k, "") for k in keys} for r in rows])


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2:])
    else:
        main(sys.argv[1:])
